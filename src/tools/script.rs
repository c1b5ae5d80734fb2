//! `evaluate_script`: run a function in the page and return its value as JSON.

use std::time::Duration;

use serde_json::{json, Value};

use super::response::{finish, Response};
use super::{fail, page_arg, Tool};
use crate::browser::{self, pages, RawEvent};
use crate::cdp::generated::page as cdp_page;
use crate::error::Error;
use crate::tools::call;
use crate::tools::CallId;
use crate::tools::Ctx;

pub const TOOLS: &[Tool] = &[Tool {
    name: "evaluate_script",
    description: "Run JavaScript in the page and return the result as JSON (so it must be JSON-serializable). \
The page's own developer tools can be composed here: `window.__dtmcp.executeTool(toolName, params)` runs one \
(see list_3p_developer_tools).",
    properties: || {
        json!({
            "function": {"type": "string", "description": "A JavaScript function declaration to run in the page, e.g. `() => document.title`, `async () => await fetch(\"/api\").then(r => r.status)`, or with element arguments `(el) => el.innerText`."},
            "args": {"type": "array", "items": {"type": "string", "description": "An element uid from take_snapshot."}, "description": "Element uids (from take_snapshot) passed to the function as its arguments."},
            "format": {"type": "string", "enum": ["function", "script"], "description": "\"function\" (default): the source is a function declaration and takes args. \"script\": classic JavaScript whose completion value is returned."},
            "sourcePath": {"type": "string", "description": "Read the source from this local file instead of `function`."},
            "filePath": {"type": "string", "description": "Write the result to this file instead of returning it inline."},
            "dialogAction": {"type": "string", "description": "What to do with a dialog the script opens: \"accept\" (default), \"dismiss\", or the text to answer a prompt with."},
            "waitForStableDom": {"type": "boolean", "description": "When the script changed the DOM, wait for it to settle before answering (default true). Scripts that change nothing never wait."},
            "timeout": {"type": "integer", "description": "Give up after this many milliseconds (default 25000, or the server's --toolTimeout)."},
        })
    },
    required: &[],
    read_only: false,
    page_scoped: true,
    run: evaluate_script,
}];

/// How long the DOM must be quiet to count as settled, and the most we wait for that.
const SETTLE_QUIET_MS: u32 = 100;
const SETTLE_MAX_MS: u32 = 3000;

struct Script {
    source: String,
    format_script: bool,
    uids: Vec<String>,
    file_path: Option<String>,
    dialog_action: DialogPolicy,
    wait_for_stable_dom: bool,
    timeout: Duration,
}

