//! One client session of the server ([`super::sessions`]): the MCP lifecycle and request
//! dispatch — `initialize`, `ping`, `tools/list`, `tools/call`, cancellation; and, beside
//! them, MCP 2026-07-28 (`server/discover`, `subscriptions/listen`, the per-request envelope:
//! see [`super::modern`]). Every request is answered (or, when cancelled, deliberately not),
//! and a bad line is answered with an error while the server carries on.
//!
//! Which protocol a request speaks: one whose `_meta` names a protocol version is modern
//! (`initialize` excepted) and puts the session in the modern era; `initialize` puts it in
//! the legacy era. A request without the envelope is served as before, except in the modern
//! era, where it is refused for lacking it. Entering the modern era forgets the legacy
//! session (no list changes without a subscription, no client roots); `initialize` ends the
//! open subscriptions. A stateless session (MCP 2026-07-28 over HTTP, where each request
//! stands alone) is modern from the start and takes no `initialize`.
//!
//! A session works for one agent (`tools::agents`): its calls reach that agent's pages, and it
//! hears of that agent's tool changes. It sees tools only through the registry
//! (`tools::list`, `tools::call`); the server ([`super::sessions`]) hands it the answers its
//! calls leave in the outbox. What it says goes into its [`Sink`], each message with the
//! exchange it belongs to (the request it answers, or none).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::identity::{self, SERVER_NAME, SERVER_VERSION};
use super::jsonrpc::{
    self, id_key, request_id, Id, IdKey, Incoming, Reply, INVALID_PARAMS, METHOD_NOT_FOUND,
};
use super::modern::{self, Subscription};
use super::output::{Sink, Tag};
use super::roots::{Answer, Held, Roots};
use crate::browser::AgentId;
use crate::log::log;
use crate::schema_problems::echoed;
use crate::tools::{self, call, CallId, Ctx, ToolResult};

pub(crate) struct Session {
    /// The agent its calls work for.
    pub(super) agent: AgentId,
    pub(super) sink: Sink,
    /// Each request stands alone (MCP 2026-07-28 over HTTP): modern only.
    stateless: bool,
    /// The exchange of the message being handled: what is said in answer goes to it.
    tag: Option<Tag>,
    /// The protocol version agreed in `initialize`.
    protocol_version: Option<String>,
    initialized: bool,
    roots: Roots,
    /// Which protocol the session speaks, once a request said.
    era: Era,
    /// The open `subscriptions/listen` streams (modern era only), each on its exchange.
    subscriptions: Vec<(Subscription, Option<Tag>)>,
    /// What each call in flight answers.
    rpc_ids: HashMap<CallId, Pending>,
    /// `tools/list_changed` coalescing: the current window's start and how many went out in
    /// it, and when the next is due (a change came after the window's allowance was spent).
    list_changed_window: (Instant, u32),
    list_changed_due: Option<Instant>,
}

/// A call in flight: the JSON-RPC id it answers, as the client wrote it, whether it came in
/// the modern protocol (its result then says so), and its exchange.
struct Pending {
    id: Id,
    modern: bool,
    tag: Option<Tag>,
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

impl Session {
    /// A session of `agent` that says what it says into `sink`; `stateless` as in
    /// [`Session::stateless`].
    pub(super) fn new(agent: AgentId, sink: Sink, stateless: bool) -> Session {
        Session {
            agent,
            sink,
            stateless,
            tag: None,
            protocol_version: None,
            initialized: false,
            roots: Roots::default(),
            era: if stateless { Era::Modern } else { Era::Unknown },
            subscriptions: Vec::new(),
            rpc_ids: HashMap::new(),
            list_changed_window: (Instant::now(), 0),
            list_changed_due: None,
        }
    }

    /// Answers the message being handled (or the call `tag` came with) with `reply`.
    fn reply(&mut self, tag: Option<Tag>, reply: Reply) {
        let code = reply.code();
        self.sink.push(tag, &reply, Some(code));
    }

    /// Answers the message being handled.
    fn answer(&mut self, reply: Reply) {
        self.reply(self.tag, reply);
    }

    /// A message on exchange `tag` that does not end it.
    fn note<T: Serialize + ?Sized>(&mut self, tag: Option<Tag>, message: &T) {
        self.sink.push(tag, message, None);
    }

    /// Handles one message from the client, which came on exchange `tag`.
    pub(super) fn handle(&mut self, cx: &mut Ctx, incoming: Incoming, tag: Option<Tag>) {
        self.tag = tag;
        match incoming {
            Incoming::Invalid { id, code, message } => {
                log!("rejected a line from the client: {message}");
                self.answer(jsonrpc::error(&id, code, &message));
            }
            Incoming::Response { id, result } => match self.roots.answer(&id, result) {
                Answer::Roots { roots, held } => {
                    tools::agents::set_roots(cx, self.agent, roots);
                    self.run_held(cx, held);
                }
                Answer::NotOurs => {
                    log!("ignored a response from the client to no request of ours (id {id})");
                }
            },
            Incoming::Notification { method, params } => {
                self.notification(cx, &method, params.as_deref())
            }
            Incoming::Request { id, method, params } => self.request(cx, id, &method, params),
        }
    }

