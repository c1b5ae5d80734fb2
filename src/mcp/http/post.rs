//! `POST`: one JSON-RPC message from the client, to the session it belongs to — a handshake
//! session by its `Mcp-Session-Id` (or a new one for `initialize`), or, for a stateless
//! (2026-07-28) request, its agent's stateless session. A request is answered on its own
//! exchange; a notification or a response to the server is taken with 202.

use std::time::Instant;

use super::table::Table;
use super::{rules, HttpRequest, Reply};
use crate::mcp::jsonrpc::{self, Incoming};
use crate::mcp::output::Tag;
use crate::mcp::server::{Server, SessionKey};

pub(super) fn post(
    table: &mut Table,
    server: &mut Server,
    request: &HttpRequest,
    tag: Tag,
    now: Instant,
) -> Reply {
    if !request.accepts.json && !request.accepts.sse {
        let message = "Not Acceptable: accept application/json or text/event-stream";
        return Reply::refuse(406, rules::INVALID_REQUEST, message);
    }
    let incoming = jsonrpc::parse_line(request.body);
    if rules::is_modern(request.version) {
        return stateless(table, server, request, incoming, tag, now);
    }
    let key = match handshake_session(table, server, request, &incoming, now) {
        Ok(key) => key,
        Err(refusal) => return refusal,
    };
    table.touch(key, now);
    deliver(table, server, key, incoming, tag, false)
}

/// The session a handshake-era message belongs to: the one its `Mcp-Session-Id` names, or a
/// new one for an `initialize` without it.
fn handshake_session(
    table: &mut Table,
    server: &mut Server,
    request: &HttpRequest,
    incoming: &Incoming,
    now: Instant,
) -> Result<SessionKey, Reply> {
    if request.session.is_some() {
        return table.find(request);
    }
    match incoming {
        Incoming::Request { method, .. } if method == "initialize" => {
            table.open_session(server, request.agent, now)
        }
        Incoming::Invalid { id, code, message } => Err(refusal(400, id, *code, message)),
        _ => {
            let message = "Bad Request: Mcp-Session-Id header is required (initialize first)";
            Err(Reply::refuse(400, rules::INVALID_REQUEST, message))
        }
    }
}

/// A 2026-07-28 request: no handshake; its routing headers must repeat its body.
fn stateless(
    table: &mut Table,
    server: &mut Server,
    request: &HttpRequest,
    incoming: Incoming,
    tag: Tag,
    now: Instant,
) -> Reply {
    if let Incoming::Request { id, method, params } = &incoming {
        let (v, m, n) = (request.version, request.mcp_method, request.mcp_name);
        if let Err(message) = rules::headers_agree(v, m, n, method, params) {
            return refusal(400, id, rules::HEADER_MISMATCH, &message);
        }
    }
    let key = match table.stateless(server, request.agent, now) {
        Ok(key) => key,
        Err(refusal) => return refusal,
    };
    table.touch(key, now);
    deliver(table, server, key, incoming, tag, true)
}

/// Hands the message to session `key`: a request (or a message too broken to tell) opens an
/// exchange that its answer ends.
fn deliver(
    table: &mut Table,
    server: &mut Server,
    key: SessionKey,
    incoming: Incoming,
    tag: Tag,
    modern: bool,
) -> Reply {
    let stream = match &incoming {
        Incoming::Request { method, .. } => modern && method == "subscriptions/listen",
        Incoming::Invalid { .. } => false,
        Incoming::Notification { .. } | Incoming::Response { .. } => {
            server.handle(key, incoming, None);
            return Reply::now(202);
        }
    };
    table.begin(tag, key, modern);
    server.handle(key, incoming, Some(tag));
    Reply::Exchange {
        session: table.id_of(key),
        stream,
    }
}

/// An answer at once: a JSON-RPC error for request `id`.
fn refusal(status: u16, id: &jsonrpc::Id, code: i64, message: &str) -> Reply {
    let reply = jsonrpc::error(id, code, message);
    Reply::Now {
        status,
        body: Some(serde_json::to_vec(&reply).unwrap_or_default()),
        allow: None,
    }
}
