//! The input tools: clicking, hovering, dragging, filling forms, pressing keys, typing,
//! uploading files, and answering JavaScript dialogs. Every action is real input (CDP
//! `Input.*` events aimed at the element's box), is followed by a short bounded wait for the
//! navigation or DOM change it caused, and never waits behind a dialog it opened.
//!
//! One file per tool (its schema, arguments and handler); the steps they share are here and in
//! `dispatch` (sending input events), `element` (aiming at an element), `keys` (the keyboard
//! layout), `watch` (waiting for what an action set off) and `reply` (the answer).

mod click;
mod click_at;
mod dispatch;
mod drag;
mod element;
mod fill;
mod fill_form;
mod handle_dialog;
mod hover;
mod keys;
mod press_key;
mod reach;
mod reply;
mod type_text;
mod upload_file;
mod watch;

use super::{fail, Tool};
use crate::browser::{pages, PageId};
use crate::tools::{call, dialogs, snapshot, CallId, Ctx};
use element::Element;
use watch::Outcome;

/// The order `tools/list` shows them in.
pub const TOOLS: &[Tool] = &[
    click::TOOL,
    click_at::TOOL,
    drag::TOOL,
    fill::TOOL,
    fill_form::TOOL,
    handle_dialog::TOOL,
    hover::TOOL,
    press_key::TOOL,
    type_text::TOOL,
    upload_file::TOOL,
];

/// Gets the call's page and refuses to act while a dialog blocks it (the page would not take
/// the input anyway).
fn begin(
    cx: &mut Ctx,
    call: CallId,
    requested: Option<PageId>,
    then: impl FnOnce(&mut Ctx, PageId) + 'static,
) {
    call::limit_by_default(cx, call, |ms| {
        format!("The input action did not finish within {ms} ms.")
    });
    call::on_page(cx, call, requested, move |cx, page| {
        if !dialogs::refuse(cx, call, page) {
            then(cx, page)
        }
    });
}

/// The session of the call's page, or `None` once the call has failed for want of it.
fn session(cx: &mut Ctx, call: CallId, page: PageId) -> Option<String> {
    match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => Some(s),
        Err(e) => {
            fail(cx, call, e);
            None
        }
    }
}

/// The session key events go to: the one whose document has the focus (see
/// `browser::frames::focused_session`), or `None` once the call has failed for want of it.
fn keyboard_session(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    then: impl FnOnce(&mut Ctx, String) + 'static,
) {
    let found: crate::tools::Done<String> = Box::new(move |cx, r| match r {
        Ok(s) => then(cx, s),
        Err(e) => fail(cx, call, e),
    });
    crate::browser::frames::focused_session(cx, page, found);
}

/// Resolves uids of the page's latest snapshot to elements, or fails the call.
fn elements(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    uids: Vec<String>,
    then: impl FnOnce(&mut Ctx, String, Vec<Element>) + 'static,
) {
    let wanted = uids.clone();
    snapshot::resolve_elements(
        cx,
        page,
        uids,
        Box::new(move |cx, r| {
            let objects = match r {
                Ok(o) => o,
                Err(e) => return fail(cx, call, e),
            };
            let Some(session) = session(cx, call, page) else {
                return;
            };
            let els = wanted
                .into_iter()
                .zip(objects)
                .map(|(uid, o)| Element {
                    uid,
                    object_id: o.object_id,
                    session: o.session,
                })
                .collect();
            then(cx, session, els)
        }),
    );
}

/// Runs an action, waits for what it started, and answers with `texts`: what to say when it
/// completed, and when a dialog it opened interrupted it.
fn act_and_reply(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    action: watch::Action,
    texts: (String, String),
    include_snapshot: bool,
) {
    watch::act(
        cx,
        page,
        true,
        action,
        Box::new(move |cx, r| match r {
            Err(e) => fail(cx, call, e),
            Ok(o) => {
                let line = said(&o, texts.0, texts.1);
                reply::reply(cx, call, page, line, o, include_snapshot)
            }
        }),
    );
}

/// The line for an action: `done` when its events went through, `interrupted` when a dialog
/// opened before they did.
fn said(outcome: &Outcome, done: String, interrupted: String) -> String {
    if outcome.dialog && !outcome.completed {
        interrupted
    } else {
        done
    }
}
