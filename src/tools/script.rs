//! `evaluate_script`: run a function in the page and return its value as JSON.

use crate::browser::PageId;
use crate::tools::args::Schema;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::args::{max, Shared};
use super::response::{finish, Response};
use super::{fail, Tool};
use crate::browser::{self, pages};
use crate::cdp::generated::runtime;
use crate::error::Error;
use crate::pagetools::page_code;
use crate::settings::Category;
use crate::tools::call;
use crate::tools::ctx::DialogPolicy;
use crate::tools::dialogs;
use crate::tools::files::{self, Roots};
use crate::tools::CallId;
use crate::tools::Ctx;

pub const TOOLS: &[Tool] = &[Tool {
    name: "evaluate_script",
    description: "Run a JS function in the page; returns its result as JSON. Page tools are callable as window.__dtmcp.executeTool(name, params).",
    args: Schema {
        properties: || {
        json!({
            "function": {"type": "string", "maxLength": max::SCRIPT, "description": "e.g. () => document.title, or (el) => el.innerText with args"},
            "args": {"type": "array", "maxItems": max::ITEMS, "items": {"type": "string", "maxLength": max::UID}, "description": "Element uids passed as arguments"},
            "format": {"type": "string", "enum": ["function", "script"], "description": "script: classic script, its completion value returned"},
            "sourcePath": {"type": "string", "maxLength": max::PATH, "description": "Read the source from this file"},
            "filePath": {"type": "string", "maxLength": max::PATH, "description": "Save the result here"},
            "dialogAction": {"type": "string", "maxLength": max::TEXT, "description": "accept (default), dismiss, or a prompt's answer"},
            "waitForStableDom": {"type": "boolean", "description": "Wait for DOM changes to settle (default true)"},
            "timeout": {"type": "integer", "minimum": 0, "maximum": max::TIMEOUT_MS, "description": "ms (default: --toolTimeout)"},
        })
    },
        required: &[],
    },
    read_only: false,
    page_scoped: true,
    category: Category::Debugging,
    run: evaluate_script,
}];

/// How long the DOM must be quiet to count as settled, and the most we wait for that.
const SETTLE_QUIET_MS: u32 = 100;
const SETTLE_MAX_MS: u32 = 3000;

#[derive(Deserialize)]
struct EvaluateArgs {
    function: Option<String>,
    /// Element uids passed to the function.
    #[serde(default)]
    args: Vec<String>,
    format: Option<String>,
    #[serde(rename = "sourcePath")]
    source_path: Option<String>,
    #[serde(rename = "dialogAction")]
    dialog_action: Option<String>,
    #[serde(rename = "waitForStableDom")]
    wait_for_stable_dom: Option<bool>,
    #[serde(flatten)]
    shared: Shared,
}

struct Script {
    source: String,
    format_script: bool,
    uids: Vec<String>,
    file_path: Option<String>,
    dialog_action: DialogPolicy,
    wait_for_stable_dom: bool,
    timeout: Duration,
}

impl Script {
    fn from_args(cx: &Ctx, args: EvaluateArgs) -> Result<Script, Error> {
        let source = match (args.function, &args.source_path) {
            (Some(f), None) => f,
            (None, Some(path)) => {
                let could_not =
                    |e: &std::io::Error| format!("Unable to read script source from {path}: {e}");
                files::read_text(&Roots::of(cx), path, files::SOURCE_LIMIT)
                    .map_err(|f| Error::Invalid(f.text(could_not)))?
            }
            _ => {
                let one = "Specify exactly one of function or sourcePath.";
                return Err(Error::Invalid(one.into()));
            }
        };
        let format_script = args.format.as_deref() == Some("script");
        if format_script && !args.args.is_empty() {
            let no_args = "args cannot be used when format is \"script\".";
            return Err(Error::Invalid(no_args.into()));
        }
        Ok(Script {
            source,
            format_script,
            uids: args.args,
            timeout: args.shared.timeout_or(cx.settings.tool_timeout),
            file_path: args.shared.file_path,
            dialog_action: DialogPolicy::parse(args.dialog_action.as_deref()),
            wait_for_stable_dom: args.wait_for_stable_dom.unwrap_or(true),
        })
    }
}

fn evaluate_script(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<EvaluateArgs>(cx, call, args) else {
        return;
    };
    let requested = args.shared.page();
    let script = match Script::from_args(cx, args) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    call::limit(
        cx,
        call,
        script.timeout,
        format!(
            "evaluate_script timed out after {} ms: the script did not settle.",
            script.timeout.as_millis()
        ),
    );
    call::on_live_page(cx, call, requested, move |cx, page| {
        if dialogs::refuse(cx, call, page) {
            return;
        }
        let uids = script.uids.clone();
        let resolved = move |cx: &mut Ctx, r: Result<Vec<String>, Error>| match r {
            Err(e) => fail(cx, call, e),
            Ok(objects) => run(cx, call, page, script, objects),
        };
        super::snapshot::resolve_uids(cx, page, uids, Box::new(resolved));
    });
}

fn wrapper(script: &Script) -> String {
    page_function(&script.source, script.format_script)
}

