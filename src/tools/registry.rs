//! The registry the MCP layer sees: every tool of every family, which of them the settings
//! offer, their argument checks, and the start of a call.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::call::{self, CallId};
use super::ctx::Ctx;
use super::result::ToolResult;
use super::thirdparty::{self, exposed, webmcp};
use super::tool::Tool;
use super::{
    console, css, emulation, extensions, files, heap, input, memory, network, pages, performance,
    policies, pwa, screencast, screenshot, script, slim, snapshot,
};
use crate::browser::{AgentId, Host};
use crate::schema_problems;
use crate::settings::Settings;

/// Every tool of either mode (the regular ones, then `--slim`'s), in the order `tools/list`
/// shows them. A new family chains its `TOOLS` here; each `Tool` names its `category`.
pub(crate) fn all() -> impl Iterator<Item = &'static Tool> {
    pages::TOOLS
        .iter()
        .chain(script::TOOLS)
        .chain(snapshot::TOOLS)
        .chain(css::TOOLS)
        .chain(thirdparty::TOOLS)
        .chain(webmcp::TOOLS)
        .chain(input::TOOLS)
        .chain(screenshot::TOOLS)
        .chain(emulation::TOOLS)
        .chain(console::TOOLS)
        .chain(network::TOOLS)
        .chain(memory::TOOLS)
        .chain(heap::TOOLS)
        .chain(screencast::TOOLS)
        .chain(performance::TOOLS)
        .chain(extensions::TOOLS)
        .chain(pwa::TOOLS)
        // --slim's tools last: they replace all the others in that mode.
        .chain(slim::TOOLS)
}

/// Why the settings leave a tool out.
enum Hidden {
    /// `--slim` and the regular tools exclude each other: the tool is not registered at all.
    OtherMode,
    /// Its category's flag is off (or `--javascriptEvaluation=false`, or `click_at` without
    /// `--experimentalVision`): the reference registers the tool disabled.
    CategoryOff,
}

fn hidden(settings: &Settings, tool: &Tool) -> Option<Hidden> {
    if slim::is_slim(tool) != settings.slim {
        Some(Hidden::OtherMode)
    } else if !settings.categories.on(tool.category)
        || !policies::enabled(tool, settings)
        || (heap::needs_memory_debugging(tool) && !settings.memory_debugging)
    {
        Some(Hidden::CategoryOff)
    } else {
        None
    }
}

/// The tools these settings offer, in `tools/list` order.
pub(crate) fn offered(settings: &Settings) -> impl Iterator<Item = &'static Tool> + '_ {
    all().filter(|t| hidden(settings, t).is_none())
}

/// Whether one of the server's own tools takes `name` (an exposed page tool may not).
fn reserved(name: &str) -> bool {
    find(name).is_some()
}

pub(crate) fn find(name: &str) -> Option<&'static Tool> {
    all().find(|t| t.name == name)
}

/// Every tool as `tools/list` shows it to `agent`, its selected page's exposed tools last.
pub(crate) fn list(cx: &Ctx, agent: AgentId) -> Vec<Value> {
    // The reference's newer flags shape what is left: pageId required, defaults.
    let p = &cx.settings.policies;
    let mut tools: Vec<Value> = offered(&cx.settings)
        .map(|t| policies::shape(t, t.to_json(), p))
        .collect();
    tools.extend(exposed::list(cx, agent, &reserved));
    tools
}

/// Lean browser, `--prelaunch`: starts the browser now, before any call needs it, so the first
/// call finds it up. A failure is logged; the first call that needs the browser tries again
/// and reports it.
pub(crate) fn prelaunch(cx: &mut Ctx) {
    crate::browser::ready(
        cx,
        Box::new(|_, started| {
            if let Err(e) = started {
                crate::log::log!("--prelaunch: {e}");
            }
        }),
    );
}

/// Compiled argument validators, one per tool, built on first use.
fn validators() -> &'static HashMap<&'static str, jsonschema::Validator> {
    static V: OnceLock<HashMap<&'static str, jsonschema::Validator>> = OnceLock::new();
    V.get_or_init(|| {
        all()
            .filter_map(|t| {
                jsonschema::validator_for(&t.input_schema())
                    .ok()
                    .map(|v| (t.name, v))
            })
            .collect()
    })
}

/// Names every way `args` break the tool's schema, or `None` when they fit (bounded: see
/// `schema_problems`).
pub(crate) fn check_args(tool: &Tool, args: &Value) -> Option<String> {
    let v = validators().get(tool.name)?;
    let problems = schema_problems::bounded(v.iter_errors(args), |path, message| {
        if path.is_empty() {
            message
        } else {
            format!("{}: {message}", path.trim_start_matches('/'))
        }
    });
    (!problems.is_empty()).then(|| problems.join("; "))
}

