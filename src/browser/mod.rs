//! The browser: starting or reaching it, the command/answer bookkeeping over its connection,
//! and the pages we attach to. Every command's continuation is kept here until the browser
//! answers, the call that owns it goes away, or the browser is lost.

pub(crate) mod agents;
pub(crate) mod events;
mod executable;
pub(crate) mod extension_worker;
pub(crate) mod frames;
pub(crate) mod host;
mod ids;
pub mod launch;
pub(crate) mod navigation;
mod open;
pub(crate) mod pages;
pub(crate) mod tabs;
pub(crate) mod url_rules;

pub(crate) mod waiters;

pub(crate) use host::{Done, Flow, Host, Once, RawEvent, Runtime};
pub(crate) use ids::{AgentId, CallId, Owner, PageId};
pub(crate) use open::{open_isolated, with_page};

use std::collections::HashMap;
use std::time::Duration;

use mio::Token;
use serde_json::{json, Value};

use crate::cdp::message::{self, Incoming};
use crate::cdp::{pipe::Pipe, websocket, Command, Connection};
use crate::error::{Error, Result};
use crate::log::log;
use crate::settings::BrowserSource;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Not started (or lost): the next call that needs it starts it.
    Idle,
    Starting,
    Ready,
}

struct Pending<H> {
    owner: Owner,
    session: Option<String>,
    method: &'static str,
    done: Done<H, Value>,
}

/// Where the event loop hears about the browser connection: readable (and, for a
/// websocket, writable) under `read`, writable pipe under `write`.
#[derive(Clone, Copy)]
pub(crate) struct Tokens {
    pub read: Token,
    pub write: Token,
}

/// Makes the browser connection in place of `Settings::source` (a test's scripted browser).
pub(crate) type Connector = Box<dyn FnMut() -> std::result::Result<Box<dyn Connection>, String>>;

pub(crate) struct Browser<H> {
    pub phase: Phase,
    registry: mio::Registry,
    tokens: Tokens,
    connector: Option<Connector>,
    transport: Option<Box<dyn Connection>>,
    process: Option<launch::Process>,
    next_id: u64,
    pending: HashMap<u64, Pending<H>>,
    starting: Vec<(Owner, Done<H, ()>)>,
    pub pages: pages::Pages<H>,
    pub waiters: waiters::Waiters<H>,
    /// Set when a browser we launched died while starting and was started once more; a
    /// second death fails the calls waiting on it. Cleared once a browser is ready.
    start_retried: bool,
    /// Counts starts, so an answer or timer from an earlier start is told from this one's.
    start_attempt: u64,
}

/// How long a browser may take to start and answer before the calls waiting on it fail.
const START_TIMEOUT: Duration = Duration::from_secs(30);

impl<H> Browser<H> {
    pub(crate) fn new(registry: mio::Registry, tokens: Tokens) -> Browser<H> {
        Browser {
            phase: Phase::Idle,
            registry,
            tokens,
            connector: None,
            transport: None,
            process: None,
            next_id: 0,
            pending: HashMap::new(),
            starting: Vec::new(),
            pages: pages::Pages::default(),
            waiters: waiters::Waiters::default(),
            start_retried: false,
            start_attempt: 0,
        }
    }

    /// Every connection (the first and each after a loss) is made by `connector` instead
    /// of from the settings: how tests put a scripted browser on the wire.
    pub(crate) fn connect_with(
        &mut self,
        connector: impl FnMut() -> std::result::Result<Box<dyn Connection>, String> + 'static,
    ) {
        self.connector = Some(Box::new(connector));
    }
}

