//! Navigating a page and waiting for the new document to load, bounded by a timeout: to a URL
//! ([`goto`]), a reload ([`reload`]), a step through the history ([`history`]). Each is a
//! flow whose `next` tells what happens after each thing it waits for.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::host::{Done, Flow, Host};
use super::ids::PageId;
use super::pages::session_of;
use super::{fire, send, url_rules, waiters};
use crate::cdp::generated::page as cdp_page;
use crate::error::Error;
use crate::timers::TimerId;

/// How long a navigation may take unless the call says otherwise (as the reference).
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

fn timeout_error(timeout: Duration) -> String {
    format!("Navigation timeout of {} ms exceeded", timeout.as_millis())
}

/// Loads `url` in the page and waits for its `load` event, all within `timeout`.
pub(crate) fn goto<H: Host>(
    cx: &mut H,
    page: PageId,
    url: String,
    timeout: Duration,
    done: Done<H, ()>,
) {
    let session = match session_of(&cx.browser().pages, page) {
        Ok(s) => s,
        Err(e) => return done(cx, Err(e)),
    };
    // --blockedUrlPattern / --allowedUrlPattern: refused before it starts, in the reference's
    // words.
    if !url_rules::allowed(&cx.settings().policies.url_rules, &url) {
        return done(cx, Err(Error::Invalid(url_rules::refused(&url))));
    }
    let goto = Goto {
        page,
        url,
        session,
        timeout,
        deadline: Instant::now() + timeout,
        timer: None,
        done,
    };
    goto.start(cx);
}

/// Reloads the page and waits for the new document's load event.
pub(crate) fn reload<H: Host>(
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
    // The load may be reported before the command's answer: the waiter is there first.
    let race = Race::default();
    let waiter = waiters::wait(
        cx,
        &session,
        |_: &cdp_page::LoadEventFiredEvent| true,
        timeout,
        timeout_error(timeout),
        race.then(|r| Some(ReloadStep::Loaded(r))),
    );
    race.hold(Reload { waiter, done });
    let params = cdp_page::ReloadParams {
        ignore_cache: Some(ignore_cache),
        ..Default::default()
    };
    // Only a refusal matters: a reload the browser took ends with its load event.
    let refused =
        race.then(|r: Result<cdp_page::ReloadReturns, Error>| r.err().map(ReloadStep::Refused));
    send(cx, Some(&session), params, refused);
}

/// Goes `delta` entries through the history (−1 back, +1 forward) and waits for the page
/// to settle: a load for a new document, or a same-document navigation.
pub(crate) fn history<H: Host>(
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
    let history = History {
        session: session.clone(),
        delta,
        timeout,
        done,
    };
    let listed = history.then(HistoryStep::Listed);
    send(
        cx,
        Some(&session),
        cdp_page::GetNavigationHistoryParams {},
        listed,
    );
}

/// A navigation to a URL, from `Page.navigate` to the new document's load event.
struct Goto<H> {
    page: PageId,
    url: String,
    session: String,
    /// The whole navigation's time limit, for the message.
    timeout: Duration,
    /// When the whole navigation must be over.
    deadline: Instant,
    /// The deadline of `Page.navigate`'s answer, while it is awaited.
    timer: Option<TimerId>,
    done: Done<H, ()>,
}

enum GotoStep {
    /// `Page.navigate` answered: the new document's loader (none for a same-document
    /// navigation), or why the navigation failed.
    Navigated(Result<cdp_page::NavigateReturns, Error>),
    /// The deadline passed first.
    TimedOut,
    /// The new document's `load` lifecycle event.
    Loaded(Result<cdp_page::LifecycleEventEvent, Error>),
}

