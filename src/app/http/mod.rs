//! `--port`: the server on MCP's Streamable HTTP transport, on the one event loop. The
//! listening socket and every connection are sources of the same `mio::Poll` as the browser
//! connection, signals and timers; a connection serves one request at a time
//! ([`conn`]), read with `httparse` ([`request`]) and checked ([`guard`]) before the MCP
//! layer's endpoint (`mcp::http`) says how it is answered. Bounded: connections, each
//! request's head and body, what a client that does not read is owed, and how long a
//! connection may sit half-sent or idle.

mod conn;
mod guard;
mod request;

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use mio::net::TcpListener;
use mio::{Events, Interest, Poll, Token, Waker};

use super::event_loop::{self, BROWSER, HEAP, SIGNAL};
use crate::browser::{self, Browser, Host};
use crate::log::log;
use crate::mcp::http::{Accepts, Endpoint, HttpRequest, Method, Out, Reply, Tag};
use crate::mcp::Server;
use crate::settings::Settings;
use crate::tools::{heap, Ctx};
use conn::{Conn, State};
use guard::Guard;
use request::{parse, Parsed, Request};

const LISTENER: Token = Token(5);
/// Connection `i` is `Token(FIRST_CONN + i)`.
const FIRST_CONN: usize = 16;
/// Connections at once, at most; more are refused with 503.
const MAX_CONNS: usize = 128;

/// How long an agent may be idle, by default: half an hour, longer than a coding agent
/// usually thinks between calls, short enough that a forgotten one does not hold a context.
pub(super) const DEFAULT_IDLE_SECS: u64 = 30 * 60;

/// Where and how the HTTP server listens.
pub(super) struct Options {
    pub addr: SocketAddr,
    /// `DEVTOOLS_MCP_TOKEN`, when set.
    pub token: Option<String>,
    /// How long an agent may be idle before its context is disposed.
    pub idle: Duration,
}

struct Http {
    listener: TcpListener,
    conns: Vec<Option<Conn>>,
    /// Which connection waits on each exchange.
    by_tag: HashMap<Tag, usize>,
    next_tag: Tag,
    endpoint: Endpoint,
    guard: Guard,
}

