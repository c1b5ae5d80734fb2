//! Request and response bodies for `get_network_request`, asked from the browser when the
//! tool runs (never stored): shown inline up to [`BODY_LIMIT`] characters, or written whole
//! to a file.

use std::time::Duration;

use super::BODY_LIMIT;
use crate::browser::{self, waiters};
use crate::cdp::generated::network::{
    GetRequestPostDataParams, GetResponseBodyParams, LoadingFailedEvent, LoadingFinishedEvent,
};
use crate::tools::files::{self, Roots};
use crate::tools::{Ctx, Once};

/// How long to wait for a response still loading before asking for its body anyway (the
/// browser has the whole body only once loading ends).
const LOAD_WAIT: Duration = Duration::from_secs(2);

/// A body as the detail view shows it: text or a placeholder, or where it was saved.
pub enum Body {
    Inline(String),
    Saved(String),
}

/// What is known of the request whose bodies are wanted.
pub struct Wanted {
    pub cdp_id: String,
    pub has_post_data: bool,
    pub has_response: bool,
    pub loading: bool,
    pub redirected: bool,
    pub request_file: Option<String>,
    pub response_file: Option<String>,
}

/// The request body and the response body, either of them absent when there is none; an
/// error when a file could not be written.
pub type Bodies = Box<dyn FnOnce(&mut Ctx, Result<(Option<Body>, Option<Body>), String>)>;
type BodyDone = Box<dyn FnOnce(&mut Ctx, Result<Option<Body>, String>)>;

pub fn fetch(cx: &mut Ctx, session: String, wanted: Wanted, done: Bodies) {
    let waiting = wanted
        .loading
        .then(|| (session.clone(), wanted.cdp_id.clone()));
    let work = move |cx: &mut Ctx| {
        let s = session.clone();
        let Wanted {
            cdp_id,
            has_post_data,
            has_response,
            redirected,
            request_file,
            response_file,
            ..
        } = wanted;
        let id = cdp_id.clone();
        request_body(
            cx,
            &session,
            &cdp_id,
            has_post_data,
            request_file,
            Box::new(move |cx, request| {
                let request = match request {
                    Ok(r) => r,
                    Err(e) => return done(cx, Err(e)),
                };
                if !has_response {
                    return done(cx, Ok((request, None)));
                }
                response_body(
                    cx,
                    &s,
                    &id,
                    redirected,
                    response_file,
                    Box::new(move |cx, response| done(cx, response.map(|r| (request, r)))),
                )
            }),
        );
    };
    match waiting {
        Some((session, cdp_id)) => when_loaded(cx, &session, &cdp_id, Box::new(work)),
        None => work(cx),
    }
}

/// Runs `then` when the request has finished or failed, or after [`LOAD_WAIT`].
fn when_loaded(cx: &mut Ctx, session: &str, cdp_id: &str, then: Box<dyn FnOnce(&mut Ctx)>) {
    let once: Once<()> = Once::new(Box::new(move |cx, _| then(cx)));
    let (id, on_end) = (cdp_id.to_owned(), once.clone());
    waiters::wait(
        cx,
        session,
        move |e: &LoadingFinishedEvent| e.request_id == id,
        LOAD_WAIT,
        String::new(),
        Box::new(move |cx, _| on_end.call(cx, Ok(()))),
    );
    let id = cdp_id.to_owned();
    waiters::wait(
        cx,
        session,
        move |e: &LoadingFailedEvent| e.request_id == id,
        LOAD_WAIT,
        String::new(),
        Box::new(move |cx, _| once.call(cx, Ok(()))),
    );
}

fn request_body(
    cx: &mut Ctx,
    session: &str,
    cdp_id: &str,
    has_post_data: bool,
    file: Option<String>,
    done: BodyDone,
) {
    if !has_post_data {
        return done(cx, Ok(None));
    }
    let params = GetRequestPostDataParams {
        request_id: cdp_id.to_owned(),
    };
    browser::send(cx, Some(session), params, move |cx, r| {
        let data = r
            .ok()
            .and_then(|v| bytes_of(&v.post_data, v.base64_encoded));
        let body = match (data, file) {
            (Some(bytes), Some(path)) => {
                match save(&Roots::of(cx), &path, "network-request", &bytes) {
                    Ok(saved) => Body::Saved(saved),
                    Err(e) => return done(cx, Err(e)),
                }
            }
            (Some(bytes), None) if !bytes.is_empty() => {
                Body::Inline(super::cut(&String::from_utf8_lossy(&bytes), BODY_LIMIT))
            }
            _ => Body::Inline("<Request body not available anymore>".to_owned()),
        };
        done(cx, Ok(Some(body)))
    });
}

fn response_body(
    cx: &mut Ctx,
    session: &str,
    cdp_id: &str,
    redirected: bool,
    file: Option<String>,
    done: BodyDone,
) {
    let unavailable = |file: &Option<String>| {
        Body::Inline(if file.is_some() {
            "<Response body not available anymore>".to_owned()
        } else {
            "<not available anymore>".to_owned()
        })
    };
    if redirected {
        // The browser keeps no body for a redirect answer.
        return done(cx, Ok(Some(unavailable(&file))));
    }
    let params = GetResponseBodyParams {
        request_id: cdp_id.to_owned(),
    };
    browser::send(cx, Some(session), params, move |cx, r| {
        let Some(bytes) = r.ok().and_then(|v| bytes_of(&v.body, v.base64_encoded)) else {
            return done(cx, Ok(Some(unavailable(&file))));
        };
        let body = match file {
            Some(path) => match save(&Roots::of(cx), &path, "network-response", &bytes) {
                Ok(saved) => Body::Saved(saved),
                Err(e) => return done(cx, Err(e)),
            },
            None => Body::Inline(match String::from_utf8(bytes) {
                Ok(text) if text.is_empty() => "<empty response>".to_owned(),
                Ok(text) => super::cut(&text, BODY_LIMIT),
                Err(_) => "<binary data>".to_owned(),
            }),
        };
        done(cx, Ok(Some(body)))
    });
}

/// The bytes of a body as CDP answers with it, base64-decoded when the answer says so.
fn bytes_of(text: &str, base64: bool) -> Option<Vec<u8>> {
    if base64 {
        base64_decode(text)
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

/// Standard base64 (padding optional, whitespace ignored), as CDP sends binary bodies.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    #[test]
    fn base64_decodes_what_cdp_sends() {
        assert_eq!(base64_decode("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(
            base64_decode("AAEC/w==").as_deref(),
            Some(&[0u8, 1, 2, 255][..])
        );
        assert_eq!(base64_decode("aGk").as_deref(), Some(&b"hi"[..]));
        assert!(base64_decode("a*b").is_none());
    }

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