impl<H: Host> Goto<H> {
    fn start(mut self, cx: &mut H) {
        // Page.navigate itself answers only once the server has sent the response head, which
        // a slow or stuck server may never do: the deadline covers that wait too.
        let race = Race::default();
        self.timer = Some(cx.after(self.timeout, race.step(GotoStep::TimedOut)));
        let params = cdp_page::NavigateParams {
            url: self.url.clone(),
            ..Default::default()
        };
        let session = self.session.clone();
        race.hold(self);
        send(
            cx,
            Some(&session),
            params,
            race.then(|r| Some(GotoStep::Navigated(r))),
        );
    }
}

impl<H: Host> Flow<H> for Goto<H> {
    type Step = GotoStep;

    fn next(self, cx: &mut H, step: GotoStep) {
        match step {
            GotoStep::Navigated(Ok(nav)) => self.navigated(cx, nav),
            GotoStep::TimedOut => self.stop(cx),
            GotoStep::Loaded(Ok(_)) => self.finish(cx, Ok(())),
            GotoStep::Navigated(Err(e)) | GotoStep::Loaded(Err(e)) => self.finish(cx, Err(e)),
        }
    }
}

impl<H: Host> Goto<H> {
    /// The navigation failed, stayed in the document, or committed a new document whose load
    /// is then awaited for what is left of the time.
    fn navigated(mut self, cx: &mut H, nav: cdp_page::NavigateReturns) {
        if let Some(timer) = self.timer.take() {
            cx.cancel_timer(timer);
        }
        if let Some(text) = nav.error_text.filter(|t| !t.is_empty()) {
            // A navigation that killed the renderer (chrome://crash) is aborted: the crash is
            // what happened.
            let e = if cx.browser().pages.get(self.page).is_some_and(|p| p.crashed) {
                Error::Crashed
            } else {
                Error::Page(format!("{text} at {}", self.url))
            };
            return self.finish(cx, Err(e));
        }
        // No loader: a same-document navigation (a fragment), complete already.
        let Some(loader) = nav.loader_id else {
            return self.finish(cx, Ok(()));
        };
        let Some(p) = cx.browser().pages.get(self.page) else {
            let gone = Error::PageGone(format!("Page {} was closed.", self.page));
            return self.finish(cx, Err(gone));
        };
        if p.loaded_loader.as_deref() == Some(loader.as_str()) {
            return self.finish(cx, Ok(()));
        }
        let frame = p.target_id.clone();
        let session = p.session.clone();
        let left = self.deadline.saturating_duration_since(Instant::now());
        let message = timeout_error(self.timeout);
        waiters::wait(
            cx,
            &session,
            move |e: &cdp_page::LifecycleEventEvent| {
                e.name == "load" && e.loader_id == loader && e.frame_id == frame
            },
            left,
            message,
            self.then(GotoStep::Loaded),
        );
    }

    /// Until a navigation to another site commits, the browser holds back commands for the
    /// page's scripts, so every later call on the page would stall behind it: the page stays
    /// on the document it had.
    fn stop(mut self, cx: &mut H) {
        // It fired: nothing to cancel.
        self.timer = None;
        fire(cx, Some(&self.session), cdp_page::StopLoadingParams {});
        let timeout = Error::Timeout(timeout_error(self.timeout));
        self.finish(cx, Err(timeout));
    }

    fn finish(self, cx: &mut H, r: Result<(), Error>) {
        if let Some(timer) = self.timer {
            cx.cancel_timer(timer);
        }
        (self.done)(cx, r)
    }
}

/// A reload, from `Page.reload` to the new document's load event.
struct Reload<H> {
    /// The wait for the load event, dropped if the browser refuses the reload.
    waiter: u64,
    done: Done<H, ()>,
}

enum ReloadStep {
    /// The browser refused to reload.
    Refused(Error),
    /// The new document's load event.
    Loaded(Result<cdp_page::LoadEventFiredEvent, Error>),
}

impl<H: Host> Flow<H> for Reload<H> {
    type Step = ReloadStep;

    fn next(self, cx: &mut H, step: ReloadStep) {
        match step {
            ReloadStep::Loaded(Ok(_)) => (self.done)(cx, Ok(())),
            ReloadStep::Loaded(Err(e)) | ReloadStep::Refused(e) => {
                waiters::cancel(cx, self.waiter);
                (self.done)(cx, Err(e))
            }
        }
    }
}

