//! `take_screenshot`: the viewport, the whole page or one element, as an image in the answer
//! or written to a file.
//!
//! A page with an open dialog cannot paint, so a capture would wait for as long as the dialog
//! stays; the call refuses at once when a dialog is open and gives up as soon as one opens.

use crate::tools::args::Schema;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::browser::{self, pages, PageId};
use crate::cdp::generated::page as cdp_page;
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::dialogs::{self, unless_dialog};
use crate::tools::response::{finish, Response};
use crate::tools::{call, fail, CallId, Ctx, Done, Tool};

mod bounds;
mod clip;
mod files;

use crate::tools::base64::{decode_base64, decoded_len};
use crate::tools::files::Roots;
use clip::element_clip;

pub const TOOLS: &[Tool] = &[Tool {
    name: "take_screenshot",
    description: "Screenshot the viewport, the full page or an element; returns the image, or saves it to filePath. To read a page, take_snapshot is cheaper.",
    args: Schema {
        properties: || {
        json!({
            "format": {
                "type": "string", "enum": ["png", "jpeg", "webp"], "default": "png",
            },
            "quality": {
                "type": "number", "minimum": 0, "maximum": 100,
                "description": "jpeg/webp only",
            },
            "uid": {
                "type": "string", "maxLength": max::UID,
                "description": "Only this element",
            },
            "fullPage": {
                "type": "boolean",
            },
            "filePath": {
                "type": "string", "maxLength": max::PATH,
            },
        })
    },
        required: &[],
    },
    read_only: false,
    page_scoped: true,
    category: Category::Debugging,
    run: take_screenshot,
}];

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScreenshotArgs {
    #[serde(flatten)]
    shared: Shared,
    format: Option<Format>,
    quality: Option<f64>,
    uid: Option<String>,
    #[serde(default)]
    full_page: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Format {
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
    let Some(args) = crate::tools::call::args::<ScreenshotArgs>(cx, call, args) else {
        return;
    };
    let page = args.shared.page();
    // --screenshotFormat / --screenshotQuality (issue 10 part 3) when the call names none.
    let defaults = &cx.settings.policies.screenshot;
    let format = args.format.unwrap_or(match defaults.format.as_deref() {
        Some("jpeg") => Format::Jpeg,
        Some("webp") => Format::Webp,
        _ => Format::Png,
    });
    let quality = args.quality.or(defaults.quality.map(f64::from));
    let shot = Shot {
        quality: quality.filter(|_| format != Format::Png),
        format,
        file_path: args.shared.file_path,
    };
    let (uid, full_page) = (args.uid, args.full_page);
    call::on_page(cx, call, page, move |cx, page| {
        if let Some(message) = dialogs::blocked(cx, page) {
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
            not_painting(),
            Box::new(move |cx, done| capture(cx, page, session, area, format, quality, done)),
            Box::new(move |cx, r: Result<String, Error>| match r {
                Ok(data) => answer(cx, call, page, shot, line, data),
                Err(e) => fail(cx, call, e),
            }),
        );
    });
}

fn not_painting() -> String {
    format!(
        "The screenshot was not taken within {} s: the page is not painting (is its main thread busy?).",
        CAPTURE_TIMEOUT.as_secs()
    )
}

/// `--slim`'s `screenshot`: the viewport as a PNG in a new temporary file, whose path `done`
/// gets. Refused while a dialog is open, as `take_screenshot` is.
pub fn viewport_to_temp_file(cx: &mut Ctx, page: PageId, done: Done<PathBuf>) {
    if let Some(message) = dialogs::blocked(cx, page) {
        return done(cx, Err(Error::Page(message)));
    }
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return done(cx, Err(e)),
    };
    let (format, area) = (Format::Png, Area::Viewport);
    unless_dialog(
        cx,
        &session.clone(),
        CAPTURE_TIMEOUT,
        not_painting(),
        Box::new(move |cx, d| capture(cx, page, session, area, format, None, d)),
        Box::new(move |cx, r: Result<String, Error>| {
            let roots = Roots::of(cx);
            let saved = r.and_then(|data| {
                decode_base64(&data)
                    .and_then(|bytes| files::save_temp(&roots, format.name(), &bytes))
                    .map_err(Error::Page)
            });
            done(cx, saved)
        }),
    );
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
            send_capture(cx, &session, params, false, done);
        }
        Area::FullPage => {
            // Without a clip, capturing beyond the viewport takes the whole document.
            params.capture_beyond_viewport = Some(true);
            send_capture(cx, &session, params, true, done);
        }
        Area::Element(uid) => element_clip(
            cx,
            page,
            uid,
            Box::new(move |cx, r| match r {
                Ok(clip) => {
                    params.clip = Some(clip);
                    params.capture_beyond_viewport = Some(true);
                    send_capture(cx, &session, params, false, done);
                }
                Err(e) => done(cx, Err(e)),
            }),
        ),
    }
}

/// Captures, within the `--screenshotMax*` bounds.
fn send_capture(
    cx: &mut Ctx,
    session: &str,
    params: cdp_page::CaptureScreenshotParams,
    full_page: bool,
    done: Done<String>,
) {
    let owned = session.to_owned();
    bounds::apply(
        cx,
        session,
        params,
        full_page,
        Box::new(move |cx, r| match r {
            Ok(params) => send_bounded(cx, &owned, params, done),
            Err(e) => done(cx, Err(e)),
        }),
    );
}

fn send_bounded(
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

fn answer(cx: &mut Ctx, call: CallId, page: PageId, shot: Shot, line: String, data: String) {
    let mut resp = Response::for_page(page);
    resp.line(line);
    let ext = shot.format.name();
    let roots = Roots::of(cx);
    let saved = match shot.file_path {
        Some(path) => {
            Some(decode_base64(&data).and_then(|bytes| files::save(&roots, &path, ext, &bytes)))
        }
        None if decoded_len(&data) >= INLINE_LIMIT => {
            Some(decode_base64(&data).and_then(|bytes| files::save_temp(&roots, ext, &bytes)))
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
