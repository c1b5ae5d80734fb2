//! The reader thread: splits the server's stdout into lines, parses each as JSON-RPC and files
//! it in the [`Inbox`] that [`Mcp`](super::Mcp)'s waits read from.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader};
use std::sync::{Condvar, Mutex, MutexGuard};

use serde_json::Value;

/// How many lines of stdio traffic are kept for the failure report.
const TRANSCRIPT_LINES: usize = 200;
/// Longest transcript entry kept (a screenshot is megabytes of base64).
const TRANSCRIPT_LINE_CHARS: usize = 2000;

/// What the reader thread has received and not yet handed out.
#[derive(Default)]
pub(super) struct Inbox {
    /// Responses with a non-null id, keyed by the id's JSON text (`7`, `"abc"`).
    pub(super) responses: HashMap<String, Value>,
    /// Every non-null response id seen, to catch a second response after the first was consumed.
    pub(super) answered: HashSet<String>,
    /// Responses whose id is null (e.g. -32700 parse errors), in arrival order.
    pub(super) null_id_responses: VecDeque<Value>,
    /// Messages with a `method` (notifications, server-to-client requests) not yet consumed.
    pub(super) pending_messages: VecDeque<Value>,
    /// Every message with a `method` ever received.
    pub(super) message_history: Vec<Value>,
    /// Lines on stdout that were not valid JSON-RPC messages, with the reason.
    pub(super) violations: Vec<String>,
    /// Number of lines read from stdout.
    pub(super) lines: usize,
    /// stdout reached EOF.
    pub(super) stdout_closed: bool,
    /// Recent traffic in both directions for the failure report.
    pub(super) transcript: VecDeque<String>,
}

impl Inbox {
    pub(super) fn note(&mut self, direction: &str, line: &str) {
        if self.transcript.len() == TRANSCRIPT_LINES {
            self.transcript.pop_front();
        }
        let mut entry = format!("{direction} ");
        if line.chars().count() > TRANSCRIPT_LINE_CHARS {
            entry.extend(line.chars().take(TRANSCRIPT_LINE_CHARS));
            entry.push_str(" …(truncated)");
        } else {
            entry.push_str(line);
        }
        self.transcript.push_back(entry);
    }
}

pub(super) struct Shared {
    pub(super) inbox: Mutex<Inbox>,
    pub(super) changed: Condvar,
}

/// Lock a mutex, ignoring poisoning: a panic elsewhere must not hide the test's real failure.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

pub(super) fn take_message(inbox: &mut Inbox, method: &str) -> Option<Value> {
    let index = inbox
        .pending_messages
        .iter()
        .position(|m| m.get("method").and_then(Value::as_str) == Some(method))?;
    inbox.pending_messages.remove(index)
}

/// The reader thread: one JSON-RPC message per line, classified into the inbox.
pub(super) fn read_stdout(stdout: impl std::io::Read, shared: &Shared) {
    let mut reader = BufReader::new(stdout);
    let mut raw = Vec::new();
    loop {
        raw.clear();
        let n = reader.read_until(b'\n', &mut raw).unwrap_or(0);
        let mut inbox = lock(&shared.inbox);
        if n == 0 {
            inbox.stdout_closed = true;
            shared.changed.notify_all();
            return;
        }
        inbox.lines += 1;
        let terminated = raw.last() == Some(&b'\n');
        if terminated {
            raw.pop();
        }
        let line = String::from_utf8_lossy(&raw).into_owned();
        inbox.note("<<", &line);
        if !terminated {
            inbox.violations.push(format!(
                "line not terminated by a newline before EOF: {line}"
            ));
        } else {
            classify(&mut inbox, &line);
        }
        shared.changed.notify_all();
    }
}

fn classify(inbox: &mut Inbox, line: &str) {
    let message: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            inbox.violations.push(format!("not JSON ({e}): {line:?}"));
            return;
        }
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        inbox
            .violations
            .push(format!("not a JSON-RPC 2.0 message: {line}"));
        return;
    }
    if message.get("method").and_then(Value::as_str).is_some() {
        inbox.message_history.push(message.clone());
        inbox.pending_messages.push_back(message);
        return;
    }
    let has_result = message.get("result").is_some();
    let has_error = message.get("error").is_some();
    let Some(id) = message.get("id") else {
        inbox.violations.push(format!(
            "neither a request, a notification nor a response: {line}"
        ));
        return;
    };
    if has_result == has_error {
        inbox.violations.push(format!(
            "response must have exactly one of result/error: {line}"
        ));
        return;
    }
    if id.is_null() {
        inbox.null_id_responses.push_back(message);
        return;
    }
    let key = id.to_string();
    if !inbox.answered.insert(key.clone()) {
        inbox
            .violations
            .push(format!("second response for id {key}: {line}"));
        return;
    }
    inbox.responses.insert(key, message);
}
