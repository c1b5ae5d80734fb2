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
pub fn goto<H: Host>(h: &mut H, page: PageId, url: String, timeout: Duration, done: Done<H, ()>) {
    let session = match session_of(&h.browser().pages, page) {
        Ok(s) => s,
        Err(e) => return done(h, Err(e)),
    };
    // --blockedUrlPattern / --allowedUrlPattern (issue 10 part 3): refused before it starts,
    // in the reference's words.
    if !super::url_rules::allowed(&h.settings().policies.url_rules, &url) {
        return done(h, Err(Error::Invalid(super::url_rules::refused(&url))));
    }
    let deadline = Instant::now() + timeout;
    // Page.navigate itself answers only once the server has sent the response head, which a
    // slow or stuck server may never do: the deadline covers that wait too.
    let once = Once::new(done);
    let on_time = once.clone();
    let stuck = session.clone();
    let timer = h.after(timeout, move |h| {
        // Until a navigation to another site commits, the browser holds back commands for the
        // page's scripts, so every later call on the page would stall behind it: the page
        // stays on the document it had.
        fire(h, Some(&stuck), cdp_page::StopLoadingParams {});
        on_time.call(h, Err(Error::Timeout(timeout_error(timeout))))
    });
    let params = cdp_page::NavigateParams {
        url: url.clone(),
        ..Default::default()
    };
    send(h, Some(&session), params, move |h, r| {
        h.cancel_timer(timer);
        let done: Done<H, ()> = Box::new(move |h, r| once.call(h, r));
        match r {
            Err(e) => done(h, Err(e)),
            Ok(nav) => match nav.error_text.filter(|t| !t.is_empty()) {
                // A navigation that killed the renderer (chrome://crash) is aborted: the
                // crash is what happened.
                Some(_) if h.browser().pages.get(page).is_some_and(|p| p.crashed) => {
                    done(h, Err(Error::Crashed))
                }
                Some(text) => done(h, Err(Error::Page(format!("{text} at {url}")))),
                // No loader: a same-document navigation (a fragment), complete already.
                None => match nav.loader_id {
                    None => done(h, Ok(())),
                    Some(loader) => {
                        let left = deadline.saturating_duration_since(Instant::now());
                        wait_for_loader(h, page, loader, left, timeout, done)
                    }
                },
            },
        }
    });
}

/// Waits up to `left` for the load of `loader`; `timeout` is the whole navigation's, for the
/// message.
fn wait_for_loader<H: Host>(
    h: &mut H,
    page: PageId,
    loader: String,
    left: Duration,
    timeout: Duration,
    done: Done<H, ()>,
) {
    let Some(p) = h.browser().pages.get(page) else {
        return done(h, Err(Error::PageGone(format!("Page {page} was closed."))));
    };
    if p.loaded_loader.as_deref() == Some(loader.as_str()) {
        return done(h, Ok(()));
    }
    let frame = p.target_id.clone();
    let session = p.session.clone();
    waiters::wait(
        h,
        &session,
        move |e: &cdp_page::LifecycleEventEvent| {
            e.name == "load" && e.loader_id == loader && e.frame_id == frame
        },
        left,
        timeout_error(timeout),
        Box::new(move |h, r| done(h, r.map(|_| ()))),
    );
}

/// Reloads the page and waits for the new document's load event.
pub fn reload<H: Host>(
    h: &mut H,
    page: PageId,
    ignore_cache: bool,
    timeout: Duration,
    done: Done<H, ()>,
) {
    let session = match session_of(&h.browser().pages, page) {
        Ok(s) => s,
        Err(e) => return done(h, Err(e)),
    };
    let once = Once::new(done);
    let on_load = once.clone();
    let waiter = waiters::wait(
        h,
        &session,
        |_: &cdp_page::LoadEventFiredEvent| true,
        timeout,
        timeout_error(timeout),
        Box::new(move |h, r| on_load.call(h, r.map(|_| ()))),
    );
    let params = cdp_page::ReloadParams {
        ignore_cache: Some(ignore_cache),
        ..Default::default()
    };
    send(h, Some(&session), params, move |h, r| {
        if let Err(e) = r {
            waiters::cancel(h, waiter);
            once.call(h, Err(e));
        }
    });
}

/// Goes `delta` entries through the history (−1 back, +1 forward) and waits for the page
/// to settle: a load for a new document, or a same-document navigation.
pub fn history<H: Host>(h: &mut H, page: PageId, delta: i64, timeout: Duration, done: Done<H, ()>) {
    let session = match session_of(&h.browser().pages, page) {
        Ok(s) => s,
        Err(e) => return done(h, Err(e)),
    };
    let s = session.clone();
    send(
        h,
        Some(&s),
        cdp_page::GetNavigationHistoryParams {},
        move |h, r| {
            let history = match r {
                Ok(history) => history,
                Err(e) => return done(h, Err(e)),
            };
            let index = history.current_index + delta;
            let entry = usize::try_from(index)
                .ok()
                .and_then(|i| history.entries.get(i));
            let Some(entry) = entry else {
                let which = if delta < 0 { "back" } else { "forward" };
                return done(
                    h,
                    Err(Error::Invalid(format!(
                        "There is no page to go {which} to."
                    ))),
                );
            };
            let entry_id = entry.id;
            settle_after(h, &session, timeout, done);
            let go = cdp_page::NavigateToHistoryEntryParams { entry_id };
            fire(h, Some(&session), go);
        },
    );
}

/// Waits for either a load event or a same-document navigation, whichever comes first.
fn settle_after<H: Host>(h: &mut H, session: &str, timeout: Duration, done: Done<H, ()>) {
    let once = Once::new(done);
    let on_load = once.clone();
    // The waiter that loses the race stays until its deadline and then finds `once` spent.
    waiters::wait(
        h,
        session,
        |_: &cdp_page::LoadEventFiredEvent| true,
        timeout,
        timeout_error(timeout),
        Box::new(move |h, r| on_load.call(h, r.map(|_| ()))),
    );
    waiters::wait(
        h,
        session,
        |_: &cdp_page::NavigatedWithinDocumentEvent| true,
        timeout,
        timeout_error(timeout),
        Box::new(move |h, r| once.call(h, r.map(|_| ()))),
    );
}