/// The page-side wrapper around `source` (a function, or a classic script when
/// `format_script`): runs the user's code, notes whether it touched the DOM, and returns
/// `[changedDom, JSON text or undefined]` in one round trip. Public so that `benches/calls.rs`
/// times the page's share of a call on this very function.
pub fn page_function(source: &str, format_script: bool) -> String {
    let body = if format_script {
        // Indirect eval: classic script semantics, global scope, completion value.
        format!(
            "(0, eval)({})",
            serde_json::to_string(source).unwrap_or_default()
        )
    } else {
        let src = source.trim_end().trim_end_matches(';');
        format!("(\n{src}\n)(...args)")
    };
    // Local names are prefixed so the user's function cannot see them in place of globals
    // (`stop` would otherwise shadow window.stop). The shim's own JSON.stringify and MutationObserver (captured before page scripts
    // ran) are used when present, so a page that replaced them changes nothing here.
    format!(
        "async function(...args) {{
  const __dtmcpShim = window.__dtmcp;
  const __dtmcpStop = __dtmcpShim && __dtmcpShim.observeDom ? __dtmcpShim.observeDom() : () => false;
  const __dtmcpJson = __dtmcpShim && __dtmcpShim.stringify ? __dtmcpShim.stringify : JSON.stringify;
  try {{
    const __dtmcpValue = await {body};
    await undefined;
    return [__dtmcpStop(), __dtmcpJson(__dtmcpValue)];
  }} finally {{
    __dtmcpStop();
  }}
}}"
    )
}

fn run(cx: &mut Ctx, call: CallId, page: PageId, script: Script, objects: Vec<String>) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    call::runs_page_code(cx, call, page, &session, Some(script.dialog_action.clone()));
    let context = cx.browser.pages.get(page).and_then(|p| p.context);
    if objects.is_empty() && context.is_none() {
        // No context known yet (a document still loading): evaluate instead.
        let request = runtime::EvaluateParams {
            expression: format!("({})()", wrapper(&script)),
            await_promise: Some(true),
            return_by_value: Some(true),
            ..Default::default()
        };
        browser::send(cx, Some(&session), request, move |cx, r| {
            let r = r.map(|a| (a.result, a.exception_details));
            answer(cx, call, page, script, r)
        });
        return;
    }
    let arguments = objects
        .iter()
        .map(|o| runtime::CallArgument {
            object_id: Some(o.clone()),
            ..Default::default()
        })
        .collect();
    // Without element arguments, the function is called on the global object of the main
    // frame's default context.
    let request = runtime::CallFunctionOnParams {
        function_declaration: wrapper(&script),
        arguments: Some(arguments),
        await_promise: Some(true),
        return_by_value: Some(true),
        object_id: objects.first().cloned(),
        execution_context_id: if objects.is_empty() { context } else { None },
        ..Default::default()
    };
    browser::send(cx, Some(&session), request, move |cx, r| {
        let r = r.map(|a| (a.result, a.exception_details));
        answer(cx, call, page, script, r)
    });
}

/// What the page answered: the wrapper's value, or what the page threw.
type Answer = (runtime::RemoteObject, Option<runtime::ExceptionDetails>);

fn answer(cx: &mut Ctx, call: CallId, page: PageId, script: Script, r: Result<Answer, Error>) {
    let (result, exception) = match r {
        Ok(a) => a,
        Err(e) => return fail(cx, call, page_code::page_error(e)),
    };
    if let Some(ex) = exception {
        return fail(cx, call, page_code::exception_message(&ex));
    }
    let (changed, text) = match result.value {
        // Moved out, not copied: the text can be a megabyte.
        Some(Value::Array(mut pair)) if pair.len() == 2 => match (pair.pop(), pair.pop()) {
            (Some(Value::String(text)), changed) => (changed == Some(Value::Bool(true)), text),
            (_, changed) => (changed == Some(Value::Bool(true)), "undefined".to_owned()),
        },
        _ => (false, "undefined".to_owned()),
    };
    let reply = move |cx: &mut Ctx| {
        let mut resp = Response::for_page(page);
        match script.file_path {
            Some(path) => match files::write_at(&Roots::of(cx), &path, text.as_bytes()) {
                Ok(_) => {
                    resp.line(format!("Script ran on page. Output saved to {path}."));
                }
                Err(f) => {
                    return fail(cx, call, f.text(|e| format!("Could not write {path}: {e}")))
                }
            },
            None => {
                resp.line("Script ran on page and returned:");
                resp.line("```json");
                resp.line(text);
                resp.line("```");
            }
        }
        for note in call::take_dialog_notes(cx, call) {
            resp.line(note);
        }
        finish(cx, call, resp);
    };
    if changed && script.wait_for_stable_dom {
        wait_for_stable_dom(cx, page, Box::new(reply));
    } else {
        reply(cx);
    }
}

/// Waits until the DOM has been quiet for a moment (bounded), then runs `then`.
fn wait_for_stable_dom(cx: &mut Ctx, page: PageId, then: Box<dyn FnOnce(&mut Ctx)>) {
    let Ok(session) = pages::session_of(&cx.browser.pages, page) else {
        return then(cx);
    };
    let expression = format!(
        "new Promise(resolve => {{
  let timer = setTimeout(done, {SETTLE_QUIET_MS});
  const max = setTimeout(done, {SETTLE_MAX_MS});
  const observer = new MutationObserver(() => {{ clearTimeout(timer); timer = setTimeout(done, {SETTLE_QUIET_MS}); }});
  observer.observe(document, {{subtree: true, childList: true, attributes: true, characterData: true}});
  function done() {{ observer.disconnect(); clearTimeout(timer); clearTimeout(max); resolve(true); }}
}})"
    );
    let request = runtime::EvaluateParams {
        expression,
        await_promise: Some(true),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(&session), request, move |cx, _| then(cx));
}
