//! `take_screenshot`: the viewport, the whole page or one element, as an image in the answer
//! or written to a file. A call is a [`TakeScreenshot`]; the capture itself, which `--slim`'s
//! `screenshot` shares, a [`Capture`].
//!
//! A page with an open dialog cannot paint, so a capture would wait for as long as the dialog
//! stays; the call refuses at once when a dialog is open and gives up as soon as one opens.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::browser::{pages, Flow, PageId};
use crate::cdp::generated::page as cdp_page;
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::base64::{decode_base64, decoded_len};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::dialogs::{self, unless_dialog};
use crate::tools::files::Roots;
use crate::tools::response::{finish, Response};
use crate::tools::tool::Tool;

mod bounds;
mod capture;
mod clip;
mod files;

use capture::Capture;

pub(super) const TOOLS: &[Tool] = &[Tool {
    name: "take_screenshot",
    description: "Screenshot the viewport, the full page or an element; returns the image, or saves it to filePath. To read a page, take_snapshot is cheaper.",
    args: args::schema::<ScreenshotArgs>(),
    read_only: false,
    category: Category::Debugging,
    run: take_screenshot,
}];

tool_args! {
    struct ScreenshotArgs {
        "format" format: Option<Format> = {
            "type": "string", "enum": ["png", "jpeg", "webp"], "default": "png",
        },
        "quality" quality: Option<f64> = {
            "type": "number", "minimum": 0, "maximum": 100,
            "description": "jpeg/webp only",
        },
        "uid" uid: Option<String> = {
            "type": "string", "maxLength": max::UID,
            "description": "Only this element",
        },
        "fullPage" full_page: Option<bool> = {
            "type": "boolean",
        },
        "filePath" file_path: Option<String> = {
            "type": "string", "maxLength": max::PATH,
        },
        "pageId" page: Option<PageId> = (args::page_id()),
    }
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

fn take_screenshot(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<ScreenshotArgs>(cx, call, args) else {
        return;
    };
    // --screenshotFormat / --screenshotQuality when the call names none.
    let defaults = &cx.settings.policies.screenshot;
    let format = args.format.unwrap_or(match defaults.format.as_deref() {
        Some("jpeg") => Format::Jpeg,
        Some("webp") => Format::Webp,
        _ => Format::Png,
    });
    let quality = args.quality.or(defaults.quality.map(f64::from));
    let shot = TakeScreenshot {
        call,
        quality: quality.filter(|_| format != Format::Png),
        format,
        uid: args.uid,
        full_page: args.full_page.unwrap_or(false),
        file_path: args.file_path,
        page: PageId::NONE,
        line: String::new(),
    };
    call::page(cx, call, args.page, shot.then(Step::Page));
}

/// A `take_screenshot` call: the page, the capture (unless a dialog is open or opens), and
/// the image attached to the answer or written to a file.
struct TakeScreenshot {
    call: CallId,
    format: Format,
    /// jpeg and webp only.
    quality: Option<f64>,
    /// The element to capture.
    uid: Option<String>,
    /// Capture the whole document.
    full_page: bool,
    /// Write the image here instead of answering with it.
    file_path: Option<String>,
    /// The page, once found.
    page: PageId,
    /// The answer's first line, saying what was captured.
    line: String,
}

enum Step {
    /// The page the call works on (the browser started, a page opened if there was none).
    Page(Result<PageId, Error>),
    /// The image, base64-encoded as the browser sent it.
    Captured(Result<String, Error>),
}

impl Flow<Ctx> for TakeScreenshot {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Page(Ok(page)) => self.capture(cx, page),
            Step::Captured(Ok(data)) => self.reply(cx, data),
            Step::Page(Err(e)) | Step::Captured(Err(e)) => call::fail(cx, self.call, e),
        }
    }
}

impl TakeScreenshot {
    fn capture(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        if let Some(message) = dialogs::blocked(cx, page) {
            return call::fail(cx, self.call, message);
        }
        let area = match (self.uid.take(), self.full_page) {
            (Some(_), true) => {
                let both = "Providing both \"uid\" and \"fullPage\" is not allowed.";
                return call::fail(cx, self.call, both);
            }
            (Some(uid), false) => Area::Element(uid),
            (None, true) => Area::FullPage,
            (None, false) => Area::Viewport,
        };
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return call::fail(cx, self.call, e),
        };
        self.line = area.line();
        let (format, quality) = (self.format, self.quality);
        unless_dialog(
            cx,
            &session.clone(),
            CAPTURE_TIMEOUT,
            not_painting(),
            Box::new(move |cx, done| {
                Capture::new(page, session, area, format, quality, done).start(cx)
            }),
            self.then(Step::Captured),
        );
    }

    /// Writes the image where the call asked, or to a temporary file when it is too large to
    /// attach, or attaches it.
    fn reply(self, cx: &mut Ctx, data: String) {
        let mut resp = Response::for_page(self.page);
        resp.line(self.line);
        let ext = self.format.name();
        let roots = Roots::of(cx, self.call);
        let saved = match self.file_path {
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
            Some(Err(message)) => return call::fail(cx, self.call, message),
            None => resp.images.push(json!({
                "type": "image",
                "data": data,
                "mimeType": format!("image/{ext}"),
            })),
        }
        finish(cx, self.call, resp);
    }
}

fn not_painting() -> String {
    format!(
        "The screenshot was not taken within {} s: the page is not painting (is its main thread busy?).",
        CAPTURE_TIMEOUT.as_secs()
    )
}

/// `--slim`'s `screenshot`: the viewport as a PNG in a new temporary file, whose path `done`
/// gets. Refused while a dialog is open, as `take_screenshot` is.
pub(super) fn viewport_to_temp_file(cx: &mut Ctx, call: CallId, page: PageId, done: Done<PathBuf>) {
    if let Some(message) = dialogs::blocked(cx, page) {
        return done(cx, Err(Error::Page(message)));
    }
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return done(cx, Err(e)),
    };
    let format = Format::Png;
    let saved = move |cx: &mut Ctx, r: Result<String, Error>| {
        let roots = Roots::of(cx, call);
        let saved = r.and_then(|data| {
            decode_base64(&data)
                .and_then(|bytes| files::save_temp(&roots, format.name(), &bytes))
                .map_err(Error::Page)
        });
        done(cx, saved)
    };
    unless_dialog(
        cx,
        &session.clone(),
        CAPTURE_TIMEOUT,
        not_painting(),
        Box::new(move |cx, d| {
            Capture::new(page, session, Area::Viewport, format, None, d).start(cx)
        }),
        Box::new(saved),
    );
}