/// Sends one command as raw JSON. Only this layer does so; everything above sends
/// generated types through [`send`] and [`fire`].
fn send_raw<H: Host>(
    cx: &mut H,
    session: Option<&str>,
    method: &'static str,
    params: Value,
    done: Done<H, Value>,
) -> u64 {
    if let Some(s) = session {
        let page_crashed = cx.browser().pages.by_session(s).is_some_and(|p| p.crashed);
        if needs_renderer(method) && (page_crashed || frames::is_crashed(cx, s)) {
            // The browser would hold such a command until the page is navigated again.
            cx.resolve(done, Err(Error::Crashed));
            return 0;
        }
    }
    let owner = cx.current();
    let b = cx.browser();
    let Some(transport) = b.transport.as_mut() else {
        let err = Error::BrowserGone("the browser is not running".into());
        cx.resolve(done, Err(err));
        return 0;
    };
    b.next_id += 1;
    let id = b.next_id;
    transport.queue(&message::encode(id, session, method, &params));
    b.pending.insert(
        id,
        Pending {
            owner,
            session: session.map(str::to_owned),
            method,
            done,
        },
    );
    flush(cx);
    id
}

/// Commands that only the page's renderer process can answer: on a crashed page they would
/// wait for a renderer that is not there. (Matched by domain name: the rule is about
/// domains, and the wire name is what every command carries.)
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

/// Sends a typed command (see `cdp::generated`); `done` gets its typed answer, unless the
/// owning call is gone by then.
pub(crate) fn send<H: Host, C: Command>(
    cx: &mut H,
    session: Option<&str>,
    params: C,
    done: impl FnOnce(&mut H, Result<C::Returns>) + 'static,
) -> u64 {
    // Serializing our own generated structs cannot fail; an empty object is a safe fallback.
    let value = serde_json::to_value(&params).unwrap_or_else(|_| json!({}));
    send_raw(
        cx,
        session,
        C::METHOD,
        value,
        Box::new(move |cx, result| {
            let typed = result.and_then(|v| {
                serde_json::from_value::<C::Returns>(v)
                    .map_err(|e| Error::cdp(C::METHOD, format!("unexpected answer: {e}")))
            });
            done(cx, typed)
        }),
    )
}

/// Sends a typed command whose answer comes back into `flow` as `step(answer)`.
pub(crate) fn send_then<H: Host, C: Command, F: Flow<H>>(
    cx: &mut H,
    session: Option<&str>,
    params: C,
    flow: F,
    step: fn(Result<C::Returns>) -> F::Step,
) where
    C::Returns: 'static,
{
    send(cx, session, params, move |cx, r| flow.next(cx, step(r)));
}

/// Sends a command whose answer nobody needs; failures are logged.
pub(crate) fn fire<H: Host, C: Command>(cx: &mut H, session: Option<&str>, params: C) {
    send(cx, session, params, |_, r| {
        if let Err(e) = r {
            log!("{}: {e}", C::METHOD);
        }
    });
}

/// Pushes queued commands to the browser.
pub(crate) fn flush<H: Host>(cx: &mut H) {
    let Some(transport) = cx.browser().transport.as_mut() else {
        return;
    };
    if let Err(e) = transport.flush() {
        lost(cx, &format!("writing to the browser failed: {e}"));
    }
}

/// Runs `done` once the browser is up, starting it if needed.
pub(crate) fn ready<H: Host>(cx: &mut H, done: Done<H, ()>) {
    let owner = cx.current();
    match cx.browser().phase {
        Phase::Ready => done(cx, Ok(())),
        Phase::Starting => cx.browser().starting.push((owner, done)),
        Phase::Idle => {
            cx.browser().starting.push((owner, done));
            cx.run_as(None, start);
        }
    }
}

