//! The browser: starting or reaching it, the command/answer bookkeeping over its connection,
//! and the pages we attach to. Every command's continuation is kept here until the browser
//! answers, the call that owns it goes away, or the browser is lost.

pub mod events;
pub mod launch;
pub mod navigation;
pub mod pages;
pub mod snapshot;
pub mod waiters;

use std::collections::HashMap;
use std::time::Duration;

use mio::Interest;
use serde_json::{json, Value};

use crate::app::{App, Done, Owner};
use crate::cdp::message::{self, Incoming};
use crate::cdp::{pipe::Pipe, websocket, Command, Transport};
use crate::error::{Error, Result};
use crate::event_loop::{BROWSER_IN, BROWSER_OUT};
use crate::log::log;
use crate::settings::BrowserSource;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Not started (or lost): the next call that needs it starts it.
    Idle,
    Starting,
    Ready,
}

struct Pending {
    owner: Owner,
    session: Option<String>,
    method: String,
    done: Done<Value>,
}

pub struct Browser {
    pub phase: Phase,
    transport: Option<Transport>,
    process: Option<launch::Process>,
    next_id: u64,
    pending: HashMap<u64, Pending>,
    starting: Vec<(Owner, Done<()>)>,
    pub pages: pages::Pages,
    pub waiters: waiters::Waiters,
    /// Set when a browser was lost: the next answer that lists pages says ids changed.
    pub restarted: bool,
}

/// How long a browser may take to start and answer before the calls waiting on it fail.
const START_TIMEOUT: Duration = Duration::from_secs(30);

impl Browser {
    pub fn new() -> Browser {
        Browser {
            phase: Phase::Idle,
            transport: None,
            process: None,
            next_id: 0,
            pending: HashMap::new(),
            starting: Vec::new(),
            pages: pages::Pages::default(),
            waiters: waiters::Waiters::default(),
            restarted: false,
        }
    }
}

/// Sends one command. `done` runs with the answer, unless the owning call is gone by then.
pub fn send_raw(
    app: &mut App,
    session: Option<&str>,
    method: &str,
    params: Value,
    done: Done<Value>,
) -> u64 {
    if let Some(s) = session {
        if needs_renderer(method) && app.browser.pages.by_session(s).is_some_and(|p| p.crashed) {
            // The browser would hold such a command until the page is navigated again.
            app.resolve(done, Err(Error::Crashed));
            return 0;
        }
    }
    let Some(transport) = app.browser.transport.as_mut() else {
        let err = Error::BrowserGone("the browser is not running".into());
        app.resolve(done, Err(err));
        return 0;
    };
    app.browser.next_id += 1;
    let id = app.browser.next_id;
    transport.queue(&message::encode(id, session, method, &params));
    app.browser.pending.insert(
        id,
        Pending {
            owner: app.current,
            session: session.map(str::to_owned),
            method: method.to_owned(),
            done,
        },
    );
    flush(app);
    id
}

/// Commands that only the page's renderer process can answer: on a crashed page they would
/// wait for a renderer that is not there.
fn needs_renderer(method: &str) -> bool {
    let domain = method.split('.').next().unwrap_or("");
    matches!(
        domain,
        "Runtime"
            | "DOM"
            | "DOMDebugger"
            | "DOMSnapshot"
            | "CSS"
            | "Accessibility"
            | "Debugger"
            | "Overlay"
            | "Input"
            | "LayerTree"
            | "Animation"
    ) || method == "Page.captureScreenshot"
}

/// Sends a typed command (see `cdp::generated`).
pub fn send<C: Command>(
    app: &mut App,
    session: Option<&str>,
    params: C,
    done: impl FnOnce(&mut App, Result<C::Returns>) + 'static,
) -> u64 {
    // Serializing our own generated structs cannot fail; an empty object is a safe fallback.
    let value = serde_json::to_value(&params).unwrap_or_else(|_| json!({}));
    send_raw(
        app,
        session,
        C::METHOD,
        value,
        Box::new(move |app, result| {
            let typed = result.and_then(|v| {
                serde_json::from_value::<C::Returns>(v).map_err(|e| Error::Cdp {
                    method: C::METHOD.into(),
                    message: format!("unexpected answer: {e}"),
                })
            });
            done(app, typed)
        }),
    )
}

