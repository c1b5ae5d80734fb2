//! Tabs and the pages in them. The browser hands out and asks for *tab* targets in a few
//! places (an extension's action runs on a tab; an installed app launches into a new tab),
//! while the server attaches to *page* targets, and nothing in a target's info links the two.
//! The link is found the way a client attached in tab mode sees it: attach to the tab, have
//! it auto-attach its page, read that page's target id, detach again. Our page sessions are
//! untouched by this; the extra page session goes with the tab's.

use std::time::Duration;

use super::host::{Done, Flow, Host};
use super::{fire, send_then, waiters};
use crate::cdp::generated::target;
use crate::error::Error;

/// How long a tab may take to name the page in it: it attaches that page at once, so this
/// only bounds a tab that closes meanwhile.
const CHILD_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs `done` with the target id of the page in the tab target `tab`.
pub(crate) fn page_in_tab<H: Host>(cx: &mut H, tab: String, done: Done<H, String>) {
    let attach = target::AttachToTargetParams {
        target_id: tab,
        flatten: Some(true),
    };
    let lookup = PageInTab {
        session: String::new(),
        done,
    };
    send_then(cx, None, attach, lookup, |r| {
        Child::Attached(r.map(|a| a.session_id))
    });
}

/// Runs `done` with the tab target that holds the page target `page` (in the browser
/// context `context`, when known).
pub(crate) fn tab_of_page<H: Host>(
    cx: &mut H,
    page: String,
    url: String,
    context: Option<String>,
    done: Done<H, String>,
) {
    let tabs = target::GetTargetsParams {
        filter: Some(vec![target::FilterEntry {
            r#type: Some("tab".into()),
            exclude: None,
        }]),
    };
    let lookup = TabOfPage {
        page,
        url,
        context,
        candidates: Vec::new(),
        done,
    };
    send_then(cx, None, tabs, lookup, |r| {
        Tab::Listed(r.map(|t| t.target_infos))
    });
}

/// One tab asked for its page.
struct PageInTab<H> {
    /// The tab's session, once attached (detached again before `done` runs).
    session: String,
    done: Done<H, String>,
}

enum Child {
    /// Attached to the tab: its session.
    Attached(Result<String, Error>),
    /// The tab attached its page (on the tab's session): the page's target id.
    Page(Result<String, Error>),
}

impl<H: Host> Flow<H> for PageInTab<H> {
    type Step = Child;

    fn next(mut self, cx: &mut H, step: Child) {
        match step {
            Child::Attached(Ok(session)) => {
                self.session = session.clone();
                // The page is attached (and announced on the tab's session) before the
                // browser answers the command that asks for it: wait first, then ask.
                let wanted = |e: &target::AttachedToTargetEvent| e.target_info.r#type == "page";
                let message = "The tab did not name its page.".to_owned();
                let page = self.then(|r: Result<target::AttachedToTargetEvent, Error>| {
                    Child::Page(r.map(|e| e.target_info.target_id))
                });
                waiters::wait(cx, &session, wanted, CHILD_TIMEOUT, message, page);
                let children = target::SetAutoAttachParams {
                    auto_attach: true,
                    wait_for_debugger_on_start: false,
                    flatten: Some(true),
                    ..Default::default()
                };
                fire(cx, Some(&session), children);
            }
            Child::Page(r) => {
                let detach = target::DetachFromTargetParams {
                    session_id: Some(self.session),
                    ..Default::default()
                };
                fire(cx, None, detach);
                (self.done)(cx, r)
            }
            Child::Attached(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

/// Finding the tab of a page: each tab of its context asked in turn, the tabs showing the
/// page's URL first (almost always the first asked is the one).
struct TabOfPage<H> {
    page: String,
    url: String,
    context: Option<String>,
    /// The tabs still to ask, the next last.
    candidates: Vec<String>,
    done: Done<H, String>,
}

enum Tab {
    /// The browser's tab targets.
    Listed(Result<Vec<target::TargetInfo>, Error>),
    /// The last candidate's page.
    Holds(Result<String, Error>),
}

impl<H: Host> Flow<H> for TabOfPage<H> {
    type Step = Tab;

    fn next(mut self, cx: &mut H, step: Tab) {
        match step {
            Tab::Listed(Ok(tabs)) => {
                let context = self.context.clone();
                let mut tabs: Vec<_> = tabs
                    .into_iter()
                    .filter(|t| context.is_none() || t.browser_context_id == context)
                    .collect();
                // Sorted so that the ones on the page's URL are asked first (popped last).
                tabs.sort_by_key(|t| t.url == self.url);
                self.candidates = tabs.into_iter().map(|t| t.target_id).collect();
                self.ask_next(cx)
            }
            Tab::Holds(Ok(page)) if page == self.page => {
                let tab = self.candidates.pop().unwrap_or_default();
                (self.done)(cx, Ok(tab))
            }
            Tab::Holds(_) => {
                self.candidates.pop();
                self.ask_next(cx)
            }
            Tab::Listed(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

impl<H: Host> TabOfPage<H> {
    /// Asks the next candidate for its page; none left is an error.
    fn ask_next(self, cx: &mut H) {
        let Some(tab) = self.candidates.last().cloned() else {
            let message = format!("No tab holds the page {}.", self.page);
            return (self.done)(cx, Err(Error::Invalid(message)));
        };
        page_in_tab(cx, tab, self.then(Tab::Holds));
    }
}
