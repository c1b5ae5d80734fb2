//! `take_screenshot`: the viewport, the whole page or one element, as an image in the answer
//! or written to a file.
//!
//! A page with an open dialog cannot paint, so a capture would wait for as long as the dialog
//! stays; the call refuses at once when a dialog is open and gives up as soon as one opens.
//! The same dialog guards serve `emulate` ([`dialog_blocks`], [`unless_dialog`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::args::{self, Shared};
use super::paths;
use super::response::{finish, Response};
use super::{call, fail, Tool};
use crate::browser::{self, pages, waiters, PageId};
use crate::cdp::generated::{dom, page as cdp_page, runtime};
use crate::error::Error;
use crate::tools::snapshot::model::no_snapshot_message;
use crate::tools::CallId;
use crate::tools::{Ctx, Done, Once};

pub const TOOLS: &[Tool] = &[Tool {
    name: "take_screenshot",
    description: "Take a screenshot of the visible part of the page, of the whole page, or of one element. \
The image comes back in the answer, or is written to filePath. To read a page's content, take_snapshot is \
cheaper and gives element uids.",
    properties: || {
        json!({
            "format": {
                "type": "string", "enum": ["png", "jpeg", "webp"], "default": "png",
                "description": "Image format (default \"png\").",
            },
            "quality": {
                "type": "number", "minimum": 0, "maximum": 100,
                "description": "Compression quality for jpeg and webp, 0-100 (higher: better and larger). Not used for png.",
            },
            "uid": {
                "type": "string",
                "description": "Screenshot only this element: its uid from take_snapshot. Leave out for the page.",
            },
            "fullPage": {
                "type": "boolean",
                "description": "Capture the whole page, not only what the viewport shows. Not with uid.",
            },
            "filePath": {
                "type": "string",
                "description": "Write the image to this file (absolute, or relative to the working directory) instead of returning it. The extension is set to match the format.",
            },
        })
    },
    required: &[],
    read_only: false,
    page_scoped: true,
    run: take_screenshot,
}];

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScreenshotArgs {
    #[serde(flatten)]
    shared: Shared,
    #[serde(default)]
    format: Format,
    quality: Option<f64>,
    uid: Option<String>,
    #[serde(default)]
    full_page: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Format {
    #[default]
    Png,
    Jpeg,
    Webp,
}

impl Format {
    /// The name, as file extension and in the MIME type.
    fn name(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Jpeg => "jpeg",
            Format::Webp => "webp",
        }
    }

    fn cdp(self) -> cdp_page::CaptureScreenshotFormat {
        match self {
            Format::Png => cdp_page::CaptureScreenshotFormat::Png,
            Format::Jpeg => cdp_page::CaptureScreenshotFormat::Jpeg,
            Format::Webp => cdp_page::CaptureScreenshotFormat::Webp,
        }
    }
}

/// Images at least this large (decoded) are written to a temporary file instead of being
/// sent inline, where they would swamp the agent's context (the reference's threshold).
const INLINE_LIMIT: usize = 2_000_000;

/// How long a capture may take. Even a very tall page takes a few seconds; longer means the
/// page's main thread is stuck.
const CAPTURE_TIMEOUT: Duration = Duration::from_secs(30);

/// What to capture.
enum Area {
    Viewport,
    FullPage,
    Element(String),
}

impl Area {
    /// The line the answer starts with.
    fn line(&self) -> String {
        match self {
            Area::Element(uid) => format!("Took a screenshot of node with uid \"{uid}\"."),
            Area::FullPage => "Took a screenshot of the full current page.".to_owned(),
            Area::Viewport => "Took a screenshot of the current page's viewport.".to_owned(),
        }
    }
}

struct Shot {
    format: Format,
    /// jpeg and webp only.
    quality: Option<f64>,
    file_path: Option<String>,
}

fn take_screenshot(cx: &mut Ctx, call: CallId, args: Value) {
    let args: ScreenshotArgs = match args::parse(args) {
        Ok(a) => a,
        Err(e) => return fail(cx, call, e),
    };
    let page = args.shared.page();
    let shot = Shot {
        quality: args.quality.filter(|_| args.format != Format::Png),
        format: args.format,
        file_path: args.shared.file_path,
    };
    let (uid, full_page) = (args.uid, args.full_page);
    call::on_page(cx, call, page, move |cx, page| {
        if let Some(message) = dialog_blocks(cx, page) {
            return fail(cx, call, message);
        }
        let area = match (uid, full_page) {
            (Some(_), true) => {
                return fail(
                    cx,
                    call,
                    "Providing both \"uid\" and \"fullPage\" is not allowed.",
                )
            }
            (Some(uid), false) => Area::Element(uid),
            (None, true) => Area::FullPage,
            (None, false) => Area::Viewport,
        };
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return fail(cx, call, e),
        };
        let line = area.line();
        let (format, quality) = (shot.format, shot.quality);
        unless_dialog(
            cx,
            &session.clone(),
            CAPTURE_TIMEOUT,
            format!(
                "The screenshot was not taken within {} s: the page is not painting (is its main thread busy?).",
                CAPTURE_TIMEOUT.as_secs()
            ),
            Box::new(move |cx, done| capture(cx, page, session, area, format, quality, done)),
            Box::new(move |cx, r: Result<String, Error>| match r {
                Ok(data) => answer(cx, call, page, shot, line, data),
                Err(e) => fail(cx, call, e),
            }),
        );
    });
}

