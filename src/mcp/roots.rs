//! The client's roots (MCP `roots/list`): the folders it lets tools read and write files in.
//! Asked for when the session starts and whenever the client says they changed. Tool calls
//! that arrive while an answer is awaited wait for it (a few seconds at most), so a file
//! path is never judged against roots that are not known yet.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::jsonrpc::{id_key, Id, IdKey};
use super::server::Server;
use crate::log::log;

/// How long tool calls wait for a client that does not answer `roots/list`.
const WAIT: Duration = Duration::from_secs(5);

#[derive(Default)]
pub struct Roots {
    /// The client said it has roots (`capabilities.roots` in `initialize`).
    pub capable: bool,
    /// The id of our `roots/list` request in flight.
    request: Option<String>,
    /// How many `roots/list` requests were sent (their ids count up).
    seq: u64,
    /// When tool calls stop waiting for the answer.
    pub deadline: Option<Instant>,
    /// Tool calls that arrived while the roots were being asked for: they run once the
    /// answer is in (or after a few seconds).
    pub held: Vec<(Id, String, Value)>,
}

impl Roots {
    pub fn pending(&self) -> bool {
        self.request.is_some()
    }
}

impl Server {
    /// Sends `roots/list` (when the client has roots).
    pub(super) fn ask_roots(&mut self) {
        if !self.roots.capable {
            return;
        }
        self.roots.seq += 1;
        let id = format!("devtools-mcp-roots-{}", self.roots.seq);
        self.roots.request = Some(id.clone());
        self.roots.deadline = Some(Instant::now() + WAIT);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}));
    }

    /// The client left the legacy session (a modern request came): its roots no longer
    /// apply, and an answer still to come is not awaited.
    pub(super) fn forget_roots(&mut self) {
        self.roots.capable = false;
        self.roots.request = None;
        self.cx.client_roots = None;
        self.release_held();
    }

    pub(super) fn roots_timed_out(&mut self) {
        log!("the client did not answer roots/list within {WAIT:?}; going on without its roots");
        self.roots.request = None;
        self.release_held();
    }

    /// A response from the client. Returns false when it is not the answer to our request:
    /// only a string id equal to the one of the `roots/list` request in flight is.
    pub(super) fn on_roots_answer(&mut self, id: &RawValue, result: Option<Value>) -> bool {
        match (&self.roots.request, id_key(id)) {
            (Some(ours), IdKey::Str(theirs)) if *ours == theirs => {}
            _ => return false,
        }
        self.roots.request = None;
        let roots = result.as_ref().and_then(|r| r["roots"].as_array());
        self.cx.client_roots = match roots {
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
        self.release_held();
        true
    }

    fn release_held(&mut self) {
        self.roots.deadline = None;
        for (id, name, args) in std::mem::take(&mut self.roots.held) {
            self.start_call(id, &name, args, false);
        }
    }
}

/// The path of a `file://` URI (percent-decoded); `None` for other schemes.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
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
