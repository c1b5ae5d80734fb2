//! The per-page console record: messages by document, with ids, within fixed bounds; and
//! how each CDP event becomes a message. `Ctx` holds one [`Log`] per page.

use std::collections::VecDeque;

use super::format::{self, Primitive, Stack};
use super::maps::Scripts;
use crate::cdp::generated::log::{LogEntry, LogEntrySource};
use crate::cdp::generated::runtime::{
    ConsoleAPICalledEvent, ExceptionDetails, RemoteObject, RemoteObjectSubtype,
};

/// Most messages kept per page, over all kept documents.
pub(super) const MAX_MESSAGES: usize = 1000;
/// About how much text (message text, argument values, stack lines) is kept per page.
pub(super) const MAX_BYTES: usize = 1 << 20;
/// Documents whose messages are kept: the current one and the two before it.
const DOCUMENTS_KEPT: usize = 3;

/// Per-page console record.
#[derive(Default)]
pub(crate) struct Log {
    /// Messages by document, the current document first.
    documents: VecDeque<Vec<Message>>,
    next_id: u64,
    count: usize,
    bytes: usize,
    /// The page's scripts with source maps.
    pub(super) scripts: Scripts,
}

pub(super) struct Message {
    pub(super) id: u64,
    pub(super) kind: String,
    pub(super) text: String,
    pub(super) args: Vec<Arg>,
    pub(super) stack: Option<Stack>,
    /// The session of the out-of-process iframe it came from (its handles live there).
    pub(super) frame_session: Option<String>,
}

/// One argument of a console call.
#[derive(Clone)]
pub(super) struct Arg {
    /// The value as text, for primitives (known at once).
    pub(super) value: Option<String>,
    /// A handle to the object in the page, while it lives (dropped on navigation).
    pub(super) object_id: Option<String>,
    /// The object is an Error: shown with its own message and stack trace.
    pub(super) error: bool,
    /// The first part of an Error's description (its message), for when it is gone.
    pub(super) error_head: String,
}

impl Message {
    /// About how many bytes the message holds. (It must not change while the message is
    /// kept: an object handle, which is dropped on navigation, counts as a fixed overhead.)
    fn weight(&self) -> usize {
        let args: usize = self
            .args
            .iter()
            .map(|a| a.value.as_ref().map_or(0, String::len) + a.error_head.len() + 112)
            .sum();
        // A trace kept to be told again weighs about what its lines do.
        let stack: usize = self.stack.as_ref().map_or(0, |s| {
            let lines: usize = s.lines.iter().map(|l| l.len() + 24).sum();
            if s.raw.is_some() {
                lines * 2
            } else {
                lines
            }
        });
        self.text.len() + self.kind.len() + args + stack + 96
    }
}

impl Log {
    /// Adds a message; returns the object handles of messages evicted to make room.
    pub(super) fn push(&mut self, mut message: Message) -> Vec<String> {
        self.next_id += 1;
        message.id = self.next_id;
        self.count += 1;
        self.bytes += message.weight();
        if self.documents.is_empty() {
            self.documents.push_back(Vec::new());
        }
        if let Some(current) = self.documents.front_mut() {
            current.push(message);
        }
        let mut released = Vec::new();
        while self.count > MAX_MESSAGES || (self.bytes > MAX_BYTES && self.count > 1) {
            let Some(oldest) = self.documents.iter_mut().rev().find(|d| !d.is_empty()) else {
                break;
            };
            let gone = oldest.remove(0);
            self.count -= 1;
            self.bytes = self.bytes.saturating_sub(gone.weight());
            released.extend(gone.args.into_iter().filter_map(|a| a.object_id));
        }
        released
    }

    /// A new document in the main frame: its predecessors' objects died with them.
    pub(super) fn new_document(&mut self) {
        self.scripts.new_document();
        for m in self.documents.iter_mut().flatten() {
            for a in m.args.iter_mut() {
                a.object_id = None;
            }
        }
        self.documents.push_front(Vec::new());
        while self.documents.len() > DOCUMENTS_KEPT {
            if let Some(gone) = self.documents.pop_back() {
                self.count -= gone.len();
                let weight: usize = gone.iter().map(Message::weight).sum();
                self.bytes = self.bytes.saturating_sub(weight);
            }
        }
    }

