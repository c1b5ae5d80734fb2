//! Request and response bodies for `get_network_request`, asked from the browser when the
//! tool runs (never stored): shown inline up to [`BODY_LIMIT`] characters, or written whole
//! to a file. What the browser answers becomes a [`Body`] here; the asking is the call's
//! steps (`detail.rs`).

use std::time::Duration;

use crate::browser::waiters;
use crate::cdp::generated::network::{
    GetRequestPostDataReturns, GetResponseBodyReturns, LoadingFailedEvent, LoadingFinishedEvent,
};
use crate::error::Error;
use crate::tools::base64::decode_lenient;
use crate::tools::ctx::{Ctx, Done, Once};
use crate::tools::files::{self, Roots};
use crate::tools::text::cut;

/// Body text shown inline, in characters (as the reference).
pub(super) const BODY_LIMIT: usize = 10_000;
/// How long to wait for a response still loading before asking for its body anyway (the
/// browser has the whole body only once loading ends).
const LOAD_WAIT: Duration = Duration::from_secs(2);

/// A body as the detail view shows it: text or a placeholder, or where it was saved.
pub(super) enum Body {
    Inline(String),
    Saved(String),
}

/// Answers `done` when the request `cdp_id` has finished or failed, or after [`LOAD_WAIT`]
/// (an error then, as when the page goes away).
pub(super) fn when_loaded(cx: &mut Ctx, session: &str, cdp_id: &str, done: Done<()>) {
    let once = Once::new(done);
    let (id, on_end) = (cdp_id.to_owned(), once.clone());
    waiters::wait(
        cx,
        session,
        move |e: &LoadingFinishedEvent| e.request_id == id,
        LOAD_WAIT,
        String::new(),
        Box::new(move |cx, r| on_end.call(cx, r.map(drop))),
    );
    let id = cdp_id.to_owned();
    waiters::wait(
        cx,
        session,
        move |e: &LoadingFailedEvent| e.request_id == id,
        LOAD_WAIT,
        String::new(),
        Box::new(move |cx, r| once.call(cx, r.map(drop))),
    );
}

/// The request body from `Network.getRequestPostData`'s answer: inline, or saved to `file`
/// when given; a placeholder when the browser no longer has it. An error names a file that
/// could not be written.
pub(super) fn request_body(
    roots: &Roots,
    answer: Result<GetRequestPostDataReturns, Error>,
    file: Option<String>,
) -> Result<Body, String> {
    let data = answer
        .ok()
        .and_then(|v| bytes_of(&v.post_data, v.base64_encoded));
    Ok(match (data, file) {
        (Some(bytes), Some(path)) => Body::Saved(save(roots, &path, "network-request", &bytes)?),
        (Some(bytes), None) if !bytes.is_empty() => {
            Body::Inline(cut(&String::from_utf8_lossy(&bytes), BODY_LIMIT))
        }
        _ => Body::Inline("<Request body not available anymore>".to_owned()),
    })
}

/// The response body from `Network.getResponseBody`'s answer: inline (text only), or saved
/// to `file` when given. An error names a file that could not be written.
pub(super) fn response_body(
    roots: &Roots,
    answer: Result<GetResponseBodyReturns, Error>,
    file: Option<String>,
) -> Result<Body, String> {
    let Some(bytes) = answer
        .ok()
        .and_then(|v| bytes_of(&v.body, v.base64_encoded))
    else {
        return Ok(no_response_body(file.is_some()));
    };
    Ok(match file {
        Some(path) => Body::Saved(save(roots, &path, "network-response", &bytes)?),
        None => Body::Inline(match String::from_utf8(bytes) {
            Ok(text) if text.is_empty() => "<empty response>".to_owned(),
            Ok(text) => cut(&text, BODY_LIMIT),
            Err(_) => "<binary data>".to_owned(),
        }),
    })
}

/// What stands for a response body the browser does not have (it keeps none for a
/// redirect answer), worded as the reference words it when `saving` to a file and when not.
pub(super) fn no_response_body(saving: bool) -> Body {
    Body::Inline(if saving {
        "<Response body not available anymore>".to_owned()
    } else {
        "<not available anymore>".to_owned()
    })
}

/// The bytes of a body as CDP answers with it, base64-decoded when the answer says so.
fn bytes_of(text: &str, base64: bool) -> Option<Vec<u8>> {
    if base64 {
        decode_lenient(text)
    } else {
        Some(text.as_bytes().to_vec())
    }
}

/// Writes `data` to `path` with its extension replaced by `extension` (as the reference
/// names body files), through [`files`]: inside the roots, private to the user, creating
/// missing folders, never through a symbolic link; returns the real path written.
fn save(roots: &Roots, path: &str, extension: &str, data: &[u8]) -> Result<String, String> {
    let could_not = |e: &std::io::Error| format!("Could not write {path}\nCause: {e}");
    let target = roots.check(path).map_err(|f| f.text(could_not))?;
    let written = files::write(roots, target.with_extension(extension), data)
        .map_err(|f| f.text(could_not))?;
    Ok(written.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    #[test]
    fn files_are_named_like_the_reference_names_them() {
        let p = |s: &str| files::with_extension(Path::new(s), "network-response");
        assert_eq!(p("/t/a.json"), PathBuf::from("/t/a.network-response"));
        assert_eq!(p("/t/a"), PathBuf::from("/t/a.network-response"));
        assert_eq!(p("/t/a.b.c"), PathBuf::from("/t/a.b.network-response"));
        assert_eq!(p("/t/.env"), PathBuf::from("/t/.env.network-response"));
        assert_eq!(
            files::lexical(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
    }

    #[test]
    fn a_file_that_cannot_be_written_names_the_path() {
        let err = save(
            &Roots::anywhere(),
            "/proc/no/such/dir/x.txt",
            "network-response",
            b"x",
        );
        let err = err.err().unwrap_or_default();
        assert!(
            err.starts_with("Could not write /proc/no/such/dir/x.txt\nCause: "),
            "{err}"
        );
    }
}
