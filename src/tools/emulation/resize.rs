//! `resize_page`: sizes the page's window so that the page itself gets the size asked for.
//! A call is a [`Resize`], whose `next` tells its story.

use std::time::Duration;

use serde_json::Value;

use crate::browser::{self, pages, Flow, PageId};
use crate::cdp::generated::browser::{
    Bounds, GetWindowForTargetParams, GetWindowForTargetReturns, SetContentsSizeParams,
    SetContentsSizeReturns, SetWindowBoundsParams, SetWindowBoundsReturns, WindowID, WindowState,
};
use crate::cdp::generated::runtime;
use crate::error::{Error, Fault};
use crate::settings::Category;
use crate::tools::args::{self, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::dialogs::{unless_dialog, Work};
use crate::tools::response::{finish, Response};
use crate::tools::tool::Tool;

pub(super) const RESIZE_PAGE: Tool = Tool {
    name: "resize_page",
    description: "Resize the page's viewport (innerWidth × innerHeight) in CSS pixels.",
    args: args::schema::<ResizeArgs>(),
    read_only: false,
    category: Category::Emulation,
    run: resize_page,
};

/// The largest page side in CSS pixels: what one GPU texture can hold.
const MAX_SIDE: u32 = 16384;
/// The largest page area in CSS pixels. Chromium takes a 16384x16384 page, but then no
/// screenshot of it finishes; one of this size takes a few seconds.
const MAX_AREA: i64 = 8192 * 8192;

tool_args! {
    struct ResizeArgs {
        // Numbers, not integers: the schema's integers may arrive written as `800.0`.
        "width" width: f64 = {"type": "integer", "minimum": 1, "maximum": MAX_SIDE},
        "height" height: f64 = {"type": "integer", "minimum": 1, "maximum": MAX_SIDE},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

/// The page's size in CSS pixels.
#[derive(Clone, Copy)]
struct Size {
    width: i64,
    height: i64,
}

/// How long the page may take to see its new size before the answer goes out anyway.
const RESIZE_SETTLE: Duration = Duration::from_secs(1);

fn resize_page(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<ResizeArgs>(cx, call, args) else {
        return;
    };
    let size = Size {
        width: args.width.round() as i64,
        height: args.height.round() as i64,
    };
    if size.width * size.height > MAX_AREA {
        let (w, h) = (size.width, size.height);
        let text = format!("A page of {w}x{h} CSS pixels is too large: width times height may be at most {MAX_AREA} (8192x8192).");
        return call::fail(cx, call, Error::Invalid(text));
    }
    let resize = Resize {
        call,
        size,
        page: PageId::NONE,
        window: 0,
    };
    call::page(cx, call, args.page, resize.then(ResizeStep::Page));
}

/// A `resize_page` call: the page's window found and made a normal one, the page's contents
/// sized (or, on older browsers, the window sized around them), then a brief wait for the page
/// to see its new size.
struct Resize {
    call: CallId,
    size: Size,
    /// The page, once found.
    page: PageId,
    /// Its browser window, once found.
    window: WindowID,
}

enum ResizeStep {
    /// The page the call works on (the browser started, a page opened if there was none).
    Page(Result<PageId, Error>),
    /// The browser window that shows the page, and its state.
    Window(Result<GetWindowForTargetReturns, Error>),
    /// The page's contents have the new size (or the browser cannot size them).
    ContentsSized(Result<SetContentsSizeReturns, Error>),
    /// What the window adds around the page on each axis (its chrome): `[width, height]`.
    Surroundings(Result<Value, Error>),
    /// The window is sized to hold the page at the new size.
    WindowSized(Result<SetWindowBoundsReturns, Error>),
    /// The page sees its new size, or the wait for it is over.
    Settled,
}

impl Flow<Ctx> for Resize {
    type Step = ResizeStep;

    fn next(self, cx: &mut Ctx, step: ResizeStep) {
        match step {
            ResizeStep::Page(Ok(page)) => self.find_window(cx, page),
            ResizeStep::Window(Ok(window)) => self.size_contents(cx, window),
            ResizeStep::ContentsSized(Ok(_)) | ResizeStep::WindowSized(Ok(_)) => self.settle(cx),
            // Browsers before Browser.setContentsSize: size the window by the page's
            // surroundings (window chrome) instead.
            ResizeStep::ContentsSized(Err(Error::Cdp {
                fault: Fault::UnknownMethod,
                ..
            })) => self.measure_surroundings(cx),
            ResizeStep::Surroundings(Ok(extra)) => self.size_window(cx, extra),
            ResizeStep::Settled => self.reply(cx),
            ResizeStep::Page(Err(e))
            | ResizeStep::Window(Err(e))
            | ResizeStep::ContentsSized(Err(e))
            | ResizeStep::Surroundings(Err(e))
            | ResizeStep::WindowSized(Err(e)) => call::fail(cx, self.call, e),
        }
    }
}

impl Resize {
    fn find_window(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        let Some(target) = cx.browser.pages.get(page).map(|p| p.target_id.clone()) else {
            return call::fail(cx, self.call, pages::no_such_page(page));
        };
        let params = GetWindowForTargetParams {
            target_id: Some(target),
        };
        browser::send(cx, None, params, self.then(ResizeStep::Window));
    }

    fn size_contents(mut self, cx: &mut Ctx, window: GetWindowForTargetReturns) {
        self.window = window.window_id;
        make_normal(cx, self.window, window.bounds.window_state);
        let params = SetContentsSizeParams {
            window_id: self.window,
            width: Some(self.size.width),
            height: Some(self.size.height),
        };
        browser::send(cx, None, params, self.then(ResizeStep::ContentsSized));
    }

    fn measure_surroundings(self, cx: &mut Ctx) {
        let session = match pages::session_of(&cx.browser.pages, self.page) {
            Ok(s) => s,
            Err(e) => return call::fail(cx, self.call, e),
        };
        let expression = "[outerWidth - innerWidth, outerHeight - innerHeight]";
        unless_dialog(
            cx,
            &session.clone(),
            RESIZE_SETTLE,
            "The page did not answer while resizing its window.".into(),
            evaluate(session, expression.into(), false),
            self.then(|r: Result<runtime::EvaluateReturns, Error>| {
                ResizeStep::Surroundings(r.map(|v| v.result.value.unwrap_or_default()))
            }),
        );
    }

    fn size_window(self, cx: &mut Ctx, extra: Value) {
        let dx = extra[0].as_i64().unwrap_or(0);
        let dy = extra[1].as_i64().unwrap_or(0);
        let params = SetWindowBoundsParams {
            window_id: self.window,
            bounds: Bounds {
                width: Some(self.size.width + dx),
                height: Some(self.size.height + dy),
                ..Default::default()
            },
        };
        browser::send(cx, None, params, self.then(ResizeStep::WindowSized));
    }

    /// The window changed size; the page hears of it a moment later. Waits (briefly) until
    /// the page sees the new size, so the next call measures the page as resized. Skipped
    /// when an emulated viewport hides the window's size, or a dialog keeps the page from
    /// answering.
    fn settle(self, cx: &mut Ctx) {
        let Some(p) = cx.browser.pages.get(self.page) else {
            return call::fail(cx, self.call, pages::no_such_page(self.page));
        };
        let emulated = (cx.emulation.get(self.page)).is_some_and(|e| e.viewport.is_some());
        if p.dialog.is_some() || emulated {
            return self.reply(cx);
        }
        let session = p.session.clone();
        let Size { width, height } = self.size;
        let ms = RESIZE_SETTLE.as_millis();
        let expression = format!(
            "new Promise(resolve => {{
  const ok = () => innerWidth === {width} && innerHeight === {height};
  if (ok()) return resolve(true);
  const timer = setTimeout(() => {{ removeEventListener('resize', check); resolve(false); }}, {ms});
  function check() {{ if (ok()) {{ clearTimeout(timer); removeEventListener('resize', check); resolve(true); }} }}
  addEventListener('resize', check);
}})"
        );
        unless_dialog(
            cx,
            &session.clone(),
            RESIZE_SETTLE + Duration::from_millis(500),
            String::new(),
            evaluate(session, expression, true),
            // Whatever the page said (or did not), the window has its new size.
            self.then(|_: Result<runtime::EvaluateReturns, Error>| ResizeStep::Settled),
        );
    }

    fn reply(self, cx: &mut Ctx) {
        let resp = Response {
            include_pages: true,
            ..Response::for_page(self.page)
        };
        finish(cx, self.call, resp);
    }
}

/// A maximised, minimised or fullscreen window ignores a new size: makes it a normal one.
fn make_normal(cx: &mut Ctx, window: WindowID, state: Option<WindowState>) {
    let state = state.unwrap_or(WindowState::Normal);
    if state == WindowState::Normal {
        return;
    }
    let normal = SetWindowBoundsParams {
        window_id: window,
        bounds: Bounds {
            window_state: Some(WindowState::Normal),
            ..Default::default()
        },
    };
    browser::fire(cx, None, normal.clone());
    if state == WindowState::Fullscreen {
        // Leaving fullscreen can take two steps on some window managers.
        browser::fire(cx, None, normal);
    }
}

/// `expression` evaluated in the page, its result returned by value.
fn evaluate(
    session: String,
    expression: String,
    await_promise: bool,
) -> Work<runtime::EvaluateReturns> {
    Box::new(move |cx, done| {
        let params = runtime::EvaluateParams {
            expression,
            return_by_value: Some(true),
            await_promise: await_promise.then_some(true),
            ..Default::default()
        };
        browser::send(cx, Some(&session), params, done);
    })
}
