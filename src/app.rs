//! The server's whole state, owned by the event loop and passed as `&mut App` to every
//! handler and continuation. Work that waits on the browser is a continuation (a boxed
//! closure) stored with the request it waits on; nothing ever blocks.

use std::time::Duration;

use serde_json::Value;

use crate::browser::Browser;
use crate::error::Error;
use crate::mcp::{calls::Calls, output::Output, Session};
use crate::settings::Settings;
use crate::timers::{TimerId, Timers};

/// A continuation that receives the outcome of something it waited for.
pub type Done<T> = Box<dyn FnOnce(&mut App, Result<T, Error>)>;
/// A continuation with nothing to receive.
pub type Action = Box<dyn FnOnce(&mut App)>;

/// Which MCP call a piece of pending work belongs to, so cancelling or timing out the call
/// drops its continuations. `None`: work of the server itself.
pub type Owner = Option<u64>;

pub struct App {
    pub settings: Settings,
    pub registry: mio::Registry,
    pub timers: Timers<(Owner, Action)>,
    pub out: Output,
    pub browser: Browser,
    pub calls: Calls,
    pub session: Session,
    /// Continuations to run on the loop after the current event (never re-entrantly).
    deferred: Vec<(Owner, Action)>,
    /// The call whose code is running now; work started now is owned by it.
    pub current: Owner,
    pub quit: bool,
}

impl App {
    pub fn new(settings: Settings, registry: mio::Registry) -> App {
        App {
            browser: Browser::new(),
            settings,
            registry,
            timers: Timers::default(),
            out: Output::new(),
            calls: Calls::default(),
            session: Session::default(),
            deferred: Vec::new(),
            current: None,
            quit: false,
        }
    }

    /// Runs `action` on the loop soon, owned by the current call.
    pub fn defer(&mut self, action: impl FnOnce(&mut App) + 'static) {
        self.deferred.push((self.current, Box::new(action)));
    }

    /// Runs `action` after `after`, owned by the current call.
    pub fn after(&mut self, after: Duration, action: impl FnOnce(&mut App) + 'static) -> TimerId {
        self.timers.add(after, (self.current, Box::new(action)))
    }

    /// Runs `f` as work of `owner`.
    pub fn run_as<R>(&mut self, owner: Owner, f: impl FnOnce(&mut App) -> R) -> R {
        let saved = self.current;
        self.current = owner;
        let r = f(self);
        self.current = saved;
        r
    }

    /// Whether work owned by `owner` should still go on.
    pub fn alive(&self, owner: Owner) -> bool {
        owner.is_none_or(|id| self.calls.contains(id))
    }

    /// Runs the deferred continuations (and those they defer in turn).
    pub fn run_deferred(&mut self) {
        while !self.deferred.is_empty() {
            let batch = std::mem::take(&mut self.deferred);
            for (owner, action) in batch {
                if self.alive(owner) {
                    self.run_as(owner, action);
                }
            }
        }
    }

    /// Calls `done(value)` on the loop soon (never re-entrantly).
    pub fn resolve<T: 'static>(&mut self, done: Done<T>, value: Result<T, Error>) {
        self.defer(move |app| done(app, value));
    }

    /// Writes one protocol line to the client.
    /// Queues one protocol message for the client.
    pub fn send(&mut self, message: Value) {
        self.out.push(&message);
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(crate::mcp::jsonrpc::notification(method, params));
    }
}

/// A continuation that several outcomes race for: the first to call it wins, the others
/// find it gone. ("Load event or same-document navigation", "answer or timeout".)
pub struct Once<T>(std::rc::Rc<std::cell::Cell<Option<Done<T>>>>);

impl<T> Clone for Once<T> {
    fn clone(&self) -> Self {
        Once(self.0.clone())
    }
}

impl<T> Once<T> {
    pub fn new(done: Done<T>) -> Once<T> {
        Once(std::rc::Rc::new(std::cell::Cell::new(Some(done))))
    }

    /// Runs the continuation if nobody did yet.
    pub fn call(&self, app: &mut App, value: Result<T, Error>) {
        if let Some(done) = self.0.take() {
            done(app, value)
        }
    }
}