/// Starts a call of tool `name` for `agent`. Its answer arrives in [`Ctx::outbox`] (at once, when the
/// arguments are wrong). `Err`: there is no such tool, or a flag turned it off.
pub(crate) fn call(
    cx: &mut Ctx,
    agent: AgentId,
    name: &str,
    args: Value,
) -> Result<CallId, String> {
    let Some(tool) = find(name) else {
        // As the reference (and the MCP SDKs) do: a protocol error, not a tool result.
        let exposed = exposed::call(cx, agent, name, args, &reserved);
        let echoed = || schema_problems::echoed(name);
        return exposed.ok_or_else(|| format!("Tool {} not found", echoed()));
    };
    // As the reference (its MCP SDK) answers these: protocol errors.
    match hidden(&cx.settings, tool) {
        Some(Hidden::OtherMode) => return Err(format!("Tool {name} not found")),
        Some(Hidden::CategoryOff) => return Err(format!("Tool {name} disabled")),
        None => {}
    }
    let call = call::start(cx, agent, tool.name);
    let problems =
        check_args(tool, &args).or_else(|| policies::problems(tool, &args, &cx.settings.policies));
    if let Some(problems) = problems {
        let text = format!("Input validation error: Invalid arguments for tool {name}: {problems}");
        call::finish(cx, call, ToolResult::error(text));
        return Ok(call);
    }
    if let Some(message) = files::refused(cx, call, &args) {
        call::fail(cx, call, message);
        return Ok(call);
    }
    cx.run_as(Some(call), |cx| (tool.run)(cx, call, args));
    Ok(call)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(tool: &str, args: Value) -> String {
        check_args(find(tool).unwrap(), &args).unwrap_or_default()
    }

    #[test]
    fn a_huge_argument_gives_a_short_error() {
        let huge = "x".repeat(1_100_000);
        let text = problems("list_console_messages", json!({"serviceWorkerId": huge}));
        assert!(text.len() < 1000, "{} chars", text.len());
        assert!(
            text.starts_with(&format!("serviceWorkerId: \"{}…", "x".repeat(99))),
            "{text}"
        );
        // One bad item after another: a few are named, the rest counted.
        let types = vec!["nope"; 20_000];
        let text = problems("list_console_messages", json!({"types": types}));
        assert!(text.len() < 10_000, "{} chars", text.len());
        assert!(text.ends_with(" more"), "{}", &text[text.len() - 100..]);
        let key = "k".repeat(1_100_000);
        let text = problems("list_pages", json!({ key: 1 }));
        assert!(text.len() < 1000, "{} chars", text.len());
    }

    #[test]
    fn the_listed_schema_keeps_meaningful_limits_only() {
        let listed = |name: &str| find(name).map(Tool::to_json).unwrap_or_default();
        let emulate = listed("emulate");
        let rate = &emulate["inputSchema"]["properties"]["cpuThrottlingRate"];
        assert_eq!(
            (&rate["minimum"], &rate["maximum"]),
            (&json!(1), &json!(20))
        );
        assert!(emulate["inputSchema"].get("additionalProperties").is_none());
        let page = &emulate["inputSchema"]["properties"]["pageId"];
        assert_eq!(page["type"], "number");
        assert!(page.get("maximum").is_none() && page.get("minimum").is_none());
        let wait = listed("wait_for");
        let text = &wait["inputSchema"]["properties"]["text"];
        assert!(text.get("maxItems").is_none() && text["items"].get("maxLength").is_none());
        assert_eq!(text["minItems"], 1);
        // The check before a call still has them.
        let too_many = problems("wait_for", json!({"text": vec!["x"; 1001]}));
        assert!(too_many.contains("more than 1000 items"), "{too_many}");
    }

    #[test]
    fn short_values_are_echoed_whole() {
        let text = problems("click_at", json!({"x": "left", "y": 1}));
        assert_eq!(text, "x: \"left\" is not of type \"number\"");
        let text = problems("click_at", json!({"x": 1e39, "y": 1}));
        assert_eq!(text, "x: 1e+39 is greater than the maximum of 10000000.0");
    }
}

/// Every tool's listed entry and whole input schema, as one file kept beside the tests: a
/// change to any name, description or schema shows up as a diff of it. Regenerate with
/// `UPDATE_TOOL_SCHEMAS=1 cargo test --lib tool_schemas`.
#[cfg(test)]
mod schemas {
    #[test]
    fn tool_schemas_are_what_they_were() {
        let entries: Vec<serde_json::Value> = super::all()
            .map(|t| serde_json::json!({"listed": t.to_json(), "checked": t.input_schema()}))
            .collect();
        let text = serde_json::to_string_pretty(&entries).unwrap() + "\n";
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/tool_schemas.json"
        );
        if std::env::var_os("UPDATE_TOOL_SCHEMAS").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        let kept = std::fs::read_to_string(path).unwrap_or_default();
        assert!(kept == text, "tool schemas changed: see git diff {path}");
    }
}

/// Every argument of every built-in tool is bounded in its schema, so the schema check that
/// runs before any work refuses an oversized value (a string's `maxLength`, an array's
/// `maxItems`, a number's `minimum`/`maximum`). A new unbounded argument fails here.
#[cfg(test)]
mod bounds {
    use serde_json::Value;

    /// The unbounded places under `schema`, named by their path from the tool.
    fn unbounded(path: &str, schema: &Value, out: &mut Vec<String>) {
        let has = |k: &str| schema.get(k).is_some();
        let types: Vec<&str> = match &schema["type"] {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        for t in &types {
            let ok = match *t {
                "string" => has("maxLength") || has("enum") || has("const"),
                "array" => has("maxItems"),
                "number" | "integer" => {
                    (has("minimum") || has("exclusiveMinimum"))
                        && (has("maximum") || has("exclusiveMaximum"))
                        || has("enum")
                }
                _ => true,
            };
            if !ok {
                out.push(format!("{path} ({t})"));
            }
        }
        if let Some(props) = schema["properties"].as_object() {
            for (name, p) in props {
                unbounded(&format!("{path}.{name}"), p, out);
            }
        }
        if let Some(items) = schema.get("items") {
            unbounded(&format!("{path}[]"), items, out);
        }
        if let Some(extra) = schema.get("additionalProperties").filter(|v| v.is_object()) {
            unbounded(&format!("{path}.*"), extra, out);
        }
    }

    #[test]
    fn every_argument_of_every_tool_is_bounded() {
        let mut out = Vec::new();
        for tool in super::all() {
            unbounded(tool.name, &tool.input_schema(), &mut out);
        }
        assert!(out.is_empty(), "unbounded arguments:\n{}", out.join("\n"));
    }
}
