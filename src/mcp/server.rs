//! The MCP lifecycle and request dispatch: `initialize`, `ping`, `tools/list`, `tools/call`,
//! cancellation; and, beside them, MCP 2026-07-28 (`server/discover`, `subscriptions/listen`,
//! the per-request envelope: see [`super::modern`]). Every request is answered (or, when
//! cancelled, deliberately not), and a bad line is answered with an error while the server
//! carries on.
//!
//! Which protocol a request speaks: one whose `_meta` names a protocol version is modern
//! (`initialize` excepted) and puts the connection in the modern era; `initialize` puts it in
//! the legacy era. A request without the envelope is served as before, except in the modern
//! era, where it is refused for lacking it. Entering the modern era forgets the legacy
//! session (no list changes without a subscription, no client roots); `initialize` ends the
//! open subscriptions.
//!
//! The server owns the tools' state ([`Ctx`]) and sees tools only through the registry
//! (`tools::list`, `tools::call`) and the answers they leave in the outbox.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::identity::{self, SERVER_NAME, SERVER_VERSION};
use super::jsonrpc::{self, id_key, request_id, Id, Incoming, INVALID_PARAMS, METHOD_NOT_FOUND};
use super::modern::{self, Subscription};
use super::output::Output;
use super::roots::{Answer, Held, Roots};
use crate::log::log;
use crate::schema_problems::echoed;
use crate::tools::{self, call, CallId, Ctx, Outcome};

pub(crate) struct Server {
    pub cx: Ctx,
    pub out: Output,
    /// The protocol version agreed in `initialize`.
    protocol_version: Option<String>,
    initialized: bool,
    roots: Roots,
    /// Which protocol the connection speaks, once a request said.
    era: Era,
    /// The open `subscriptions/listen` streams (modern era only).
    subscriptions: Vec<Subscription>,
    /// The JSON-RPC id each call in flight answers, as the client wrote it, and whether the
    /// call came in the modern protocol (its result then says so).
    rpc_ids: HashMap<CallId, (Id, bool)>,
    /// `tools/list_changed` coalescing: the current window's start and how many went out in
    /// it, and when the next is due (a change came after the window's allowance was spent).
    list_changed_window: (Instant, u32),
    list_changed_due: Option<Instant>,
}

/// At most [`LIST_CHANGED_BURST`] `notifications/tools/list_changed` per this long (and
/// one per loop turn): a page whose tools change without end cannot flood the client. Once
/// the allowance is spent, one notice goes out when the window ends, so one always follows
/// the last change.
const LIST_CHANGED_WINDOW: Duration = Duration::from_secs(1);
const LIST_CHANGED_BURST: u32 = 10;

#[derive(Clone, Copy, PartialEq)]
enum Era {
    /// No `initialize` and no modern request yet: requests are served as legacy ones.
    Unknown,
    Legacy,
    Modern,
}

impl Server {
    pub(crate) fn new(cx: Ctx) -> Server {
        Server {
            cx,
            out: Output::new(),
            protocol_version: None,
            initialized: false,
            roots: Roots::default(),
            era: Era::Unknown,
            subscriptions: Vec::new(),
            rpc_ids: HashMap::new(),
            list_changed_window: (Instant::now(), 0),
            list_changed_due: None,
        }
    }

    /// Queues one protocol message for the client.
    pub(crate) fn send(&mut self, message: impl Serialize) {
        self.out.push(&message);
    }

    /// Handles one line from the client, then sends what the tools have for the client.
    pub(crate) fn handle_line(&mut self, line: &[u8]) {
        match jsonrpc::parse_line(line) {
            Incoming::Invalid { id, code, message } => {
                log!("rejected a line from the client: {message}");
                self.send(jsonrpc::error(&id, code, &message));
            }
            Incoming::Response { id, result } => match self.roots.answer(&id, result) {
                Answer::Roots { roots, held } => {
                    self.cx.client_roots = roots;
                    self.run_held(held);
                }
                Answer::NotOurs => {
                    log!("ignored a response from the client to no request of ours (id {id})");
                }
            },
            Incoming::Notification { method, params } => {
                self.notification(&method, params.as_deref())
            }
            Incoming::Request { id, method, params } => self.request(id, &method, params),
        }
        self.drain();
    }

