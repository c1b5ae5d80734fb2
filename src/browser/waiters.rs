//! Waiting for a browser event on a page session: "the load event of this navigation",
//! "the next dialog". A waiter fires once, on the first matching event, or fails at its
//! deadline or when its page goes away.

use std::time::Duration;

use serde_json::Value;

use crate::app::{App, Done, Owner};
use crate::error::Error;
use crate::timers::TimerId;

type Filter = Box<dyn Fn(&Value) -> bool>;

struct Waiter {
    id: u64,
    owner: Owner,
    session: String,
    method: &'static str,
    filter: Filter,
    done: Done<Value>,
    timer: Option<TimerId>,
}

#[derive(Default)]
pub struct Waiters {
    next_id: u64,
    list: Vec<Waiter>,
}

impl Waiters {
    pub fn forget_owner(&mut self, owner: Owner) {
        self.list.retain(|w| w.owner != owner);
    }
}

/// Waits for `method` on `session` whose params pass `filter`, for at most `timeout`.
pub fn wait(
    app: &mut App,
    session: &str,
    method: &'static str,
    filter: impl Fn(&Value) -> bool + 'static,
    timeout: Duration,
    timeout_message: String,
    done: Done<Value>,
) -> u64 {
    app.browser.waiters.next_id += 1;
    let id = app.browser.waiters.next_id;
    let timer = app.after(timeout, move |app| {
        if let Some(w) = take(app, |w| w.id == id).pop() {
            (w.done)(app, Err(Error::Timeout(timeout_message)));
        }
    });
    app.browser.waiters.list.push(Waiter {
        id,
        owner: app.current,
        session: session.to_owned(),
        method,
        filter: Box::new(filter),
        done,
        timer: Some(timer),
    });
    id
}

/// Stops waiting without running the waiter.
pub fn cancel(app: &mut App, id: u64) {
    for w in take(app, |w| w.id == id) {
        if let Some(t) = w.timer {
            app.timers.cancel(t);
        }
    }
}

fn take(app: &mut App, pred: impl Fn(&Waiter) -> bool) -> Vec<Waiter> {
    let list = std::mem::take(&mut app.browser.waiters.list);
    let (taken, kept): (Vec<Waiter>, Vec<Waiter>) = list.into_iter().partition(|w| pred(w));
    app.browser.waiters.list = kept;
    taken
}

/// Fires the waiters matching this event.
pub fn on_event(app: &mut App, session: &str, method: &str, params: &Value) {
    if app.browser.waiters.list.is_empty() {
        return;
    }
    let fired = take(app, |w| {
        w.session == session && w.method == method && (w.filter)(params)
    });
    for w in fired {
        if let Some(t) = w.timer {
            app.timers.cancel(t);
        }
        if app.alive(w.owner) {
            let p = params.clone();
            app.run_as(w.owner, |app| (w.done)(app, Ok(p)));
        }
    }
}

pub fn fail_session(app: &mut App, session: &str, err: Error) {
    for w in take(app, |w| w.session == session) {
        fail(app, w, err.clone());
    }
}

pub fn fail_all(app: &mut App, err: Error) {
    for w in take(app, |_| true) {
        fail(app, w, err.clone());
    }
}

fn fail(app: &mut App, w: Waiter, err: Error) {
    if let Some(t) = w.timer {
        app.timers.cancel(t);
    }
    if app.alive(w.owner) {
        app.run_as(w.owner, |app| app.resolve(w.done, Err(err)));
    }
}