    fn notification(&mut self, cx: &mut Ctx, method: &str, params: Option<&RawValue>) {
        match method {
            // A modern client has no session to start.
            "notifications/initialized" if self.era == Era::Modern => {}
            "notifications/initialized" => {
                self.initialized = true;
                self.ask_roots();
                // Lean browser: the session is set up; start the browser in the background.
                if cx.settings.prelaunch {
                    tools::prelaunch(cx);
                }
            }
            "notifications/roots/list_changed" => self.ask_roots(),
            "notifications/cancelled" => {
                let Some(id) = request_id(params) else {
                    return;
                };
                self.cancel(cx, &id);
            }
            _ => {}
        }
    }

    /// The client cancelled request `id`: its call stops unanswered, and its exchange ends.
    fn cancel(&mut self, cx: &mut Ctx, id: &IdKey) {
        let found = self.rpc_ids.iter().find(|(_, p)| id_key(&p.id) == *id);
        if let Some(call) = found.map(|(call, _)| *call) {
            if let Some(pending) = self.rpc_ids.remove(&call) {
                self.sink.end_silently(pending.tag);
            }
            call::cancel(cx, call);
        }
        // A cancelled subscription ends without an answer.
        let (gone, open): (Vec<_>, Vec<_>) = std::mem::take(&mut self.subscriptions)
            .into_iter()
            .partition(|(s, _)| id_key(&s.id) == *id);
        self.subscriptions = open;
        for (_, tag) in gone {
            self.sink.end_silently(tag);
        }
    }

    fn request(&mut self, cx: &mut Ctx, id: Id, method: &str, params: Value) {
        // In the modern era a request without the envelope is refused for lacking it.
        let modern = self.era == Era::Modern || modern::has_envelope(&params);
        if self.stateless || (method != "initialize" && modern) {
            return self.modern_request(cx, id, method, &params);
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
                self.answer(jsonrpc::response(&id, result));
            }
            "ping" => self.answer(jsonrpc::response(&id, json!({}))),
            "tools/list" => {
                let result = json!({"tools": tools::list(cx, self.agent)});
                self.answer(jsonrpc::response(&id, result));
            }
            "tools/call" => self.tools_call(cx, id, &params, false),
            _ => {
                let message = format!("Method not found: {}", echoed(method));
                self.answer(jsonrpc::error(&id, METHOD_NOT_FOUND, &message));
            }
        }
    }

    /// A request in the modern protocol: its envelope checked, its result marked complete.
    fn modern_request(&mut self, cx: &mut Ctx, id: Id, method: &str, params: &Value) {
        if let Err(refusal) = modern::check_envelope(params) {
            return self.answer(refusal.reply(&id));
        }
        if self.era != Era::Modern {
            self.era = Era::Modern;
            self.initialized = false;
            // The legacy session's roots no longer apply.
            let held = self.roots.forget();
            tools::agents::set_roots(cx, self.agent, None);
            self.run_held(cx, held);
        }
        match method {
            "server/discover" => self.answer(jsonrpc::response(&id, modern::discover())),
            "subscriptions/listen" => self.listen(id, params),
            "tools/list" => {
                let exposed = cx.settings.expose_page_tools;
                let result = modern::tools_list(tools::list(cx, self.agent), exposed);
                self.answer(jsonrpc::response(&id, result));
            }
            "tools/call" => self.tools_call(cx, id, params, true),
            _ => {
                let message = format!("Method not found: {}", echoed(method));
                self.answer(jsonrpc::error(&id, METHOD_NOT_FOUND, &message));
            }
        }
    }

    /// Opens a notification stream: acknowledged at once, answered when the server ends it.
    fn listen(&mut self, id: Id, params: &Value) {
        let Some(tools) = modern::honoured(params) else {
            let msg = "subscriptions/listen needs a \"notifications\" object";
            return self.answer(jsonrpc::error(&id, INVALID_PARAMS, msg));
        };
        let subscription = Subscription { id, tools };
        self.note(self.tag, &subscription.acknowledged());
        self.subscriptions.push((subscription, self.tag));
    }

    /// Ends every open subscription gracefully (the server shuts down, or the client switched
    /// to the handshake).
    pub(super) fn close_subscriptions(&mut self) {
        for (subscription, tag) in std::mem::take(&mut self.subscriptions) {
            self.sink.push(tag, &subscription.closed(), Some(None));
        }
    }

