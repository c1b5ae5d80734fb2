//! `list_console_messages` and `get_console_message`, and the per-page record they read.
//!
//! Collected from the moment a page session is attached: console API calls
//! (`Runtime.consoleAPICalled`), uncaught exceptions and unhandled rejections
//! (`Runtime.exceptionThrown`), and messages the browser itself logs, such as failed loads
//! (`Log.entryAdded`). Messages are kept per document: the current one and the two before it
//! (a cross-document navigation of the main frame starts a new one; a same-document
//! navigation does not). Ids (`msgid`) count up per page and are never reused.
//!
//! Bounded memory, however long a session runs: at most [`MAX_MESSAGES`] messages and about
//! [`MAX_BYTES`] of text per page (the oldest go first), every stored string is cut at
//! [`MAX_TEXT`] characters, and a stack trace keeps its first [`MAX_STACK_LINES`] lines.
//! Objects passed to `console.*` stay in the page (as handles) only while their message is
//! kept; evicted ones are released. Their values are read on demand by `get_console_message`.

mod detail;
pub mod format;
pub(crate) mod record;

use crate::browser::PageId;
use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args::{max, Shared};
use super::paging::{paginate, Paging};
use super::response::{finish, Response};
use super::Tool;
use crate::browser::{self, RawEvent};
use crate::cdp::generated::{log, page as cdp_page, runtime};
use crate::settings::Category;
use crate::tools::call;
use crate::tools::CallId;
use crate::tools::Ctx;
use crate::tools::ToolResult;
pub use record::Log;
use record::Message;

/// Most messages kept per page, over all kept documents.
pub const MAX_MESSAGES: usize = 1000;
/// About how much text (message text, argument values, stack lines) is kept per page.
pub const MAX_BYTES: usize = 1 << 20;
/// Longest string kept from one message (text, one argument); longer ones are cut.
pub const MAX_TEXT: usize = 10_000;
/// Stack trace lines kept per message (as many as the reference prints).
pub const MAX_STACK_LINES: usize = 50;
/// Documents whose messages are kept: the current one and the two before it.
const DOCUMENTS_KEPT: usize = 3;

const TYPES: &[&str] = &[
    "log",
    "debug",
    "info",
    "error",
    "warn",
    "dir",
    "dirxml",
    "table",
    "trace",
    "clear",
    "startGroup",
    "startGroupCollapsed",
    "endGroup",
    "assert",
    "profile",
    "profileEnd",
    "count",
    "timeEnd",
    "verbose",
    "issue",
];

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "list_console_messages",
        description: "List the page's console messages since its last navigation (logs, errors, exceptions), each with a msgid for get_console_message.",
        args: Schema {
            properties: || {
            json!({
                "pageSize": {"type": "integer", "exclusiveMinimum": 0, "maximum": max::COUNT, "description": "Default: all"},
                "pageIdx": {"type": "integer", "minimum": 0, "maximum": max::COUNT, "description": "From 0"},
                "types": {
                    "type": "array",
                    "maxItems": max::ITEMS,
                    "items": {"type": "string", "enum": TYPES},
                },
                "includePreservedMessages": {"type": "boolean", "description": "Also the 2 previous navigations'"},
                "includeStackTraces": {"type": "boolean"},
                "serviceWorkerId": {"type": "string", "maxLength": max::NAME, "description": "Not collected here"},
            })
        },
            required: &[],
        },
        read_only: true,
        page_scoped: true,
        category: Category::Debugging,
        run: list_console_messages,
    },
    Tool {
        name: "get_console_message",
        description: "Show one console message in full (arguments, stack trace) by msgid.",
        args: Schema {
            properties: || {
            json!({"msgid": {"type": "number", "minimum": 0, "maximum": max::ID}})
        },
            required: &["msgid"],
        },
        read_only: true,
        page_scoped: true,
        category: Category::Debugging,
        run: get_console_message,
    },
];

// ---------------------------------------------------------------------------------------
// Collecting

