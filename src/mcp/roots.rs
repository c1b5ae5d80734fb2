//! The client's roots (MCP `roots/list`): the folders it lets tools read and write files in.
//! Asked for when the session starts and whenever the client says they changed. Tool calls
//! that arrive while an answer is awaited wait for it (a few seconds at most), so a file
//! path is never judged against roots that are not known yet.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};

use crate::app::App;
use crate::log::log;

/// How long tool calls wait for a client that does not answer `roots/list`.
const WAIT: Duration = Duration::from_secs(5);

/// Sends `roots/list` (when the client has roots).
pub fn ask(app: &mut App) {
    if !app.session.roots_capable {
        return;
    }
    app.session.roots_seq += 1;
    let id = format!("devtools-mcp-roots-{}", app.session.roots_seq);
    app.session.roots_request = Some(id.clone());
    app.send(json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}));
    app.after(WAIT, move |app| {
        if app.session.roots_request.as_deref() == Some(id.as_str()) {
            log!(
                "the client did not answer roots/list within {WAIT:?}; going on without its roots"
            );
            app.session.roots_request = None;
            release(app);
        }
    });
}

/// A response from the client. Returns false when it is not the answer to our request.
pub fn on_response(app: &mut App, id: &Value, result: Option<Value>) -> bool {
    if app.session.roots_request.as_deref() != id.as_str() || id.is_null() {
        return false;
    }
    app.session.roots_request = None;
    let roots = result.as_ref().and_then(|r| r["roots"].as_array());
    app.session.client_roots = match roots {
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
    release(app);
    true
}

/// Whether a tool call must wait for the roots; if so, it is kept for later.
pub fn hold(app: &mut App, id: &Value, name: &str, args: &Value) -> bool {
    if app.session.roots_request.is_none() {
        return false;
    }
    app.session
        .held_calls
        .push((id.clone(), name.to_owned(), args.clone()));
    true
}

fn release(app: &mut App) {
    for (id, name, args) in std::mem::take(&mut app.session.held_calls) {
        crate::tools::call(app, id, &name, args);
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
