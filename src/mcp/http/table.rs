//! The HTTP side's bookkeeping: which session an `Mcp-Session-Id` names, which agent each
//! session and each `/mcp/<name>` has, which exchange (HTTP request) belongs to which session,
//! each session's GET stream, and when an agent has been idle long enough to end.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use super::{rules, HttpRequest, Out, Reply, MAX_AGENTS, MAX_SESSIONS};
use crate::browser::AgentId;
use crate::mcp::output::Tag;
use crate::mcp::server::{Server, SessionKey};
use crate::tools;

/// Notifications kept for a session with no GET stream open, at most (the oldest go first).
const MAX_QUEUED: usize = 64;

/// The name under which the stateless requests to `/mcp` share an agent (no name a client may
/// choose is empty).
const UNNAMED: &str = "";

/// One exchange: the session its messages belong to, and whether it is a modern request.
pub(super) struct Exchange {
    pub key: SessionKey,
    pub modern: bool,
}

/// A session as the HTTP side knows it.
struct Entry {
    agent: AgentId,
    /// Its id, for the handshake sessions (the stateless ones have none).
    id: Option<String>,
    /// Its open GET stream.
    stream: Option<Tag>,
    /// What waits for a GET stream.
    queued: VecDeque<Vec<u8>>,
}

/// An agent as the HTTP side knows it.
struct AgentEntry {
    /// `/mcp/<name>`'s name (kept across sessions); `None`: the agent of one handshake session.
    name: Option<String>,
    /// Its stateless session, once a stateless request came for it.
    stateless: Option<SessionKey>,
    last_seen: Instant,
}

#[derive(Default)]
pub(super) struct Table {
    ids: HashMap<String, SessionKey>,
    sessions: HashMap<SessionKey, Entry>,
    exchanges: HashMap<Tag, Exchange>,
    agents: HashMap<AgentId, AgentEntry>,
    names: HashMap<String, AgentId>,
    /// Messages to hand out at the next look (a stream's backlog, streams that end).
    pending: Vec<Out>,
}

fn full(what: &str) -> Reply {
    let message = format!("Service Unavailable: too many {what} open; end one first");
    Reply::refuse(503, rules::SERVER_FULL, &message)
}

impl Table {
    /// The session an `Mcp-Session-Id` names, or the refusal: 400 without one, 404 for one
    /// that is unknown or ended, or one that belongs to another `/mcp/<name>`.
    pub(super) fn find(&self, request: &HttpRequest) -> Result<SessionKey, Reply> {
        let Some(id) = request.session else {
            let message = "Bad Request: Mcp-Session-Id header is required";
            return Err(Reply::refuse(400, rules::INVALID_REQUEST, message));
        };
        let not_found = || {
            let message = "Session not found: it ended, or never existed";
            Reply::refuse(404, rules::SESSION_NOT_FOUND, message)
        };
        let key = *self.ids.get(id).ok_or_else(not_found)?;
        let agent = self.sessions.get(&key).map(|e| e.agent);
        let name = agent.and_then(|a| self.agents.get(&a)?.name.as_deref());
        match (name, request.agent) {
            (a, b) if a == b => Ok(key),
            _ => Err(not_found()),
        }
    }

    /// The agent `/mcp/<name>` names, made when it is new.
    fn named(&mut self, server: &mut Server, name: &str, now: Instant) -> Result<AgentId, Reply> {
        if let Some(agent) = self.names.get(name) {
            return Ok(*agent);
        }
        let agent = self.new_agent(server, Some(name.to_owned()), now)?;
        self.names.insert(name.to_owned(), agent);
        Ok(agent)
    }

    fn new_agent(
        &mut self,
        server: &mut Server,
        name: Option<String>,
        now: Instant,
    ) -> Result<AgentId, Reply> {
        if self.agents.len() >= MAX_AGENTS {
            return Err(full("agents (browser contexts)"));
        }
        let agent = server.new_agent();
        let entry = AgentEntry {
            name,
            stateless: None,
            last_seen: now,
        };
        self.agents.insert(agent, entry);
        Ok(agent)
    }