/// Captures `area` and hands over the image, base64-encoded as the browser sent it.
fn capture(
    cx: &mut Ctx,
    page: PageId,
    session: String,
    area: Area,
    format: Format,
    quality: Option<f64>,
    done: Done<String>,
) {
    let mut params = cdp_page::CaptureScreenshotParams {
        format: Some(format.cdp()),
        quality: quality.map(|q| q.round() as i64),
        optimize_for_speed: Some(true),
        from_surface: Some(true),
        ..Default::default()
    };
    match area {
        Area::Viewport => {
            params.capture_beyond_viewport = Some(false);
            send_capture(cx, &session, params, done);
        }
        Area::FullPage => {
            // Without a clip, capturing beyond the viewport takes the whole document.
            params.capture_beyond_viewport = Some(true);
            send_capture(cx, &session, params, done);
        }
        Area::Element(uid) => element_clip(
            cx,
            page,
            uid,
            Box::new(move |cx, r| match r {
                Ok(clip) => {
                    params.clip = Some(clip);
                    params.capture_beyond_viewport = Some(true);
                    send_capture(cx, &session, params, done);
                }
                Err(e) => done(cx, Err(e)),
            }),
        ),
    }
}

fn send_capture(
    cx: &mut Ctx,
    session: &str,
    params: cdp_page::CaptureScreenshotParams,
    done: Done<String>,
) {
    browser::send(cx, Some(session), params, move |cx, r| match r {
        Ok(shot) if shot.data.is_empty() => done(
            cx,
            Err(Error::Page("The browser returned no image.".into())),
        ),
        Ok(shot) => done(cx, Ok(shot.data)),
        Err(e) => done(cx, Err(e)),
    });
}

/// The element's border box in page coordinates, after scrolling it into view (as a user
/// would see it; lazy content gets its chance to load).
fn element_clip(cx: &mut Ctx, page: PageId, uid: String, done: Done<cdp_page::Viewport>) {
    let Some(p) = cx.browser.pages.get(page) else {
        return done(cx, Err(pages::no_such_page(page)));
    };
    let Some(snap) = cx.snapshots.latest(page) else {
        return done(cx, Err(Error::Invalid(no_snapshot_message(page))));
    };
    let backend = match snap.resolve(&uid) {
        Ok(e) => e.backend_node_id,
        Err(e) => return done(cx, Err(Error::Invalid(e.message(&uid, page)))),
    };
    let session = p.session.clone();
    let scroll = dom::ScrollIntoViewIfNeededParams {
        backend_node_id: Some(backend),
        ..Default::default()
    };
    browser::send(cx, Some(&session.clone()), scroll, move |cx, r| {
        if let Err(e) = r {
            return done(cx, Err(node_error(e, &uid)));
        }
        let model = dom::GetBoxModelParams {
            backend_node_id: Some(backend),
            ..Default::default()
        };
        browser::send(cx, Some(&session.clone()), model, move |cx, r| {
            let model = match r {
                Ok(m) => m.model,
                Err(e) => return done(cx, Err(node_error(e, &uid))),
            };
            match border_box(&model.border) {
                Ok(b) => page_clip(cx, &session, b, done),
                Err(message) => done(cx, Err(Error::Page(message))),
            }
        });
    });
}

/// The clip for a box relative to the viewport: in page coordinates, in whole pixels.
fn page_clip(
    cx: &mut Ctx,
    session: &str,
    (x, y, w, h): (f64, f64, f64, f64),
    done: Done<cdp_page::Viewport>,
) {
    let offset = runtime::EvaluateParams {
        expression: "[visualViewport.pageLeft, visualViewport.pageTop]".into(),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(session), offset, move |cx, r| match r {
        Ok(v) => {
            let o = v.result.value.unwrap_or_default();
            let (left, top) = (o[0].as_f64().unwrap_or(0.0), o[1].as_f64().unwrap_or(0.0));
            done(cx, Ok(round_clip(x + left, y + top, w, h)))
        }
        Err(e) => done(cx, Err(e)),
    });
}

