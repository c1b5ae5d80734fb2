//! The server: the one tools state ([`Ctx`]) and the client sessions over it. Over stdio there
//! is one session, of the default agent, onto stdout; over HTTP ([`super::http`]) sessions come
//! and go with their clients, each of its agent. A client's message is handled by its session;
//! what the tools leave in the outbox goes where it belongs: an answer to the session whose
//! call it was, a change of an agent's tools to each session of that agent.

use std::collections::BTreeMap;
use std::io;
use std::time::Instant;

use serde::Serialize;

use super::jsonrpc::{self, Incoming};
use super::output::{Output, Routed, Sink, Tag};
use super::session::Session;
use crate::browser::AgentId;
use crate::tools::{self, CallId, Ctx, Outcome};

/// Which session: its key in the server's table.
pub(crate) type SessionKey = u64;

/// The session of a stdio server.
const STDIO: SessionKey = 0;

pub(crate) struct Server {
    pub cx: Ctx,
    sessions: BTreeMap<SessionKey, Session>,
    next_key: SessionKey,
}

impl Server {
    /// A server for stdio: one session, of the default agent, whose messages go to stdout.
    pub(crate) fn stdio(cx: Ctx) -> Server {
        let mut server = Server::new(cx);
        let session = Session::new(AgentId::DEFAULT, Sink::Stream(Output::new()), false);
        server.sessions.insert(STDIO, session);
        server
    }

    /// A server with no session yet: its transport opens them.
    pub(crate) fn new(cx: Ctx) -> Server {
        Server {
            cx,
            sessions: BTreeMap::new(),
            next_key: STDIO,
        }
    }

    // --- stdio

    /// Handles one line from the stdio client, then sends what the tools have for it.
    pub(crate) fn handle_line(&mut self, line: &[u8]) {
        self.handle(STDIO, jsonrpc::parse_line(line), None);
    }

    /// Queues one protocol message for the stdio client.
    pub(crate) fn send(&mut self, message: impl Serialize) {
        if let Some(out) = self.stdout() {
            out.push(&message);
        }
    }

    fn stdout(&mut self) -> Option<&mut Output> {
        match self.sessions.get_mut(&STDIO).map(|s| &mut s.sink) {
            Some(Sink::Stream(out)) => Some(out),
            _ => None,
        }
    }

    /// More answers wait for the stdio client than it should be given before it reads some.
    pub(crate) fn out_full(&mut self) -> bool {
        self.stdout().is_some_and(|o| o.full())
    }

    /// Nothing waits for the stdio client.
    pub(crate) fn out_is_empty(&mut self) -> bool {
        self.stdout().is_none_or(|o| o.is_empty())
    }

    /// Writes what stdout accepts now (`Ok(true)`: all of it).
    pub(crate) fn flush_out(&mut self) -> io::Result<bool> {
        self.stdout().map_or(Ok(true), Output::flush)
    }

    /// Takes what waits for the stdio client, unwritten (for tests that step the server).
    pub(crate) fn take_queued(&mut self) -> Vec<u8> {
        self.stdout().map(Output::take_queued).unwrap_or_default()
    }

    // --- sessions of a transport with many

    /// A new session of `agent` whose messages are routed; `stateless`: each request
    /// stands alone (MCP 2026-07-28 over HTTP).
    pub(super) fn open(&mut self, agent: AgentId, stateless: bool) -> SessionKey {
        self.next_key += 1;
        let key = self.next_key;
        let session = Session::new(agent, Sink::Routed(Vec::new()), stateless);
        self.sessions.insert(key, session);
        key
    }

    /// Ends a session: its calls stop unanswered.
    pub(super) fn close(&mut self, key: SessionKey) {
        if let Some(mut session) = self.sessions.remove(&key) {
            session.end(&mut self.cx);
        }
    }

    pub(super) fn session(&self, key: SessionKey) -> Option<&Session> {
        self.sessions.get(&key)
    }

    /// Handles one message of session `key`, which came on exchange `tag`.
    pub(super) fn handle(&mut self, key: SessionKey, incoming: Incoming, tag: Option<Tag>) {
        if let Some(session) = self.sessions.get_mut(&key) {
            session.handle(&mut self.cx, incoming, tag);
        }
        self.drain();
    }

    /// Exchange `tag` of session `key` is gone: see `Session::exchange_gone`.
    pub(super) fn exchange_gone(&mut self, key: SessionKey, tag: Tag) {
        if let Some(session) = self.sessions.get_mut(&key) {
            session.exchange_gone(&mut self.cx, tag);
        }
    }

    /// What the sessions with routed messages said since the last look.
    pub(super) fn take_routed(&mut self) -> Vec<(SessionKey, Routed)> {
        let mut all = Vec::new();
        for (key, session) in &mut self.sessions {
            if let Sink::Routed(queue) = &mut session.sink {
                all.extend(queue.drain(..).map(|r| (*key, r)));
            }
        }
        all
    }

    /// A new agent, for a transport's new client.
    pub(super) fn new_agent(&mut self) -> AgentId {
        tools::agents::open(&mut self.cx)
    }

    /// Ends an agent: its browser contexts are disposed (its sessions are the caller's).
    pub(super) fn end_agent(&mut self, agent: AgentId) {
        tools::agents::close(&mut self.cx, agent);
    }

    // --- every session

    /// Sends the answers and notices the tools left, in order.
    pub(crate) fn drain(&mut self) {
        for outcome in std::mem::take(&mut self.cx.outbox) {
            match outcome {
                Outcome::Answer(call, result) => self.answer(call, result),
                Outcome::ToolsChanged(agent) => {
                    let of_agent = self.sessions.values_mut().filter(|s| s.agent == agent);
                    of_agent.for_each(Session::tools_changed);
                }
            }
        }
    }

    /// Answers `call` in the session whose call it is (none: it was cancelled).
    fn answer(&mut self, call: CallId, result: tools::ToolResult) {
        let owner = self.sessions.values_mut().find(|s| s.owns(call));
        if let Some(session) = owner {
            session.answer_call(call, result);
        }
    }

    /// Ends every open subscription gracefully (the server shuts down).
    pub(crate) fn close_subscriptions(&mut self) {
        self.sessions
            .values_mut()
            .for_each(Session::close_subscriptions);
    }

    /// The next deadline of the MCP layer itself.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.sessions
            .values()
            .filter_map(Session::next_deadline)
            .min()
    }

    /// Acts on the MCP layer's deadlines that have passed.
    pub(crate) fn on_time(&mut self, now: Instant) {
        for session in self.sessions.values_mut() {
            session.on_time(&mut self.cx, now);
        }
        self.drain();
    }
}
