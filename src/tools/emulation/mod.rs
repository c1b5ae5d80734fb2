//! `emulate` and `resize_page`: what a page pretends to be (viewport, media features, network,
//! CPU, position, user agent, extra headers) and the size of its window.
//!
//! Emulation is set with CDP on the page's own session, and Chromium keeps it for that session
//! across navigations, so nothing has to be re-applied after a load. [`State`] remembers what
//! is set, because every answer about the page says so ([`lines`]) and the navigation timeout
//! grows with the throttling ([`navigation_timeout`]). An `emulate` call is an [`Emulation`],
//! whose `next` tells its story.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::browser::{navigation, pages, Flow, PageId};
use crate::error::Error;
use crate::settings::Category;
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::dialogs::{self, unless_dialog};
use crate::tools::response::{finish, Response};
use crate::tools::tool::Tool;

mod args;
mod commands;
mod resize;
pub(super) mod state;

use args::{settings, EmulateArgs};
use commands::{commands, send_all};
use state::navigation_timeout;
// What every answer about a page says of its emulation.
pub(super) use state::{lines, structured, State};

pub(super) const TOOLS: &[Tool] = &[EMULATE, resize::RESIZE_PAGE];

const EMULATE: Tool = Tool {
    name: "emulate",
    description: "Emulate device conditions on the page. Each call replaces every setting (omitted ones reset, except extraHttpHeaders); they persist across navigations.",
    args: crate::tools::args::schema::<EmulateArgs>(),
    read_only: false,
    category: Category::Emulation,
    run: emulate,
};

/// How long the emulation commands may take before the call gives up (they only stall when
/// the page's main thread does).
const EMULATE_TIMEOUT: Duration = Duration::from_secs(10);

fn emulate(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<EmulateArgs>(cx, call, args) else {
        return;
    };
    // Bad arguments are reported before anything else, as the reference's schema does.
    let (next, headers) = match settings(&args) {
        Ok(s) => s,
        Err(message) => return call::fail(cx, call, message),
    };
    let emulation = Emulation {
        call,
        next,
        headers,
        page: PageId::NONE,
        reload: false,
    };
    call::page(cx, call, args.page, emulation.then(EmulateStep::Page));
}

/// An `emulate` call: the commands that take the page from what it emulates to what the call
/// asks, sent at once unless a dialog opens, then a reload when the document must start over
/// to see them.
struct Emulation {
    call: CallId,
    /// The settings to apply.
    next: State,
    /// The extra headers the call gives: `None` keeps the page's, an empty map removes them.
    headers: Option<Map<String, Value>>,
    /// The page, once found.
    page: PageId,
    /// Whether the page must reload to see the new settings.
    reload: bool,
}

enum EmulateStep {
    /// The page the call works on (the browser started, a page opened if there was none).
    Page(Result<PageId, Error>),
    /// The browser took every command (or one failed, or a dialog opened first).
    Applied(Result<(), Error>),
    /// The page reloaded, with its load.
    Reloaded(Result<(), Error>),
}

impl Flow<Ctx> for Emulation {
    type Step = EmulateStep;

    fn next(self, cx: &mut Ctx, step: EmulateStep) {
        match step {
            EmulateStep::Page(Ok(page)) => self.apply(cx, page),
            EmulateStep::Applied(Ok(())) => self.applied(cx),
            EmulateStep::Reloaded(Ok(())) => self.reply(cx),
            EmulateStep::Page(Err(e))
            | EmulateStep::Applied(Err(e))
            | EmulateStep::Reloaded(Err(e)) => call::fail(cx, self.call, e),
        }
    }
}

impl Emulation {
    /// Sends the commands from the page's present settings to the new ones, unless a dialog
    /// is open (or opens while they run).
    fn apply(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        if let Some(message) = dialogs::blocked(cx, page) {
            return call::fail(cx, self.call, message);
        }
        let pages = &cx.browser.pages;
        let (session, context) = match pages.get(page) {
            Some(p) => (p.session.clone(), pages.made_context(p)),
            None => return call::fail(cx, self.call, pages::no_such_page(page)),
        };
        let previous = cx.emulation.entry(page).clone();
        self.next.extra_headers = match &self.headers {
            Some(h) if h.is_empty() => None,
            Some(h) => Some(h.clone()),
            None => previous.extra_headers.clone(),
        };
        let target = commands::Target {
            session: &session,
            context,
        };
        let commands = commands(&previous, &self.next, self.headers.as_ref(), target);
        self.reload = needs_reload(&previous, &self.next);
        unless_dialog(
            cx,
            &session,
            EMULATE_TIMEOUT,
            "Applying the emulation settings timed out (is the page busy?).".into(),
            Box::new(move |cx, done| send_all(cx, commands, done)),
            self.then(EmulateStep::Applied),
        );
    }

    /// The browser took the new settings: remembers them, and reloads the page when its
    /// document has to start over to see them.
    fn applied(mut self, cx: &mut Ctx) {
        let timeout = navigation_timeout(&self.next);
        if cx.browser.pages.get(self.page).is_some() {
            *cx.emulation.entry(self.page) = std::mem::take(&mut self.next);
        }
        if !self.reload {
            return self.reply(cx);
        }
        // Touch support and mobile layout are decided when a document starts; the document
        // that is there keeps the old ones until reloaded.
        let page = self.page;
        navigation::reload(cx, page, false, timeout, self.then(EmulateStep::Reloaded));
    }

    fn reply(self, cx: &mut Ctx) {
        let mut resp = Response::for_page(self.page);
        resp.line("Emulation configured successfully");
        finish(cx, self.call, resp)
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
