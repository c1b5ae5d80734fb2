//! `evaluate_script`: run a function in the page and return its value as JSON. A call is an
//! [`Evaluation`], whose `next` tells its story.

use std::time::Duration;

use serde_json::Value;

use super::args::{self, max, tool_args};
use super::call::{self, CallId};
use super::ctx::{Ctx, DialogPolicy};
use super::files::{self, Roots};
use super::response::{finish, Response};
use super::tool::Tool;
use super::{dialogs, snapshot};
use crate::browser::{self, pages, Flow, PageId};
use crate::cdp::generated::runtime;
use crate::error::Error;
use crate::pagetools::page_code;
use crate::settings::Category;

pub(super) const TOOLS: &[Tool] = &[Tool {
    name: "evaluate_script",
    description: "Run a JS function in the page; returns its result as JSON. Page tools are callable as window.__dtmcp.executeTool(name, params).",
    args: args::schema::<EvaluateArgs>(),
    read_only: false,
    category: Category::Debugging,
    run: evaluate_script,
}];

/// How long the DOM must be quiet to count as settled, and the most we wait for that.
const SETTLE_QUIET_MS: u32 = 100;
const SETTLE_MAX_MS: u32 = 3000;

tool_args! {
    struct EvaluateArgs {
        "function" function: Option<String> = {"type": "string", "maxLength": max::SCRIPT, "description": "e.g. () => document.title, or (el) => el.innerText with args"},
        /// Element uids passed to the function.
        "args" args: Option<Vec<String>> = {"type": "array", "maxItems": max::ITEMS, "items": {"type": "string", "maxLength": max::UID}, "description": "Element uids passed as arguments"},
        "format" format: Option<String> = {"type": "string", "enum": ["function", "script"], "description": "script: classic script, its completion value returned"},
        "sourcePath" source_path: Option<String> = {"type": "string", "maxLength": max::PATH, "description": "Read the source from this file"},
        "filePath" file_path: Option<String> = {"type": "string", "maxLength": max::PATH, "description": "Save the result here"},
        "dialogAction" dialog_action: Option<String> = {"type": "string", "maxLength": max::TEXT, "description": "accept (default), dismiss, or a prompt's answer"},
        "waitForStableDom" wait_for_stable_dom: Option<bool> = {"type": "boolean", "description": "Wait for DOM changes to settle (default true)"},
        "timeout" timeout: Option<f64> = {"type": "integer", "minimum": 0, "maximum": max::TIMEOUT_MS, "description": "ms (default: --toolTimeout)"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

/// What to run and how, from the arguments.
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
    fn from_args(cx: &Ctx, call: CallId, args: EvaluateArgs) -> Result<Script, Error> {
        let source = match (args.function, &args.source_path) {
            (Some(f), None) => f,
            (None, Some(path)) => {
                let could_not =
                    |e: &std::io::Error| format!("Unable to read script source from {path}: {e}");
                files::read_text(&Roots::of(cx, call), path, files::SOURCE_LIMIT)
                    .map_err(|f| Error::Invalid(f.text(could_not)))?
            }
            _ => {
                let one = "Specify exactly one of function or sourcePath.";
                return Err(Error::Invalid(one.into()));
            }
        };
        let format_script = args.format.as_deref() == Some("script");
        let uids = args.args.unwrap_or_default();
        if format_script && !uids.is_empty() {
            let no_args = "args cannot be used when format is \"script\".";
            return Err(Error::Invalid(no_args.into()));
        }
        Ok(Script {
            source,
            format_script,
            uids,
            timeout: args::timeout_or(args.timeout, cx.settings.tool_timeout),
            file_path: args.file_path,
            dialog_action: DialogPolicy::parse(args.dialog_action.as_deref()),
            wait_for_stable_dom: args.wait_for_stable_dom.unwrap_or(true),
        })
    }
}

fn evaluate_script(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<EvaluateArgs>(cx, call, args) else {
        return;
    };
    let requested = args.page;
    let script = match Script::from_args(cx, call, args) {
        Ok(s) => s,
        Err(e) => return call::fail(cx, call, e),
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
    let evaluation = Evaluation {
        call,
        script,
        page: PageId::NONE,
        text: String::new(),
    };
    call::live_page(cx, call, requested, evaluation.then(Step::Page));
}

/// An `evaluate_script` call: its element arguments resolved, the wrapper run in the page as
/// page code whose dialogs the call answers, a wait for the DOM to settle when the script
/// changed it, and the value answered or written to a file.
struct Evaluation {
    call: CallId,
    script: Script,
    /// The page, once found.
    page: PageId,
    /// The value as JSON text, once the page returned it.
    text: String,
}

/// What the page answered: the wrapper's value, or what the page threw.
type Answer = (runtime::RemoteObject, Option<runtime::ExceptionDetails>);

enum Step {
    /// The page the call works on, live (the browser started, a page opened if there was none).
    Page(Result<PageId, Error>),
    /// The element arguments, as remote objects in the page's main frame.
    Resolved(Result<Vec<String>, Error>),
    /// The wrapper ran: its value, or what the page threw.
    Ran(Result<Box<Answer>, Error>),
    /// The DOM has been quiet for a moment, or the wait for that is over.
    Settled,
}

impl Flow<Ctx> for Evaluation {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Page(Ok(page)) => self.resolve(cx, page),
            Step::Resolved(Ok(objects)) => self.run(cx, objects),
            Step::Ran(Ok(answer)) => self.read(cx, *answer),
            Step::Settled => self.reply(cx),
            Step::Page(Err(e)) | Step::Resolved(Err(e)) | Step::Ran(Err(e)) => {
                call::fail(cx, self.call, e)
            }
        }
    }
}

impl Evaluation {
    /// An open dialog refuses the call; otherwise the element arguments are resolved.
    fn resolve(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        if dialogs::refuse(cx, self.call, page) {
            return;
        }
        let uids = std::mem::take(&mut self.script.uids);
        snapshot::resolve_uids(cx, page, uids, self.then(Step::Resolved));
    }

    /// Runs the wrapper: called on the first element, or on the main frame's default context
    /// without elements; evaluated while no context is known yet (a document still loading).
    fn run(self, cx: &mut Ctx, objects: Vec<String>) {
        let page = self.page;
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return call::fail(cx, self.call, e),
        };
        let policy = Some(self.script.dialog_action.clone());
        call::runs_page_code(cx, self.call, page, &session, policy);
        let context = cx.browser.pages.get(page).and_then(|p| p.context);
        let wrapper = page_function(&self.script.source, self.script.format_script);
        if objects.is_empty() && context.is_none() {
            let request = page_code::awaited(format!("({wrapper})()"));
            let ran = self.then(|r: Result<runtime::EvaluateReturns, Error>| {
                ran(r.map(|a| (a.result, a.exception_details)))
            });
            browser::send(cx, Some(&session), request, ran);
            return;
        }
        let arguments = objects
            .iter()
            .map(|o| runtime::CallArgument {
                object_id: Some(o.clone()),
                ..Default::default()
            })
            .collect();
        let request = runtime::CallFunctionOnParams {
            function_declaration: wrapper,
            arguments: Some(arguments),
            await_promise: Some(true),
            return_by_value: Some(true),
            object_id: objects.first().cloned(),
            execution_context_id: if objects.is_empty() { context } else { None },
            ..Default::default()
        };
        let ran = self.then(|r: Result<runtime::CallFunctionOnReturns, Error>| {
            ran(r.map(|a| (a.result, a.exception_details)))
        });
        browser::send(cx, Some(&session), request, ran);
    }

    /// Takes the value the wrapper returned (`[changedDom, JSON text]`), and waits for the DOM
    /// to settle first when the script changed it.
    fn read(mut self, cx: &mut Ctx, (result, exception): Answer) {
        if let Some(ex) = exception {
            return call::fail(cx, self.call, page_code::exception_message(&ex));
        }
        let (changed, text) = match result.value {
            // Moved out, not copied: the text can be a megabyte.
            Some(Value::Array(mut pair)) if pair.len() == 2 => match (pair.pop(), pair.pop()) {
                (Some(Value::String(text)), changed) => (changed == Some(Value::Bool(true)), text),
                (_, changed) => (changed == Some(Value::Bool(true)), "undefined".to_owned()),
            },
            _ => (false, "undefined".to_owned()),
        };
        self.text = text;
        if changed && self.script.wait_for_stable_dom {
            self.wait_for_stable_dom(cx)
        } else {
            self.reply(cx)
        }
    }

    /// Waits until the DOM has been quiet for a moment (bounded).
    fn wait_for_stable_dom(self, cx: &mut Ctx) {
        let Ok(session) = pages::session_of(&cx.browser.pages, self.page) else {
            return self.reply(cx);
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
        let request = page_code::awaited(expression);
        // Settled or not (the page navigated, say), the value stands: the answer goes out.
        let settled = self.then(|_: Result<runtime::EvaluateReturns, Error>| Step::Settled);
        browser::send(cx, Some(&session), request, settled);
    }

    /// The value, in the answer or in the file asked for, and what happened to dialogs the
    /// script opened.
    fn reply(self, cx: &mut Ctx) {
        let mut resp = Response::for_page(self.page);
        match self.script.file_path {
            Some(path) => {
                match files::write_at(&Roots::of(cx, self.call), &path, self.text.as_bytes()) {
                    Ok(_) => {
                        resp.line(format!("Script ran on page. Output saved to {path}."));
                    }
                    Err(f) => {
                        let message = f.text(|e| format!("Could not write {path}: {e}"));
                        return call::fail(cx, self.call, message);
                    }
                }
            }
            None => {
                resp.line("Script ran on page and returned:");
                resp.line("```json");
                resp.line(self.text);
                resp.line("```");
            }
        }
        for note in call::take_dialog_notes(cx, self.call) {
            resp.line(note);
        }
        finish(cx, self.call, resp);
    }
}

/// The step for what the page answered to the wrapper; a context lost under the script is
/// said as the page having navigated away.
fn ran(r: Result<Answer, Error>) -> Step {
    Step::Ran(r.map(Box::new).map_err(page_code::page_error))
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
    // (`stop` would otherwise shadow window.stop). The shim's own JSON.stringify and
    // MutationObserver (captured before page scripts ran) are used when present, so a page that
    // replaced them changes nothing here.
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
