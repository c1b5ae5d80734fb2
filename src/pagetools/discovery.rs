//! Asking a page for its tools: discovery dispatched in the page (`window.__dtmcp.discover`),
//! the shim installed first where the document has none, and, for a document still loading,
//! its load event awaited first (bounded). [`Discovery::next`] is the whole story. Never fails
//! the caller: a page without the shim (or without a document) simply has no tools.

use std::time::Duration;

use serde_json::Value;

use super::page_code::awaited;
use super::{apply, shim_answers, PageHost};
use crate::browser::{self, pages, waiters, Done, Flow, PageId};
use crate::cdp::generated::{page as cdp_page, runtime};
use crate::error::Error;

/// How long a call on a page whose new document is still loading waits for its load event
/// before discovering anyway.
const LOAD_WAIT: Duration = Duration::from_secs(3);

/// Dispatches discovery in the page and installs the resulting table.
pub(crate) fn discover<H: PageHost>(cx: &mut H, page: PageId, done: Done<H, ()>) {
    Discovery::new(page, done).ask(cx)
}

/// Makes sure the page's table belongs to its current document, discovering if needed.
/// A document that is still loading (the page navigated itself a moment ago) may not have
/// registered its tools yet: discovery waits for its load event first (bounded), unless the
/// shim reports the tools earlier.
pub(crate) fn ensure_current<H: PageHost>(cx: &mut H, page: PageId, done: Done<H, ()>) {
    let table = cx.tables().entry(page);
    let (discovered, navigating) = (table.discovered, table.navigating);
    let Some(p) = cx.browser().pages.get(page) else {
        return done(cx, Err(pages::no_such_page(page)));
    };
    if discovered {
        return done(cx, Ok(()));
    }
    let loading = !p.crashed
        && (navigating
            || (!p.loader_id.is_empty()
                && p.loaded_loader.as_deref() != Some(p.loader_id.as_str())));
    let (session, frame) = (p.session.clone(), p.target_id.clone());
    let flow = Discovery::new(page, done);
    if !loading {
        return flow.ask(cx);
    }
    let load = move |e: &cdp_page::LifecycleEventEvent| e.name == "load" && e.frame_id == frame;
    let message = "the page did not finish loading".to_owned();
    // Loaded or not by the deadline, discovery goes ahead.
    let loaded = flow.then(|_| Step::Loaded);
    waiters::wait(cx, &session, load, LOAD_WAIT, message, loaded);
}

/// One discovery on one page.
struct Discovery<H> {
    page: PageId,
    done: Done<H, ()>,
    /// The session and document discovery was dispatched in: what a report is about (a
    /// report about an older document is dropped).
    session: String,
    document: u64,
}

enum Step {
    /// The document finished loading, or the wait for it ended.
    Loaded,
    /// The page answered a discovery: a report, the seq of the table we hold, or nothing.
    Answered(Result<runtime::EvaluateReturns, Error>),
    /// The page answered the shim installed late, with a discovery: a report or nothing.
    Installed(Result<runtime::EvaluateReturns, Error>),
}

impl<H: PageHost> Flow<H> for Discovery<H> {
    type Step = Step;

    fn next(self, cx: &mut H, step: Step) {
        match step {
            Step::Loaded => {
                let discovered = cx.tables_ref().get(self.page).is_some_and(|t| t.discovered);
                match cx.browser().pages.get(self.page) {
                    Some(_) if discovered => (self.done)(cx, Ok(())),
                    Some(_) => self.ask(cx),
                    None => (self.done)(cx, Err(pages::no_such_page(self.page))),
                }
            }
            Step::Answered(Ok(answer)) => self.answered(cx, answer),
            Step::Installed(Ok(answer)) => {
                if let Some(report @ Value::Object(_)) = &answer.result.value {
                    if shim_answers(cx, self.page) {
                        apply(cx, self.page, self.document, report);
                    }
                }
                (self.done)(cx, Ok(()))
            }
            Step::Answered(Err(_)) | Step::Installed(Err(_)) => (self.done)(cx, Ok(())),
        }
    }
}

impl<H: PageHost> Discovery<H> {
    fn new(page: PageId, done: Done<H, ()>) -> Discovery<H> {
        Discovery {
            page,
            done,
            session: String::new(),
            document: 0,
        }
    }

    /// Dispatches discovery in the page. With the seq of the table we hold, an unchanged
    /// table comes back as that number alone: no report to transfer, parse and compare on
    /// every list.
    fn ask(mut self, cx: &mut H) {
        let Some(p) = cx.browser().pages.get(self.page) else {
            return (self.done)(cx, Ok(()));
        };
        if p.crashed {
            return (self.done)(cx, Ok(()));
        }
        (self.session, self.document) = (p.session.clone(), p.document);
        let session = self.session.clone();
        let known = match cx.tables().entry(self.page).seq {
            Some(seq) => seq.to_string(),
            None => String::new(),
        };
        let expression = format!(
            "window.__dtmcp && window.__dtmcp.shim ? window.__dtmcp.discover({known}) : null"
        );
        browser::send_then(
            cx,
            Some(&session),
            awaited(expression),
            self,
            Step::Answered,
        );
    }

    fn answered(self, cx: &mut H, answer: runtime::EvaluateReturns) {
        let (page, document) = (self.page, self.document);
        if !shim_answers(cx, page) {
            // window.__dtmcp here may be the page's own: nothing it says is a table.
            return (self.done)(cx, Ok(()));
        }
        match answer.result.value {
            Some(report @ Value::Object(_)) => apply(cx, page, document, &report),
            Some(Value::Number(seq)) => {
                // The table we hold is the page's current one.
                let current =
                    (cx.browser().pages.get(page)).is_some_and(|p| p.document == document);
                let table = cx.tables().entry(page);
                if current && table.seq == seq.as_u64() {
                    table.confirm();
                }
            }
            // No shim in this document (it was created before we attached, or the page
            // replaced it): install it and ask once more.
            _ if answer.exception_details.is_none() => return self.install(cx),
            _ => {}
        }
        (self.done)(cx, Ok(()))
    }

    fn install(self, cx: &mut H) {
        let session = self.session.clone();
        let shim = cx.tables().entry(self.page).guard.late_shim(self.document);
        let expression = format!("{shim}\n;window.__dtmcp ? window.__dtmcp.discover() : null");
        browser::send_then(
            cx,
            Some(&session),
            awaited(expression),
            self,
            Step::Installed,
        );
    }
}
