//! `list_console_messages` and `get_console_message`, and the per-page record they read.
//!
//! Collected from the moment a page session is attached: console API calls
//! (`Runtime.consoleAPICalled`), uncaught exceptions and unhandled rejections
//! (`Runtime.exceptionThrown`), and messages the browser itself logs, such as failed loads
//! (`Log.entryAdded`). Messages are kept per document: the current one and the two before it
//! (a cross-document navigation of the main frame starts a new one; a same-document
//! navigation does not). Ids (`msgid`) count up per page and are never reused.
//!
//! Bounded memory, however long a session runs: at most [`record::MAX_MESSAGES`] messages and
//! about [`record::MAX_BYTES`] of text per page (the oldest go first), every stored string is
//! cut at [`format::MAX_TEXT`] characters, and a stack trace keeps its first
//! [`format::MAX_STACK_LINES`] lines. Objects passed to `console.*` stay in the page (as
//! handles) only while their message is kept; evicted ones are released. Their values are
//! read on demand by `get_console_message` ([`detail`]).

mod detail;
mod format;
mod load;
mod maps;
pub(super) mod record;

use serde_json::{json, Map, Number, Value};

use super::args::{self, max, tool_args};
use super::call::{self, CallId};
use super::ctx::Ctx;
use super::response::{finish, Response};
use super::tool::Tool;
use crate::browser::{self, PageId, RawEvent};
use crate::cdp::generated::{debugger, log, page as cdp_page, runtime};
use crate::paging::{paginate, Paging};
use crate::settings::Category;
use detail::MessageDetail;
use record::{Log, Message};

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

pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "list_console_messages",
        description: "List the page's console messages since its last navigation (logs, errors, exceptions), each with a msgid for get_console_message.",
        args: args::schema::<ListArgs>(),
        read_only: true,
        category: Category::Debugging,
        run: list_console_messages,
    },
    Tool {
        name: "get_console_message",
        description: "Show one console message in full (arguments, stack trace) by msgid.",
        args: args::schema::<GetArgs>(),
        read_only: true,
        category: Category::Debugging,
        run: get_console_message,
    },
];

tool_args! {
    struct ListArgs {
        "pageSize" page_size: Option<Number> = {"type": "integer", "exclusiveMinimum": 0, "maximum": max::COUNT, "description": "Default: all"},
        "pageIdx" page_idx: Option<Number> = {"type": "integer", "minimum": 0, "maximum": max::COUNT, "description": "From 0"},
        /// Only messages of these types (all when absent or empty).
        "types" types: Option<Vec<String>> = {
            "type": "array",
            "maxItems": max::ITEMS,
            "items": {"type": "string", "enum": TYPES},
        },
        "includePreservedMessages" preserved: Option<bool> = {"type": "boolean", "description": "Also the 2 previous navigations'"},
        "includeStackTraces" with_stacks: Option<bool> = {"type": "boolean"},
        "serviceWorkerId" service_worker_id: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Not collected here"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

tool_args! {
    struct GetArgs {
        "msgid" msgid: f64 = {"type": "number", "minimum": 0, "maximum": max::ID},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

// ---------------------------------------------------------------------------------------
// Collecting

/// A new page session: ask for browser log entries and async stack traces (the page is
/// paused before its first script, so nothing is missed; Runtime is already enabled).
pub(super) fn attach(cx: &mut Ctx, session: &str) {
    browser::fire(cx, Some(session), log::EnableParams {});
    // Async stack traces give the "--- setTimeout ---" parts DevTools shows.
    let depth = runtime::SetAsyncCallStackDepthParams { max_depth: 32 };
    browser::fire(cx, Some(session), depth);
}

pub(super) fn on_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    let session = event.session.as_deref().unwrap_or("");
    let message = if let Some(e) = event.decode::<debugger::ScriptParsedEvent>() {
        if cx.browser.pages.get(page).is_some() {
            cx.console.entry(page).scripts.parsed(&e);
        }
        None
    } else if let Some(e) = event.decode::<runtime::ConsoleAPICalledEvent>() {
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
    let Some(mut message) = message else {
        return;
    };
    if cx.browser.pages.get(page).is_none() {
        return;
    }
    // With source maps, a trace is kept to be told again through them when shown.
    if !cx.settings.policies.source_maps {
        if let Some(stack) = message.stack.as_mut() {
            stack.raw = None;
        }
    }
    let evicted = cx.console.entry(page).push(message);
    release(cx, session, evicted);
}

/// An event of one of the page's out-of-process iframes. Like the reference, only their
/// console API calls are collected (not their uncaught exceptions or browser log entries).
pub(super) fn on_frame_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    let Some(e) = event.decode::<runtime::ConsoleAPICalledEvent>() else {
        return;
    };
    if cx.browser.pages.get(page).is_none() {
        return;
    }
    let session = event.session.clone().unwrap_or_default();
    let mut message = record::console_call(&e);
    // Its scripts are the frame's: their maps are not known here.
    if let Some(stack) = message.stack.as_mut() {
        stack.raw = None;
    }
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

/// Which messages a listing shows.
struct Filter {
    types: Vec<String>,
    preserved: bool,
    with_stacks: bool,
    paging: Paging,
}

fn list_console_messages(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<ListArgs>(cx, call, args) else {
        return;
    };
    let filter = Filter {
        types: args.types.unwrap_or_default(),
        preserved: args.preserved.unwrap_or(false),
        with_stacks: args.with_stacks.unwrap_or(false),
        paging: Paging::new(args.page_size, args.page_idx),
    };
    let service_worker = args.service_worker_id.is_some();
    call::on_page(cx, call, args.page, move |cx, page| {
        if service_worker {
            return call::fail(
                    cx,
                    call,
                    "Console messages of service workers are not collected by this server; leave out serviceWorkerId to list the page's messages.",
                );
        }
        if cx.browser.pages.get(page).is_none() {
            return call::fail(cx, call, browser::pages::no_such_page(page));
        }
        let scripts = if filter.with_stacks {
            let log = cx.console.entry(page);
            log.unloaded_maps(grouped(log, &filter).into_iter().map(|(m, _)| m))
        } else {
            Vec::new()
        };
        load::load(cx, page, scripts, move |cx| {
            let (section, structured) = render_list(cx.console.entry(page), &filter);
            let mut resp = Response::for_page(page);
            resp.structured = structured;
            // The section goes after the page's own blocks (an open dialog), as the
            // reference lays it out; the snapshot slot is the one rendered there.
            resp.snapshot = Some(section);
            finish(cx, call, resp);
        });
    });
}

/// The messages `filter` lets through, consecutive repeats (same type, text and argument
/// count) once, with their count.
fn grouped<'a>(log: &'a Log, filter: &Filter) -> Vec<(&'a Message, usize)> {
    let messages = log
        .messages(filter.preserved)
        .into_iter()
        .filter(|m| filter.types.is_empty() || filter.types.contains(&m.kind));
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

fn render_list(log: &Log, filter: &Filter) -> (String, Map<String, Value>) {
    let grouped = grouped(log, filter);
    let mut structured = Map::new();
    let mut out = vec!["## Console messages".to_owned()];
    if grouped.is_empty() {
        out.push("<no console messages found>".to_owned());
        return (out.join("\n"), structured);
    }
    let paged = paginate(grouped.len(), &filter.paging);
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
        if let Some(stack) = m.stack.as_ref().filter(|_| filter.with_stacks) {
            any_stack = true;
            let text = log.stack_text_of(stack, false);
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

fn get_console_message(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<GetArgs>(cx, call, args) else {
        return;
    };
    MessageDetail::new(call, args.msgid).start(cx, args.page);
}