fn connect<H: Host>(cx: &mut H) -> std::result::Result<(), String> {
    let settings = cx.settings().clone();
    let b = cx.browser();
    let transport = match (&mut b.connector, &settings.source) {
        (Some(connector), _) => connector()?,
        (None, BrowserSource::Launch) => {
            let (process, sender, receiver) = launch::launch(&settings)?;
            b.process = Some(process);
            Box::new(Pipe::new(sender, receiver))
        }
        (None, BrowserSource::BrowserUrl(url)) => {
            let headers = &settings.policies.ws_headers;
            let ws_url = websocket::lookup_ws_url(url, headers)?;
            Box::new(websocket::WsConn::connect(&ws_url, headers)?)
        }
        (None, BrowserSource::WsEndpoint(url)) => {
            let headers = &settings.policies.ws_headers;
            Box::new(websocket::WsConn::connect(url, headers)?)
        }
    };
    b.transport = Some(transport);
    let (registry, tokens) = (&b.registry, b.tokens);
    let registered = match b.transport.as_mut() {
        Some(t) => t.register(registry, tokens.read, tokens.write),
        None => Ok(()),
    };
    registered.map_err(|e| format!("cannot watch the browser connection: {e}"))
}

fn start<H: Host>(cx: &mut H) {
    cx.browser().phase = Phase::Starting;
    cx.browser().start_attempt += 1;
    let attempt = cx.browser().start_attempt;
    let current = move |cx: &mut H| cx.browser().start_attempt == attempt;
    if let Err(e) = connect(cx) {
        log!("{e}");
        teardown(cx);
        cx.browser().phase = Phase::Idle;
        for (owner, done) in std::mem::take(&mut cx.browser().starting) {
            let err = Err(Error::Launch(e.clone()));
            cx.run_as(owner, |cx| cx.resolve(done, err));
        }
        return;
    }
    let timer = cx.after(START_TIMEOUT, move |cx| {
        if cx.browser().phase == Phase::Starting && current(cx) {
            lost(cx, "the browser did not answer within 30 s of starting");
        }
    });
    use crate::cdp::generated::target;
    if cx.settings().policies.accept_insecure_certs {
        // --acceptInsecureCerts, as the reference's Puppeteer does it: for
        // the whole browser, before any page loads.
        let ignore =
            crate::cdp::generated::security::SetIgnoreCertificateErrorsParams { ignore: true };
        fire(cx, None, ignore);
    }
    fire(
        cx,
        None,
        target::SetDiscoverTargetsParams {
            discover: true,
            ..Default::default()
        },
    );
    let auto_attach = target::SetAutoAttachParams {
        auto_attach: true,
        wait_for_debugger_on_start: true,
        flatten: Some(true),
        ..Default::default()
    };
    send(cx, None, auto_attach, move |cx, r| {
        cx.cancel_timer(timer);
        if !current(cx) {
            return; // an earlier start's answer (that browser died; this is a new one)
        }
        match r {
            Ok(_) => {
                let b = cx.browser();
                b.phase = Phase::Ready;
                b.start_retried = false;
                b.pages.agents.browser_back();
                for (owner, done) in std::mem::take(&mut cx.browser().starting) {
                    cx.run_as(owner, |cx| cx.resolve(done, Ok(())));
                }
            }
            Err(e) => lost(cx, &e.to_string()),
        }
    });
}

/// Reads what the browser sent and dispatches it.
pub(crate) fn on_readable<H: Host>(cx: &mut H) {
    let mut messages = Vec::new();
    let status = match cx.browser().transport.as_mut() {
        Some(t) => t.read(&mut |m| messages.push(message::decode(m))),
        None => return,
    };
    for m in messages {
        dispatch(cx, m);
    }
    match status {
        Ok(true) => {}
        Ok(false) => lost(
            cx,
            "the browser closed the connection (did it exit or crash?)",
        ),
        Err(e) => lost(cx, &format!("reading from the browser failed: {e}")),
    }
}

