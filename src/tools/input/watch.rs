//! Watching an input action and waiting, briefly, for what it set off: a navigation (then its
//! load), or DOM changes (until they settle). A JavaScript dialog the action opens ends the
//! wait at once: while it is open the page answers nothing, not even the input event that
//! opened it, so the dialog is raced against every step rather than waited behind. The
//! watch is a race of several waiters (dialog, navigation, load, popups, deadlines), so it
//! keeps its state in one shared [`Watch`] whose [`Phase`] says what each of them may still
//! do.

use crate::browser::PageId;
use crate::pagetools::page_code;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use crate::browser::Host;
use crate::browser::{self, waiters};
use crate::cdp::generated::page::{
    ClientNavigationDisposition, FrameRequestedNavigationEvent, FrameStartedNavigatingEvent,
    FrameStartedNavigatingNavigationType as NavigationType, JavascriptDialogOpeningEvent,
    LifecycleEventEvent,
};
use crate::cdp::generated::{runtime, target};
use crate::error::Error;
use crate::tools::ctx::{Ctx, Done, Once};

/// How long after the action a navigation may still start and count as caused by it.
const EXPECT_NAVIGATION: Duration = Duration::from_millis(100);
/// The longest wait for a navigation the action started to load.
const NAVIGATION_LIMIT: Duration = Duration::from_secs(3);
/// The DOM counts as settled after this long without a mutation...
const QUIET_MS: u64 = 100;
/// ...or after this long in any case.
const SETTLE_LIMIT_MS: u64 = 3000;
/// The longest the page may take to take in the input events themselves. A page that needs
/// longer is stuck (a busy script), and saying so beats waiting for the call's own limit.
const ACTION_LIMIT: Duration = Duration::from_secs(10);
/// Waiters that only observe; the call finishing drops them long before this.
const OBSERVE_LIMIT: Duration = Duration::from_secs(120);

/// What happened around an action.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// The action's own events were all taken in (false: a dialog opened first).
    pub completed: bool,
    /// A JavaScript dialog opened (it is left open on the page for `handle_dialog`).
    pub dialog: bool,
    /// The page's URL afterwards, when it changed.
    pub navigated_to: Option<String>,
    /// Target ids of pages (tabs, popups) the action opened.
    pub opened: Vec<String>,
}

/// How far a long action has got (typing a long text): while it keeps moving it gets
/// [`ACTION_LIMIT`] for each step of the way rather than for all of it.
pub(super) type Progress = Rc<Cell<u64>>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// The action's events are on their way to the page.
    Acting,
    /// The page took them in; a navigation they caused may still start, while the DOM
    /// settles.
    ExpectNavigation,
    /// A navigation started: its load is waited for.
    Loading,
    /// The DOM is settling (after the load, or with no navigation).
    Settling,
    /// The outcome was given.
    Done,
}

struct Watch {
    page: PageId,
    session: String,
    initial_url: String,
    /// The page's document count when the action began (a new document raises it).
    initial_document: u64,
    /// Whether to wait for navigations and DOM changes after the action.
    settle: bool,
    phase: Cell<Phase>,
    navigation_started: Cell<bool>,
    loaded: Cell<bool>,
    /// The current DOM-settling round, and whether it is over.
    settle_round: Cell<u32>,
    dom_settled: Cell<bool>,
    opened: RefCell<Vec<String>>,
    finish: Once<Outcome>,
}

/// Starts watching `page` for what an action sets off, before the action sends anything.
/// The action calls the continuation this gives once the page has taken in all its events
/// (or with its error); then, when `settle` is true, the effects are waited for (bounded).
/// `done` gets the outcome, at once when a dialog opens first. An action that reports its
/// `progress` counts as stuck only once the count stays the same for [`ACTION_LIMIT`].
pub(super) fn start(
    cx: &mut Ctx,
    page: PageId,
    settle: bool,
    progress: Progress,
    done: Done<Outcome>,
) -> Result<Done<()>, Error> {
    let Some(p) = cx.browser.pages.get(page) else {
        return Err(crate::browser::pages::no_such_page(page));
    };
    let session = p.session.clone();
    let frame = p.target_id.clone();
    let initial_loader = p.loader_id.clone();
    let w = Rc::new(Watch {
        page,
        session: session.clone(),
        initial_url: p.url.clone(),
        initial_document: p.document,
        settle,
        phase: Cell::new(Phase::Acting),
        navigation_started: Cell::new(false),
        loaded: Cell::new(false),
        settle_round: Cell::new(0),
        dom_settled: Cell::new(false),
        opened: RefCell::new(Vec::new()),
        finish: Once::new(done),
    });
    observe(cx, &w, &frame, initial_loader);
    let seen = progress.get();
    unless_stuck(cx, w.clone(), progress, (seen, 0));
    Ok(Box::new(move |cx, r| match r {
        Ok(()) => acted(cx, w),
        Err(e) => fail(cx, &w, e),
    }))
}

