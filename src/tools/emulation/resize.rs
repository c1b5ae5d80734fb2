//! `resize_page`: sizes the page's window so that the page itself gets the size asked for.

use crate::tools::args::Schema;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::browser::{self, pages, PageId};
use crate::cdp::generated::browser::{
    Bounds, GetWindowForTargetParams, SetContentsSizeParams, SetWindowBoundsParams, WindowID,
    WindowState,
};
use crate::cdp::generated::runtime;
use crate::error::{Error, Fault};
use crate::settings::Category;
use crate::tools::args::Shared;
use crate::tools::dialogs::{unless_dialog, Work};
use crate::tools::response::{finish, Response};
use crate::tools::{call, fail, CallId, Ctx, Tool};

pub const RESIZE_PAGE: Tool = Tool {
    name: "resize_page",
    description: "Resize the page's viewport (innerWidth × innerHeight) in CSS pixels.",
    args: Schema {
        properties: || {
            json!({
                "width": {"type": "integer", "minimum": 1, "maximum": MAX_SIDE},
                "height": {"type": "integer", "minimum": 1, "maximum": MAX_SIDE},
            })
        },
        required: &["width", "height"],
    },
    read_only: false,
    page_scoped: true,
    category: Category::Emulation,
    run: resize_page,
};

/// The largest page side in CSS pixels: what one GPU texture can hold.
const MAX_SIDE: u32 = 16384;
/// The largest page area in CSS pixels. Chromium takes a 16384x16384 page, but then no
/// screenshot of it finishes; one of this size takes a few seconds.
const MAX_AREA: i64 = 8192 * 8192;

#[derive(Deserialize)]
struct ResizeArgs {
    #[serde(flatten)]
    shared: Shared,
    // Numbers, not integers: the schema's integers may arrive written as `800.0`.
    width: f64,
    height: f64,
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
    let Some(args) = crate::tools::call::args::<ResizeArgs>(cx, call, args) else {
        return;
    };
    let size = Size {
        width: args.width.round() as i64,
        height: args.height.round() as i64,
    };
    if size.width * size.height > MAX_AREA {
        let (w, h) = (size.width, size.height);
        let text = format!("A page of {w}x{h} CSS pixels is too large: width times height may be at most {MAX_AREA} (8192x8192).");
        return fail(cx, call, Error::Invalid(text));
    }
    call::on_page(cx, call, args.shared.page(), move |cx, page| {
        let Some(target) = cx.browser.pages.get(page).map(|p| p.target_id.clone()) else {
            return fail(cx, call, pages::no_such_page(page));
        };
        let params = GetWindowForTargetParams {
            target_id: Some(target),
        };
        browser::send(cx, None, params, move |cx, r| {
            let window = match r {
                Ok(w) => w,
                Err(e) => return fail(cx, call, e),
            };
            make_normal(cx, window.window_id, window.bounds.window_state);
            set_contents_size(cx, call, page, window.window_id, size);
        });
    });
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

fn set_contents_size(cx: &mut Ctx, call: CallId, page: PageId, window: WindowID, size: Size) {
    let params = SetContentsSizeParams {
        window_id: window,
        width: Some(size.width),
        height: Some(size.height),
    };
    browser::send(cx, None, params, move |cx, r| match r {
        Ok(_) => settle(cx, call, page, size),
        // Browsers before Browser.setContentsSize: size the window by the page's
        // surroundings (window chrome) instead.
        Err(Error::Cdp {
            fault: Fault::UnknownMethod,
            ..
        }) => resize_window(cx, call, page, window, size),
        Err(e) => fail(cx, call, e),
    });
}

fn resize_window(cx: &mut Ctx, call: CallId, page: PageId, window: WindowID, size: Size) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    let expression = "[outerWidth - innerWidth, outerHeight - innerHeight]";
    unless_dialog(
        cx,
        &session.clone(),
        RESIZE_SETTLE,
        "The page did not answer while resizing its window.".into(),
        evaluate(session, expression.into(), false),
        Box::new(move |cx, r: Result<runtime::EvaluateReturns, Error>| {
            let extra = match r {
                Ok(v) => v.result.value.unwrap_or_default(),
                Err(e) => return fail(cx, call, e),
            };
            let dx = extra[0].as_i64().unwrap_or(0);
            let dy = extra[1].as_i64().unwrap_or(0);
            let params = SetWindowBoundsParams {
                window_id: window,
                bounds: Bounds {
                    width: Some(size.width + dx),
                    height: Some(size.height + dy),
                    ..Default::default()
                },
            };
            browser::send(cx, None, params, move |cx, r| match r {
                Ok(_) => settle(cx, call, page, size),
                Err(e) => fail(cx, call, e),
            });
        }),
    );
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

/// The window changed size; the page hears of it a moment later. Waits (briefly) until the
/// page sees the new size, so the next call measures the page as resized. Skipped when an
/// emulated viewport hides the window's size, or a dialog keeps the page from answering.
fn settle(cx: &mut Ctx, call: CallId, page: PageId, size: Size) {
    let answer = move |cx: &mut Ctx| {
        let resp = Response {
            include_pages: true,
            ..Response::for_page(page)
        };
        finish(cx, call, resp);
    };
    let Some(p) = cx.browser.pages.get(page) else {
        return fail(cx, call, pages::no_such_page(page));
    };
    let emulated = cx.emulation.get(page).is_some_and(|e| e.viewport.is_some());
    if p.dialog.is_some() || emulated {
        return answer(cx);
    }
    let session = p.session.clone();
    let (width, height) = (size.width, size.height);
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
        Box::new(move |cx, _r: Result<runtime::EvaluateReturns, Error>| answer(cx)),
    );
}