/// A step through the history, from the list of entries to the page settled on the one
/// `delta` away.
struct History<H> {
    session: String,
    delta: i64,
    timeout: Duration,
    done: Done<H, ()>,
}

enum HistoryStep {
    /// The page's history entries, and which one it shows.
    Listed(Result<cdp_page::GetNavigationHistoryReturns, Error>),
    /// The page loaded the entry's document, or moved within its document to it.
    Settled(Result<(), Error>),
}

impl<H: Host> Flow<H> for History<H> {
    type Step = HistoryStep;

    fn next(self, cx: &mut H, step: HistoryStep) {
        match step {
            HistoryStep::Listed(Ok(history)) => self.go(cx, history),
            HistoryStep::Settled(Ok(())) => (self.done)(cx, Ok(())),
            HistoryStep::Listed(Err(e)) | HistoryStep::Settled(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

impl<H: Host> History<H> {
    /// Goes to the entry `delta` away from the current one, if there is one, and waits for
    /// either a load event or a same-document navigation, whichever comes first.
    fn go(self, cx: &mut H, history: cdp_page::GetNavigationHistoryReturns) {
        let index = history.current_index + self.delta;
        let entry = usize::try_from(index)
            .ok()
            .and_then(|i| history.entries.get(i));
        let Some(entry) = entry else {
            let which = if self.delta < 0 { "back" } else { "forward" };
            let none = Error::Invalid(format!("There is no page to go {which} to."));
            return (self.done)(cx, Err(none));
        };
        let entry_id = entry.id;
        let (session, timeout) = (self.session.clone(), self.timeout);
        let race = Race::default();
        // The waiter that loses the race stays until its deadline and then finds the flow gone.
        waiters::wait(
            cx,
            &session,
            |_: &cdp_page::LoadEventFiredEvent| true,
            timeout,
            timeout_error(timeout),
            race.then(|r| Some(HistoryStep::Settled(r.map(|_| ())))),
        );
        waiters::wait(
            cx,
            &session,
            |_: &cdp_page::NavigatedWithinDocumentEvent| true,
            timeout,
            timeout_error(timeout),
            race.then(|r| Some(HistoryStep::Settled(r.map(|_| ())))),
        );
        race.hold(self);
        let go = cdp_page::NavigateToHistoryEntryParams { entry_id };
        fire(cx, Some(&session), go);
    }
}

/// A flow that more than one wait may step (an answer or its deadline, one event or
/// another): the first to report steps it, and the others find it gone.
struct Race<F>(Rc<Cell<Option<F>>>);

impl<F> Default for Race<F> {
    fn default() -> Self {
        Race(Rc::new(Cell::new(None)))
    }
}

impl<F> Race<F> {
    /// Puts in the flow the waits race for, once they are set up (before any can report:
    /// nothing reports from inside the call that sets it up).
    fn hold(&self, flow: F) {
        self.0.set(Some(flow));
    }

    /// The continuation that steps the flow with `step(outcome)`, unless that is `None`:
    /// then the outcome does not concern the flow, which stays for the others.
    fn then<H: 'static, T: 'static>(
        &self,
        step: fn(Result<T, Error>) -> Option<F::Step>,
    ) -> Done<H, T>
    where
        F: Flow<H>,
    {
        let slot = self.0.clone();
        Box::new(move |cx, r| {
            let Some(step) = step(r) else {
                return;
            };
            if let Some(flow) = slot.take() {
                flow.next(cx, step)
            }
        })
    }

    /// The action that steps the flow with `step` (for a deadline).
    fn step<H: 'static>(&self, step: F::Step) -> impl FnOnce(&mut H) + 'static
    where
        F: Flow<H>,
    {
        let slot = self.0.clone();
        move |cx| {
            if let Some(flow) = slot.take() {
                flow.next(cx, step)
            }
        }
    }
}
