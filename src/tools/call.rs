//! The life of a tool call: started, then finished (answered), failed, timed out or
//! cancelled — exactly one of these. A call owns the work it starts: when it ends, every
//! continuation it still had waiting is dropped unrun.
//!
//! Tool code answers through this module; the MCP layer reads the answers from
//! [`Ctx::outbox`](super::Ctx) and never hands tools anything but a [`CallId`].

use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::args;
use super::ctx::{Call, Ctx, DialogPolicy, Done, Outcome, PageCode};
use super::result::ToolResult;
pub(crate) use crate::browser::CallId;
use crate::browser::{self, AgentId, Host, PageId};
use crate::cdp::generated::{runtime, web_mcp};
use crate::error::Error;
use crate::log::log;

/// Starts a call of `tool` for `agent`; work started while it runs is owned by it.
pub(crate) fn start(cx: &mut Ctx, agent: AgentId, tool: &'static str) -> CallId {
    cx.calls.next_id += 1;
    let id = CallId(cx.calls.next_id);
    let call = Call {
        tool,
        agent,
        started: Instant::now(),
        timer: None,
        page_code: None,
        invocation: None,
        dialog_notes: Vec::new(),
    };
    cx.calls.calls.insert(id, call);
    id
}

/// The agent `call` works for (the default agent once it has ended: nothing of it runs then).
pub(crate) fn agent(cx: &Ctx, call: CallId) -> AgentId {
    cx.calls
        .calls
        .get(&call)
        .map_or(AgentId::DEFAULT, |c| c.agent)
}

/// Whether the browser was restarted since `call`'s agent last heard of it (it hears it once).
pub(crate) fn take_restarted(cx: &mut Ctx, call: CallId) -> bool {
    let agent = agent(cx, call);
    cx.browser.pages.agents.take_restarted(agent)
}

/// Ends the call and drops what it still waited on. `None` when it had ended already.
fn end(cx: &mut Ctx, call: CallId) -> Option<Call> {
    let c = cx.calls.calls.remove(&call)?;
    if let Some(timer) = c.timer {
        cx.cancel_timer(timer);
    }
    browser::forget_owner(cx, call);
    Some(c)
}

/// Answers a call. A call that has ended already (cancelled, timed out) is not answered
/// twice.
pub(crate) fn finish(cx: &mut Ctx, call: CallId, result: ToolResult) {
    if end(cx, call).is_some() {
        cx.outbox.push(Outcome::Answer(call, result));
    }
}

/// Answers a call with an error. As in the reference, the message is the last line of the
/// text, after `Error: `; an empty message (a page threw an empty string) stays empty.
pub(crate) fn fail(cx: &mut Ctx, call: CallId, err: impl std::fmt::Display) {
    let mut text = error_text(&err.to_string());
    // The first answer after the browser came back says so, an error as much as a success.
    if cx.calls.contains(call) && take_restarted(cx, call) {
        text = format!("{}\n{text}", restart_note(false));
    }
    finish(cx, call, ToolResult::error(text));
}

pub(crate) fn error_text(message: &str) -> String {
    if message.is_empty() {
        String::new()
    } else {
        format!("Error: {message}")
    }
}

/// The client cancelled: stop waiting, drop the call's work, stop the page script it runs.
/// No answer is sent (as MCP says).
pub(crate) fn cancel(cx: &mut Ctx, call: CallId) {
    let Some(c) = end(cx, call) else {
        return;
    };
    if let Some(code) = &c.page_code {
        stop_page_script(cx, &code.session);
    }
    cancel_invocation(cx, c.invocation);
    log!(
        "call {call} ({}) cancelled by the client after {} ms",
        c.tool,
        c.started.elapsed().as_millis()
    );
}

/// [`limit`] with the server's default time limit for calls that need the page
/// (`--toolTimeout`); `message` gets it in milliseconds.
pub(crate) fn limit_by_default(cx: &mut Ctx, call: CallId, message: impl FnOnce(u128) -> String) {
    let after = cx.settings.tool_timeout;
    limit(cx, call, after, message(after.as_millis()));
}

/// Gives the call a time limit: when it passes, the call is answered with `message` as an
/// error, its pending work is dropped, and a page busy with its script is interrupted.
pub(crate) fn limit(cx: &mut Ctx, call: CallId, after: Duration, message: String) {
    let timer = cx.run_as(None, |cx| {
        cx.after(after, move |cx| {
            let (session, invocation) = match cx.calls.calls.get_mut(&call) {
                Some(c) => {
                    c.timer = None;
                    let session = c.page_code.as_ref().map(|code| code.session.clone());
                    (session, c.invocation.take())
                }
                None => (None, None),
            };
            // Worded like every other failed call.
            fail(cx, call, message);
            if let Some(session) = session {
                stop_page_script(cx, &session);
            }
            cancel_invocation(cx, invocation);
        })
    });
    if let Some(c) = cx.calls.calls.get_mut(&call) {
        if let Some(old) = c.timer.replace(timer) {
            cx.cancel_timer(old);
        }
    }
}

/// Marks the call as running page code in `page`'s session `session`: a timeout or a
/// cancel interrupts it there, and a dialog it opens is answered by `policy` (left open
/// when `None`).
pub(crate) fn runs_page_code(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    session: &str,
    policy: Option<DialogPolicy>,
) {
    cx.calls.page_code_seq += 1;
    let seq = cx.calls.page_code_seq;
    if let Some(c) = cx.calls.calls.get_mut(&call) {
        c.page_code = Some(PageCode {
            session: session.to_owned(),
            page,
            policy,
            seq,
        });
    }
}