/// [`ACTION_LIMIT`] is watched in this many steps, so a stall is seen within a step of it.
const STUCK_STEPS: u32 = 10;

/// Fails the action when it is still going and `progress` has stayed at `seen` for
/// [`ACTION_LIMIT`]; `still` counts the steps it has stayed there so far.
fn unless_stuck(cx: &mut Ctx, w: Rc<Watch>, progress: Progress, (seen, still): (u64, u32)) {
    cx.after(ACTION_LIMIT / STUCK_STEPS, move |cx| {
        if w.phase.get() != Phase::Acting {
            return;
        }
        let now = progress.get();
        if now != seen {
            return unless_stuck(cx, w, progress, (now, 0));
        }
        if still + 1 < STUCK_STEPS {
            return unless_stuck(cx, w, progress, (seen, still + 1));
        }
        // A handler stuck in a loop would keep the page from answering anyone again.
        let stop = runtime::TerminateExecutionParams {};
        browser::fire(cx, Some(&w.session), stop);
        let secs = ACTION_LIMIT.as_secs();
        fail(
            cx,
            &w,
            Error::Timeout(format!(
                "The page did not take in the input within {secs} s (it may be busy running a script, or still waiting for a new document to arrive)."
            )),
        );
    });
}

/// Registers the waiters for what the action may set off. They live until the call ends.
fn observe(cx: &mut Ctx, w: &Rc<Watch>, frame: &str, initial_loader: String) {
    let session = w.session.clone();

    let on_dialog = w.clone();
    waiters::wait(
        cx,
        &session,
        |_: &JavascriptDialogOpeningEvent| true,
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |cx, r| {
            if r.is_ok() {
                dialog_opened(cx, &on_dialog);
            }
        }),
    );

    // A navigation of the main frame to a new document, asked for by the page (a link, a
    // form, a script) or started by the browser.
    let main = frame.to_owned();
    let on_request = w.clone();
    waiters::wait(
        cx,
        &session,
        move |e: &FrameRequestedNavigationEvent| {
            e.frame_id == main && e.disposition == ClientNavigationDisposition::CurrentTab
        },
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |cx, r| {
            if r.is_ok() {
                navigation_started(cx, &on_request);
            }
        }),
    );
    let main = frame.to_owned();
    let on_start = w.clone();
    waiters::wait(
        cx,
        &session,
        move |e: &FrameStartedNavigatingEvent| {
            let same_document = matches!(
                e.navigation_type,
                NavigationType::SameDocument | NavigationType::HistorySameDocument
            );
            e.frame_id == main && !same_document
        },
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |cx, r| {
            if r.is_ok() {
                navigation_started(cx, &on_start);
            }
        }),
    );

    watch_load(cx, w.clone(), frame.to_owned(), initial_loader);
    watch_popups(cx, w.clone(), frame.to_owned());
}

/// The load of a document other than the one the action started on.
fn watch_load(cx: &mut Ctx, w: Rc<Watch>, frame: String, initial_loader: String) {
    let session = w.session.clone();
    waiters::wait(
        cx,
        &session,
        move |e: &LifecycleEventEvent| {
            e.name == "load" && e.frame_id == frame && e.loader_id != initial_loader
        },
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |cx, r| {
            if r.is_ok() {
                w.loaded.set(true);
                if w.phase.get() == Phase::Loading {
                    settle_after_load(cx, w);
                }
            }
        }),
    );
}

/// Notes every page target this page opens (window.open, target=_blank).
fn watch_popups(cx: &mut Ctx, w: Rc<Watch>, frame: String) {
    let opener = frame.clone();
    waiters::wait(
        cx,
        "",
        move |e: &target::TargetCreatedEvent| {
            e.target_info.opener_id.as_deref() == Some(opener.as_str())
                && e.target_info.r#type == "page"
        },
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |cx, r: Result<target::TargetCreatedEvent, Error>| {
            if let Ok(e) = r {
                w.opened.borrow_mut().push(e.target_info.target_id);
                if w.phase.get() != Phase::Done {
                    watch_popups(cx, w, frame);
                }
            }
        }),
    );
}

fn navigation_started(cx: &mut Ctx, w: &Rc<Watch>) {
    w.navigation_started.set(true);
    if w.phase.get() == Phase::ExpectNavigation {
        wait_for_load(cx, w.clone());
    }
}

