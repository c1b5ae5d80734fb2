//! `get_console_message`, step by step: the message found in the page's record, its
//! arguments read back from the page (objects as JSON of their by-value copy, Errors as their
//! message and stack trace with their causes; primitives were known when the message
//! arrived), and the detail view. [`MessageDetail::next`] is the whole story.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::format::{self, Stack, MAX_STACK_LINES};
use super::record::Arg;
use crate::browser::{self, Flow, Host, PageId};
use crate::cdp::generated::runtime::{
    CallFunctionOnParams, GetExceptionDetailsParams, GetExceptionDetailsReturns,
    GetPropertiesParams, GetPropertiesReturns, RemoteObjectSubtype, RemoteObjectType, StackTrace,
};
use crate::error::Error;
use crate::tools::call::{self, CallId};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::response::{finish, Response};
use crate::tools::result::ToolResult;

/// How long to wait for the page to hand over argument values before answering with what
/// there is (a page busy in a loop cannot answer at all).
const WAIT: Duration = Duration::from_secs(3);
/// How deep `Error.cause` chains are followed.
const MAX_CAUSES: usize = 5;

/// One `get_console_message` call.
pub(super) struct MessageDetail {
    call: CallId,
    /// The `msgid` asked for, as given.
    wanted: f64,
    /// The page whose record holds the message, once found.
    page: PageId,
    /// What the view shows of the message, once found.
    shown: Option<Shown>,
}

pub(super) enum Step {
    /// The page the call works on.
    Page(Result<PageId, Error>),
    /// Every argument's text, in order: read from the page, or what stands in for a value the
    /// page did not hand over in time.
    Args(Result<Vec<String>, Error>),
}

/// What the detail view needs of a message, copied out of the record.
struct Shown {
    id: u64,
    kind: String,
    text: String,
    args_count: usize,
    stack: Option<String>,
}

impl MessageDetail {
    pub(super) fn new(call: CallId, wanted: f64) -> MessageDetail {
        MessageDetail {
            call,
            wanted,
            page: PageId::NONE,
            shown: None,
        }
    }

    /// Starts the call on page `requested` (the selected page when `None`).
    pub(super) fn start(self, cx: &mut Ctx, requested: Option<PageId>) {
        let call = self.call;
        call::page(cx, call, requested, self.then(Step::Page));
    }
}

impl Flow<Ctx> for MessageDetail {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Page(Ok(page)) => self.find(cx, page),
            Step::Args(Ok(values)) => self.reply(cx, values),
            Step::Page(Err(e)) | Step::Args(Err(e)) => call::fail(cx, self.call, e),
        }
    }
}

impl MessageDetail {
    /// Finds the message in the page's record and reads its arguments back, in the session
    /// they live in (an out-of-process iframe's, or the page's).
    fn find(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        let Some(page_session) = cx.browser.pages.get(page).map(|p| p.session.clone()) else {
            return call::fail(cx, self.call, browser::pages::no_such_page(page));
        };
        let wanted = self.wanted;
        let found = (wanted >= 1.0 && wanted.fract() == 0.0)
            .then(|| cx.console.get(page).and_then(|log| log.find(wanted as u64)))
            .flatten();
        let Some(m) = found else {
            // Reported outside the tool's own lines, as the reference does (bare text).
            let text = format!("No console message with msgid {wanted} on this page. Call list_console_messages to see the messages and their ids.");
            return call::finish(cx, self.call, ToolResult::error(text));
        };
        let id = m.id;
        self.shown = Some(Shown {
            id,
            kind: m.kind.clone(),
            text: m.text.clone(),
            args_count: m.args.len(),
            stack: None,
        });
        let session = m.frame_session.clone().unwrap_or(page_session);
        let args = m.args.clone();
        let scripts = cx
            .console
            .get(page)
            .map(|log| log.unloaded_maps([m]))
            .unwrap_or_default();
        super::load::load(cx, page, scripts, move |cx| {
            if let Some(shown) = self.shown.as_mut() {
                shown.stack = cx
                    .console
                    .get(page)
                    .and_then(|log| log.stack_text(id, true));
            }
            read_args(cx, session, args, self.then(Step::Args));
        });
    }