/// Sends a command whose answer nobody needs; failures are logged.
pub fn fire(app: &mut App, session: Option<&str>, method: &str, params: Value) {
    let m = method.to_owned();
    send_raw(
        app,
        session,
        method,
        params,
        Box::new(move |_, r| {
            if let Err(e) = r {
                log!("{m}: {e}");
            }
        }),
    );
}

/// Pushes queued commands to the browser.
pub fn flush(app: &mut App) {
    let Some(transport) = app.browser.transport.as_mut() else {
        return;
    };
    if let Err(e) = transport.flush() {
        lost(app, &format!("writing to the browser failed: {e}"));
    }
}

/// Runs `done` once the browser is up, starting it if needed.
pub fn ready(app: &mut App, done: Done<()>) {
    match app.browser.phase {
        Phase::Ready => done(app, Ok(())),
        Phase::Starting => app.browser.starting.push((app.current, done)),
        Phase::Idle => {
            app.browser.starting.push((app.current, done));
            app.run_as(None, start);
        }
    }
}

fn connect(app: &mut App) -> std::result::Result<(), String> {
    let transport = match app.settings.source.clone() {
        BrowserSource::Launch => {
            let (process, sender, receiver) = launch::launch(&app.settings)?;
            app.browser.process = Some(process);
            Transport::Pipe(Pipe::new(sender, receiver))
        }
        BrowserSource::BrowserUrl(url) => {
            let ws_url = websocket::lookup_ws_url(&url)?;
            Transport::Ws(websocket::WsConn::connect(&ws_url)?)
        }
        BrowserSource::WsEndpoint(url) => Transport::Ws(websocket::WsConn::connect(&url)?),
    };
    app.browser.transport = Some(transport);
    let registry = &app.registry;
    let registered = match app.browser.transport.as_mut() {
        Some(Transport::Pipe(p)) => registry
            .register(&mut p.from_browser, BROWSER_IN, Interest::READABLE)
            .and_then(|_| registry.register(&mut p.to_browser, BROWSER_OUT, Interest::WRITABLE)),
        Some(Transport::Ws(w)) => registry.register(
            w.socket(),
            BROWSER_IN,
            Interest::READABLE | Interest::WRITABLE,
        ),
        None => Ok(()),
    };
    registered.map_err(|e| format!("cannot watch the browser connection: {e}"))
}

fn start(app: &mut App) {
    app.browser.phase = Phase::Starting;
    if let Err(e) = connect(app) {
        log!("{e}");
        teardown(app);
        app.browser.phase = Phase::Idle;
        for (owner, done) in std::mem::take(&mut app.browser.starting) {
            let err = Err(Error::Launch(e.clone()));
            app.run_as(owner, |app| app.resolve(done, err));
        }
        return;
    }
    let timer = app.after(START_TIMEOUT, |app| {
        if app.browser.phase == Phase::Starting {
            lost(app, "the browser did not answer within 30 s of starting");
        }
    });
    use crate::cdp::generated::target;
    send(
        app,
        None,
        target::SetDiscoverTargetsParams {
            discover: true,
            ..Default::default()
        },
        |_, r| {
            if let Err(e) = r {
                log!("{e}");
            }
        },
    );
    send(
        app,
        None,
        target::SetAutoAttachParams {
            auto_attach: true,
            wait_for_debugger_on_start: true,
            flatten: Some(true),
            ..Default::default()
        },
        move |app, r| {
            app.timers.cancel(timer);
            match r {
                Ok(_) => {
                    app.browser.phase = Phase::Ready;
                    for (owner, done) in std::mem::take(&mut app.browser.starting) {
                        app.run_as(owner, |app| app.resolve(done, Ok(())));
                    }
                }
                Err(e) => lost(app, &e.to_string()),
            }
        },
    );
}

/// Reads what the browser sent and dispatches it.
pub fn on_readable(app: &mut App) {
    let mut messages = Vec::new();
    let status = match app.browser.transport.as_mut() {
        Some(t) => t.read(|m| messages.push(message::decode(m))),
        None => return,
    };
    for m in messages {
        dispatch(app, m);
    }
    match status {
        Ok(true) => {}
        Ok(false) => lost(
            app,
            "the browser closed the connection (did it exit or crash?)",
        ),
        Err(e) => lost(app, &format!("reading from the browser failed: {e}")),
    }
}

