//! Reading a message's arguments back from the page for `get_console_message`: objects as
//! JSON of their by-value copy, Errors as their message and stack trace (with their
//! causes). Primitives were known when the message arrived.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use serde_json::Value;

use super::format::{self, Stack};
use super::record::Arg;
use super::MAX_STACK_LINES;
use crate::browser;
use crate::browser::Host;
use crate::cdp::generated::runtime::{
    CallFunctionOnParams, GetExceptionDetailsParams, GetPropertiesParams, RemoteObjectSubtype,
    RemoteObjectType, StackTrace,
};
use crate::tools::Ctx;

/// How long to wait for the page to hand over argument values before answering with what
/// there is (a page busy in a loop cannot answer at all).
const WAIT: Duration = Duration::from_secs(3);
/// How deep `Error.cause` chains are followed.
const MAX_CAUSES: usize = 5;

/// What the detail view shows for an argument.
pub type Values = Box<dyn FnOnce(&mut Ctx, Vec<String>)>;
type Fill = Box<dyn FnOnce(&mut Ctx, String)>;
type SymbolizedDone = Box<dyn FnOnce(&mut Ctx, Symbolized)>;

fn unavailable(i: usize) -> String {
    format!("<error: Argument {i} is no longer available>")
}

struct Gather {
    slots: Vec<Option<String>>,
    left: usize,
    done: Option<Values>,
}

/// Runs `done` with every argument's text, in order, after [`WAIT`] at the latest.
pub fn resolve(cx: &mut Ctx, session: String, args: Vec<Arg>, done: Values) {
    let n = args.len();
    let slots: Vec<Option<String>> = args.iter().map(|a| a.value.clone()).collect();
    let left = slots.iter().filter(|s| s.is_none()).count();
    let gather = Rc::new(RefCell::new(Gather {
        slots,
        left,
        done: Some(done),
    }));
    let complete = move |cx: &mut Ctx, gather: &Rc<RefCell<Gather>>| {
        let (done, slots) = {
            let mut g = gather.borrow_mut();
            (g.done.take(), std::mem::take(&mut g.slots))
        };
        if let Some(done) = done {
            let values = (0..n)
                .map(|i| {
                    slots
                        .get(i)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| unavailable(i))
                })
                .collect();
            done(cx, values);
        }
    };
    if left == 0 {
        return complete(cx, &gather);
    }
    {
        let gather = gather.clone();
        cx.after(WAIT, move |cx| complete(cx, &gather));
    }
    for (i, a) in args.into_iter().enumerate() {
        if a.value.is_some() {
            continue;
        }
        let gather = gather.clone();
        let fill: Fill = Box::new(move |cx: &mut Ctx, text: String| {
            let finished = {
                let mut g = gather.borrow_mut();
                if let Some(slot) = g.slots.get_mut(i) {
                    *slot = Some(text);
                }
                g.left = g.left.saturating_sub(1);
                g.left == 0
            };
            if finished {
                complete(cx, &gather);
            }
        });
        match (a.object_id, a.error) {
            // Its document is gone: an Error still has the message it was logged with.
            (None, true) => fill(cx, a.error_head),
            (None, false) => fill(cx, unavailable(i)),
            (Some(id), true) => symbolize(
                cx,
                session.clone(),
                id,
                a.error_head,
                0,
                Box::new(move |cx, err| fill(cx, err.render())),
            ),
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
        let mut total = format::stack_lines(trace, &mut lines, MAX_STACK_LINES);
        let mut cause = self.cause.as_deref();
        while let Some(c) = cause {
            total += 1;
            if lines.len() < MAX_STACK_LINES {
                lines.push(format!("Caused by: {}", c.message));
            }
            if let Some(t) = &c.stack {
                total += format::stack_lines(t, &mut lines, MAX_STACK_LINES);
            }
            cause = c.cause.as_deref();
        }
        let stack = Stack { lines, total };
        format!("{}\n{}", self.message, format::stack_text(&stack, true))
    }
}

/// Reads an Error object's details (`Runtime.getExceptionDetails`), then its `cause`.
fn symbolize(
    cx: &mut Ctx,
    session: String,
    object_id: String,
    head: String,
    depth: usize,
    done: SymbolizedDone,
) {
    let s = session.clone();
    let params = GetExceptionDetailsParams {
        error_object_id: object_id.clone(),
    };
    browser::send(cx, Some(&session), params, move |cx, r| {
        let Some(details) = r.ok().and_then(|v| v.exception_details) else {
            return done(cx, Symbolized::plain(head));
        };
        // A text left out decodes as an empty one; the logged message stands in for it.
        let message = if details.text.is_empty() {
            head
        } else {
            details.text
        };
        let this = Symbolized {
            message,
            stack: details.stack_trace,
            cause: None,
        };
        if depth >= MAX_CAUSES {
            return done(cx, this);
        }
        with_cause(cx, s, object_id, this, depth, done);
    });
}

/// Adds the Error's `cause` (an Error read in turn, or a plain value) to `this`.
fn with_cause(
    cx: &mut Ctx,
    session: String,
    object_id: String,
    mut this: Symbolized,
    depth: usize,
    done: SymbolizedDone,
) {
    let s = session.clone();
    let params = GetPropertiesParams {
        object_id,
        own_properties: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(&session), params, move |cx, r| {
        // An accessor `cause` has no value: it reads as an empty one.
        let cause = r.ok().and_then(|v| {
            let p = v.result.into_iter().find(|p| p.name == "cause")?;
            Some(p.value.unwrap_or_default())
        });
        let Some(cause) = cause else {
            return done(cx, this);
        };
        let error_like = cause.r#type == RemoteObjectType::Object
            || cause.subtype == Some(RemoteObjectSubtype::Error);
        match cause.object_id.clone() {
            Some(id) if error_like => {
                let head = format::error_head(cause.description.as_deref().unwrap_or(""));
                symbolize(
                    cx,
                    s,
                    id,
                    head,
                    depth + 1,
                    Box::new(move |cx, inner| {
                        this.cause = Some(Box::new(inner));
                        done(cx, this)
                    }),
                )
            }
            _ => {
                this.cause = Some(Box::new(Symbolized::plain(format::thrown_head(&cause))));
                done(cx, this)
            }
        }
    });
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