/// The action's events were all taken in. The DOM starts settling at once, while the
/// navigation grace period runs: when no navigation comes, the answer is ready as soon as
/// both are over, rather than one after the other.
fn acted(cx: &mut Ctx, w: Rc<Watch>) {
    if w.phase.get() != Phase::Acting {
        return;
    }
    if !w.settle {
        return conclude(cx, &w, true);
    }
    w.phase.set(Phase::ExpectNavigation);
    if w.navigation_started.get() {
        return wait_for_load(cx, w);
    }
    settle_dom(cx, w.clone());
    cx.after(EXPECT_NAVIGATION, move |cx| {
        if w.phase.get() != Phase::ExpectNavigation {
            return;
        }
        if w.dom_settled.get() {
            conclude(cx, &w, true);
        } else {
            w.phase.set(Phase::Settling);
        }
    });
}

fn wait_for_load(cx: &mut Ctx, w: Rc<Watch>) {
    w.phase.set(Phase::Loading);
    if w.loaded.get() {
        return settle_after_load(cx, w);
    }
    cx.after(NAVIGATION_LIMIT, move |cx| {
        if w.phase.get() != Phase::Loading {
            return;
        }
        // Still waiting for the server: the old document stays, and the browser holds the
        // page's commands until the new one commits, so asking it anything would only wait.
        let committed = cx
            .browser
            .pages
            .get(w.page)
            .is_some_and(|p| p.document != w.initial_document);
        if committed {
            settle_after_load(cx, w);
        } else {
            conclude(cx, &w, true);
        }
    });
}

fn settle_after_load(cx: &mut Ctx, w: Rc<Watch>) {
    w.phase.set(Phase::Settling);
    settle_dom(cx, w);
}

/// Waits until the document has gone `QUIET_MS` without a mutation (at most
/// `SETTLE_LIMIT_MS`), checked by the page itself. Each round has its own number, so the
/// answer of a round that a navigation overtook is not taken for the new document's.
fn settle_dom(cx: &mut Ctx, w: Rc<Watch>) {
    let round = w.settle_round.get() + 1;
    w.settle_round.set(round);
    w.dom_settled.set(false);
    let expression = format!(
        "new Promise(resolve => {{
  const root = document.body || document.documentElement;
  if (!root) return resolve(true);
  let quiet;
  const finish = () => {{ observer.disconnect(); clearTimeout(quiet); clearTimeout(limit); resolve(true); }};
  const observer = new MutationObserver(() => {{ clearTimeout(quiet); quiet = setTimeout(finish, {QUIET_MS}); }});
  observer.observe(root, {{childList: true, subtree: true, attributes: true, characterData: true}});
  quiet = setTimeout(finish, {QUIET_MS});
  const limit = setTimeout(finish, {SETTLE_LIMIT_MS});
}})"
    );
    let answered = w.clone();
    let params = page_code::awaited(expression);
    // An error here (the document went away under a navigation) ends the wait too.
    browser::send(cx, Some(&w.session), params, move |cx, _| {
        settled(cx, &answered, round)
    });
    // The page's own limit may not run (a dialog, a busy script): ours always does.
    cx.after(Duration::from_millis(SETTLE_LIMIT_MS + 200), move |cx| {
        settled(cx, &w, round)
    });
}

fn settled(cx: &mut Ctx, w: &Rc<Watch>, round: u32) {
    if w.settle_round.get() != round {
        return;
    }
    match w.phase.get() {
        Phase::ExpectNavigation => w.dom_settled.set(true),
        Phase::Settling => conclude(cx, w, true),
        _ => {}
    }
}

fn dialog_opened(cx: &mut Ctx, w: &Rc<Watch>) {
    let phase = w.phase.get();
    if phase == Phase::Done {
        return;
    }
    w.phase.set(Phase::Done);
    let outcome = Outcome {
        completed: phase != Phase::Acting,
        dialog: true,
        navigated_to: None,
        opened: w.opened.borrow().clone(),
    };
    w.finish.call(cx, Ok(outcome));
}

fn conclude(cx: &mut Ctx, w: &Rc<Watch>, completed: bool) {
    w.phase.set(Phase::Done);
    let url = cx.browser.pages.get(w.page).map(|p| p.url.clone());
    let outcome = Outcome {
        completed,
        dialog: false,
        navigated_to: url.filter(|u| *u != w.initial_url),
        opened: w.opened.borrow().clone(),
    };
    w.finish.call(cx, Ok(outcome));
}

fn fail(cx: &mut Ctx, w: &Rc<Watch>, err: Error) {
    if w.phase.get() == Phase::Done {
        return;
    }
    w.phase.set(Phase::Done);
    w.finish.call(cx, Err(err));
}
