//! The tools agents call. Each file (or folder) holds one family; each tool's schema,
//! description and handler sit together in a [`Tool`], with the per-page state the family
//! keeps. This module is the registry the MCP layer sees: it lists the tools, checks
//! arguments against their schemas, and starts calls.

pub mod args;
pub mod call;
pub mod console;
pub mod ctx;
pub mod emulation;
pub mod exposed;
pub mod files;
pub mod input;
pub mod network;
pub mod pages;
// performance traces (issue 12)
pub mod performance;
pub mod response;
pub mod result;
pub mod screenshot;
pub mod script;
pub mod snapshot;
pub mod thirdparty;

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::browser::Host;
use crate::schema_problems;

use serde_json::{json, Map, Value};

pub use call::{error_text, fail, CallId, Outcome};
pub use ctx::Ctx;
pub use result::ToolResult;

/// A continuation of tool code.
pub type Done<T> = crate::browser::Done<Ctx, T>;
/// A continuation that several outcomes race for.
pub type Once<T> = crate::browser::Once<Ctx, T>;

pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    /// The `properties` of the input schema (and `required`, via [`Tool::required`]).
    pub properties: fn() -> Value,
    pub required: &'static [&'static str],
    pub read_only: bool,
    /// Works on one page: takes an optional `pageId`.
    pub page_scoped: bool,
    pub run: fn(&mut Ctx, CallId, Value),
}

impl Tool {
    pub fn input_schema(&self) -> Value {
        let mut props = match (self.properties)() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        if self.page_scoped {
            props.insert(
                "pageId".into(),
                json!({"type": "number", "minimum": 0, "maximum": args::max::ID, "description": "The page to work on (see list_pages). Defaults to the selected page."}),
            );
        }
        let mut schema = json!({
            "type": "object",
            "properties": props,
            "additionalProperties": false,
        });
        if !self.required.is_empty() {
            schema["required"] = json!(self.required);
        }
        schema
    }

    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema(),
            "annotations": {
                "readOnlyHint": self.read_only,
                "destructiveHint": false,
                "openWorldHint": true,
            },
        })
    }
}

/// Every tool, in the order `tools/list` shows them.
pub fn all() -> impl Iterator<Item = &'static Tool> {
    pages::TOOLS
        .iter()
        .chain(script::TOOLS)
        .chain(snapshot::TOOLS)
        .chain(thirdparty::TOOLS)
        .chain(input::TOOLS)
        .chain(screenshot::TOOLS)
        .chain(emulation::TOOLS)
        .chain(console::TOOLS)
        .chain(network::TOOLS)
        .chain(performance::TOOLS)
}

pub fn find(name: &str) -> Option<&'static Tool> {
    all().find(|t| t.name == name)
}

/// Every tool as `tools/list` shows it, the selected page's exposed tools last.
pub fn list(cx: &Ctx) -> Vec<Value> {
    let mut tools: Vec<Value> = all().map(Tool::to_json).collect();
    tools.extend(exposed::list(cx));
    tools
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
pub fn check_args(tool: &Tool, args: &Value) -> Option<String> {
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

/// Starts a call of tool `name`. Its answer arrives in [`Ctx::outbox`] (at once, when the
/// arguments are wrong). `Err`: there is no such tool.
pub fn call(cx: &mut Ctx, name: &str, args: Value) -> Result<CallId, String> {
    let Some(tool) = find(name) else {
        // As the reference (and the MCP SDKs) do: a protocol error, not a tool result.
        return exposed::call(cx, name, args).ok_or_else(|| format!("Tool {name} not found"));
    };
    let call = call::start(cx, tool.name);
    if let Some(problems) = check_args(tool, &args) {
        let text = format!("Input validation error: Invalid arguments for tool {name}: {problems}");
        call::finish(cx, call, ToolResult::error(text));
        return Ok(call);
    }
    if let Some(message) = files::refused(cx, &args) {
        fail(cx, call, message);
        return Ok(call);
    }
    cx.run_as(Some(call), |cx| (tool.run)(cx, call, args));
    Ok(call)
}

/// Answers the call as the reference words a call an open dialog blocks (the open-dialog
/// section, then the error) and returns true, when the page has a dialog open: until it is
/// handled, the browser holds every command that needs the page's main thread.
pub fn refuse_if_dialog(cx: &mut Ctx, call: CallId, page: u32) -> bool {
    let Some(d) = cx.browser.pages.get(page).and_then(|p| p.dialog.as_ref()) else {
        return false;
    };
    let text = format!(
        "{}\n{}",
        response::dialog_section(d),
        error_text(&format!("A dialog is open ({}: {}).", d.kind, d.message))
    );
    call::finish(cx, call, ToolResult::error(text));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn short_values_are_echoed_whole() {
        let text = problems("click_at", json!({"x": "left", "y": 1}));
        assert_eq!(text, "x: \"left\" is not of type \"number\"");
        let text = problems("click_at", json!({"x": 1e39, "y": 1}));
        assert_eq!(text, "x: 1e+39 is greater than the maximum of 10000000.0");
    }
}