    fn notification(&mut self, method: &str, params: Option<&RawValue>) {
        match method {
            // A modern client has no session to start.
            "notifications/initialized" if self.era == Era::Modern => {}
            "notifications/initialized" => {
                self.initialized = true;
                self.ask_roots();
                // Lean browser: the session is set up; start the browser in the background.
                if self.cx.settings.prelaunch {
                    tools::prelaunch(&mut self.cx);
                }
            }
            "notifications/roots/list_changed" => self.ask_roots(),
            "notifications/cancelled" => {
                let Some(id) = request_id(params) else {
                    return;
                };
                let found = self.rpc_ids.iter().find(|(_, (rpc, _))| id_key(rpc) == id);
                if let Some(call) = found.map(|(call, _)| *call) {
                    self.rpc_ids.remove(&call);
                    call::cancel(&mut self.cx, call);
                }
                // A cancelled subscription ends without an answer.
                self.subscriptions.retain(|s| id_key(&s.id) != id);
            }
            _ => {}
        }
    }

    fn request(&mut self, id: Id, method: &str, params: Value) {
        // In the modern era a request without the envelope is refused for lacking it.
        if method != "initialize" && (self.era == Era::Modern || modern::has_envelope(&params)) {
            return self.modern_request(id, method, &params);
        }
        match method {
            "initialize" => {
                self.era = Era::Legacy;
                self.close_subscriptions();
                let version = identity::negotiate(params["protocolVersion"].as_str());
                self.protocol_version = Some(version.to_string());
                self.roots.capable = params["capabilities"]["roots"].is_object();
                let result = json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": true}},
                    "serverInfo": {"name": SERVER_NAME, "title": "devtools-mcp", "version": SERVER_VERSION},
                });
                self.send(jsonrpc::response(&id, result));
            }
            "ping" => self.send(jsonrpc::response(&id, json!({}))),
            "tools/list" => {
                let result = json!({"tools": tools::list(&self.cx)});
                self.send(jsonrpc::response(&id, result));
            }
            "tools/call" => self.tools_call(id, &params, false),
            _ => {
                let message = format!("Method not found: {}", echoed(method));
                self.send(jsonrpc::error(&id, METHOD_NOT_FOUND, &message));
            }
        }
    }

    /// A request in the modern protocol: its envelope checked, its result marked complete.
    fn modern_request(&mut self, id: Id, method: &str, params: &Value) {
        if let Err(refusal) = modern::check_envelope(params) {
            return self.send(refusal.reply(&id));
        }
        if self.era != Era::Modern {
            self.era = Era::Modern;
            self.initialized = false;
            // The legacy session's roots no longer apply.
            let held = self.roots.forget();
            self.cx.client_roots = None;
            self.run_held(held);
        }
        match method {
            "server/discover" => self.send(jsonrpc::response(&id, modern::discover())),
            "subscriptions/listen" => self.listen(id, params),
            "tools/list" => {
                let exposed = self.cx.settings.expose_page_tools;
                let result = modern::tools_list(tools::list(&self.cx), exposed);
                self.send(jsonrpc::response(&id, result));
            }
            "tools/call" => self.tools_call(id, params, true),
            _ => {
                let message = format!("Method not found: {}", echoed(method));
                self.send(jsonrpc::error(&id, METHOD_NOT_FOUND, &message));
            }
        }
    }

    /// Opens a notification stream: acknowledged at once, answered when the server ends it.
    fn listen(&mut self, id: Id, params: &Value) {
        let Some(tools) = modern::honoured(params) else {
            let msg = "subscriptions/listen needs a \"notifications\" object";
            return self.send(jsonrpc::error(&id, INVALID_PARAMS, msg));
        };
        let subscription = Subscription { id, tools };
        self.send(subscription.acknowledged());
        self.subscriptions.push(subscription);
    }

    /// Ends every open subscription gracefully (the server shuts down, or the client switched
    /// to the handshake).
    pub(crate) fn close_subscriptions(&mut self) {
        for subscription in std::mem::take(&mut self.subscriptions) {
            self.send(subscription.closed());
        }
    }

    fn tools_call(&mut self, id: Id, params: &Value, modern: bool) {
        let Some(name) = params["name"].as_str() else {
            let msg = "tools/call needs a string \"name\"";
            return self.send(jsonrpc::error(&id, INVALID_PARAMS, msg));
        };
        let args = match &params["arguments"] {
            Value::Null => json!({}),
            Value::Object(_) => params["arguments"].clone(),
            _ => {
                let msg = "tools/call \"arguments\" must be an object";
                return self.send(jsonrpc::error(&id, INVALID_PARAMS, msg));
            }
        };
        if !modern && self.roots.pending() {
            // A path is never judged against roots that are not known yet.
            let name = name.to_owned();
            self.roots.hold(Held { id, name, args });
            return;
        }
        self.start_call(id, name, args, modern);
    }

    fn start_call(&mut self, id: Id, name: &str, args: Value, modern: bool) {
        match tools::call(&mut self.cx, name, args) {
            Ok(call) => {
                self.rpc_ids.insert(call, (id, modern));
            }
            Err(text) => self.send(jsonrpc::error(&id, INVALID_PARAMS, &text)),
        }
    }

    /// Sends `roots/list`, when the client has roots.
    fn ask_roots(&mut self) {
        if let Some(request) = self.roots.ask() {
            self.send(request);
        }
    }

    /// Runs the tool calls that waited for the roots, in the order they came.
    fn run_held(&mut self, held: Vec<Held>) {
        for Held { id, name, args } in held {
            self.start_call(id, &name, args, false);
        }
    }

    /// Sends the answers and notices the tools left, in order.
    pub(crate) fn drain(&mut self) {
        for outcome in std::mem::take(&mut self.cx.outbox) {
            match outcome {
                Outcome::Answer(call, result) => {
                    let Some((id, modern)) = self.rpc_ids.remove(&call) else {
                        continue;
                    };
                    let result = match modern {
                        true => modern::complete(result.into_json()),
                        false => result.into_json(),
                    };
                    self.send(jsonrpc::response(&id, result));
                }
                Outcome::ToolsChanged if self.initialized || self.listening() => {
                    self.tools_changed()
                }
                Outcome::ToolsChanged => {}
            }
        }
    }

    /// The tools changed: tell the client now, or once the window's allowance is renewed.
    fn tools_changed(&mut self) {
        if self.list_changed_due.is_some() {
            return;
        }
        let now = Instant::now();
        let (start, sent) = self.list_changed_window;
        if now >= start + LIST_CHANGED_WINDOW {
            self.list_changed_window = (now, 0);
        } else if sent >= LIST_CHANGED_BURST {
            self.list_changed_due = Some(start + LIST_CHANGED_WINDOW);
            return;
        }
        self.send_list_changed();
    }

    /// Whether a subscription wants tool list changes.
    fn listening(&self) -> bool {
        self.subscriptions.iter().any(|s| s.tools)
    }

    fn send_list_changed(&mut self) {
        self.list_changed_window.1 += 1;
        self.list_changed_due = None;
        if self.initialized {
            let note = jsonrpc::notification("notifications/tools/list_changed", json!({}));
            self.send(note);
        }
        for subscription in self.subscriptions.iter().filter(|s| s.tools) {
            self.out.push(&subscription.tools_changed());
        }
    }

    /// The next deadline of the MCP layer itself.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        match (self.roots.deadline(), self.list_changed_due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Acts on the MCP layer's deadlines that have passed.
    pub(crate) fn on_time(&mut self, now: Instant) {
        if self.list_changed_due.is_some_and(|d| d <= now) {
            self.list_changed_window = (now, 0);
            self.send_list_changed();
        }
        if self.roots.deadline().is_some_and(|d| d <= now) {
            let held = self.roots.time_out();
            self.run_held(held);
            self.drain();
        }
    }
}
