//! Reaching a page: the page a call works on ([`with_page`]: the browser ready, the page
//! named or selected, a blank one opened when there is none), and new tabs ([`open`],
//! [`open_isolated`]: in the default browser context or in a named isolated one). Each is a
//! flow; a page counts as reached once it is attached and set up.

use super::host::{Done, Flow, Host};
use super::ids::PageId;
use super::pages::{no_such_page, when_ready};
use super::{fire, send_then};
use crate::cdp::generated::target;
use crate::error::Error;

/// Runs `done` with the page a call works on: `requested` (a `pageId` argument) or the
/// selected page, starting the browser and opening a page if there is none.
pub(crate) fn with_page<H: Host>(cx: &mut H, requested: Option<PageId>, done: Done<H, PageId>) {
    let find = FindPage { requested, done };
    super::ready(cx, find.then(Found::Ready));
}

/// Opens an about:blank tab and runs `done` when it is ready.
pub(crate) fn open_blank<H: Host>(cx: &mut H, done: Done<H, PageId>) {
    open(cx, false, done)
}

/// Opens a new about:blank tab (navigation is the caller's) and runs `done` when ready.
pub(crate) fn open<H: Host>(cx: &mut H, background: bool, done: Done<H, PageId>) {
    let tab = NewTab {
        background,
        name: None,
        done,
    };
    tab.create_target(cx, None)
}

/// Opens a new about:blank tab in the isolated context named `name` (cookies and storage
/// shared with its other pages only), creating the context on first use; without a name, in
/// the default context.
pub(crate) fn open_isolated<H: Host>(
    cx: &mut H,
    background: bool,
    name: Option<String>,
    done: Done<H, PageId>,
) {
    let Some(name) = name else {
        return open(cx, background, done);
    };
    let contexts = &cx.browser().pages.contexts;
    let known = contexts
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, id)| id.clone());
    let tab = NewTab {
        background,
        name: Some(name),
        done,
    };
    match known {
        Some(context) => tab.create_target(cx, Some(context)),
        None => {
            let params = target::CreateBrowserContextParams::default();
            send_then(cx, None, params, tab, |r| {
                Opened::Context(r.map(|c| c.browser_context_id))
            });
        }
    }
}

/// Finding the page a call works on.
struct FindPage<H> {
    requested: Option<PageId>,
    done: Done<H, PageId>,
}

enum Found {
    /// The browser is up (started if it was not).
    Ready(Result<(), Error>),
}

impl<H: Host> Flow<H> for FindPage<H> {
    type Step = Found;

    fn next(self, cx: &mut H, step: Found) {
        let Found::Ready(ready) = step;
        if let Err(e) = ready {
            return (self.done)(cx, Err(e));
        }
        let pages = &cx.browser().pages;
        let id = match self.requested {
            Some(id) => match pages.get(id) {
                Some(_) => id,
                None => return (self.done)(cx, Err(no_such_page(id))),
            },
            None => match pages.selected.or_else(|| pages.iter().next().map(|p| p.id)) {
                Some(id) => id,
                None => return open_blank(cx, self.done),
            },
        };
        let Some(page) = cx.browser().pages.get(id) else {
            return (self.done)(cx, Err(no_such_page(id)));
        };
        if page.initialized {
            (self.done)(cx, Ok(id))
        } else {
            let target = page.target_id.clone();
            when_ready(cx, target, self.done)
        }
    }
}

/// A new tab being opened.
struct NewTab<H> {
    background: bool,
    /// The isolated context's name, when it is opened in one.
    name: Option<String>,
    done: Done<H, PageId>,
}

enum Opened {
    /// The browser made a context for the name.
    Context(Result<String, Error>),
    /// The browser made the tab's target.
    Target(Result<String, Error>),
}

impl<H: Host> Flow<H> for NewTab<H> {
    type Step = Opened;

    fn next(self, cx: &mut H, step: Opened) {
        match step {
            Opened::Context(Ok(made)) => {
                let context = keep_context(cx, self.name.clone().unwrap_or_default(), made);
                self.create_target(cx, Some(context))
            }
            Opened::Target(Ok(target)) => when_ready(cx, target, self.done),
            Opened::Context(Err(e)) | Opened::Target(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

impl<H: Host> NewTab<H> {
    /// Opens the tab, an about:blank target, in `context` (or the default one).
    fn create_target(self, cx: &mut H, context: Option<String>) {
        let params = target::CreateTargetParams {
            url: "about:blank".into(),
            background: Some(self.background),
            browser_context_id: context,
            ..Default::default()
        };
        send_then(cx, None, params, self, |r| {
            Opened::Target(r.map(|c| c.target_id))
        });
    }
}

/// Records the context made for `name` and returns the one its pages go to. Two calls that
/// name the same new context may both be creating it at once: the first answer wins, and the
/// later context is disposed, so that the name's pages share one context (its cookies).
fn keep_context<H: Host>(cx: &mut H, name: String, made: String) -> String {
    let contexts = &mut cx.browser().pages.contexts;
    if let Some((_, id)) = contexts.iter().find(|(n, _)| *n == name) {
        let id = id.clone();
        let params = target::DisposeBrowserContextParams {
            browser_context_id: made,
        };
        fire(cx, None, params);
        return id;
    }
    contexts.push((name, made.clone()));
    made
}