    fn reply(self, cx: &mut Ctx, values: Vec<String>) {
        let Some(shown) = &self.shown else {
            return;
        };
        let (text, structured) = render(shown, values);
        let mut resp = Response::for_page(self.page);
        resp.structured = structured;
        resp.snapshot = Some(text);
        finish(cx, self.call, resp);
    }
}

fn render(m: &Shown, mut args: Vec<String>) -> (String, Map<String, Value>) {
    // Without text, the first argument stands in for it (as the reference does).
    let text = if m.text.is_empty() && !args.is_empty() {
        args.remove(0)
    } else {
        m.text.clone()
    };
    let mut out = vec![
        format!("ID: {}", m.id),
        format!("Message: {}> {text}", m.kind),
    ];
    if !args.is_empty() {
        out.push("### Arguments".to_owned());
        for (i, a) in args.iter().enumerate() {
            out.push(format!("Arg #{i}: {a}"));
        }
    }
    let mut detail = json!({
        "id": m.id,
        "type": m.kind,
        "text": text,
        "argsCount": m.args_count,
        "args": args,
    });
    if let Some(stack) = &m.stack {
        out.push("### Stack trace".to_owned());
        out.push(stack.clone());
        detail["stackTrace"] = json!(stack);
    }
    let mut structured = Map::new();
    structured.insert("consoleMessage".into(), detail);
    (out.join("\n"), structured)
}

// ---------------------------------------------------------------------------------------
// The arguments, read back from the page

fn unavailable(i: usize) -> String {
    format!("<error: Argument {i} is no longer available>")
}

/// Arguments being read from the page all at once: their texts so far, and who gets them.
struct Gather {
    slots: Vec<Option<String>>,
    left: usize,
    done: Option<Done<Vec<String>>>,
}

/// One argument's text, into its slot.
type Fill = Box<dyn FnOnce(&mut Ctx, String)>;

impl Gather {
    /// Answers with every slot's text (the ones still empty as unavailable), once.
    fn complete(gather: &Rc<RefCell<Gather>>, cx: &mut Ctx) {
        let (done, slots) = {
            let mut g = gather.borrow_mut();
            (g.done.take(), std::mem::take(&mut g.slots))
        };
        if let Some(done) = done {
            let values = slots.into_iter().enumerate();
            let values = values.map(|(i, s)| s.unwrap_or_else(|| unavailable(i)));
            done(cx, Ok(values.collect()));
        }
    }

    /// The continuation that puts argument `i`'s text in its slot, and answers when it is
    /// the last one.
    fn fill(gather: &Rc<RefCell<Gather>>, i: usize) -> Fill {
        let gather = gather.clone();
        Box::new(move |cx: &mut Ctx, text: String| {
            let finished = {
                let mut g = gather.borrow_mut();
                if let Some(slot) = g.slots.get_mut(i) {
                    *slot = Some(text);
                }
                g.left = g.left.saturating_sub(1);
                g.left == 0
            };
            if finished {
                Gather::complete(&gather, cx);
            }
        })
    }
}

