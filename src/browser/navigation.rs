//! Navigating a page and waiting for the new document to load, bounded by a timeout.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::app::{App, Done, Once};
use crate::browser::{pages::session_of, send, waiters};
use crate::cdp::generated::page as cdp_page;
use crate::error::Error;

fn timeout_error(timeout: Duration) -> String {
    format!("Navigation timeout of {} ms exceeded", timeout.as_millis())
}

/// Loads `url` in the page and waits for its `load` event, all within `timeout`.
pub fn goto(app: &mut App, page: u32, url: String, timeout: Duration, done: Done<()>) {
    let session = match session_of(app, page) {
        Ok(s) => s,
        Err(e) => return done(app, Err(e)),
    };
    let deadline = Instant::now() + timeout;
    // Page.navigate itself answers only once the server has sent the response head, which a
    // slow or stuck server may never do: the deadline covers that wait too.
    let once = Once::new(done);
    let on_time = once.clone();
    let stuck = session.clone();
    let timer = app.after(timeout, move |app| {
        // Until a navigation to another site commits, the browser holds back commands for the
        // page's scripts, so every later call on the page would stall behind it: the page
        // stays on the document it had.
        crate::browser::fire(app, Some(&stuck), "Page.stopLoading", json!({}));
        on_time.call(app, Err(Error::Timeout(timeout_error(timeout))))
    });
    let params = cdp_page::NavigateParams {
        url: url.clone(),
        ..Default::default()
    };
    send(app, Some(&session), params, move |app, r| {
        app.timers.cancel(timer);
        let done: Done<()> = Box::new(move |app, r| once.call(app, r));
        match r {
            Err(e) => done(app, Err(e)),
            Ok(nav) => match nav.error_text.filter(|t| !t.is_empty()) {
                // A navigation that killed the renderer (chrome://crash) is aborted: the
                // crash is what happened.
                Some(_) if app.browser.pages.get(page).is_some_and(|p| p.crashed) => {
                    done(app, Err(Error::Crashed))
                }
                Some(text) => done(app, Err(Error::Page(format!("{text} at {url}")))),
                // No loader: a same-document navigation (a fragment), complete already.
                None => match nav.loader_id {
                    None => done(app, Ok(())),
                    Some(loader) => {
                        let left = deadline.saturating_duration_since(Instant::now());
                        wait_for_loader(app, page, loader, left, timeout, done)
                    }
                },
            },
        }
    });
}

/// Waits up to `left` for the load of `loader`; `timeout` is the whole navigation's, for the
/// message.
fn wait_for_loader(
    app: &mut App,
    page: u32,
    loader: String,
    left: Duration,
    timeout: Duration,
    done: Done<()>,
) {
    let Some(p) = app.browser.pages.get(page) else {
        return done(
            app,
            Err(Error::PageGone(format!("Page {page} was closed."))),
        );
    };
    if p.loaded_loader.as_deref() == Some(loader.as_str()) {
        return done(app, Ok(()));
    }
    let frame = p.target_id.clone();
    let session = p.session.clone();
    waiters::wait(
        app,
        &session,
        "Page.lifecycleEvent",
        move |e: &Value| e["name"] == "load" && e["loaderId"] == *loader && e["frameId"] == *frame,
        left,
        timeout_error(timeout),
        Box::new(move |app, r| done(app, r.map(|_| ()))),
    );
}

/// Reloads the page and waits for the new document's load event.
pub fn reload(app: &mut App, page: u32, ignore_cache: bool, timeout: Duration, done: Done<()>) {
    let session = match session_of(app, page) {
        Ok(s) => s,
        Err(e) => return done(app, Err(e)),
    };
    let once = Once::new(done);
    let on_load = once.clone();
    let waiter = waiters::wait(
        app,
        &session,
        "Page.loadEventFired",
        |_| true,
        timeout,
        timeout_error(timeout),
        Box::new(move |app, r| on_load.call(app, r.map(|_| ()))),
    );
    let params = cdp_page::ReloadParams {
        ignore_cache: Some(ignore_cache),
        ..Default::default()
    };
    send(app, Some(&session), params, move |app, r| {
        if let Err(e) = r {
            waiters::cancel(app, waiter);
            once.call(app, Err(e));
        }
    });
}

/// Goes `delta` entries through the history (−1 back, +1 forward) and waits for the page
/// to settle: a load for a new document, or a same-document navigation.
pub fn history(app: &mut App, page: u32, delta: i64, timeout: Duration, done: Done<()>) {
    let session = match session_of(app, page) {
        Ok(s) => s,
        Err(e) => return done(app, Err(e)),
    };
    let s = session.clone();
    send(
        app,
        Some(&s),
        cdp_page::GetNavigationHistoryParams {},
        move |app, r| {
            let h = match r {
                Ok(h) => h,
                Err(e) => return done(app, Err(e)),
            };
            let index = h.current_index + delta;
            let Some(entry) = usize::try_from(index).ok().and_then(|i| h.entries.get(i)) else {
                let which = if delta < 0 { "back" } else { "forward" };
                return done(
                    app,
                    Err(Error::Invalid(format!(
                        "There is no page to go {which} to."
                    ))),
                );
            };
            let entry_id = entry.id;
            settle_after(app, &session, timeout, done);
            crate::browser::fire(
                app,
                Some(&session),
                "Page.navigateToHistoryEntry",
                json!({"entryId": entry_id}),
            );
        },
    );
}

/// Waits for either a load event or a same-document navigation, whichever comes first.
fn settle_after(app: &mut App, session: &str, timeout: Duration, done: Done<()>) {
    let once = Once::new(done);
    for method in ["Page.loadEventFired", "Page.navigatedWithinDocument"] {
        let once = once.clone();
        // The waiter that loses the race stays until its deadline and then finds `once` spent.
        waiters::wait(
            app,
            session,
            method,
            |_| true,
            timeout,
            timeout_error(timeout),
            Box::new(move |app, r| once.call(app, r.map(|_| ()))),
        );
    }
}
