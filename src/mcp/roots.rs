//! The client's roots (MCP `roots/list`): the folders it lets tools read and write files in.
//! Asked for when the session starts and whenever the client says they changed. Tool calls
//! that arrive while an answer is awaited wait for it (a few seconds at most), so a file
//! path is never judged against roots that are not known yet.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::jsonrpc::{id_key, Id, IdKey};
use super::output::Tag;
use crate::log::log;

/// How long tool calls wait for a client that does not answer `roots/list`.
const WAIT: Duration = Duration::from_secs(5);

/// What the server knows and awaits of the client's roots. It sends nothing and runs no
/// call itself: its methods say what to send, and hand back the calls that may run.
#[derive(Default)]
pub(super) struct Roots {
    /// The client said it has roots (`capabilities.roots` in `initialize`).
    pub(super) capable: bool,
    /// The id of our `roots/list` request in flight.
    request: Option<String>,
    /// How many `roots/list` requests were sent (their ids count up).
    seq: u64,
    /// When tool calls stop waiting for the answer.
    deadline: Option<Instant>,
    /// Tool calls that arrived while the roots were being asked for: they run once the
    /// answer is in (or after a few seconds).
    held: Vec<Held>,
}

/// A `tools/call` request held until the roots are known.
pub(super) struct Held {
    pub(super) id: Id,
    pub(super) name: String,
    pub(super) args: Value,
    /// The exchange it came on, which its answer goes to.
    pub(super) tag: Option<Tag>,
}

/// A response from the client, as far as the roots are concerned.
pub(super) enum Answer {
    /// Not the answer to our `roots/list`: only a string id equal to the one of the request
    /// in flight is.
    NotOurs,
    /// Our answer: the client's roots as paths (`None` when it answered with an error), and
    /// the calls held, to run once the roots are in place.
    Roots {
        roots: Option<Vec<PathBuf>>,
        held: Vec<Held>,
    },
}

impl Roots {
    /// Whether an answer to `roots/list` is awaited (tool calls are held meanwhile).
    pub(super) fn pending(&self) -> bool {
        self.request.is_some()
    }

    /// When the calls held stop waiting.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    pub(super) fn hold(&mut self, call: Held) {
        self.held.push(call);
    }

    /// The `roots/list` request to send, when the client has roots.
    pub(super) fn ask(&mut self) -> Option<Value> {
        if !self.capable {
            return None;
        }
        self.seq += 1;
        let id = format!("devtools-mcp-roots-{}", self.seq);
        self.request = Some(id.clone());
        self.deadline = Some(Instant::now() + WAIT);
        Some(json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}))
    }

    /// The client left the legacy session (a modern request came): its roots no longer
    /// apply, and an answer still to come is not awaited. Returns the calls to run now.
    pub(super) fn forget(&mut self) -> Vec<Held> {
        self.capable = false;
        self.request = None;
        self.release()
    }

    /// The client did not answer in time. Returns the calls to run now, without its roots.
    pub(super) fn time_out(&mut self) -> Vec<Held> {
        log!("the client did not answer roots/list within {WAIT:?}; going on without its roots");
        self.request = None;
        self.release()
    }

    /// Reads a response from the client.
    pub(super) fn answer(&mut self, id: &RawValue, result: Option<Value>) -> Answer {
        match (&self.request, id_key(id)) {
            (Some(ours), IdKey::Str(theirs)) if *ours == theirs => {}
            _ => return Answer::NotOurs,
        }
        self.request = None;
        let roots = result.as_ref().and_then(|r| r["roots"].as_array());
        let roots = match roots {
            Some(list) => Some(
                list.iter()
                    .filter_map(|r| r["uri"].as_str().and_then(file_uri_path))
                    .collect(),
            ),
            None => {
                log!("the client answered roots/list with an error; going on without its roots");
                None
            }
        };
        let held = self.release();
        Answer::Roots { roots, held }
    }

    /// Stops waiting: the calls held, in the order they came.
    fn release(&mut self) -> Vec<Held> {
        self.deadline = None;
        std::mem::take(&mut self.held)
    }
}

/// The path of a `file://` URI (percent-decoded); `None` for other schemes.
fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://host/path`: only the local host is ours.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(i) if &rest[..i] == "localhost" => &rest[i..],
        _ => return None,
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                let (h, l) = (hex(h).unwrap_or(0), hex(l).unwrap_or(0));
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok().map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/a/b"),
            Some(PathBuf::from("/home/a/b"))
        );
        assert_eq!(
            file_uri_path("file:///home/my%20project"),
            Some(PathBuf::from("/home/my project"))
        );
        assert_eq!(
            file_uri_path("file://localhost/tmp"),
            Some(PathBuf::from("/tmp"))
        );
        assert_eq!(file_uri_path("file://elsewhere/tmp"), None);
        assert_eq!(file_uri_path("https://example.com/"), None);
    }
}
