//! Waiting for what the server sends: responses, notifications, server-to-client requests.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::inbox::{lock, take_message, Inbox};
use super::{Mcp, DEFAULT_TIMEOUT};

impl Mcp {
    /// Wait for the response to request `id` (the whole message, `result` or `error`), up to
    /// [`DEFAULT_TIMEOUT`].
    pub fn wait_response(&self, id: u64) -> Value {
        self.wait_response_timeout(id, DEFAULT_TIMEOUT)
    }

    /// Wait for the response to request `id`. Panics, naming the request, if none arrives within
    /// `timeout`, if the server closes stdout first, or if stdout carried a non-protocol line.
    pub fn wait_response_timeout(&self, id: u64, timeout: Duration) -> Value {
        let key = id.to_string();
        let method = lock(&self.methods).get(&id).cloned().unwrap_or_default();
        let what = format!("response to request {id} ({method})");
        self.wait_for(&what, timeout, |inbox| inbox.responses.remove(&key))
    }

    /// Whether a response to request `id` has arrived (taken or not), without waiting.
    pub fn answered(&self, id: u64) -> bool {
        lock(&self.shared.inbox).answered.contains(&id.to_string())
    }

    /// Send a request and wait for its whole response (`result` or `error`), up to
    /// [`DEFAULT_TIMEOUT`].
    pub fn request(&self, method: &str, params: Value) -> Value {
        self.request_timeout(method, params, DEFAULT_TIMEOUT)
    }

    /// Send a request and wait for its whole response, up to `timeout`.
    pub fn request_timeout(&self, method: &str, params: Value, timeout: Duration) -> Value {
        let id = self.request_async(method, params);
        self.wait_response_timeout(id, timeout)
    }

    /// Send a request and return its `result`; panics showing the error if it got one.
    pub fn request_ok(&self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        match response.get("result") {
            Some(result) if response.get("error").is_none() => result.clone(),
            _ => panic!("{method} failed: {response}"),
        }
    }

    /// Wait for the response carrying this exact `id` — for requests written by hand with
    /// [`Mcp::send_line`]. Use string ids there (`"bad-1"`) so they can never collide with the
    /// numeric ids [`Mcp::request_async`] hands out.
    pub fn wait_raw_response(&self, id: &Value, timeout: Duration) -> Value {
        let key = id.to_string();
        self.wait_for(
            &format!("response to hand-written request {key}"),
            timeout,
            |inbox| inbox.responses.remove(&key),
        )
    }

    /// Like [`Mcp::wait_null_id_response`] but returns `None` on timeout.
    pub fn poll_null_id_response(&self, timeout: Duration) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        let mut inbox = lock(&self.shared.inbox);
        loop {
            self.check_violations(&inbox);
            if let Some(found) = inbox.null_id_responses.pop_front() {
                return Some(found);
            }
            let now = Instant::now();
            if now >= deadline || inbox.stdout_closed {
                return None;
            }
            inbox = match self.shared.changed.wait_timeout(inbox, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Wait for the next response whose id is null (what a server sends for a line it could not
    /// parse, -32700), up to `timeout`.
    pub fn wait_null_id_response(&self, timeout: Duration) -> Value {
        self.wait_for("response with id null", timeout, |inbox| {
            inbox.null_id_responses.pop_front()
        })
    }

    /// Wait for the oldest not-yet-consumed message with this `method` (a notification such as
    /// `notifications/tools/list_changed`, or a server-to-client request), consume and return it.
    /// One that arrived before the call counts. Panics after `timeout`.
    pub fn wait_notification(&self, method: &str, timeout: Duration) -> Value {
        self.wait_for(&format!("{method} message"), timeout, |inbox| {
            take_message(inbox, method)
        })
    }

    /// Like [`Mcp::wait_notification`] but returns `None` on timeout — for asserting that
    /// something did NOT arrive.
    pub fn poll_notification(&self, method: &str, timeout: Duration) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        let mut inbox = lock(&self.shared.inbox);
        loop {
            self.check_violations(&inbox);
            if let Some(found) = take_message(&mut inbox, method) {
                return Some(found);
            }
            let now = Instant::now();
            if now >= deadline || inbox.stdout_closed {
                return None;
            }
            inbox = match self.shared.changed.wait_timeout(inbox, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Consume and return every pending message with this method (possibly none).
    pub fn drain_notifications(&self, method: &str) -> Vec<Value> {
        let mut inbox = lock(&self.shared.inbox);
        let mut taken = Vec::new();
        while let Some(m) = take_message(&mut inbox, method) {
            taken.push(m);
        }
        taken
    }

    /// Every message with this method received so far, consumed or not.
    pub fn notification_history(&self, method: &str) -> Vec<Value> {
        lock(&self.shared.inbox)
            .message_history
            .iter()
            .filter(|m| m.get("method").and_then(Value::as_str) == Some(method))
            .cloned()
            .collect()
    }

    /// The stdout lines so far that were not JSON-RPC messages, each with the reason.
    pub fn violations(&self) -> Vec<String> {
        lock(&self.shared.inbox).violations.clone()
    }

    /// How many lines the server has written to stdout so far.
    pub fn stdout_line_count(&self) -> usize {
        lock(&self.shared.inbox).lines
    }

    /// Panic if stdout carried anything but JSON-RPC messages.
    pub fn assert_stdout_clean(&self) {
        self.check_violations(&lock(&self.shared.inbox));
    }

    /// Wait until the server's stdout reaches EOF; returns whether it did within `timeout`.
    pub fn wait_stdout_closed(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut inbox = lock(&self.shared.inbox);
        while !inbox.stdout_closed {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            inbox = match self.shared.changed.wait_timeout(inbox, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        true
    }

    fn check_violations(&self, inbox: &Inbox) {
        if !inbox.violations.is_empty() {
            panic!(
                "devtools-mcp wrote non-protocol output on stdout:\n{}",
                inbox.violations.join("\n")
            );
        }
    }

    /// Wait until `take` yields something, with the standard failure reports.
    fn wait_for<T>(
        &self,
        what: &str,
        timeout: Duration,
        mut take: impl FnMut(&mut Inbox) -> Option<T>,
    ) -> T {
        let deadline = Instant::now() + timeout;
        let mut inbox = lock(&self.shared.inbox);
        loop {
            self.check_violations(&inbox);
            if let Some(found) = take(&mut inbox) {
                return found;
            }
            if inbox.stdout_closed {
                drop(inbox);
                let status = self.wait_exit(Duration::from_millis(500));
                panic!(
                    "devtools-mcp closed stdout (exit status {status:?}) while waiting for {what}"
                );
            }
            let now = Instant::now();
            if now >= deadline {
                panic!("no {what} within {timeout:?}");
            }
            inbox = match self.shared.changed.wait_timeout(inbox, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}