    /// A new handshake session: of the agent `/mcp/<name>` names, or of a new agent of its own.
    pub(super) fn open_session(
        &mut self,
        server: &mut Server,
        name: Option<&str>,
        now: Instant,
    ) -> Result<SessionKey, Reply> {
        if self.ids.len() >= MAX_SESSIONS {
            return Err(full("sessions"));
        }
        let Some(id) = rules::session_id() else {
            let message = "Internal error: no randomness for a session id";
            return Err(Reply::refuse(500, rules::SERVER_FULL, message));
        };
        let agent = match name {
            Some(name) => self.named(server, name, now)?,
            None => self.new_agent(server, None, now)?,
        };
        let key = server.open(agent, false);
        self.ids.insert(id.clone(), key);
        self.sessions.insert(key, Entry::new(agent, Some(id)));
        Ok(key)
    }

    /// The stateless session of the agent `/mcp/<name>` names (or of the stateless requests
    /// to `/mcp`), opened when it is new.
    pub(super) fn stateless(
        &mut self,
        server: &mut Server,
        name: Option<&str>,
        now: Instant,
    ) -> Result<SessionKey, Reply> {
        let agent = self.named(server, name.unwrap_or(UNNAMED), now)?;
        let entry = self.agents.get_mut(&agent);
        if let Some(key) = entry.as_ref().and_then(|a| a.stateless) {
            return Ok(key);
        }
        let key = server.open(agent, true);
        if let Some(a) = entry {
            a.stateless = Some(key);
        }
        self.sessions.insert(key, Entry::new(agent, None));
        Ok(key)
    }

    /// A request of session `key` came: its agent is not idle.
    pub(super) fn touch(&mut self, key: SessionKey, now: Instant) {
        let agent = self.sessions.get(&key).map(|e| e.agent);
        if let Some(a) = agent.and_then(|a| self.agents.get_mut(&a)) {
            a.last_seen = now;
        }
    }

    /// Exchange `tag` carries a request of session `key`.
    pub(super) fn begin(&mut self, tag: Tag, key: SessionKey, modern: bool) {
        self.exchanges.insert(tag, Exchange { key, modern });
    }

    pub(super) fn exchange(&self, tag: Tag) -> Option<&Exchange> {
        self.exchanges.get(&tag)
    }

    /// Exchange `tag` has had its answer.
    pub(super) fn exchange_done(&mut self, tag: Tag, now: Instant) {
        if let Some(e) = self.exchanges.remove(&tag) {
            self.touch(e.key, now);
        }
    }

    /// Exchange `tag` is gone before its answer (the client went away), or a stream closed.
    pub(super) fn exchange_gone(&mut self, server: &mut Server, tag: Tag, now: Instant) {
        if let Some(e) = self.exchanges.remove(&tag) {
            server.exchange_gone(e.key, tag);
            self.touch(e.key, now);
        }
        for entry in self.sessions.values_mut() {
            if entry.stream == Some(tag) {
                entry.stream = None;
            }
        }
    }

    /// Opens session `key`'s GET stream on exchange `tag`, with what waited for it; `false`
    /// when one is open already.
    pub(super) fn open_stream(&mut self, key: SessionKey, tag: Tag, now: Instant) -> bool {
        let Some(entry) = self.sessions.get_mut(&key) else {
            return false;
        };
        if entry.stream.is_some() {
            return false;
        }
        entry.stream = Some(tag);
        let backlog = entry.queued.drain(..).map(|bytes| Out {
            tag,
            bytes,
            end: None,
        });
        self.pending.extend(backlog);
        self.touch(key, now);
        true
    }

    /// A message of session `key` for its GET stream: sent there, or kept until one opens.
    pub(super) fn for_stream(&mut self, key: SessionKey, bytes: Vec<u8>) -> Option<Out> {
        let entry = self.sessions.get_mut(&key)?;
        if let Some(tag) = entry.stream {
            return Some(Out {
                tag,
                bytes,
                end: None,
            });
        }
        if entry.queued.len() >= MAX_QUEUED {
            entry.queued.pop_front();
        }
        entry.queued.push_back(bytes);
        None
    }

    pub(super) fn id_of(&self, key: SessionKey) -> Option<String> {
        self.sessions.get(&key)?.id.clone()
    }

