//! Navigating a page and waiting for the new document to load, bounded by a timeout.

use std::time::{Duration, Instant};

use super::host::{Done, Host, Once};
use super::pages::{session_of, PageId};
use super::{fire, send, waiters};
use crate::cdp::generated::page as cdp_page;
use crate::error::Error;

fn timeout_error(timeout: Duration) -> String {
    format!("Navigation timeout of {} ms exceeded", timeout.as_millis())
}

/// Loads `url` in the page and waits for its `load` event, all within `timeout`.
pub fn goto<H: Host>(cx: &mut H, page: PageId, url: String, timeout: Duration, done: Done<H, ()>) {
    let session = match session_of(&cx.browser().pages, page) {
        Ok(s) => s,
        Err(e) => return done(cx, Err(e)),
    };
    // --blockedUrlPattern / --allowedUrlPattern (issue 10 part 3): refused before it starts,
    // in the reference's words.
    if !super::url_rules::allowed(&cx.settings().policies.url_rules, &url) {
        return done(cx, Err(Error::Invalid(super::url_rules::refused(&url))));
    }
    let deadline = Instant::now() + timeout;
    // Page.navigate itself answers only once the server has sent the response head, which a
    // slow or stuck server may never do: the deadline covers that wait too.
    let once = Once::new(done);
    let on_time = once.clone();
    let stuck = session.clone();
    let timer = cx.after(timeout, move |cx| {
        // Until a navigation to another site commits, the browser holds back commands for the
        // page's scripts, so every later call on the page would stall behind it: the page
        // stays on the document it had.
        fire(cx, Some(&stuck), cdp_page::StopLoadingParams {});
        on_time.call(cx, Err(Error::Timeout(timeout_error(timeout))))
    });
    let params = cdp_page::NavigateParams {
        url: url.clone(),
        ..Default::default()
    };
    send(cx, Some(&session), params, move |cx, r| {
        cx.cancel_timer(timer);
        let done: Done<H, ()> = Box::new(move |cx, r| once.call(cx, r));
        match r {
            Err(e) => done(cx, Err(e)),
            Ok(nav) => match nav.error_text.filter(|t| !t.is_empty()) {
                // A navigation that killed the renderer (chrome://crash) is aborted: the
                // crash is what happened.
                Some(_) if cx.browser().pages.get(page).is_some_and(|p| p.crashed) => {
                    done(cx, Err(Error::Crashed))
                }
                Some(text) => done(cx, Err(Error::Page(format!("{text} at {url}")))),
                // No loader: a same-document navigation (a fragment), complete already.
                None => match nav.loader_id {
                    None => done(cx, Ok(())),
                    Some(loader) => {
                        let left = deadline.saturating_duration_since(Instant::now());
                        wait_for_loader(cx, page, loader, left, timeout, done)
                    }
                },
            },
        }
    });
}

/// Waits up to `left` for the load of `loader`; `timeout` is the whole navigation's, for the
/// message.
fn wait_for_loader<H: Host>(
    cx: &mut H,
    page: PageId,
    loader: String,
    left: Duration,
    timeout: Duration,
    done: Done<H, ()>,
) {
    let Some(p) = cx.browser().pages.get(page) else {
        return done(cx, Err(Error::PageGone(format!("Page {page} was closed."))));
    };
    if p.loaded_loader.as_deref() == Some(loader.as_str()) {
        return done(cx, Ok(()));
    }
    let frame = p.target_id.clone();
    let session = p.session.clone();
    waiters::wait(
        cx,
        &session,
        move |e: &cdp_page::LifecycleEventEvent| {
            e.name == "load" && e.loader_id == loader && e.frame_id == frame
        },
        left,
        timeout_error(timeout),
        Box::new(move |cx, r| done(cx, r.map(|_| ()))),
    );
}

/// Reloads the page and waits for the new document's load event.
pub fn reload<H: Host>(
    cx: &mut H,
    page: PageId,
    ignore_cache: bool,
    timeout: Duration,
    done: Done<H, ()>,
) {
    let session = match session_of(&cx.browser().pages, page) {
        Ok(s) => s,
        Err(e) => return done(cx, Err(e)),
    };
    let once = Once::new(done);
    let on_load = once.clone();
    let waiter = waiters::wait(
        cx,
        &session,
        |_: &cdp_page::LoadEventFiredEvent| true,
        timeout,
        timeout_error(timeout),
        Box::new(move |cx, r| on_load.call(cx, r.map(|_| ()))),
    );
    let params = cdp_page::ReloadParams {
        ignore_cache: Some(ignore_cache),
        ..Default::default()
    };
    send(cx, Some(&session), params, move |cx, r| {
        if let Err(e) = r {
            waiters::cancel(cx, waiter);
            once.call(cx, Err(e));
        }
    });
}

/// Goes `delta` entries through the history (−1 back, +1 forward) and waits for the page
/// to settle: a load for a new document, or a same-document navigation.
pub fn history<H: Host>(
    cx: &mut H,
    page: PageId,
    delta: i64,
    timeout: Duration,
    done: Done<H, ()>,
) {
    let session = match session_of(&cx.browser().pages, page) {
        Ok(s) => s,
        Err(e) => return done(cx, Err(e)),
    };
    let s = session.clone();
    send(
        cx,
        Some(&s),
        cdp_page::GetNavigationHistoryParams {},
        move |cx, r| {
            let history = match r {
                Ok(history) => history,
                Err(e) => return done(cx, Err(e)),
            };
            let index = history.current_index + delta;
            let entry = usize::try_from(index)
                .ok()
                .and_then(|i| history.entries.get(i));
            let Some(entry) = entry else {
                let which = if delta < 0 { "back" } else { "forward" };
                return done(
                    cx,
                    Err(Error::Invalid(format!(
                        "There is no page to go {which} to."
                    ))),
                );
            };
            let entry_id = entry.id;
            settle_after(cx, &session, timeout, done);
            let go = cdp_page::NavigateToHistoryEntryParams { entry_id };
            fire(cx, Some(&session), go);
        },
    );
}

/// Waits for either a load event or a same-document navigation, whichever comes first.
fn settle_after<H: Host>(cx: &mut H, session: &str, timeout: Duration, done: Done<H, ()>) {
    let once = Once::new(done);
    let on_load = once.clone();
    // The waiter that loses the race stays until its deadline and then finds `once` spent.
    waiters::wait(
        cx,
        session,
        |_: &cdp_page::LoadEventFiredEvent| true,
        timeout,
        timeout_error(timeout),
        Box::new(move |cx, r| on_load.call(cx, r.map(|_| ()))),
    );
    waiters::wait(
        cx,
        session,
        |_: &cdp_page::NavigatedWithinDocumentEvent| true,
        timeout,
        timeout_error(timeout),
        Box::new(move |cx, r| once.call(cx, r.map(|_| ()))),
    );
}