/// What happened to dialogs the call's page code opened (and that were answered for it),
/// as lines for its answer. The call answers no further dialogs.
pub(crate) fn take_dialog_notes(cx: &mut Ctx, call: CallId) -> Vec<String> {
    let Some(c) = cx.calls.calls.get_mut(&call) else {
        return Vec::new();
    };
    if let Some(code) = &mut c.page_code {
        code.policy = None;
    }
    std::mem::take(&mut c.dialog_notes)
}

/// The call whose page code answers a dialog that opened on `page`: the earliest of those
/// running page code there with a dialog policy, and the policy.
pub(crate) fn dialog_answerer(cx: &Ctx, page: PageId) -> Option<(CallId, DialogPolicy)> {
    let running = cx.calls.calls.iter().filter_map(|(id, c)| {
        let code = c.page_code.as_ref().filter(|code| code.page == page)?;
        Some((code.seq, *id, code.policy.clone()?))
    });
    let (_, call, policy) = running.min_by_key(|(seq, _, _)| *seq)?;
    Some((call, policy))
}

/// Notes for `call`'s answer what happened to a dialog its page code opened.
pub(crate) fn note_dialog(cx: &mut Ctx, call: CallId, note: String) {
    if let Some(c) = cx.calls.calls.get_mut(&call) {
        c.dialog_notes.push(note);
    }
}

/// Marks the call as waiting for the WebMCP invocation `id` on `session`: a timeout or a
/// cancel cancels it in the page.
pub(crate) fn runs_invocation(cx: &mut Ctx, call: CallId, session: &str, id: &str) {
    if let Some(c) = cx.calls.calls.get_mut(&call) {
        c.invocation = Some((session.to_owned(), id.to_owned()));
    }
}

/// WebMCP: tells the page to abandon an invocation nobody waits for any more.
fn cancel_invocation(cx: &mut Ctx, invocation: Option<(String, String)>) {
    let Some((session, invocation_id)) = invocation else {
        return;
    };
    cx.run_as(None, |cx| {
        let cancel = web_mcp::CancelInvocationParams { invocation_id };
        browser::fire(cx, Some(&session), cancel);
    });
}

/// A busy loop in the page would keep its main thread from ever answering again; stopping
/// the running script frees it. A pending promise is unaffected by this and is simply no
/// longer waited for.
fn stop_page_script(cx: &mut Ctx, session: &str) {
    cx.run_as(None, |cx| {
        browser::send(
            cx,
            Some(session),
            runtime::TerminateExecutionParams {},
            |_, _| {},
        );
    });
}

/// The page a call works on, for a flow: `requested` (a `pageId` argument, one of its agent's
/// pages) or the agent's selected page, the browser started and a page opened if the agent
/// has none; `done` gets it or the error.
pub(crate) fn page(cx: &mut Ctx, call: CallId, requested: Option<PageId>, done: Done<PageId>) {
    let agent = agent(cx, call);
    browser::with_page(cx, agent, requested, done);
}

/// [`page`] for calls that run code in the page: a crashed page is an error at once (until
/// it is navigated, the browser leaves such commands unanswered).
pub(crate) fn live_page(cx: &mut Ctx, call: CallId, requested: Option<PageId>, done: Done<PageId>) {
    let live = move |cx: &mut Ctx, r: Result<PageId, Error>| {
        let r =
            r.and_then(|page| browser::pages::not_crashed(&cx.browser.pages, page).map(|()| page));
        done(cx, r)
    };
    page(cx, call, requested, Box::new(live));
}

/// Runs `then` with the page the call works on ([`page`]), or answers the call with the
/// error that kept it from getting one. For calls with one step after it; a call of several
/// steps is a flow and takes [`page`]'s answer as a step of its own.
pub(crate) fn on_page(
    cx: &mut Ctx,
    call: CallId,
    requested: Option<PageId>,
    then: impl FnOnce(&mut Ctx, PageId) + 'static,
) {
    let found = move |cx: &mut Ctx, r: Result<PageId, Error>| match r {
        Ok(page) => then(cx, page),
        Err(e) => fail(cx, call, e),
    };
    page(cx, call, requested, Box::new(found));
}

/// [`on_page`] with [`live_page`].
pub(crate) fn on_live_page(
    cx: &mut Ctx,
    call: CallId,
    requested: Option<PageId>,
    then: impl FnOnce(&mut Ctx, PageId) + 'static,
) {
    let found = move |cx: &mut Ctx, r: Result<PageId, Error>| match r {
        Ok(page) => then(cx, page),
        Err(e) => fail(cx, call, e),
    };
    live_page(cx, call, requested, Box::new(found));
}

/// The arguments as the tool's struct, or `None` after answering the call with the error.
pub(crate) fn args<T: DeserializeOwned>(cx: &mut Ctx, call: CallId, args: Value) -> Option<T> {
    match args::parse(args) {
        Ok(a) => Some(a),
        Err(e) => {
            fail(cx, call, e);
            None
        }
    }
}

/// The note on the first answer after the browser was lost and started (or reached) again.
/// An answer that lists the pages says it as the reference does; any other also says what
/// went with the old browser.
pub(crate) fn restart_note(lists_pages: bool) -> &'static str {
    if lists_pages {
        "Note: the browser was restarted or reconnected since the last call. Page ids have changed. Call list_pages to see open pages."
    } else {
        "Note: the browser was restarted or reconnected since the last call. The pages open before were lost, with their state (page ids, scripts, dialogs, emulation, console and network records). Call list_pages to see open pages."
    }
}