    /// The messages of the current document, or of every kept one (oldest first).
    pub(super) fn messages(&self, preserved: bool) -> Vec<&Message> {
        if preserved {
            self.documents.iter().rev().flatten().collect()
        } else {
            self.documents.front().into_iter().flatten().collect()
        }
    }

    pub(super) fn find(&self, id: u64) -> Option<&Message> {
        self.documents.iter().flatten().find(|m| m.id == id)
    }

    /// The scripts of `messages`' stack traces still to look at for source maps.
    pub(super) fn unloaded_maps<'a>(
        &self,
        messages: impl IntoIterator<Item = &'a Message>,
    ) -> Vec<String> {
        let mut ids = Vec::new();
        for m in messages {
            if let Some(raw) = m.stack.as_ref().and_then(|s| s.raw.as_deref()) {
                self.scripts.to_visit(raw, &mut ids);
            }
        }
        ids
    }

    /// A message's stack trace as text, with the frames loaded source maps place at their
    /// original positions.
    pub(super) fn stack_text(&self, id: u64, note: bool) -> Option<String> {
        let stack = self.find(id)?.stack.as_ref()?;
        Some(self.stack_text_of(stack, note))
    }

    pub(super) fn stack_text_of(&self, stack: &Stack, note: bool) -> String {
        let map = |f: &_| self.scripts.frame_line(f);
        match format::mapped(stack, &map) {
            Some(mapped) => format::stack_text(&mapped, note),
            None => format::stack_text(stack, note),
        }
    }
}

/// `Runtime.consoleAPICalled`.
pub(super) fn console_call(e: &ConsoleAPICalledEvent) -> Message {
    // A type left out decodes as an empty one.
    let kind = match e.r#type.as_str() {
        "warning" => "warn",
        "" => "log",
        other => other,
    };
    let text = e
        .args
        .iter()
        .map(format::text_token)
        .collect::<Vec<_>>()
        .join(" ");
    Message {
        id: 0,
        kind: kind.to_owned(),
        text: format::cut_stored(&text),
        args: e.args.iter().map(arg).collect(),
        stack: e.stack_trace.as_ref().map(format::stack_of),
        frame_session: None,
    }
}

/// `Runtime.exceptionThrown`: an uncaught exception or an unhandled rejection.
pub(super) fn exception(details: &ExceptionDetails) -> Message {
    let text = details.text.as_str();
    // The reference names an uncaught Error by its description; for a rejection and for a
    // thrown primitive it prints only "Uncaught (in promise)" / "Uncaught ", losing the
    // reason. The reason is added there too, as DevTools' own console shows it.
    let message = match &details.exception {
        Some(ex) if text == "Uncaught" || text == "Uncaught (in promise)" => {
            let head = format::thrown_head(ex);
            match (head.is_empty(), text) {
                (true, "Uncaught") => "Uncaught ".to_owned(),
                (true, _) => text.to_owned(),
                (false, _) => format!("{text} {head}"),
            }
        }
        _ => text.to_owned(),
    };
    Message {
        id: 0,
        kind: "error".into(),
        text: format::cut_stored(&message),
        args: Vec::new(),
        stack: details.stack_trace.as_ref().map(format::stack_of),
        frame_session: None,
    }
}

/// `Log.entryAdded`: what the browser itself logs (failed loads, interventions, …). Worker
/// entries belong to the worker, not the page.
pub(super) fn log_entry(entry: &LogEntry) -> Option<Message> {
    if entry.source == LogEntrySource::Worker {
        return None;
    }
    // A level left out decodes as an empty one.
    let kind = match entry.level.as_str() {
        "warning" => "warn",
        "" => "info",
        other => other,
    };
    Some(Message {
        id: 0,
        kind: kind.to_owned(),
        text: format::cut_stored(&entry.text),
        args: Vec::new(),
        stack: entry.stack_trace.as_ref().map(format::stack_of),
        frame_session: None,
    })
}