/// Answers `done` with every argument's text, in order, after [`WAIT`] at the latest. The
/// page is asked for all of them at once: one busy or dead object holds up none of the rest.
fn read_args(cx: &mut Ctx, session: String, args: Vec<Arg>, done: Done<Vec<String>>) {
    let slots: Vec<Option<String>> = args.iter().map(|a| a.value.clone()).collect();
    let left = slots.iter().filter(|s| s.is_none()).count();
    let gather = Rc::new(RefCell::new(Gather {
        slots,
        left,
        done: Some(done),
    }));
    if left == 0 {
        return Gather::complete(&gather, cx);
    }
    {
        let gather = gather.clone();
        cx.after(WAIT, move |cx| Gather::complete(&gather, cx));
    }
    for (i, a) in args.into_iter().enumerate() {
        if a.value.is_some() {
            continue;
        }
        let fill = Gather::fill(&gather, i);
        match (a.object_id, a.error) {
            // Its document is gone: an Error still has the message it was logged with.
            (None, true) => fill(cx, a.error_head),
            (None, false) => fill(cx, unavailable(i)),
            (Some(id), true) => {
                let done = Box::new(move |cx: &mut Ctx, r: Result<Symbolized, Error>| {
                    fill(
                        cx,
                        r.map_or_else(|_| unavailable(i), |error| error.render()),
                    )
                });
                Symbolize::new(session.clone(), id, a.error_head, 0, done).start(cx);
            }
            (Some(id), false) => json_value(cx, &session, id, i, fill),
        }
    }
}

/// An object argument as JSON (`JSON.stringify` of its by-value copy), or the "no longer
/// available" text when the page cannot hand it over (a cycle, a symbol, a dead object).
fn json_value(cx: &mut Ctx, session: &str, object_id: String, i: usize, fill: Fill) {
    let params = CallFunctionOnParams {
        object_id: Some(object_id),
        function_declaration: "function () { 'use strict'; return this; }".into(),
        return_by_value: Some(true),
        silent: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(session), params, move |cx, r| {
        let text = match r {
            Ok(v) if v.exception_details.is_none() => match format::value_of(&v.result) {
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => Some(other.to_string()),
                None => None,
            },
            _ => None,
        };
        let text = text.map_or_else(|| unavailable(i), |t| format::cut_stored(&t));
        fill(cx, text)
    });
}

// ---------------------------------------------------------------------------------------
// An Error argument

/// An Error read from the page: its message, stack trace and cause.
struct Symbolized {
    message: String,
    stack: Option<StackTrace>,
    cause: Option<Box<Symbolized>>,
}

impl Symbolized {
    fn plain(message: String) -> Symbolized {
        Symbolized {
            message,
            stack: None,
            cause: None,
        }
    }

    /// The message, then the stack trace followed by its causes, and the 1-based note.
    fn render(&self) -> String {
        let Some(trace) = &self.stack else {
            return self.message.clone();
        };
        let mut lines = Vec::new();
        let mut total = format::stack_lines(trace, &mut lines, MAX_STACK_LINES, &format::generated);
        let mut cause = self.cause.as_deref();
        while let Some(c) = cause {
            total += 1;
            if lines.len() < MAX_STACK_LINES {
                lines.push(format!("Caused by: {}", c.message));
            }
            if let Some(t) = &c.stack {
                total += format::stack_lines(t, &mut lines, MAX_STACK_LINES, &format::generated);
            }
            cause = c.cause.as_deref();
        }
        let stack = Stack {
            lines,
            total,
            raw: None,
        };
        format!("{}\n{}", self.message, format::stack_text(&stack, true))
    }
}

/// Reading one Error object: its details, then its `cause` (an Error read the same way, up
/// to [`MAX_CAUSES`] deep, or a plain value). Never fails: what cannot be read is left out.
struct Symbolize {
    session: String,
    object_id: String,
    depth: usize,
    /// What is known of it so far: at first only the message it was logged with.
    read: Symbolized,
    done: Done<Symbolized>,
}

enum SymbolizeStep {
    /// `Runtime.getExceptionDetails`: its text and stack trace.
    Details(Result<GetExceptionDetailsReturns, Error>),
    /// Its own properties, `cause` among them.
    Properties(Result<GetPropertiesReturns, Error>),
    /// Its cause, an Error read in turn.
    Cause(Result<Symbolized, Error>),
}