fn dispatch<H: Host>(cx: &mut H, m: Incoming) {
    match m {
        Incoming::Response { id, result } => {
            let Some(p) = cx.browser().pending.remove(&id) else {
                return; // an answer for work that was dropped
            };
            if !cx.alive(p.owner) {
                return;
            }
            let result = result.map_err(|e| Error::cdp(p.method, e.message));
            cx.run_as(p.owner, |cx| (p.done)(cx, result));
        }
        Incoming::Event {
            session,
            method,
            params,
        } => events::on_event(
            cx,
            RawEvent {
                session,
                method,
                params,
            },
        ),
        Incoming::Garbled { id, error } => {
            log!("undecodable message from the browser: {error}");
            if let Some(p) = id.and_then(|id| cx.browser().pending.remove(&id)) {
                let err = Err(Error::cdp(
                    p.method,
                    format!("the answer could not be decoded: {error}"),
                ));
                if cx.alive(p.owner) {
                    cx.run_as(p.owner, |cx| (p.done)(cx, err));
                }
            }
        }
    }
}

/// Fails every command still waiting on `session` (its page closed or crashed).
pub(crate) fn fail_session<H: Host>(cx: &mut H, session: &str, err: Error) {
    let ids: Vec<u64> = cx
        .browser()
        .pending
        .iter()
        .filter(|(_, p)| p.session.as_deref() == Some(session))
        .map(|(id, _)| *id)
        .collect();
    for id in ids {
        if let Some(p) = cx.browser().pending.remove(&id) {
            if cx.alive(p.owner) {
                let e = err.clone();
                cx.run_as(p.owner, |cx| cx.resolve(p.done, Err(e)));
            }
        }
    }
    waiters::fail_session(cx, session, err);
}

/// Drops everything a finished, cancelled or timed-out call was still waiting on.
pub(crate) fn forget_owner<H: Host>(cx: &mut H, call: CallId) {
    let owner = Some(call);
    let b = cx.browser();
    b.pending.retain(|_, p| p.owner != owner);
    b.starting.retain(|(o, _)| *o != owner);
    b.waiters.forget_owner(owner);
    b.pages.forget_owner(owner);
}

/// The connection is gone: fail everything waiting on it, forget the pages, clean up the
/// process. The next call that needs a browser starts a new one.
pub(crate) fn lost<H: Host>(cx: &mut H, reason: &str) {
    if cx.browser().transport.is_none() && cx.browser().phase == Phase::Idle {
        return;
    }
    log!("browser lost: {reason}");
    // A browser we launched that dies before it is ready (seen once in hundreds of starts
    // on a loaded machine) is started once more before the waiting calls are failed.
    let b = cx.browser();
    let retry = b.phase == Phase::Starting && b.process.is_some() && !b.start_retried;
    teardown(cx);
    cx.browser().phase = Phase::Idle;
    let err = Error::BrowserGone(reason.to_owned());
    for (_, p) in std::mem::take(&mut cx.browser().pending) {
        if cx.alive(p.owner) {
            let e = err.clone();
            cx.run_as(p.owner, |cx| cx.resolve(p.done, Err(e)));
        }
    }
    if retry {
        log!("the browser died while starting; starting it once more");
        cx.browser().start_retried = true;
        return cx.run_as(None, start);
    }
    for (owner, done) in std::mem::take(&mut cx.browser().starting) {
        let e = Error::Launch(reason.to_owned());
        cx.run_as(owner, |cx| cx.resolve(done, Err(e)));
    }
    waiters::fail_all(cx, err.clone());
    pages::clear(cx, err);
}

fn teardown<H: Host>(cx: &mut H) {
    let b = cx.browser();
    if let Some(transport) = b.transport.as_mut() {
        transport.deregister(&b.registry);
    }
    b.transport = None;
    if let Some(mut process) = b.process.take() {
        process.reap();
    }
}

/// Ends the browser we started (a browser we only connected to is left running).
pub(crate) fn shutdown<H: Host>(cx: &mut H) {
    let b = cx.browser();
    b.transport = None;
    if let Some(mut process) = b.process.take() {
        process.terminate(Duration::from_millis(300));
    }
    b.phase = Phase::Idle;
}
