//! One client connection: the bytes it sent and not yet served, the bytes it is owed, and the
//! exchange it waits on. A connection serves one request at a time (keep-alive; requests sent
//! ahead wait in its buffer); an answer is a whole JSON response, or an event stream
//! (`text/event-stream`, chunked) that ends with the exchange.

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use mio::net::TcpStream;

use super::request::{MAX_BODY, MAX_HEAD};
use crate::mcp::http::Tag;

/// Bytes owed to a client that does not read them, at most (then the connection closes).
const MAX_OWED: usize = 64 << 20;
/// A connection that sent part of a request and nothing more for this long gets 408.
const SLOW_REQUEST: Duration = Duration::from_secs(30);
/// An idle keep-alive connection closes after this long.
const KEEP_ALIVE: Duration = Duration::from_secs(120);

/// What a connection is doing.
#[derive(Debug, PartialEq)]
pub(super) enum State {
    /// Reading its next request.
    Idle,
    /// Waiting on exchange `tag`; `sse` once its event stream has begun.
    Exchange {
        tag: Tag,
        json: bool,
        session: Option<String>,
        sse: bool,
    },
}

pub(super) struct Conn {
    pub stream: TcpStream,
    /// Read, not yet served.
    pub input: Vec<u8>,
    output: Vec<u8>,
    pub state: State,
    /// Close once the output is written.
    pub close: bool,
    /// The peer closed its side, or the connection broke.
    pub dead: bool,
    /// When it last did anything.
    pub since: Instant,
}

impl Conn {
    pub(super) fn new(stream: TcpStream, now: Instant) -> Conn {
        Conn {
            stream,
            input: Vec::new(),
            output: Vec::new(),
            state: State::Idle,
            close: false,
            dead: false,
            since: now,
        }
    }

    /// Reads what the socket has, up to what one request may take.
    pub(super) fn read(&mut self, now: Instant) {
        let cap = MAX_HEAD + MAX_BODY + 1;
        let mut chunk = [0u8; 16 * 1024];
        while self.input.len() < cap && !self.dead {
            match self.stream.read(&mut chunk) {
                Ok(0) => self.dead = true,
                Ok(n) => {
                    self.input.extend_from_slice(&chunk[..n]);
                    self.since = now;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => self.dead = true,
            }
        }
    }

    /// Writes what the socket takes now.
    pub(super) fn flush(&mut self) {
        while !self.output.is_empty() && !self.dead {
            match self.stream.write(&self.output) {
                Ok(0) => self.dead = true,
                Ok(n) => {
                    self.output.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => self.dead = true,
            }
        }
        if self.output.capacity() > 1 << 20 && self.output.len() < 1 << 16 {
            self.output.shrink_to(1 << 16);
        }
        if self.output.len() > MAX_OWED {
            self.dead = true;
        }
    }

    /// Whether it is done with: broken, or closing with everything written.
    pub(super) fn finished(&self) -> bool {
        self.dead || (self.close && self.output.is_empty() && self.state == State::Idle)
    }

    /// Whether bytes wait to be written.
    pub(super) fn owes(&self) -> bool {
        !self.output.is_empty()
    }

    /// When it is to be closed for doing nothing (none while it waits on an exchange).
    pub(super) fn deadline(&self) -> Option<Instant> {
        match (&self.state, self.input.is_empty()) {
            (State::Exchange { .. }, _) => None,
            (State::Idle, true) => Some(self.since + KEEP_ALIVE),
            (State::Idle, false) => Some(self.since + SLOW_REQUEST),
        }
    }

    /// A whole response: `status`, the headers, and `body` as `content_type`.
    pub(super) fn respond(&mut self, status: u16, headers: &[(&str, &str)], body: &[u8]) {
        self.head(status, headers);
        if !body.is_empty() {
            let _ = write!(self.output, "Content-Type: application/json\r\n");
        }
        let _ = write!(self.output, "Content-Length: {}\r\n\r\n", body.len());
        self.output.extend_from_slice(body);
        self.state = State::Idle;
    }

    /// The start of an event stream.
    pub(super) fn begin_stream(&mut self, session: Option<&str>) {
        let session: Vec<(&str, &str)> =
            session.map(|s| ("Mcp-Session-Id", s)).into_iter().collect();
        self.head(200, &session);
        let _ = write!(
            self.output,
            "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
        );
        if let State::Exchange { sse, .. } = &mut self.state {
            *sse = true;
        }
    }

    /// One message on the event stream.
    pub(super) fn event(&mut self, json: &[u8]) {
        let len = json.len() + "event: message\ndata: \n\n".len();
        let _ = write!(self.output, "{len:x}\r\nevent: message\ndata: ");
        self.output.extend_from_slice(json);
        self.output.extend_from_slice(b"\n\n\r\n");
    }

    /// The end of the event stream: the connection serves its next request.
    pub(super) fn end_stream(&mut self) {
        self.output.extend_from_slice(b"0\r\n\r\n");
        self.state = State::Idle;
    }

    fn head(&mut self, status: u16, headers: &[(&str, &str)]) {
        let _ = write!(self.output, "HTTP/1.1 {status} {}\r\n", reason(status));
        for (name, value) in headers {
            let _ = write!(self.output, "{name}: {value}\r\n");
        }
        if self.close {
            let _ = write!(self.output, "Connection: close\r\n");
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}