/// The browser's complaint about a node, in the words the reference uses.
fn node_error(e: Error, uid: &str) -> Error {
    match &e {
        Error::Cdp { message, .. }
            if message.contains("No node") || message.contains("find node") =>
        {
            Error::Invalid(format!(
                "Element with uid {uid} no longer exists on the page."
            ))
        }
        Error::Cdp { .. } => Error::Page("Node is either not visible or not an HTMLElement".into()),
        _ => e,
    }
}

/// The bounding box (x, y, width, height) of a quad of four points.
fn border_box(points: &[f64]) -> Result<(f64, f64, f64, f64), String> {
    if points.len() != 8 {
        return Err("Node is either not visible or not an HTMLElement".into());
    }
    let xs = [points[0], points[2], points[4], points[6]];
    let ys = [points[1], points[3], points[5], points[7]];
    let min = |v: &[f64; 4]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64; 4]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (x, y) = (min(&xs), min(&ys));
    let (w, h) = (max(&xs) - x, max(&ys) - y);
    if w == 0.0 {
        return Err("Node has 0 width.".into());
    }
    if h == 0.0 {
        return Err("Node has 0 height.".into());
    }
    Ok((x, y, w, h))
}

/// Whole pixels, keeping the far edges where they were.
fn round_clip(x: f64, y: f64, w: f64, h: f64) -> cdp_page::Viewport {
    let (rx, ry) = (x.round(), y.round());
    cdp_page::Viewport {
        x: rx,
        y: ry,
        width: (w + x - rx).round(),
        height: (h + y - ry).round(),
        scale: 1.0,
    }
}

fn answer(cx: &mut Ctx, call: CallId, page: PageId, shot: Shot, line: String, data: String) {
    let mut resp = Response::for_page(page);
    resp.line(line);
    let ext = shot.format.name();
    let saved = match shot.file_path {
        Some(path) => Some(decode_base64(&data).and_then(|bytes| {
            let target = output_path(&path, ext)?;
            write_file(&target, &bytes)?;
            Ok(target)
        })),
        None if decoded_len(&data) >= INLINE_LIMIT => {
            Some(decode_base64(&data).and_then(|bytes| {
                let target = temp_dir()?.join(format!("screenshot.{ext}"));
                write_file(&target, &bytes)?;
                Ok(target)
            }))
        }
        None => None,
    };
    match saved {
        Some(Ok(target)) => {
            resp.line(format!("Saved screenshot to {}.", target.display()));
        }
        Some(Err(message)) => return fail(cx, call, message),
        None => resp.images.push(json!({
            "type": "image",
            "data": data,
            "mimeType": format!("image/{ext}"),
        })),
    }
    finish(cx, call, resp);
}

/// The reference's error for tools that an open dialog blocks.
pub fn dialog_blocks(cx: &Ctx, page: PageId) -> Option<String> {
    let d = cx.browser.pages.get(page)?.dialog.as_ref()?;
    Some(format!("A dialog is open ({}: {}).", d.kind, d.message))
}

/// Work that answers through the continuation it is given.
pub type Work<T> = Box<dyn FnOnce(&mut Ctx, Done<T>)>;

/// Runs `work` unless the page shows a dialog first: a dialog opening (which stops the page's
/// rendering and script, so `work` would wait for as long as it stays open) ends the wait at
/// once with an error naming it, and so does `timeout`. Whichever comes first answers `done`.
pub fn unless_dialog<T: 'static>(
    cx: &mut Ctx,
    session: &str,
    timeout: Duration,
    timeout_message: String,
    work: Work<T>,
    done: Done<T>,
) {
    let once = Once::new(done);
    let on_dialog = once.clone();
    let waiter = waiters::wait(
        cx,
        session,
        |_: &cdp_page::JavascriptDialogOpeningEvent| true,
        timeout,
        timeout_message,
        Box::new(
            move |cx, r: Result<cdp_page::JavascriptDialogOpeningEvent, Error>| {
                let err = match r {
                    Ok(dialog) => {
                        let kind = match dialog.r#type.as_str() {
                            "" => "alert",
                            kind => kind,
                        };
                        Error::Page(format!("A dialog is open ({kind}: {}).", dialog.message))
                    }
                    Err(e) => e,
                };
                on_dialog.call(cx, Err(err));
            },
        ),
    );
    work(
        cx,
        Box::new(move |cx, r| {
            waiters::cancel(cx, waiter);
            once.call(cx, r);
        }),
    );
}

// ---------------------------------------------------------------- files

/// Where a file the agent named is written: absolute, with the symbolic links of the part
/// that exists resolved, and the extension set to the image format's.
fn output_path(requested: &str, ext: &str) -> Result<PathBuf, String> {
    let absolute = std::path::absolute(requested)
        .map_err(|e| format!("Could not resolve the path {requested:?}: {e}"))?;
    let resolved = paths::resolve_existing_prefix(&absolute);
    Ok(paths::with_extension(&resolved, ext))
}

