//! A scripted browser: the server's side is a [`Connection`] like the pipe, and the test
//! plays the browser's side of the wire. It reads the requests the server sent, answers
//! them (in any order, or never), sends events, and closes the connection.
//!
//! It scripts the wire only: nothing here knows what a command means, so every behaviour a
//! test observes is the server's own.

use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::io;
use std::rc::Rc;

use serde_json::{json, Value};

use devtools_mcp::cdp::Connection;
use mio::{Registry, Token};

/// One command the server sent, as the browser read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: u64,
    pub session: Option<String>,
    pub method: String,
    pub params: Value,
}

/// One connection's wire: what the server queued, what it flushed (the browser read it),
/// and what the browser wrote that the server has not read yet.
#[derive(Default)]
struct Wire {
    queued: Vec<Vec<u8>>,
    requests: Vec<Request>,
    answered: HashSet<u64>,
    to_server: VecDeque<Vec<u8>>,
    closed: bool,
}

/// The test's end: the browser side of every connection the server made to it.
#[derive(Clone, Default)]
pub struct FakeBrowser {
    /// Every connection so far, the current (last) one included.
    connections: Rc<RefCell<Vec<Rc<RefCell<Wire>>>>>,
}

/// The server's end of one connection.
pub struct FakeConn {
    wire: Rc<RefCell<Wire>>,
}

impl FakeBrowser {
    pub fn new() -> FakeBrowser {
        FakeBrowser::default()
    }

    /// Accepts a new connection (a browser started or reached anew) and gives the server
    /// its end. The test's calls below work on the newest connection.
    pub fn connect(&self) -> Box<dyn Connection> {
        let wire = Rc::new(RefCell::new(Wire::default()));
        self.connections.borrow_mut().push(wire.clone());
        Box::new(FakeConn { wire })
    }

    /// How many connections the server has made.
    pub fn connections(&self) -> usize {
        self.connections.borrow().len()
    }

    /// Runs `f` on the newest connection. Before the server connected there is none: what
    /// the test sends then reaches nobody, as with a browser nobody started.
    fn with_wire<R>(&self, f: impl FnOnce(&mut Wire) -> R) -> R {
        let connections = self.connections.borrow();
        let Some(wire) = connections.last() else {
            return f(&mut Wire::default());
        };
        let mut wire = wire.borrow_mut();
        f(&mut wire)
    }

    /// Every request the server sent on the current connection, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.with_wire(|w| w.requests.clone())
    }

    /// The requests not answered yet, in order.
    pub fn unanswered(&self) -> Vec<Request> {
        self.with_wire(|w| {
            let answered = &w.answered;
            w.requests
                .iter()
                .filter(|r| !answered.contains(&r.id))
                .cloned()
                .collect()
        })
    }

    /// The first unanswered request of `method`.
    pub fn pending(&self, method: &str) -> Option<Request> {
        self.unanswered().into_iter().find(|r| r.method == method)
    }

    /// Answers request `id` with `result`.
    pub fn answer(&self, id: u64, result: Value) {
        self.write(id, json!({"id": id, "result": result}));
    }

    /// Answers request `id` with a CDP error.
    pub fn answer_error(&self, id: u64, code: i64, message: &str) {
        let error = json!({"code": code, "message": message});
        self.write(id, json!({"id": id, "error": error}));
    }

    fn write(&self, id: u64, message: Value) {
        self.with_wire(|w| {
            w.answered.insert(id);
            w.to_server.push_back(message.to_string().into_bytes());
        });
    }

    /// Sends an event, on a page's session or (`None`) the browser's own.
    pub fn event(&self, session: Option<&str>, method: &str, params: Value) {
        let mut message = json!({"method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        self.with_wire(|w| w.to_server.push_back(message.to_string().into_bytes()));
    }

    /// The browser hangs up: what it wrote before is still read, then the end.
    pub fn close(&self) {
        self.with_wire(|w| w.closed = true);
    }
}

impl Connection for FakeConn {
    fn queue(&mut self, message: &[u8]) {
        self.wire.borrow_mut().queued.push(message.to_vec());
    }

    /// Delivers what was queued; a closed connection fails as a pipe whose reader is gone.
    fn flush(&mut self) -> io::Result<bool> {
        let mut wire = self.wire.borrow_mut();
        if wire.closed {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        for bytes in std::mem::take(&mut wire.queued) {
            let request = parse_request(&bytes);
            wire.requests.push(request);
        }
        Ok(true)
    }

    /// Hands over what the browser wrote. `Ok(false)` once it closed the connection.
    fn read(&mut self, on_message: &mut dyn FnMut(&[u8])) -> io::Result<bool> {
        let (messages, closed) = {
            let mut wire = self.wire.borrow_mut();
            (std::mem::take(&mut wire.to_server), wire.closed)
        };
        for m in messages {
            on_message(&m);
        }
        Ok(!closed)
    }

    /// Nothing to watch: the test hands its messages over itself (`browser::on_readable`).
    fn register(&mut self, _: &Registry, _: Token, _: Token) -> io::Result<()> {
        Ok(())
    }

    fn deregister(&mut self, _: &Registry) {}
}

/// A request as the browser reads it (what the server wrote is its own JSON, so a field that
/// is not there is simply empty).
fn parse_request(bytes: &[u8]) -> Request {
    let v: Value = serde_json::from_slice(bytes).unwrap_or_default();
    Request {
        id: v["id"].as_u64().unwrap_or(0),
        session: v["sessionId"].as_str().map(str::to_owned),
        method: v["method"].as_str().unwrap_or("").to_owned(),
        params: v["params"].clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use devtools_mcp::cdp::message::{self, Incoming};

    #[test]
    fn requests_answers_and_the_end() {
        let browser = FakeBrowser::new();
        let mut conn = browser.connect();
        conn.queue(&message::encode(1, Some("S"), "Page.enable", &json!({})));
        assert!(
            browser.requests().is_empty(),
            "nothing is read before a flush"
        );
        assert!(conn.flush().unwrap());
        let sent = browser.pending("Page.enable").unwrap();
        assert_eq!((sent.id, sent.session.as_deref()), (1, Some("S")));

        browser.answer(1, json!({}));
        browser.event(Some("S"), "Page.loadEventFired", json!({"timestamp": 1.0}));
        browser.close();
        assert!(browser.unanswered().is_empty());
        let mut got = Vec::new();
        let open = conn.read(&mut |m| got.push(message::decode(m))).unwrap();
        assert!(!open);
        assert!(matches!(got[0], Incoming::Response { id: 1, .. }));
        assert!(
            matches!(&got[1], Incoming::Event { method, .. } if method == "Page.loadEventFired")
        );
        assert!(conn.flush().is_err());
    }

    #[test]
    fn a_new_connection_starts_empty() {
        let browser = FakeBrowser::new();
        let mut first = browser.connect();
        first.queue(b"{\"id\":1,\"method\":\"Target.setDiscoverTargets\",\"params\":{}}");
        first.flush().unwrap();
        browser.close();
        let _second = browser.connect();
        assert_eq!(browser.connections(), 2);
        assert!(browser.requests().is_empty());
    }
}