    /// Ends handshake session `key` (`DELETE`): its calls stop, its stream closes, and the
    /// agent of its own ends with it (a named agent stays).
    pub(super) fn end_session(&mut self, server: &mut Server, key: SessionKey, now: Instant) {
        let Some(entry) = self.close(server, key) else {
            return;
        };
        let own = self
            .agents
            .get(&entry.agent)
            .is_some_and(|a| a.name.is_none());
        if own {
            self.end_agent(server, entry.agent);
        } else {
            self.touch_agent(entry.agent, now);
        }
    }

    fn touch_agent(&mut self, agent: AgentId, now: Instant) {
        if let Some(a) = self.agents.get_mut(&agent) {
            a.last_seen = now;
        }
    }

    /// Forgets session `key` and ends it in the server; its exchanges are dropped and its
    /// stream ends.
    fn close(&mut self, server: &mut Server, key: SessionKey) -> Option<Entry> {
        let entry = self.sessions.remove(&key)?;
        if let Some(id) = &entry.id {
            self.ids.remove(id);
        }
        // Requests still in flight in it will have no answer: their exchanges end now.
        let open: Vec<Tag> = (self.exchanges.iter())
            .filter(|(_, e)| e.key == key)
            .map(|(tag, _)| *tag)
            .collect();
        for tag in open {
            self.exchanges.remove(&tag);
            let message = "Session not found: it ended while this request was in flight";
            let bytes = rules::error_body(rules::SESSION_NOT_FOUND, message);
            self.pending.push(Out {
                tag,
                bytes,
                end: Some(404),
            });
        }
        if let Some(tag) = entry.stream {
            let bytes = Vec::new();
            self.pending.push(Out {
                tag,
                bytes,
                end: Some(200),
            });
        }
        server.close(key);
        Some(entry)
    }

    /// Ends `agent`: every session of it, and its browser contexts.
    fn end_agent(&mut self, server: &mut Server, agent: AgentId) {
        let keys: Vec<SessionKey> = (self.sessions.iter())
            .filter(|(_, e)| e.agent == agent)
            .map(|(k, _)| *k)
            .collect();
        for key in keys {
            self.close(server, key);
        }
        if let Some(a) = self.agents.remove(&agent) {
            if let Some(name) = a.name {
                self.names.remove(&name);
            }
        }
        server.end_agent(agent);
    }

    /// Messages the table has for exchanges (backlogs, streams that end).
    pub(super) fn take_pending(&mut self) -> Vec<Out> {
        std::mem::take(&mut self.pending)
    }

    /// Whether `agent` waits on nothing: no exchange open, no call in flight.
    fn quiet(&self, server: &Server, agent: AgentId) -> bool {
        let of_agent = |key: &SessionKey| self.sessions.get(key).is_some_and(|e| e.agent == agent);
        let open = self.exchanges.values().any(|e| of_agent(&e.key));
        let streaming = (self.sessions.values()).any(|e| e.agent == agent && e.stream.is_some());
        let mut sessions = self.sessions.iter().filter(|(_, e)| e.agent == agent);
        let waiting = sessions.any(|(k, _)| server.session(*k).is_some_and(|s| !s.idle()));
        !open && !streaming && !waiting && tools::agents::busy(&server.cx, agent) == 0
    }

    /// When the next agent may have been idle for `idle`.
    pub(super) fn next_idle(&self, idle: std::time::Duration) -> Option<Instant> {
        self.agents.values().map(|a| a.last_seen + idle).min()
    }

    /// Ends the agents that have waited on nothing for `idle`; one still busy is looked at
    /// again after another `idle`.
    pub(super) fn expire(&mut self, server: &mut Server, idle: std::time::Duration, now: Instant) {
        let due: Vec<AgentId> = (self.agents.iter())
            .filter(|(_, a)| a.last_seen + idle <= now)
            .map(|(id, _)| *id)
            .collect();
        for agent in due {
            if self.quiet(server, agent) {
                crate::log::log!("agent {agent} idle for {}s: ending it", idle.as_secs());
                self.end_agent(server, agent);
            } else {
                self.touch_agent(agent, now);
            }
        }
    }
}

impl Entry {
    fn new(agent: AgentId, id: Option<String>) -> Entry {
        Entry {
            agent,
            id,
            stream: None,
            queued: VecDeque::new(),
        }
    }
}
