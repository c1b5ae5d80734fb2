//! Waiting for a browser event on a page session: "the load event of this navigation",
//! "the next dialog". A waiter fires once, on the first matching event, or fails at its
//! deadline or when its page goes away.

use std::time::Duration;

use serde_json::Value;

use super::host::{Done, Host};
use super::ids::Owner;
use crate::cdp::Event;
use crate::error::Error;
use crate::timers::TimerId;

type Filter = Box<dyn Fn(&Value) -> bool>;

struct Waiter<H> {
    id: u64,
    owner: Owner,
    session: String,
    method: &'static str,
    filter: Filter,
    done: Done<H, Value>,
    timer: Option<TimerId>,
}

pub(crate) struct Waiters<H> {
    next_id: u64,
    list: Vec<Waiter<H>>,
}

impl<H> Default for Waiters<H> {
    fn default() -> Self {
        Waiters {
            next_id: 0,
            list: Vec::new(),
        }
    }
}

impl<H> Waiters<H> {
    pub(crate) fn forget_owner(&mut self, owner: Owner) {
        self.list.retain(|w| w.owner != owner);
    }
}

/// Waits for the event `E` on `session` whose params pass `filter`, for at most `timeout`.
pub(crate) fn wait<H: Host, E: Event + 'static>(
    cx: &mut H,
    session: &str,
    filter: impl Fn(&E) -> bool + 'static,
    timeout: Duration,
    timeout_message: String,
    done: Done<H, E>,
) -> u64 {
    let filter = move |v: &Value| E::deserialize(v).is_ok_and(|e| filter(&e));
    let done: Done<H, Value> = Box::new(move |cx, r| {
        let typed = r.and_then(|v| {
            E::deserialize(v).map_err(|e| Error::cdp(E::NAME, format!("undecodable event: {e}")))
        });
        done(cx, typed)
    });
    cx.browser().waiters.next_id += 1;
    let id = cx.browser().waiters.next_id;
    let timer = cx.after(timeout, move |cx| {
        if let Some(w) = take(cx, |w| w.id == id).pop() {
            (w.done)(cx, Err(Error::Timeout(timeout_message)));
        }
    });
    let owner = cx.current();
    cx.browser().waiters.list.push(Waiter {
        id,
        owner,
        session: session.to_owned(),
        method: E::NAME,
        filter: Box::new(filter),
        done,
        timer: Some(timer),
    });
    id
}

/// Stops waiting without running the waiter.
pub(crate) fn cancel<H: Host>(cx: &mut H, id: u64) {
    for w in take(cx, |w| w.id == id) {
        if let Some(t) = w.timer {
            cx.cancel_timer(t);
        }
    }
}

fn take<H: Host>(cx: &mut H, pred: impl Fn(&Waiter<H>) -> bool) -> Vec<Waiter<H>> {
    let list = std::mem::take(&mut cx.browser().waiters.list);
    let (taken, kept): (Vec<_>, Vec<_>) = list.into_iter().partition(|w| pred(w));
    cx.browser().waiters.list = kept;
    taken
}

/// Fires the waiters matching this event.
pub(crate) fn on_event<H: Host>(cx: &mut H, session: &str, method: &str, params: &Value) {
    if cx.browser().waiters.list.is_empty() {
        return;
    }
    let fired = take(cx, |w| {
        w.session == session && w.method == method && (w.filter)(params)
    });
    for w in fired {
        if let Some(t) = w.timer {
            cx.cancel_timer(t);
        }
        if cx.alive(w.owner) {
            let p = params.clone();
            cx.run_as(w.owner, |cx| (w.done)(cx, Ok(p)));
        }
    }
}

pub(crate) fn fail_session<H: Host>(cx: &mut H, session: &str, err: Error) {
    for w in take(cx, |w| w.session == session) {
        fail(cx, w, err.clone());
    }
}

/// Fails the waiters for the event `E` on `session` (what they wait for can no longer come).
pub(crate) fn fail_event<H: Host, E: Event>(cx: &mut H, session: &str, err: Error) {
    for w in take(cx, |w| w.session == session && w.method == E::NAME) {
        fail(cx, w, err.clone());
    }
}

pub(crate) fn fail_all<H: Host>(cx: &mut H, err: Error) {
    for w in take(cx, |_| true) {
        fail(cx, w, err.clone());
    }
}

fn fail<H: Host>(cx: &mut H, w: Waiter<H>, err: Error) {
    if let Some(t) = w.timer {
        cx.cancel_timer(t);
    }
    if cx.alive(w.owner) {
        cx.run_as(w.owner, |cx| cx.resolve(w.done, Err(err)));
    }
}