/// A new page session: ask for browser log entries and async stack traces (the page is
/// paused before its first script, so nothing is missed; Runtime is already enabled).
pub fn attach(cx: &mut Ctx, session: &str) {
    browser::fire(cx, Some(session), log::EnableParams {});
    // Async stack traces give the "--- setTimeout ---" parts DevTools shows.
    let depth = runtime::SetAsyncCallStackDepthParams { max_depth: 32 };
    browser::fire(cx, Some(session), depth);
}

pub fn on_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    let session = event.session.as_deref().unwrap_or("");
    let message = if let Some(e) = event.decode::<runtime::ConsoleAPICalledEvent>() {
        Some(record::console_call(&e))
    } else if let Some(e) = event.decode::<runtime::ExceptionThrownEvent>() {
        let details = e.exception_details;
        // Its text is all we keep of an uncaught value.
        let handle = details.exception.as_ref().and_then(|x| x.object_id.clone());
        release(cx, session, handle.into_iter().collect());
        Some(record::exception(&details))
    } else if let Some(e) = event.decode::<log::EntryAddedEvent>() {
        let args = e.entry.args.iter().flatten();
        let handles = args.filter_map(|a| a.object_id.clone()).collect();
        release(cx, session, handles);
        record::log_entry(&e.entry)
    } else if let Some(e) = event.decode::<cdp_page::FrameNavigatedEvent>() {
        if let Some(p) = cx.browser.pages.get(page) {
            let main = e.frame.parent_id.is_none() && e.frame.id == p.target_id;
            if main {
                cx.console.entry(page).new_document();
            }
        }
        None
    } else {
        None
    };
    let Some(message) = message else {
        return;
    };
    if cx.browser.pages.get(page).is_none() {
        return;
    }
    let evicted = cx.console.entry(page).push(message);
    release(cx, session, evicted);
}

/// An event of one of the page's out-of-process iframes. Like the reference, only their
/// console API calls are collected (not their uncaught exceptions or browser log entries).
pub fn on_frame_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    let Some(e) = event.decode::<runtime::ConsoleAPICalledEvent>() else {
        return;
    };
    if cx.browser.pages.get(page).is_none() {
        return;
    }
    let session = event.session.clone().unwrap_or_default();
    let mut message = record::console_call(&e);
    message.frame_session = Some(session.clone());
    let evicted = cx.console.entry(page).push(message);
    release(cx, &session, evicted);
}

/// Lets the page forget objects no message points at any more.
fn release(cx: &mut Ctx, session: &str, handles: Vec<String>) {
    for object_id in handles {
        // An object already gone needs no releasing: failures are not worth a log line.
        let params = runtime::ReleaseObjectParams { object_id };
        browser::send(cx, Some(session), params, |_, _| {});
    }
}

// ---------------------------------------------------------------------------------------
// list_console_messages

#[derive(Deserialize)]
struct ListArgs {
    #[serde(flatten)]
    shared: Shared,
    #[serde(flatten)]
    paging: Paging,
    #[serde(default)]
    types: Vec<String>,
    #[serde(rename = "includePreservedMessages", default)]
    preserved: bool,
    #[serde(rename = "includeStackTraces", default)]
    with_stacks: bool,
    #[serde(rename = "serviceWorkerId")]
    service_worker_id: Option<String>,
}

fn list_console_messages(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<ListArgs>(cx, call, args) else {
        return;
    };
    call::on_page(cx, call, args.shared.page(), move |cx, page| {
        if args.service_worker_id.is_some() {
            return call::fail(
                    cx,
                    call,
                    "Console messages of service workers are not collected by this server; leave out serviceWorkerId to list the page's messages.",
                );
        }
        if cx.browser.pages.get(page).is_none() {
            return call::fail(cx, call, crate::browser::pages::no_such_page(page));
        }
        let (section, structured) = render_list(cx.console.entry(page), &args);
        let mut resp = Response::for_page(page);
        resp.structured = structured;
        // The section goes after the page's own blocks (an open dialog), as the reference
        // lays it out; the snapshot slot is the one rendered there.
        resp.snapshot = Some(section);
        finish(cx, call, resp);
    });
}

