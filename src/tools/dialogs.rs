//! JavaScript dialogs, as the tools meet them. While a dialog is open the page's main thread
//! waits, and with it every command that needs the page: a call that would wait is refused
//! at once ([`refuse`], [`blocked`]), and work that a dialog may interrupt gives up as soon as
//! one opens ([`unless_dialog`]). A dialog that page code opens while a call runs it is
//! answered at once by that call's policy, and the call's answer says so ([`on_event`]).

use std::time::Duration;

use super::call::{self, CallId};
use super::ctx::{Ctx, DialogPolicy};
use super::result::ToolResult;
use crate::browser::pages::Dialog;
use crate::browser::{self, waiters, Done, Once, PageId, RawEvent};
use crate::cdp::generated::page as cdp_page;
use crate::error::Error;

/// The reference's `# Open dialog` section.
pub(crate) fn section(d: &Dialog) -> String {
    let default = if d.kind == "prompt" {
        format!(" (default value: \"{}\")", d.default_prompt)
    } else {
        String::new()
    };
    format!(
        "# Open dialog\n{}: {}{default}.\nCall handle_dialog to handle it before continuing.",
        d.kind, d.message
    )
}

/// The reference's error for a call that the page's open dialog blocks, if it has one.
pub(crate) fn blocked(cx: &Ctx, page: PageId) -> Option<String> {
    let d = cx.browser.pages.get(page)?.dialog.as_ref()?;
    Some(format!("A dialog is open ({}: {}).", d.kind, d.message))
}

/// Answers the call as the reference words a call an open dialog blocks (the open-dialog
/// section, then the error) and returns true, when the page has a dialog open.
pub(crate) fn refuse(cx: &mut Ctx, call: CallId, page: PageId) -> bool {
    let Some(d) = cx.browser.pages.get(page).and_then(|p| p.dialog.as_ref()) else {
        return false;
    };
    let text = format!(
        "{}\n{}",
        section(d),
        call::error_text(&format!("A dialog is open ({}: {}).", d.kind, d.message))
    );
    call::finish(cx, call, ToolResult::error(text));
    true
}

/// Work that answers through the continuation it is given.
pub(crate) type Work<T> = Box<dyn FnOnce(&mut Ctx, Done<Ctx, T>)>;

/// Runs `work` unless the page shows a dialog first: a dialog opening (which stops the page's
/// rendering and script, so `work` would wait for as long as it stays open) ends the wait at
/// once with an error naming it, and so does `timeout`. Whichever comes first answers `done`.
pub(crate) fn unless_dialog<T: 'static>(
    cx: &mut Ctx,
    session: &str,
    timeout: Duration,
    timeout_message: String,
    work: Work<T>,
    done: Done<Ctx, T>,
) {
    let once = Once::new(done);
    let on_dialog = once.clone();
    let waiter = waiters::wait(
        cx,
        session,
        |_: &cdp_page::JavascriptDialogOpeningEvent| true,
        timeout,
        timeout_message,
        Box::new(
            move |cx, r: Result<cdp_page::JavascriptDialogOpeningEvent, Error>| {
                let err = match r {
                    Ok(dialog) => {
                        let kind = match dialog.r#type.as_str() {
                            "" => "alert",
                            kind => kind,
                        };
                        Error::Page(format!("A dialog is open ({kind}: {}).", dialog.message))
                    }
                    Err(e) => e,
                };
                on_dialog.call(cx, Err(err));
            },
        ),
    );
    work(
        cx,
        Box::new(move |cx, r| {
            waiters::cancel(cx, waiter);
            once.call(cx, r);
        }),
    );
}

/// A dialog opened. While a call runs page code here, the dialog is answered at once by
/// that call's policy and the call reports it; otherwise it stays open for
/// `handle_dialog`, and answers mention it.
pub(crate) fn on_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    if !event.is::<cdp_page::JavascriptDialogOpeningEvent>() {
        return;
    }
    let Some((call, policy)) = call::dialog_answerer(cx, page) else {
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
    call::note_dialog(cx, call, note);
    let session = event.session.as_deref();
    let answer = cdp_page::HandleJavaScriptDialogParams {
        accept,
        prompt_text: Some(text),
    };
    browser::fire(cx, session, answer);
}
