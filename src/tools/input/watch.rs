//! Running an input action and waiting, briefly, for what it set off: a navigation (then its
//! load), or DOM changes (until they settle). A JavaScript dialog the action opens ends the
//! wait at once: while it is open the page answers nothing, not even the input event that
//! opened it, so the dialog is raced against every step rather than waited behind.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::app::{App, Done, Once};
use crate::browser::{self, waiters};
use crate::error::Error;

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
pub struct Outcome {
    /// The action's own events were all taken in (false: a dialog opened first).
    pub completed: bool,
    /// A JavaScript dialog opened (it is left open on the page for `handle_dialog`).
    pub dialog: bool,
    /// The page's URL afterwards, when it changed.
    pub navigated_to: Option<String>,
    /// Target ids of pages (tabs, popups) the action opened.
    pub opened: Vec<String>,
}

/// The work of the action: dispatch events, then call its continuation.
pub type Action = Box<dyn FnOnce(&mut App, Done<()>)>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Acting,
    ExpectNavigation,
    Loading,
    Settling,
    Done,
}

struct Watch {
    page: u32,
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

/// Runs `action` on the page, then waits (bounded) for its effects when `settle` is true.
/// `done` gets the outcome, or the action's error.
pub fn act(app: &mut App, page: u32, settle: bool, action: Action, done: Done<Outcome>) {
    let Some(p) = app.browser.pages.get(page) else {
        return done(app, Err(crate::browser::pages::no_such_page(page)));
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
    observe(app, &w, &frame, initial_loader);

    let on_done = w.clone();
    action(
        app,
        Box::new(move |app, r| match r {
            Ok(()) => acted(app, on_done),
            Err(e) => fail(app, &on_done, e),
        }),
    );
    let stuck = w.clone();
    app.after(ACTION_LIMIT, move |app| {
        if stuck.phase.get() == Phase::Acting {
            // A handler stuck in a loop would keep the page from answering anyone again.
            browser::fire(app, Some(&stuck.session), "Runtime.terminateExecution", json!({}));
            let secs = ACTION_LIMIT.as_secs();
            fail(
                app,
                &stuck,
                Error::Timeout(format!(
                    "The page did not take in the input within {secs} s (it may be busy running a script, or still waiting for a new document to arrive)."
                )),
            );
        }
    });
}

/// Registers the waiters for what the action may set off. They live until the call ends.
fn observe(app: &mut App, w: &Rc<Watch>, frame: &str, initial_loader: String) {
    let session = w.session.clone();

    let on_dialog = w.clone();
    waiters::wait(
        app,
        &session,
        "Page.javascriptDialogOpening",
        |_| true,
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |app, r| {
            if r.is_ok() {
                dialog_opened(app, &on_dialog);
            }
        }),
    );

    // A navigation of the main frame to a new document, asked for by the page (a link, a
    // form, a script) or started by the browser.
    let main = frame.to_owned();
    let on_request = w.clone();
    waiters::wait(
        app,
        &session,
        "Page.frameRequestedNavigation",
        move |e: &Value| e["frameId"] == *main && e["disposition"] == "currentTab",
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |app, r| {
            if r.is_ok() {
                navigation_started(app, &on_request);
            }
        }),
    );
    let main = frame.to_owned();
    let on_start = w.clone();
    waiters::wait(
        app,
        &session,
        "Page.frameStartedNavigating",
        move |e: &Value| {
            let same_document = matches!(
                e["navigationType"].as_str(),
                Some("sameDocument" | "historySameDocument")
            );
            e["frameId"] == *main && !same_document
        },
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |app, r| {
            if r.is_ok() {
                navigation_started(app, &on_start);
            }
        }),
    );

    // The load of a document other than the one the action started on.
    let main = frame.to_owned();
    let on_load = w.clone();
    waiters::wait(
        app,
        &session,
        "Page.lifecycleEvent",
        move |e: &Value| {
            e["name"] == "load" && e["frameId"] == *main && e["loaderId"] != *initial_loader
        },
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |app, r| {
            if r.is_ok() {
                on_load.loaded.set(true);
                if on_load.phase.get() == Phase::Loading {
                    settle_after_load(app, on_load);
                }
            }
        }),
    );

    watch_popups(app, w.clone(), frame.to_owned());
}

