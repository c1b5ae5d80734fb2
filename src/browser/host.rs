//! What the browser layer's continuations run against.
//!
//! Work that waits on the browser is a continuation (a boxed closure) kept with the command,
//! event or deadline it waits on; nothing ever blocks. A continuation needs the whole state
//! of the server when it runs, yet the browser layer must not name the layers above it. So
//! the browser layer is generic over a [`Host`]: the one type that owns all state (the tools
//! layer's `Ctx`) implements it, and hears from the browser layer through its methods.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::ids::{AgentId, CallId, Owner, PageId};
use super::Browser;
use crate::error::Error;
use crate::settings::Settings;
use crate::timers::{TimerId, Timers};

/// A continuation that receives the outcome of something it waited for.
pub(crate) type Done<H, T> = Box<dyn FnOnce(&mut H, Result<T, Error>)>;
/// A continuation with nothing to receive.
pub(crate) type Action<H> = Box<dyn FnOnce(&mut H)>;

/// A browser event as it arrived: the session it came on (`None`: the browser's own), its
/// method and its raw params. Each handler decodes the generated event type it cares about
/// with [`RawEvent::decode`].
pub(crate) struct RawEvent {
    pub session: Option<String>,
    pub method: String,
    pub params: Value,
}

impl RawEvent {
    /// The event as its generated type, when it is that event and decodes.
    pub(crate) fn decode<E: crate::cdp::Event>(&self) -> Option<E> {
        if self.method != E::NAME {
            return None;
        }
        match E::deserialize(&self.params) {
            Ok(e) => Some(e),
            Err(e) => {
                crate::log::log!("undecodable {} event: {e}", E::NAME);
                None
            }
        }
    }

    pub(crate) fn is<E: crate::cdp::Event>(&self) -> bool {
        self.method == E::NAME
    }
}

/// Work of several steps written as one state machine: the struct carries what the work
/// knows so far, `Step` has one variant for each thing it waits to hear, and [`Flow::next`]
/// is the one place that says what happens next. Each wait hands the flow on with
/// [`Flow::then`], so the order of the steps reads top to bottom in `next`; nothing blocks.
pub(crate) trait Flow<H: 'static>: Sized + 'static {
    /// What the flow can hear back: one variant per step that waits.
    type Step: 'static;

    /// Takes the outcome of the last wait and does the next thing.
    fn next(self, cx: &mut H, step: Self::Step);

    /// The continuation that brings an outcome back into [`Flow::next`] as `step(outcome)`.
    fn then<T: 'static>(self, step: fn(Result<T, Error>) -> Self::Step) -> Done<H, T> {
        Box::new(move |cx, r| self.next(cx, step(r)))
    }
}

/// The state a continuation runs against, and what the browser layer tells the layers
/// above. Implemented once, by the type that owns all state.
pub(crate) trait Host: Sized + 'static {
    fn browser(&mut self) -> &mut Browser<Self>;
    fn browser_ref(&self) -> &Browser<Self>;
    fn rt(&mut self) -> &mut Runtime<Self>;
    fn rt_ref(&self) -> &Runtime<Self>;
    fn settings(&self) -> &Settings;
    /// Whether `call` is still in flight (its continuations may still run).
    fn call_alive(&self, call: CallId) -> bool;

    /// A page target was attached. When `paused`, it waits before its first script, so what
    /// is set up now misses nothing; otherwise its document exists already.
    fn page_attached(&mut self, page: PageId, session: &str, paused: bool);
    /// An out-of-process iframe of `page` was attached, paused before its first script:
    /// the layers above enable what they collect from it on `session`.
    fn frame_attached(&mut self, page: PageId, session: &str);
    /// An event on the session of one of `page`'s out-of-process iframes.
    fn frame_event(&mut self, page: PageId, event: &RawEvent);
    /// A page's main frame committed a new document (or the page crashed): state tied to
    /// the old document is void.
    fn document_changed(&mut self, page: PageId);
    /// A page of `agent` is gone (closed, or the browser was lost): its per-page state goes
    /// too.
    fn page_closed(&mut self, page: PageId, agent: AgentId);
    /// Every event, after the browser layer has applied it to its own state. `page` is the
    /// page whose session it came on.
    fn event(&mut self, page: Option<PageId>, event: &RawEvent);

    /// Runs `action` on the loop soon, owned by the current call.
    fn defer(&mut self, action: impl FnOnce(&mut Self) + 'static) {
        let owner = self.rt_ref().current;
        self.rt().deferred.push((owner, Box::new(action)));
    }

    /// Runs `action` after `after`, owned by the current call.
    fn after(&mut self, after: Duration, action: impl FnOnce(&mut Self) + 'static) -> TimerId {
        let owner = self.rt_ref().current;
        self.rt().timers.add(after, (owner, Box::new(action)))
    }

    fn cancel_timer(&mut self, timer: TimerId) {
        self.rt().timers.cancel(timer);
    }

    /// The call whose code is running now.
    fn current(&self) -> Owner {
        self.rt_ref().current
    }

    /// Runs `f` as work of `owner`.
    fn run_as<R>(&mut self, owner: Owner, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.rt_ref().current;
        self.rt().current = owner;
        let r = f(self);
        self.rt().current = saved;
        r
    }

    /// Whether work owned by `owner` should still go on.
    fn alive(&self, owner: Owner) -> bool {
        owner.is_none_or(|call| self.call_alive(call))
    }

    /// Calls `done(value)` on the loop soon (never re-entrantly).
    fn resolve<T: 'static>(&mut self, done: Done<Self, T>, value: Result<T, Error>) {
        self.defer(move |cx| done(cx, value));
    }

    /// Runs the deferred continuations (and those they defer in turn).
    fn run_deferred(&mut self) {
        while !self.rt_ref().deferred.is_empty() {
            let batch = std::mem::take(&mut self.rt().deferred);
            for (owner, action) in batch {
                if self.alive(owner) {
                    self.run_as(owner, action);
                }
            }
        }
    }

    /// Runs the timers whose deadline has passed.
    fn run_due_timers(&mut self, now: Instant) {
        while let Some((owner, action)) = self.rt().timers.pop_due(now) {
            if self.alive(owner) {
                self.run_as(owner, action);
            }
            self.run_deferred();
        }
    }
}

/// Deadlines, deferred continuations and the call now running: the machinery that runs
/// continuations, apart from what they wait on.
pub(crate) struct Runtime<H> {
    pub timers: Timers<(Owner, Action<H>)>,
    deferred: Vec<(Owner, Action<H>)>,
    current: Owner,
}

impl<H> Default for Runtime<H> {
    fn default() -> Self {
        Runtime {
            timers: Timers::default(),
            deferred: Vec::new(),
            current: None,
        }
    }
}

/// A continuation that several outcomes race for: the first to call it wins, the others
/// find it gone. ("Load event or same-document navigation", "answer or timeout".)
pub(crate) struct Once<H, T>(Rc<Cell<Option<Done<H, T>>>>);

impl<H, T> Clone for Once<H, T> {
    fn clone(&self) -> Self {
        Once(self.0.clone())
    }
}

impl<H, T> Once<H, T> {
    pub(crate) fn new(done: Done<H, T>) -> Once<H, T> {
        Once(Rc::new(Cell::new(Some(done))))
    }

    /// Runs the continuation if nobody did yet.
    pub(crate) fn call(&self, cx: &mut H, value: Result<T, Error>) {
        if let Some(done) = self.0.take() {
            done(cx, value)
        }
    }
}