    /// Exchange `tag` is gone (its client went away): a request on it stops, unanswered, when
    /// it is a modern one (for which going away is how a client cancels), and a subscription
    /// on it ends. A legacy call goes on; its answer finds no exchange and is dropped.
    pub(super) fn exchange_gone(&mut self, cx: &mut Ctx, tag: Tag) {
        self.subscriptions.retain(|(_, t)| *t != Some(tag));
        let modern = |p: &Pending| p.modern && p.tag == Some(tag);
        let calls: Vec<CallId> = (self.rpc_ids.iter())
            .filter(|(_, p)| modern(p))
            .map(|(call, _)| *call)
            .collect();
        for c in calls {
            self.rpc_ids.remove(&c);
            call::cancel(cx, c);
        }
    }

    /// The session ends: its calls in flight stop, unanswered.
    pub(super) fn end(&mut self, cx: &mut Ctx) {
        for (c, _) in std::mem::take(&mut self.rpc_ids) {
            call::cancel(cx, c);
        }
        self.subscriptions.clear();
    }

    fn tools_call(&mut self, cx: &mut Ctx, id: Id, params: &Value, modern: bool) {
        let Some(name) = params["name"].as_str() else {
            let msg = "tools/call needs a string \"name\"";
            return self.answer(jsonrpc::error(&id, INVALID_PARAMS, msg));
        };
        let args = match &params["arguments"] {
            Value::Null => json!({}),
            Value::Object(_) => params["arguments"].clone(),
            _ => {
                let msg = "tools/call \"arguments\" must be an object";
                return self.answer(jsonrpc::error(&id, INVALID_PARAMS, msg));
            }
        };
        let tag = self.tag;
        if !modern && self.roots.pending() {
            // A path is never judged against roots that are not known yet.
            let name = name.to_owned();
            self.roots.hold(Held {
                id,
                name,
                args,
                tag,
            });
            return;
        }
        self.start_call(cx, id, name, args, modern, tag);
    }

    fn start_call(
        &mut self,
        cx: &mut Ctx,
        id: Id,
        name: &str,
        args: Value,
        modern: bool,
        tag: Option<Tag>,
    ) {
        match tools::call(cx, self.agent, name, args) {
            Ok(call) => {
                self.rpc_ids.insert(call, Pending { id, modern, tag });
            }
            Err(text) => self.reply(tag, jsonrpc::error(&id, INVALID_PARAMS, &text)),
        }
    }

    /// Sends `roots/list`, when the client has roots.
    fn ask_roots(&mut self) {
        if let Some(request) = self.roots.ask() {
            self.note(None, &request);
        }
    }

    /// Runs the tool calls that waited for the roots, in the order they came.
    fn run_held(&mut self, cx: &mut Ctx, held: Vec<Held>) {
        for Held {
            id,
            name,
            args,
            tag,
        } in held
        {
            self.start_call(cx, id, &name, args, false, tag);
        }
    }

    /// Whether `call` is one of this session's, in flight.
    pub(super) fn owns(&self, call: CallId) -> bool {
        self.rpc_ids.contains_key(&call)
    }

    /// Answers `call`, when it is one of this session's.
    pub(super) fn answer_call(&mut self, call: CallId, result: ToolResult) {
        let Some(Pending { id, modern, tag }) = self.rpc_ids.remove(&call) else {
            return;
        };
        let result = match modern {
            true => modern::complete(result.into_json()),
            false => result.into_json(),
        };
        self.reply(tag, jsonrpc::response(&id, result));
    }

    /// The tools changed: tell the client now, or once the window's allowance is renewed.
    pub(super) fn tools_changed(&mut self) {
        if !self.initialized && !self.listening() || self.list_changed_due.is_some() {
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
        self.subscriptions.iter().any(|(s, _)| s.tools)
    }

    fn send_list_changed(&mut self) {
        self.list_changed_window.1 += 1;
        self.list_changed_due = None;
        if self.initialized {
            let note = jsonrpc::notification("notifications/tools/list_changed", json!({}));
            self.note(None, &note);
        }
        for (subscription, tag) in self.subscriptions.iter().filter(|(s, _)| s.tools) {
            self.sink.push(*tag, &subscription.tools_changed(), None);
        }
    }

    /// The next deadline of the session itself.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        match (self.roots.deadline(), self.list_changed_due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Acts on the session's deadlines that have passed.
    pub(super) fn on_time(&mut self, cx: &mut Ctx, now: Instant) {
        if self.list_changed_due.is_some_and(|d| d <= now) {
            self.list_changed_window = (now, 0);
            self.send_list_changed();
        }
        if self.roots.deadline().is_some_and(|d| d <= now) {
            let held = self.roots.time_out();
            self.run_held(cx, held);
        }
    }

    /// Whether the session waits on nothing: no call in flight, none held, no subscription.
    pub(super) fn idle(&self) -> bool {
        self.rpc_ids.is_empty() && !self.roots.pending() && self.subscriptions.is_empty()
    }
}