fn parse(cx: &Ctx, args: &Value) -> Result<Script, String> {
    let source = match (args["function"].as_str(), args["sourcePath"].as_str()) {
        (Some(f), None) => f.to_owned(),
        (None, Some(path)) => std::fs::read_to_string(path)
            .map_err(|e| format!("Unable to read script source from {path}: {e}"))?,
        _ => return Err("Specify exactly one of function or sourcePath.".into()),
    };
    let format_script = args["format"].as_str() == Some("script");
    let uids: Vec<String> = args["args"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if format_script && !uids.is_empty() {
        return Err("args cannot be used when format is \"script\".".into());
    }
    Ok(Script {
        source,
        format_script,
        uids,
        file_path: args["filePath"].as_str().map(str::to_owned),
        dialog_action: DialogPolicy::parse(args["dialogAction"].as_str()),
        wait_for_stable_dom: args["waitForStableDom"].as_bool().unwrap_or(true),
        timeout: match args["timeout"].as_i64() {
            Some(ms) if ms > 0 => Duration::from_millis(ms as u64),
            _ => cx.settings.tool_timeout,
        },
    })
}

fn evaluate_script(cx: &mut Ctx, call: CallId, args: Value) {
    let script = match parse(cx, &args) {
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
    pages::with_page(
        cx,
        page_arg(&args),
        Box::new(move |cx, r| {
            match r.and_then(|page| pages::not_crashed(&cx.browser.pages, page).map(|_| page)) {
                Err(e) => fail(cx, call, e),
                Ok(page) if super::refuse_if_dialog(cx, call, page) => {}
                Ok(page) => super::snapshot::resolve_uids(
                    cx,
                    page,
                    script.uids.clone(),
                    Box::new(move |cx, r| match r {
                        Err(e) => fail(cx, call, e),
                        Ok(objects) => run(cx, call, page, script, objects),
                    }),
                ),
            }
        }),
    );
}

/// The page-side wrapper: runs the user's code, notes whether it touched the DOM, and
/// returns `[changedDom, JSON text or undefined]` in one round trip.
fn wrapper(script: &Script) -> String {
    let body = if script.format_script {
        // Indirect eval: classic script semantics, global scope, completion value.
        format!(
            "(0, eval)({})",
            serde_json::to_string(&script.source).unwrap_or_default()
        )
    } else {
        let src = script.source.trim_end().trim_end_matches(';');
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

fn run(cx: &mut Ctx, call: CallId, page: u32, script: Script, objects: Vec<String>) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    runs_page_code(cx, call, page, &session, script.dialog_action.clone());
    let arguments: Vec<Value> = objects.iter().map(|o| json!({"objectId": o})).collect();
    // Without element arguments, the function is called on the global object of the main
    // frame's default context.
    let mut params = json!({
        "functionDeclaration": wrapper(&script),
        "arguments": arguments,
        "awaitPromise": true,
        "returnByValue": true,
    });
    match (
        objects.first(),
        cx.browser.pages.get(page).and_then(|p| p.context),
    ) {
        (Some(object), _) => params["objectId"] = json!(object),
        (None, Some(ctx)) => params["executionContextId"] = json!(ctx),
        (None, None) => {
            // No context known yet (a document still loading): evaluate instead.
            return evaluate_fallback(cx, call, page, session, script);
        }
    }
    browser::send_raw(
        cx,
        Some(&session),
        "Runtime.callFunctionOn",
        params,
        Box::new(move |cx, r| answer(cx, call, page, script, r)),
    );
}

fn evaluate_fallback(cx: &mut Ctx, call: CallId, page: u32, session: String, script: Script) {
    let expression = format!("({})()", wrapper(&script));
    browser::send_raw(
        cx,
        Some(&session),
        "Runtime.evaluate",
        json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        Box::new(move |cx, r| answer(cx, call, page, script, r)),
    );
}

fn answer(cx: &mut Ctx, call: CallId, page: u32, script: Script, r: Result<Value, Error>) {
    let mut v = match r {
        Ok(v) => v,
        Err(e) => return fail(cx, call, page_error(e)),
    };
    if let Some(ex) = v.get("exceptionDetails") {
        return fail(cx, call, exception_message(ex));
    }
    let value = &mut v["result"]["value"];
    let changed = value[0].as_bool().unwrap_or(false);
    // Moved out, not copied: the text can be a megabyte.
    let text = match value[1].take() {
        Value::String(s) => s,
        _ => "undefined".to_owned(),
    };
    let reply = move |cx: &mut Ctx| {
        let mut resp = Response::for_page(page);
        match script.file_path {
            Some(path) => match std::fs::write(&path, text.as_bytes()) {
                Ok(()) => {
                    resp.line(format!("Script ran on page. Output saved to {path}."));
                }
                Err(e) => return fail(cx, call, format!("Could not write {path}: {e}")),
            },
            None => {
                resp.line("Script ran on page and returned:");
                resp.line("```json");
                resp.line(text);
                resp.line("```");
            }
        }
        take_dialog_notes(cx, call, page, &mut resp);
        finish(cx, call, resp);
    };
    if changed && script.wait_for_stable_dom {
        wait_for_stable_dom(cx, page, Box::new(reply));
    } else {
        reply(cx);
    }
}

/// What to do with a dialog that page code opens while a call runs it: the dialog would
/// block the page's main thread, and so the call, so it is answered at once.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogPolicy {
    Accept,
    Dismiss,
    /// Accept a prompt with this text.
    AcceptWith(String),
}

impl DialogPolicy {
    /// `dialogAction`: "accept" (the default), "dismiss", or the text to answer a prompt with.
    pub fn parse(action: Option<&str>) -> DialogPolicy {
        match action {
            None | Some("accept") => DialogPolicy::Accept,
            Some("dismiss") => DialogPolicy::Dismiss,
            Some(text) => DialogPolicy::AcceptWith(text.to_owned()),
        }
    }
}

/// Per page: the calls now running page code there, with their dialog policy, and what
/// happened to dialogs they opened, for their answers.
#[derive(Default)]
pub struct PageScripts {
    calls: Vec<(CallId, DialogPolicy)>,
    notes: Vec<(CallId, String)>,
}

/// Marks the call as running page code on `page`: a timeout or cancel interrupts it there,
/// and a dialog it opens is answered by `policy`.
pub fn runs_page_code(cx: &mut Ctx, call: CallId, page: u32, session: &str, policy: DialogPolicy) {
    call::runs_page_code(cx, call, session);
    cx.scripts.entry(page).calls.push((call, policy));
}

/// Lines about dialogs the call's script opened (and that were answered for it).
pub fn take_dialog_notes(cx: &mut Ctx, call: CallId, page: u32, resp: &mut Response) {
    if cx.browser.pages.get(page).is_none() {
        return;
    }
    let p = cx.scripts.entry(page);
    p.calls.retain(|(c, _)| *c != call);
    let notes = std::mem::take(&mut p.notes);
    let (mine, rest): (Vec<_>, Vec<_>) = notes.into_iter().partition(|(c, _)| *c == call);
    p.notes = rest;
    for (_, note) in mine {
        resp.line(note);
    }
}

/// A dialog opened. While a call runs page code here, the dialog is answered at once by
/// that call's policy and the call reports it; otherwise it stays open for
/// `handle_dialog`, and answers mention it.
pub fn on_event(cx: &mut Ctx, page: u32, event: &RawEvent) {
    if !event.is::<cdp_page::JavascriptDialogOpeningEvent>() {
        return;
    }
    let calls = &cx.calls;
    let p = cx.scripts.entry(page);
    p.calls.retain(|(call, _)| calls.contains(*call));
    let Some((call, policy)) = p.calls.first().cloned() else {
        return;
    };
    let Some(dialog) = cx.browser.pages.get_mut(page).and_then(|p| p.dialog.take()) else {
        return;
    };
    let (accept, text, verb) = match policy {
        DialogPolicy::Dismiss => (false, String::new(), "dismissed"),
        DialogPolicy::Accept => (true, dialog.default_prompt.clone(), "accepted"),
        DialogPolicy::AcceptWith(text) => (true, text, "accepted"),
    };
    let article = if dialog.kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "An"
    } else {
        "A"
    };
    let note = format!(
        "{article} {} dialog opened while the script ran (\"{}\"); it was {verb}.",
        dialog.kind, dialog.message
    );
    cx.scripts.entry(page).notes.push((call, note));
    let session = event.session.as_deref();
    let answer = cdp_page::HandleJavaScriptDialogParams {
        accept,
        prompt_text: Some(text),
    };
    browser::fire(cx, session, answer);
}

/// Waits until the DOM has been quiet for a moment (bounded), then runs `then`.
fn wait_for_stable_dom(cx: &mut Ctx, page: u32, then: Box<dyn FnOnce(&mut Ctx)>) {
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
    browser::send_raw(
        cx,
        Some(&session),
        "Runtime.evaluate",
        json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        Box::new(move |cx, _| then(cx)),
    );
}

/// What an agent should read when the page threw, as the reference words it: an Error's
/// message (without its name and stack: the reference's answer is `Error: <message>`), or the
/// thrown value itself.
pub fn exception_message(ex: &Value) -> String {
    let exception = &ex["exception"];
    if let Some(desc) = exception["description"].as_str() {
        if exception["subtype"] == "error" {
            return error_message(desc, exception["className"].as_str().unwrap_or(""));
        }
        return desc.to_owned();
    }
    if let Some(v) = exception.get("value") {
        return match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    ex["text"]
        .as_str()
        .unwrap_or("The script threw an exception.")
        .to_owned()
}

/// The message part of an Error's description (`<Name>: <message>` then stack frames).
fn error_message(description: &str, class_name: &str) -> String {
    let head = match description.find("\n    at ") {
        Some(i) => &description[..i],
        None => description,
    };
    let name = if class_name.is_empty() {
        head.split(':').next().unwrap_or("")
    } else {
        class_name
    };
    match head.strip_prefix(name) {
        Some("") => String::new(),
        Some(rest) => rest.strip_prefix(": ").unwrap_or(head).to_owned(),
        None => head.to_owned(),
    }
}

/// CDP errors that mean "the document went away" read better in the page's terms.
pub fn page_error(e: Error) -> Error {
    match &e {
        Error::Cdp { message, .. }
            if message.contains("Execution context was destroyed")
                || message.contains("Inspected target navigated or closed")
                || message.contains("Cannot find context") =>
        {
            Error::PageGone(
                "The page navigated away (or reloaded) before the script finished.".into(),
            )
        }
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_reported_by_its_message() {
        let ex = |class: &str, desc: &str| json!({"exception": {"type": "object", "subtype": "error", "className": class, "description": desc}});
        let stack = "\n    at <anonymous>:7:15\n    at <anonymous>:8:2";
        assert_eq!(
            exception_message(&ex("Error", &format!("Error: boom here{stack}"))),
            "boom here"
        );
        assert_eq!(
            exception_message(&ex(
                "TypeError",
                &format!("TypeError: x is not a function{stack}")
            )),
            "x is not a function"
        );
        assert_eq!(
            exception_message(&ex("SyntaxError", "SyntaxError: Unexpected token ')'")),
            "Unexpected token ')'"
        );
        assert_eq!(
            exception_message(&ex("Error", &format!("Error{stack}"))),
            ""
        );
        // A message over several lines keeps them all.
        assert_eq!(
            exception_message(&ex(
                "TypeError",
                &format!("TypeError: first\n    --> second{stack}")
            )),
            "first\n    --> second"
        );
        // A thrown value that is not an Error is shown as it is.
        assert_eq!(
            exception_message(&json!({"exception": {"type": "string", "value": "plain"}})),
            "plain"
        );
        assert_eq!(
            exception_message(
                &json!({"exception": {"type": "number", "value": 42, "description": "42"}})
            ),
            "42"
        );
    }
}