/// The messages `args` ask for, consecutive repeats (same type, text and argument count)
/// once, with their count.
fn grouped<'a>(log: &'a Log, args: &ListArgs) -> Vec<(&'a Message, usize)> {
    let messages = log
        .messages(args.preserved)
        .into_iter()
        .filter(|m| args.types.is_empty() || args.types.contains(&m.kind));
    let mut grouped: Vec<(&Message, usize)> = Vec::new();
    for m in messages {
        match grouped.last_mut() {
            Some((first, n))
                if first.kind == m.kind
                    && first.text == m.text
                    && first.args.len() == m.args.len() =>
            {
                *n += 1
            }
            _ => grouped.push((m, 1)),
        }
    }
    grouped
}

fn render_list(log: &Log, args: &ListArgs) -> (String, Map<String, Value>) {
    let grouped = grouped(log, args);
    let mut structured = Map::new();
    let mut out = vec!["## Console messages".to_owned()];
    if grouped.is_empty() {
        out.push("<no console messages found>".to_owned());
        return (out.join("\n"), structured);
    }
    let paged = paginate(grouped.len(), &args.paging);
    out.extend(paged.lines);
    structured.insert("pagination".into(), paged.structured);
    let mut items = Vec::new();
    let mut any_stack = false;
    for (m, n) in &grouped[paged.start..paged.end] {
        let mut line = format!(
            "msgid={} [{}] {} ({} args)",
            m.id,
            m.kind,
            m.text,
            m.args.len()
        );
        let mut item =
            json!({"type": m.kind, "text": m.text, "argsCount": m.args.len(), "id": m.id});
        if *n > 1 {
            line.push_str(&format!(" [{n} times]"));
        }
        if let Some(stack) = m.stack.as_ref().filter(|_| args.with_stacks) {
            any_stack = true;
            let text = format::stack_text(stack, false);
            for l in text.lines() {
                line.push_str("\n  ");
                line.push_str(l);
            }
            item["stackTrace"] = json!(text);
        }
        if *n > 1 {
            item["count"] = json!(n);
        }
        out.push(line);
        items.push(item);
    }
    structured.insert("consoleMessages".into(), Value::Array(items));
    if any_stack {
        out.push("Note: stack trace line and column numbers use 1-based indexing".to_owned());
    }
    (out.join("\n"), structured)
}

// ---------------------------------------------------------------------------------------
// get_console_message

#[derive(Deserialize)]
struct GetArgs {
    #[serde(flatten)]
    shared: Shared,
    msgid: Option<f64>,
}

/// What the detail view needs of a message, copied out of the record.
struct Shown {
    id: u64,
    kind: String,
    text: String,
    args_count: usize,
    stack: Option<String>,
}

fn get_console_message(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<GetArgs>(cx, call, args) else {
        return;
    };
    let wanted = args.msgid.unwrap_or(-1.0);
    call::on_page(cx, call, args.shared.page(), move |cx, page| {
        if cx.browser.pages.get(page).is_none() {
            return call::fail(cx, call, crate::browser::pages::no_such_page(page));
        }
        let found = (wanted >= 1.0 && wanted.fract() == 0.0)
            .then(|| cx.console.get(page).and_then(|log| log.find(wanted as u64)))
            .flatten();
        let Some(m) = found else {
            // Reported outside the tool's own lines, as the reference does (bare text).
            let text = format!("No console message with msgid {wanted} on this page. Call list_console_messages to see the messages and their ids.");
            return call::finish(cx, call, ToolResult::error(text));
        };
        let shown = Shown {
            id: m.id,
            kind: m.kind.clone(),
            text: m.text.clone(),
            args_count: m.args.len(),
            stack: m.stack.as_ref().map(|s| format::stack_text(s, true)),
        };
        let page_session = cx.browser.pages.get(page).map(|p| p.session.clone());
        let session = m.frame_session.clone().or(page_session).unwrap_or_default();
        detail::resolve(
            cx,
            session,
            m.args.clone(),
            Box::new(move |cx, values| {
                let (text, structured) = render_detail(&shown, values);
                let mut resp = Response::for_page(page);
                resp.structured = structured;
                resp.snapshot = Some(text);
                finish(cx, call, resp);
            }),
        );
    });
}

fn render_detail(m: &Shown, mut args: Vec<String>) -> (String, Map<String, Value>) {
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