fn dispatch(app: &mut App, m: Incoming) {
    match m {
        Incoming::Response { id, result } => {
            let Some(p) = app.browser.pending.remove(&id) else {
                return; // an answer for work that was dropped
            };
            if !app.alive(p.owner) {
                return;
            }
            let result = result.map_err(|e| Error::Cdp {
                method: p.method,
                message: e.message,
            });
            app.run_as(p.owner, |app| (p.done)(app, result));
        }
        Incoming::Event {
            session,
            method,
            params,
        } => events::on_event(app, session.as_deref(), &method, params),
        Incoming::Garbled { id, error } => {
            log!("undecodable message from the browser: {error}");
            if let Some(p) = id.and_then(|id| app.browser.pending.remove(&id)) {
                let err = Err(Error::Cdp {
                    method: p.method,
                    message: format!("the answer could not be decoded: {error}"),
                });
                if app.alive(p.owner) {
                    app.run_as(p.owner, |app| (p.done)(app, err));
                }
            }
        }
    }
}

/// Fails every command still waiting on `session` (its page closed or crashed).
pub fn fail_session(app: &mut App, session: &str, err: Error) {
    let ids: Vec<u64> = app
        .browser
        .pending
        .iter()
        .filter(|(_, p)| p.session.as_deref() == Some(session))
        .map(|(id, _)| *id)
        .collect();
    for id in ids {
        if let Some(p) = app.browser.pending.remove(&id) {
            if app.alive(p.owner) {
                let e = err.clone();
                app.run_as(p.owner, |app| app.resolve(p.done, Err(e)));
            }
        }
    }
    waiters::fail_session(app, session, err);
}

/// Drops everything a finished, cancelled or timed-out call was still waiting on.
pub fn forget_owner(app: &mut App, call: u64) {
    let owner = Some(call);
    app.browser.pending.retain(|_, p| p.owner != owner);
    app.browser.starting.retain(|(o, _)| *o != owner);
    app.browser.waiters.forget_owner(owner);
    app.browser.pages.forget_owner(owner);
}

/// The connection is gone: fail everything waiting on it, forget the pages, clean up the
/// process. The next call that needs a browser starts a new one.
pub fn lost(app: &mut App, reason: &str) {
    if app.browser.transport.is_none() && app.browser.phase == Phase::Idle {
        return;
    }
    log!("browser lost: {reason}");
    teardown(app);
    let had_pages = !app.browser.pages.is_empty();
    app.browser.phase = Phase::Idle;
    app.browser.restarted |= had_pages;
    let err = Error::BrowserGone(reason.to_owned());
    for (_, p) in std::mem::take(&mut app.browser.pending) {
        if app.alive(p.owner) {
            let e = err.clone();
            app.run_as(p.owner, |app| app.resolve(p.done, Err(e)));
        }
    }
    for (owner, done) in std::mem::take(&mut app.browser.starting) {
        let e = Error::Launch(reason.to_owned());
        app.run_as(owner, |app| app.resolve(done, Err(e)));
    }
    waiters::fail_all(app, err.clone());
    pages::clear(app, err);
}

fn teardown(app: &mut App) {
    if let Some(transport) = app.browser.transport.as_mut() {
        let registry = &app.registry;
        match transport {
            Transport::Pipe(p) => {
                let _ = registry.deregister(&mut p.from_browser);
                let _ = registry.deregister(&mut p.to_browser);
            }
            Transport::Ws(w) => {
                let _ = registry.deregister(w.socket());
            }
        }
    }
    app.browser.transport = None;
    if let Some(mut process) = app.browser.process.take() {
        process.reap();
    }
}

/// Ends the browser we started (a browser we only connected to is left running).
pub fn shutdown(app: &mut App) {
    app.browser.transport = None;
    if let Some(mut process) = app.browser.process.take() {
        process.terminate(Duration::from_millis(300));
    }
    app.browser.phase = Phase::Idle;
}