fn arg(ro: &RemoteObject) -> Arg {
    match &ro.object_id {
        Some(id) => Arg {
            value: None,
            object_id: Some(id.clone()),
            error: ro.subtype == Some(RemoteObjectSubtype::Error),
            error_head: format::error_head(ro.description.as_deref().unwrap_or("")),
        },
        None => {
            // As `String()` prints it, except null and undefined, which read as themselves.
            let value = match format::primitive(ro) {
                Primitive::Undefined => "undefined".to_owned(),
                Primitive::Null => "null".to_owned(),
                Primitive::Text(t) => t,
            };
            Arg {
                value: Some(format::cut_stored(&value)),
                object_id: None,
                error: false,
                error_head: String::new(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::console::format::decode;
    use serde_json::json;

    fn log_message(text: &str) -> Message {
        console_call(&decode(
            json!({"type": "log", "args": [{"type": "string", "value": text}, {"type": "object", "objectId": format!("o-{text}")}]}),
        ))
    }

    #[test]
    fn the_record_stays_bounded() {
        let mut log = Log::default();
        let mut released = Vec::new();
        for i in 0..(MAX_MESSAGES + 50) {
            released.extend(log.push(log_message(&format!("m{i}"))));
        }
        assert_eq!(log.count, MAX_MESSAGES);
        assert_eq!(log.messages(false)[0].id, 51);
        assert_eq!(released.len(), 50, "evicted objects are released");
        assert_eq!(released[0], "o-m0");
        let big = "x".repeat(50_000);
        for _ in 0..200 {
            log.push(log_message(&big));
        }
        assert!(log.bytes <= MAX_BYTES, "{}", log.bytes);
        for _ in 0..5 {
            log.new_document();
        }
        assert_eq!(log.count, 0);
        assert_eq!(log.bytes, 0);
        assert_eq!(log.documents.len(), DOCUMENTS_KEPT);
    }

    #[test]
    fn navigation_keeps_three_documents_and_drops_their_objects() {
        let mut log = Log::default();
        for doc in 0..4 {
            log.push(log_message(&format!("d{doc}")));
            log.new_document();
        }
        log.push(log_message("now"));
        let kept: Vec<&str> = log.messages(true).iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            kept,
            vec![
                "d2 [object undefined]",
                "d3 [object undefined]",
                "now [object undefined]"
            ]
        );
        assert!(log.messages(true)[0].args[1].object_id.is_none());
        assert!(log.messages(false)[0].args[1].object_id.is_some());
        assert_eq!(
            log.find(5).map(|m| m.text.as_str()),
            Some("now [object undefined]")
        );
    }

    #[test]
    fn exceptions_name_their_reason() {
        let exception = |v| exception(&decode(v));
        let log_entry = |v| log_entry(&decode(v));
        let err = json!({"type": "object", "subtype": "error", "objectId": "1",
            "description": "Error: boom\n    at f (a.js:1:1)"});
        let m = exception(json!({"text": "Uncaught", "exception": err}));
        assert_eq!(m.text, "Uncaught Error: boom");
        let m = exception(json!({"text": "Uncaught (in promise)", "exception": err}));
        assert_eq!(m.text, "Uncaught (in promise) Error: boom");
        let m =
            exception(json!({"text": "Uncaught", "exception": {"type": "string", "value": "s"}}));
        assert_eq!(m.text, "Uncaught s");
        let m = exception(json!({"text": "Uncaught SyntaxError: Unexpected token"}));
        assert_eq!(m.text, "Uncaught SyntaxError: Unexpected token");
        assert!(log_entry(json!({"source": "worker", "level": "error", "text": "x"})).is_none());
        let m = log_entry(json!({"source": "network", "level": "warning", "text": "x"}));
        assert_eq!(m.map(|m| m.kind), Some("warn".to_owned()));
    }

    #[test]
    fn null_reads_as_null_though_its_value_decodes_as_absent() {
        let js_null = json!({"type": "object", "subtype": "null", "value": null});
        let m = console_call(&decode(json!({"type": "log", "args": [js_null]})));
        assert_eq!(m.args[0].value.as_deref(), Some("null"));
        let m = exception(&decode(json!({"text": "Uncaught", "exception": js_null})));
        assert_eq!(m.text, "Uncaught null");
    }
}
