//! MCP's Streamable HTTP transport, as far as MCP goes: which session and which agent a
//! request belongs to, session ids, the two eras, and what each request is answered with. The
//! sockets, the HTTP syntax, the security checks and the bounds on connections are the app's
//! (`app::http`): it hands each request here as an [`HttpRequest`] with a tag of its own for
//! the exchange, answers as the returned [`Reply`] says, and writes what [`Endpoint::take`]
//! gives for each tag.
//!
//! - The handshake versions: `initialize` (on a request with no `Mcp-Session-Id`) opens a
//!   session whose unguessable id later requests carry; an unknown or ended id gets 404. A
//!   request is answered on its own exchange (JSON or an event stream, as the app decides from
//!   what the client accepts); notifications and the server's requests go on the session's
//!   GET stream (kept for it until one is open); `DELETE` ends the session.
//! - MCP 2026-07-28: a request whose `MCP-Protocol-Version` header names no handshake version
//!   stands alone, its version and capabilities in its `_meta`, which the `MCP-Protocol-Version`,
//!   `Mcp-Method` and `Mcp-Name` headers must repeat. A client that goes away cancels it;
//!   `subscriptions/listen` is a stream that lasts as long as its exchange.
//! - Agents (`tools::agents`): each handshake session on `/mcp` is an agent of its own, ended
//!   with it; requests to `/mcp/<name>` (either era) belong to the agent `<name>`, and the
//!   stateless requests to `/mcp` to one agent of their own. An agent that has had no request
//!   and nothing open for the time the app chose (`--agentIdleTimeout`) ends, and every
//!   session of it with it.

mod post;
pub(crate) mod rules;
mod table;

use std::time::{Duration, Instant};

pub(crate) use super::output::Tag;
use super::server::Server;
use rules::{error_body, status_of};
use table::Table;

/// At most this many handshake sessions at once.
pub(crate) const MAX_SESSIONS: usize = 64;
/// At most this many agents (browser contexts) at once.
pub(crate) const MAX_AGENTS: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Method {
    Post,
    Get,
    Delete,
    Other,
}

/// What the client accepts in answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Accepts {
    pub json: bool,
    pub sse: bool,
}

/// One HTTP request to `/mcp` or `/mcp/<name>`, as far as MCP reads it.
pub(crate) struct HttpRequest<'a> {
    pub method: Method,
    /// `<name>` of `/mcp/<name>`.
    pub agent: Option<&'a str>,
    /// `Mcp-Session-Id`.
    pub session: Option<&'a str>,
    /// `MCP-Protocol-Version`.
    pub version: Option<&'a str>,
    /// `Mcp-Method` and `Mcp-Name` (MCP 2026-07-28).
    pub mcp_method: Option<&'a str>,
    pub mcp_name: Option<&'a str>,
    pub accepts: Accepts,
    pub body: &'a [u8],
}

/// How to answer a request.
#[derive(Debug, PartialEq)]
pub(crate) enum Reply {
    /// At once, with this status and (when `Some`) this JSON body.
    Now {
        status: u16,
        body: Option<Vec<u8>>,
        /// The methods allowed, for a 405.
        allow: Option<&'static str>,
    },
    /// Later: the exchange's messages come from [`Endpoint::take`]. `session` is the
    /// `Mcp-Session-Id` to name; `stream`: the answer is an event stream however the first
    /// message looks (a GET stream, a subscription).
    Exchange {
        session: Option<String>,
        stream: bool,
    },
}

impl Reply {
    fn now(status: u16) -> Reply {
        Reply::Now {
            status,
            body: None,
            allow: None,
        }
    }

    /// A refusal with a JSON-RPC error as its body, whose id is unknown.
    fn refuse(status: u16, code: i64, message: &str) -> Reply {
        Reply::Now {
            status,
            body: Some(error_body(code, message)),
            allow: None,
        }
    }
}

