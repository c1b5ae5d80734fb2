//! `emulate` and `resize_page`: what a page pretends to be (viewport, media features, network,
//! CPU, position, user agent, extra headers) and the size of its window.
//!
//! Emulation is set with CDP on the page's own session, and Chromium keeps it for that session
//! across navigations, so nothing has to be re-applied after a load. [`State`] remembers what
//! is set, because every answer about the page says so ([`lines`]) and the navigation timeout
//! grows with the throttling ([`navigation_timeout`]).

use crate::tools::args::Schema;
use std::time::Duration;

use serde_json::{json, Value};

use crate::browser::{navigation, pages, PageId};
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::max;
use crate::tools::dialogs::{self, unless_dialog};
use crate::tools::response::{finish, Response};
use crate::tools::{call, fail, CallId, Ctx, Tool};

mod args;
mod commands;
mod resize;
pub(crate) mod state;

use args::{settings, EmulateArgs};
use commands::{commands, send_all};
use state::navigation_timeout;
pub use state::{lines, structured, State};

pub const TOOLS: &[Tool] = &[EMULATE, resize::RESIZE_PAGE];

const EMULATE: Tool = Tool {
    name: "emulate",
    description: "Emulate device conditions on the page. Each call replaces every setting (omitted ones reset, except extraHttpHeaders); they persist across navigations.",
    args: Schema {
        properties: || {
        json!({
            "networkConditions": {
                "type": "string",
                "enum": ["Offline", "Slow 3G", "Fast 3G", "Slow 4G", "Fast 4G"],
            },
            "cpuThrottlingRate": {
                "type": "number", "minimum": 1, "maximum": 20,
                "description": "Slowdown factor",
            },
            "geolocation": {
                "type": "string", "maxLength": max::NAME,
                "description": "\"<latitude>,<longitude>\"",
            },
            "userAgent": {
                "type": "string", "maxLength": max::URL,
            },
            "colorScheme": {
                "type": "string", "enum": ["dark", "light", "auto"],
            },
            "forcedColors": {
                "type": "string", "enum": ["active", "none", "auto"],
            },
            "prefersContrast": {
                "type": "string", "enum": ["more", "less", "custom", "no-preference", "auto"],
            },
            "prefersReducedMotion": {
                "type": "string", "enum": ["reduce", "no-preference", "auto"],
            },
            "viewport": {
                "type": "string", "maxLength": max::NAME,
                "description": "\"<width>x<height>x<dpr>[,mobile][,touch][,landscape]\"",
            },
            "extraHttpHeaders": {
                "type": "string", "maxLength": max::URL,
                "description": "JSON object text; \"\" clears",
            },
        })
    },
        required: &[],
    },
    read_only: false,
    page_scoped: true,
    category: Category::Emulation,
    run: emulate,
};

/// How long the emulation commands may take before the call gives up (they only stall when
/// the page's main thread does).
const EMULATE_TIMEOUT: Duration = Duration::from_secs(10);

fn emulate(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<EmulateArgs>(cx, call, args) else {
        return;
    };
    // Bad arguments are reported before anything else, as the reference's schema does.
    let (mut next, headers) = match settings(&args) {
        Ok(s) => s,
        Err(message) => return fail(cx, call, message),
    };
    call::on_page(cx, call, args.shared.page(), move |cx, page| {
        if let Some(message) = dialogs::blocked(cx, page) {
            return fail(cx, call, message);
        }
        let (session, previous) = match cx.browser.pages.get(page) {
            Some(p) => (p.session.clone(), cx.emulation.entry(page).clone()),
            None => return fail(cx, call, pages::no_such_page(page)),
        };
        next.extra_headers = match &headers {
            Some(h) if h.is_empty() => None,
            Some(h) => Some(h.clone()),
            None => previous.extra_headers.clone(),
        };
        let commands = commands(&previous, &next, headers.as_ref(), &session);
        let reload = needs_reload(&previous, &next);
        unless_dialog(
            cx,
            &session,
            EMULATE_TIMEOUT,
            "Applying the emulation settings timed out (is the page busy?).".into(),
            Box::new(move |cx, done| send_all(cx, commands, done)),
            Box::new(move |cx, r: Result<(), Error>| match r {
                Ok(()) => applied(cx, call, page, next, reload),
                Err(e) => fail(cx, call, e),
            }),
        );
    });
}

/// The browser took the new settings: remembers them and answers, after reloading the page
/// when its document has to start over to see them.
fn applied(cx: &mut Ctx, call: CallId, page: PageId, next: State, reload: bool) {
    let timeout = navigation_timeout(&next);
    if cx.browser.pages.get(page).is_some() {
        *cx.emulation.entry(page) = next;
    }
    let answer = move |cx: &mut Ctx, r: Result<(), Error>| match r {
        Err(e) => fail(cx, call, e),
        Ok(()) => {
            let mut resp = Response::for_page(page);
            resp.line("Emulation configured successfully");
            finish(cx, call, resp)
        }
    };
    if reload {
        // Touch support and mobile layout are decided when a document starts;
        // the document that is there keeps the old ones until reloaded.
        navigation::reload(cx, page, false, timeout, Box::new(answer));
    } else {
        answer(cx, Ok(()));
    }
}

fn needs_reload(previous: &State, next: &State) -> bool {
    let flags = |s: &State| {
        s.viewport
            .as_ref()
            .map_or((false, false), |v| (v.mobile, v.touch))
    };
    flags(previous) != flags(next)
}