impl Symbolize {
    /// `head`: the message the Error was logged with; `depth`: how many Errors it is the
    /// cause of.
    fn new(
        session: String,
        object_id: String,
        head: String,
        depth: usize,
        done: Done<Symbolized>,
    ) -> Symbolize {
        Symbolize {
            session,
            object_id,
            depth,
            read: Symbolized::plain(head),
            done,
        }
    }

    fn start(self, cx: &mut Ctx) {
        let params = GetExceptionDetailsParams {
            error_object_id: self.object_id.clone(),
        };
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, SymbolizeStep::Details);
    }
}

impl Flow<Ctx> for Symbolize {
    type Step = SymbolizeStep;

    fn next(mut self, cx: &mut Ctx, step: SymbolizeStep) {
        match step {
            SymbolizeStep::Details(r) => match r.ok().and_then(|v| v.exception_details) {
                Some(details) => self.details(cx, details.text, details.stack_trace),
                None => self.answer(cx),
            },
            SymbolizeStep::Properties(r) => self.cause(cx, r),
            SymbolizeStep::Cause(r) => {
                if let Ok(cause) = r {
                    self.read.cause = Some(Box::new(cause));
                }
                self.answer(cx)
            }
        }
    }
}

impl Symbolize {
    /// The Error's text and stack; then its `cause`, unless the chain is as deep as followed.
    fn details(mut self, cx: &mut Ctx, text: String, stack: Option<StackTrace>) {
        // A text left out decodes as an empty one; the logged message stands in for it.
        if !text.is_empty() {
            self.read.message = text;
        }
        self.read.stack = stack;
        if self.depth >= MAX_CAUSES {
            return self.answer(cx);
        }
        let params = GetPropertiesParams {
            object_id: self.object_id.clone(),
            own_properties: Some(true),
            ..Default::default()
        };
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, SymbolizeStep::Properties);
    }

    /// The `cause` property: an Error is read in turn, anything else is its plain text.
    fn cause(mut self, cx: &mut Ctx, properties: Result<GetPropertiesReturns, Error>) {
        // An accessor `cause` has no value: it reads as an empty one.
        let cause = properties.ok().and_then(|v| {
            let p = v.result.into_iter().find(|p| p.name == "cause")?;
            Some(p.value.unwrap_or_default())
        });
        let Some(cause) = cause else {
            return self.answer(cx);
        };
        let error_like = cause.r#type == RemoteObjectType::Object
            || cause.subtype == Some(RemoteObjectSubtype::Error);
        match cause.object_id.clone() {
            Some(id) if error_like => {
                let head = format::error_head(cause.description.as_deref().unwrap_or(""));
                let (session, depth) = (self.session.clone(), self.depth + 1);
                let done = self.then(SymbolizeStep::Cause);
                Symbolize::new(session, id, head, depth, done).start(cx);
            }
            _ => {
                let plain = Symbolized::plain(format::thrown_head(&cause));
                self.read.cause = Some(Box::new(plain));
                self.answer(cx)
            }
        }
    }

    fn answer(self, cx: &mut Ctx) {
        (self.done)(cx, Ok(self.read))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::console::format::decode;
    use serde_json::json;

    fn frame(name: &str) -> Value {
        json!({"functionName": name, "url": "http://h/a.js", "lineNumber": 0, "columnNumber": 0, "scriptId": "1"})
    }

    #[test]
    fn an_error_reads_with_its_causes() {
        let inner = Symbolized {
            message: "Error: root".into(),
            stack: Some(decode(json!({"callFrames": [frame("g")]}))),
            cause: None,
        };
        let outer = Symbolized {
            message: "Error: outer".into(),
            stack: Some(decode(json!({"callFrames": [frame("f")]}))),
            cause: Some(Box::new(inner)),
        };
        assert_eq!(
            outer.render(),
            "Error: outer\nat f (a.js:1:1)\nCaused by: Error: root\nat g (a.js:1:1)\nNote: line and column numbers use 1-based indexing"
        );
        assert_eq!(Symbolized::plain("Error: x".into()).render(), "Error: x");
    }
}