/// A message for an exchange.
#[derive(Debug)]
pub(crate) struct Out {
    pub tag: Tag,
    /// One JSON-RPC message (none: the exchange ends with nothing more to say).
    pub bytes: Vec<u8>,
    /// `Some` when it ends the exchange: the HTTP status the answer has when it is the whole
    /// response.
    pub end: Option<u16>,
}

/// The HTTP side of the MCP layer's sessions.
pub(crate) struct Endpoint {
    table: Table,
    /// How long an agent may be idle before it ends.
    idle: Duration,
}

impl Endpoint {
    pub(crate) fn new(idle: Duration) -> Endpoint {
        Endpoint {
            table: Table::default(),
            idle,
        }
    }

    /// Answers one request that came as exchange `tag`.
    pub(crate) fn handle(
        &mut self,
        server: &mut Server,
        request: &HttpRequest,
        tag: Tag,
        now: Instant,
    ) -> Reply {
        match request.method {
            Method::Post => post::post(&mut self.table, server, request, tag, now),
            Method::Get => self.get(request, tag, now),
            Method::Delete => self.delete(server, request, now),
            Method::Other => Reply::Now {
                status: 405,
                body: None,
                allow: Some("GET, POST, DELETE"),
            },
        }
    }

    /// `GET`: the session's stream of notifications and server requests.
    fn get(&mut self, request: &HttpRequest, tag: Tag, now: Instant) -> Reply {
        if rules::is_modern(request.version) {
            let allow = Some("POST");
            return Reply::Now {
                status: 405,
                body: None,
                allow,
            };
        }
        let key = match self.table.find(request) {
            Ok(key) => key,
            Err(refusal) => return refusal,
        };
        if !request.accepts.sse {
            let message = "Not Acceptable: the GET stream is text/event-stream";
            return Reply::refuse(406, rules::INVALID_REQUEST, message);
        }
        if !self.table.open_stream(key, tag, now) {
            let message = "Conflict: this session has a GET stream open already";
            return Reply::refuse(409, rules::INVALID_REQUEST, message);
        }
        let session = self.table.id_of(key);
        Reply::Exchange {
            session,
            stream: true,
        }
    }

    /// `DELETE`: the session ends (and its agent with it, unless it is a named one).
    fn delete(&mut self, server: &mut Server, request: &HttpRequest, now: Instant) -> Reply {
        let key = match self.table.find(request) {
            Ok(key) => key,
            Err(refusal) => return refusal,
        };
        self.table.end_session(server, key, now);
        Reply::now(200)
    }

    /// Exchange `tag` ended before its answer (the client went away), or a stream closed.
    pub(crate) fn gone(&mut self, server: &mut Server, tag: Tag, now: Instant) {
        self.table.exchange_gone(server, tag, now);
    }

    /// What the sessions said since the last look, each message with its exchange. Messages
    /// of an exchange that is gone are dropped; those for a session's stream wait for one.
    pub(crate) fn take(&mut self, server: &mut Server, now: Instant) -> Vec<Out> {
        let mut out = Vec::new();
        for (key, routed) in server.take_routed() {
            let Some(tag) = routed.tag else {
                out.extend(self.table.for_stream(key, routed.bytes));
                continue;
            };
            let Some(modern) = self.table.exchange(tag).map(|e| e.modern) else {
                continue;
            };
            let end = routed
                .end
                .map(|code| match (routed.bytes.is_empty(), modern) {
                    (true, _) => 202,
                    (false, true) => status_of(code),
                    (false, false) => 200,
                });
            if end.is_some() {
                self.table.exchange_done(tag, now);
            }
            let bytes = routed.bytes;
            out.push(Out { tag, bytes, end });
        }
        out.extend(self.table.take_pending());
        out
    }

    /// When the next agent may fall idle.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.table.next_idle(self.idle)
    }

    /// Ends the agents that have been idle long enough.
    pub(crate) fn on_time(&mut self, server: &mut Server, now: Instant) {
        self.table.expire(server, self.idle, now);
    }
}