pub(super) fn run(settings: Settings, options: Options) -> io::Result<()> {
    event_loop::tune_allocator();
    let mut poll = Poll::new()?;
    let browser = Browser::new(poll.registry().try_clone()?, BROWSER);
    let mut server = Server::new(Ctx::new(settings, browser));
    heap::use_waker(&mut server.cx, Waker::new(poll.registry(), HEAP)?);
    let mut listener = TcpListener::bind(options.addr)?;
    let bound = listener.local_addr()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    let mut signals = event_loop::signal_pipe()?;
    poll.registry()
        .register(&mut signals, SIGNAL, Interest::READABLE)?;
    log!("listening on http://{bound}/mcp");
    let mut http = Http {
        listener,
        conns: Vec::new(),
        by_tag: HashMap::new(),
        next_tag: 0,
        endpoint: Endpoint::new(options.idle),
        guard: Guard {
            bound,
            token: options.token,
        },
    };
    let mut events = Events::with_capacity(256);
    loop {
        let timeout = http
            .next_deadline(&mut server)
            .map(|d| d.saturating_duration_since(Instant::now()));
        if let Err(e) = poll.poll(&mut events, timeout) {
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        let mut quit = false;
        for event in events.iter() {
            match event.token() {
                LISTENER => http.accept(&poll, Instant::now()),
                SIGNAL => quit = true,
                t if t == BROWSER.read => browser::on_readable(&mut server.cx),
                t if t == BROWSER.write => browser::flush(&mut server.cx),
                HEAP => heap::on_wake(&mut server.cx),
                Token(t) if t >= FIRST_CONN => http.on_conn(&mut server, t - FIRST_CONN),
                _ => {}
            }
            server.cx.run_deferred();
            server.drain();
            http.route(&mut server);
        }
        if quit {
            log!("signal received: shutting down");
            break;
        }
        http.on_time(&mut server, &poll, Instant::now());
        browser::flush(&mut server.cx);
        http.sweep(&mut server, &poll);
    }
    http.last_words(&mut server);
    browser::shutdown(&mut server.cx);
    Ok(())
}

impl Http {
    fn accept(&mut self, poll: &Poll, now: Instant) {
        loop {
            let (mut stream, _) = match self.listener.accept() {
                Ok(s) => s,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return log!("accepting a connection failed: {e}"),
            };
            let free = self.conns.iter().position(Option::is_none);
            let slot = match free {
                Some(i) => i,
                None if self.conns.len() < MAX_CONNS => {
                    self.conns.push(None);
                    self.conns.len() - 1
                }
                None => {
                    let full = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
                    let _ = stream.write(full.as_bytes());
                    continue;
                }
            };
            // A stream's events are small writes that must not wait for the last one's ack.
            let _ = stream.set_nodelay(true);
            let interest = Interest::READABLE | Interest::WRITABLE;
            if poll
                .registry()
                .register(&mut stream, Token(FIRST_CONN + slot), interest)
                .is_ok()
            {
                self.conns[slot] = Some(Conn::new(stream, now));
            }
        }
    }

    /// Connection `i` can be read or written.
    fn on_conn(&mut self, server: &mut Server, i: usize) {
        let now = Instant::now();
        if let Some(conn) = self.conns.get_mut(i).and_then(Option::as_mut) {
            conn.read(now);
            conn.flush();
        }
        self.serve(server, i, now);
    }

    /// Serves the requests connection `i` has read, one at a time.
    fn serve(&mut self, server: &mut Server, i: usize, now: Instant) {
        loop {
            let Some(conn) = self.conns.get_mut(i).and_then(Option::as_mut) else {
                return;
            };
            if conn.state != State::Idle || conn.close || conn.dead {
                break;
            }
            // Readiness is edge-triggered: bytes left unread while the connection was busy
            // or its buffer full bring no new event.
            conn.read(now);
            match parse(&conn.input) {
                Parsed::Partial => break,
                Parsed::Bad(status, message) => {
                    conn.close = true;
                    conn.respond(status, &[], &error_body(message));
                    break;
                }
                Parsed::Whole(request, taken) => {
                    conn.input.drain(..taken);
                    conn.close |= request.close;
                    self.handle(server, i, &request, now);
                }
            }
        }
        if let Some(conn) = self.conns.get_mut(i).and_then(Option::as_mut) {
            if conn.input.capacity() > 1 << 20 && conn.input.len() < 1 << 16 {
                conn.input.shrink_to(1 << 16);
            }
            conn.flush();
        }
    }

    /// One request of connection `i`.
    fn handle(&mut self, server: &mut Server, i: usize, request: &Request, now: Instant) {
        let Some(conn) = self.conns.get_mut(i).and_then(Option::as_mut) else {
            return;
        };
        if let Err((status, message)) = self.guard.check(request) {
            let headers: &[(&str, &str)] = match status {
                401 => &[("WWW-Authenticate", "Bearer")],
                _ => &[],
            };
            return conn.respond(status, headers, &error_body(message));
        }
        let Ok(agent) = guard::route(&request.path) else {
            let message = "Not Found: MCP is served at /mcp and /mcp/<name>";
            return conn.respond(404, &[], &error_body(message));
        };
        self.next_tag += 1;
        let tag = self.next_tag;
        let accepts = accepts(request.accept.as_deref());
        let mcp_request = HttpRequest {
            method: method(&request.method),
            agent,
            session: request.session.as_deref(),
            version: request.version.as_deref(),
            mcp_method: request.mcp_method.as_deref(),
            mcp_name: request.mcp_name.as_deref(),
            accepts,
            body: &request.body,
        };
        match self.endpoint.handle(server, &mcp_request, tag, now) {
            Reply::Now {
                status,
                body,
                allow,
            } => {
                let headers: Vec<(&str, &str)> = allow.map(|a| ("Allow", a)).into_iter().collect();
                conn.respond(status, &headers, body.as_deref().unwrap_or_default());
            }
            Reply::Exchange { session, stream } => {
                let json = accepts.json;
                conn.state = State::Exchange {
                    tag,
                    json,
                    session: session.clone(),
                    sse: false,
                };
                if stream {
                    conn.begin_stream(session.as_deref());
                }
                self.by_tag.insert(tag, i);
            }
        }
    }

    /// Hands what the sessions said to the connections that wait for it.
    fn route(&mut self, server: &mut Server) {
        let now = Instant::now();
        let outs = self.endpoint.take(server, now);
        let mut freed = Vec::new();
        for out in outs {
            if let Some(i) = self.deliver(out) {
                freed.push(i);
            }
        }
        for i in freed {
            self.serve(server, i, now);
        }
        for conn in self.conns.iter_mut().flatten() {
            conn.flush();
        }
    }

    /// Writes one message on its exchange's connection; `Some(i)` when it ended the exchange
    /// and connection `i` may serve its next request.
    fn deliver(&mut self, out: Out) -> Option<usize> {
        let i = *self.by_tag.get(&out.tag)?;
        let conn = self.conns.get_mut(i)?.as_mut()?;
        let State::Exchange {
            json, sse, session, ..
        } = &conn.state
        else {
            self.by_tag.remove(&out.tag);
            return None;
        };
        let (json, sse, session) = (*json, *sse, session.clone());
        let headers: Vec<(&str, &str)> = (session.as_deref())
            .map(|s| ("Mcp-Session-Id", s))
            .into_iter()
            .collect();
        match (out.end, sse) {
            (Some(status), false) if out.bytes.is_empty() || json => {
                conn.respond(status, &headers, &out.bytes)
            }
            (end, _) => {
                if !sse {
                    conn.begin_stream(session.as_deref());
                }
                if !out.bytes.is_empty() {
                    conn.event(&out.bytes);
                }
                if end.is_some() {
                    conn.end_stream();
                }
            }
        }
        out.end.is_some().then(|| {
            self.by_tag.remove(&out.tag);
            i
        })
    }

    /// Acts on the deadlines that have passed: the tools', the sessions', idle agents, and
    /// connections that sat too long.
    fn on_time(&mut self, server: &mut Server, poll: &Poll, now: Instant) {
        server.cx.run_due_timers(now);
        server.on_time(now);
        self.endpoint.on_time(server, now);
        server.drain();
        for conn in self.conns.iter_mut().flatten() {
            if conn.deadline().is_some_and(|d| d <= now) {
                if conn.input.is_empty() {
                    conn.dead = true;
                } else {
                    conn.close = true;
                    conn.respond(
                        408,
                        &[],
                        &error_body("Request Timeout: the request came too slowly"),
                    );
                    conn.flush();
                }
            }
        }
        self.route(server);
        self.sweep(server, poll);
    }

    /// Closes the connections that are done with; an exchange one of them waited on is gone.
    fn sweep(&mut self, server: &mut Server, poll: &Poll) {
        let now = Instant::now();
        for i in 0..self.conns.len() {
            let Some(conn) = self.conns[i].as_mut() else {
                continue;
            };
            if !conn.finished() {
                continue;
            }
            let _ = poll.registry().deregister(&mut conn.stream);
            if let State::Exchange { tag, .. } = conn.state {
                self.by_tag.remove(&tag);
                self.endpoint.gone(server, tag, now);
            }
            self.conns[i] = None;
        }
        self.route(server);
    }

    /// The next time something is due.
    fn next_deadline(&self, server: &mut Server) -> Option<Instant> {
        let conns = self.conns.iter().flatten().filter_map(Conn::deadline);
        let all = [
            event_loop::next_deadline(server),
            self.endpoint.next_deadline(),
        ];
        all.into_iter().flatten().chain(conns).min()
    }

    /// Open subscriptions end with their answer; what is owed goes out, briefly.
    fn last_words(&mut self, server: &mut Server) {
        server.close_subscriptions();
        self.route(server);
        let deadline = Instant::now() + Duration::from_millis(200);
        for conn in self.conns.iter_mut().flatten() {
            while !conn.finished() && Instant::now() < deadline {
                conn.flush();
                if !conn.owes() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

fn method(name: &str) -> Method {
    match name {
        "POST" => Method::Post,
        "GET" => Method::Get,
        "DELETE" => Method::Delete,
        _ => Method::Other,
    }
}

/// What an `Accept` header allows; without one, JSON.
fn accepts(header: Option<&str>) -> Accepts {
    let Some(header) = header else {
        return Accepts {
            json: true,
            sse: false,
        };
    };
    let has = |t: &str| {
        header.split(',').any(|p| {
            p.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case(t))
        })
    };
    let any = has("*/*");
    Accepts {
        json: any || has("application/json") || has("application/*"),
        sse: any || has("text/event-stream") || has("text/*"),
    }
}

/// A refusal's body: a JSON-RPC error with a null id, as the MCP SDKs send.
fn error_body(message: &str) -> Vec<u8> {
    crate::mcp::http::rules::error_body(crate::mcp::http::rules::INVALID_REQUEST, message)
}