/// [`paths::write_private`], with the error an agent reads.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let quoted = serde_json::to_string(&path.to_string_lossy()).unwrap_or_default();
    paths::write_private(path, bytes).map_err(|e| format!("Could not write {quoted}: {e}"))
}

/// A new private directory under the system's temporary directory.
fn temp_dir() -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
    let mut last = None;
    for _ in 0..16 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!(
            "devtools-mcp-{}-{nanos:08x}{n}",
            std::process::id()
        ));
        // Creating (not reusing) the directory is what makes it ours alone.
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    Err(format!(
        "Could not create a temporary directory in {}: {}",
        base.display(),
        last.map(|e| e.to_string()).unwrap_or_default()
    ))
}

// ---------------------------------------------------------------- base64

/// How many bytes `data` (padded standard base64) decodes to.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count().min(2);
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// Decodes standard base64 (the alphabet with `+` and `/`, `=` padding), as the browser sends
/// images.
fn decode_base64(data: &str) -> Result<Vec<u8>, String> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some((c - b'A') as u32),
            b'a'..=b'z' => Some((c - b'a') as u32 + 26),
            b'0'..=b'9' => Some((c - b'0') as u32 + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let bad = || "The browser sent an image that is not valid base64.".to_owned();
    let bytes = data.trim_end_matches('=').as_bytes();
    if data.len() - bytes.len() > 2 || bytes.len() % 4 == 1 {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3 + 2);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            acc |= value(*c).ok_or_else(bad)? << (18 - 6 * i);
        }
        let produced = chunk.len() - 1; // 4 chars → 3 bytes, 3 → 2, 2 → 1
        for i in 0..produced {
            out.push((acc >> (16 - 8 * i)) as u8);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_known_vectors() {
        let cases: &[(&str, &[u8])] = &[
            ("", b""),
            ("Zg==", b"f"),
            ("Zm8=", b"fo"),
            ("Zm9v", b"foo"),
            ("Zm9vYg==", b"foob"),
            ("Zm9vYmE=", b"fooba"),
            ("Zm9vYmFy", b"foobar"),
            ("AP8=", &[0, 255]),
            ("+/+/", &[0xfb, 0xff, 0xbf]),
            (
                "iVBORw0KGgo=",
                &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a],
            ),
        ];
        for (text, bytes) in cases {
            assert_eq!(decode_base64(text).as_deref(), Ok(*bytes), "{text}");
            assert_eq!(decoded_len(text), bytes.len(), "{text}");
        }
        // Unpadded input decodes too.
        assert_eq!(decode_base64("Zg").as_deref(), Ok(&b"f"[..]));
    }

    #[test]
    fn base64_rejects_garbage() {
        assert!(decode_base64("Zm9v!").is_err());
        assert!(decode_base64("Z").is_err());
        assert!(decode_base64("Zg===").is_err());
        assert!(decode_base64("Zm 9v").is_err());
    }

    #[test]
    fn extensions_follow_the_format() {
        let p = |s: &str, e: &str| paths::with_extension(Path::new(s), e).display().to_string();
        assert_eq!(p("/tmp/a.png", "jpeg"), "/tmp/a.jpeg");
        assert_eq!(p("/tmp/noext", "png"), "/tmp/noext.png");
        assert_eq!(p("/tmp/a.tar.gz", "webp"), "/tmp/a.tar.webp");
        assert_eq!(p("/tmp/.hidden", "png"), "/tmp/.hidden.png");
        assert_eq!(p("/tmp/dir.x/shot", "png"), "/tmp/dir.x/shot.png");
    }

    #[test]
    fn paths_resolve_missing_parts() {
        let base = std::env::temp_dir().canonicalize().unwrap();
        let p = output_path(
            &format!("{}/no-such-dir-h7/x/shot.png", base.display()),
            "png",
        )
        .unwrap();
        assert_eq!(p, base.join("no-such-dir-h7/x/shot.png"));
    }

    #[test]
    fn boxes() {
        let quad = [10.0, 20.0, 110.0, 20.0, 110.0, 70.0, 10.0, 70.0];
        assert_eq!(border_box(&quad), Ok((10.0, 20.0, 100.0, 50.0)));
        let flat = [10.0, 20.0, 10.0, 20.0, 10.0, 70.0, 10.0, 70.0];
        assert_eq!(border_box(&flat), Err("Node has 0 width.".into()));
        assert_eq!(
            json!(round_clip(10.4, 20.6, 100.2, 50.0)),
            // The protocol's scale is a double: sent as 1.0.
            json!({"x": 10.0, "y": 21.0, "width": 101.0, "height": 50.0, "scale": 1.0})
        );
    }
}