/// Notes every page target this page opens (window.open, target=_blank).
fn watch_popups(app: &mut App, w: Rc<Watch>, frame: String) {
    let opener = frame.clone();
    waiters::wait(
        app,
        "",
        "Target.targetCreated",
        move |e: &Value| {
            e["targetInfo"]["openerId"] == *opener && e["targetInfo"]["type"] == "page"
        },
        OBSERVE_LIMIT,
        String::new(),
        Box::new(move |app, r| {
            if let Ok(e) = r {
                if let Some(id) = e["targetInfo"]["targetId"].as_str() {
                    w.opened.borrow_mut().push(id.to_owned());
                }
                if w.phase.get() != Phase::Done {
                    watch_popups(app, w, frame);
                }
            }
        }),
    );
}

fn navigation_started(app: &mut App, w: &Rc<Watch>) {
    w.navigation_started.set(true);
    if w.phase.get() == Phase::ExpectNavigation {
        wait_for_load(app, w.clone());
    }
}

/// The action's events were all taken in. The DOM starts settling at once, while the
/// navigation grace period runs: when no navigation comes, the answer is ready as soon as
/// both are over, rather than one after the other.
fn acted(app: &mut App, w: Rc<Watch>) {
    if w.phase.get() != Phase::Acting {
        return;
    }
    if !w.settle {
        return conclude(app, &w, true);
    }
    w.phase.set(Phase::ExpectNavigation);
    if w.navigation_started.get() {
        return wait_for_load(app, w);
    }
    settle_dom(app, w.clone());
    app.after(EXPECT_NAVIGATION, move |app| {
        if w.phase.get() != Phase::ExpectNavigation {
            return;
        }
        if w.dom_settled.get() {
            conclude(app, &w, true);
        } else {
            w.phase.set(Phase::Settling);
        }
    });
}

fn wait_for_load(app: &mut App, w: Rc<Watch>) {
    w.phase.set(Phase::Loading);
    if w.loaded.get() {
        return settle_after_load(app, w);
    }
    app.after(NAVIGATION_LIMIT, move |app| {
        if w.phase.get() != Phase::Loading {
            return;
        }
        // Still waiting for the server: the old document stays, and the browser holds the
        // page's commands until the new one commits, so asking it anything would only wait.
        let committed = app
            .browser
            .pages
            .get(w.page)
            .is_some_and(|p| p.document != w.initial_document);
        if committed {
            settle_after_load(app, w);
        } else {
            conclude(app, &w, true);
        }
    });
}

fn settle_after_load(app: &mut App, w: Rc<Watch>) {
    w.phase.set(Phase::Settling);
    settle_dom(app, w);
}

/// Waits until the document has gone `QUIET_MS` without a mutation (at most
/// `SETTLE_LIMIT_MS`), checked by the page itself. Each round has its own number, so the
/// answer of a round that a navigation overtook is not taken for the new document's.
fn settle_dom(app: &mut App, w: Rc<Watch>) {
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
    browser::send_raw(
        app,
        Some(&w.session),
        "Runtime.evaluate",
        json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        // An error here (the document went away under a navigation) ends the wait too.
        Box::new(move |app, _| settled(app, &answered, round)),
    );
    // The page's own limit may not run (a dialog, a busy script): ours always does.
    app.after(Duration::from_millis(SETTLE_LIMIT_MS + 200), move |app| {
        settled(app, &w, round)
    });
}

fn settled(app: &mut App, w: &Rc<Watch>, round: u32) {
    if w.settle_round.get() != round {
        return;
    }
    match w.phase.get() {
        Phase::ExpectNavigation => w.dom_settled.set(true),
        Phase::Settling => conclude(app, w, true),
        _ => {}
    }
}

fn dialog_opened(app: &mut App, w: &Rc<Watch>) {
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
    w.finish.call(app, Ok(outcome));
}

fn conclude(app: &mut App, w: &Rc<Watch>, completed: bool) {
    w.phase.set(Phase::Done);
    let url = app.browser.pages.get(w.page).map(|p| p.url.clone());
    let outcome = Outcome {
        completed,
        dialog: false,
        navigated_to: url.filter(|u| *u != w.initial_url),
        opened: w.opened.borrow().clone(),
    };
    w.finish.call(app, Ok(outcome));
}

fn fail(app: &mut App, w: &Rc<Watch>, err: Error) {
    if w.phase.get() == Phase::Done {
        return;
    }
    w.phase.set(Phase::Done);
    w.finish.call(app, Err(err));
}
