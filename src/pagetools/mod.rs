//! Third-party developer tools: the tools a page exposes about itself through the
//! `devtoolstooldiscovery` event. The page side is the shim (`shim/*.js`, joined into one
//! script and installed on every page target); this side keeps each page's table current
//! from the shim's reports, which come either as the answer to a discovery we ask for or,
//! unasked, through a binding.
//!
//! This layer knows pages and their tables, and nothing of MCP or of the other tools: it is
//! generic over a [`PageHost`], the state that holds the tables.

mod discovery;
pub(crate) mod exposed;
pub(crate) mod guard;
pub(crate) mod limits;
pub(crate) mod page_code;
mod ran;
pub(crate) mod run;
mod shim;
pub(crate) mod table;
mod tool;
pub(crate) mod webmcp;

use std::collections::HashMap;

use serde_json::Value;

use crate::browser::{self, Host, PageId, RawEvent};
use crate::cdp::generated::{page as cdp_page, runtime};
use crate::error::Error;
use crate::log::log;

pub(crate) use discovery::{discover, ensure_current};
pub use run::run_expression;
pub use shim::shim;
pub(crate) use table::Table;

/// The state page tools run against: the browser's, plus every page's table.
pub(crate) trait PageHost: Host {
    fn tables(&mut self) -> &mut Tables;
    fn tables_ref(&self) -> &Tables;
    /// The set of `page`'s tools changed; clients that show them should list tools again.
    fn tools_changed(&mut self, page: PageId);
}

/// One table per page target, kept (and reset in place) across its documents.
#[derive(Default)]
pub(crate) struct Tables(HashMap<PageId, Table>);

impl Tables {
    pub(crate) fn get(&self, page: PageId) -> Option<&Table> {
        self.0.get(&page)
    }

    /// The page's table, empty the first time.
    pub(crate) fn entry(&mut self, page: PageId) -> &mut Table {
        self.0.entry(page).or_default()
    }

    /// A new document: the page's tools are void. Returns whether it had any.
    pub(crate) fn reset(&mut self, page: PageId) -> bool {
        self.0.get_mut(&page).is_some_and(Table::reset)
    }

    pub(crate) fn remove(&mut self, page: PageId) {
        self.0.remove(&page);
    }
}

/// A new page target: the binding the shim reports through, and the shim itself, before
/// any page script runs (and now, when the page's document exists already).
pub(crate) fn attach<H: PageHost>(cx: &mut H, page: PageId, session: &str, paused: bool) {
    let s = Some(session);
    browser::fire(
        cx,
        s,
        runtime::AddBindingParams {
            name: BINDING.into(),
            ..Default::default()
        },
    );
    let install = cdp_page::AddScriptToEvaluateOnNewDocumentParams {
        source: cx.tables().entry(page).guard.document_shim(),
        ..Default::default()
    };
    browser::fire(cx, s, install);
    if !paused {
        // A document that already exists did not run the new-document script.
        let document = cx.browser().pages.get(page).map_or(0, |p| p.document);
        cx.tables().entry(page).guard.preexisting = Some(document);
        let now = runtime::EvaluateParams {
            expression: cx.tables().entry(page).guard.late_shim(document),
            ..Default::default()
        };
        browser::send(cx, s, now, |_, _| {});
    }
    webmcp::attach(cx, page, session);
}

/// Page events this layer listens to: the shim's binding calls, WebMCP's registrations.
pub(crate) fn on_event<H: PageHost>(cx: &mut H, page: PageId, event: &RawEvent) {
    if let Some(e) = event.decode::<runtime::BindingCalledEvent>() {
        on_binding(cx, page, e);
    } else {
        webmcp::on_event(cx, page, event);
    }
}

/// The binding through which the shim reports tables the server did not ask for.
pub(crate) const BINDING: &str = "__dtmcp_notify";

/// Whether the page's main context is one whose shim said hello: there the evaluations
/// of `window.__dtmcp…` reach the shim (answers arrive after the hello: the shim sends it
/// while it installs, before any discover() it answers).
/// A document that existed before the server attached answers as the page's own (see
/// `Guard::preexisting`).
pub(super) fn shim_answers<H: PageHost>(cx: &mut H, page: PageId) -> bool {
    let Some(p) = cx.browser().pages.get(page) else {
        return false;
    };
    let (context, document) = (p.context, p.document);
    let guard = &cx.tables().entry(page).guard;
    (context.is_some() && guard.trusted == context) || guard.preexisting == Some(document)
}

/// Installs a report for the page, if it is still about the same document.
pub(super) fn apply<H: PageHost>(cx: &mut H, page: PageId, document: u64, report: &Value) {
    let Some(p) = cx.browser().pages.get(page) else {
        return;
    };
    if p.document != document {
        return; // the page moved on; the new document reports for itself
    }
    if cx.tables().entry(page).replace(report) {
        cx.tools_changed(page);
    }
}

/// Runtime.bindingCalled: the shim says hello, or reports a table nobody asked for (a
/// listener added after load, a late answer). Only the main frame's own document is a tool
/// source, and only messages with the shim's secret are the shim's: anything else is page
/// code calling the binding, dropped before it is parsed.
fn on_binding<H: PageHost>(cx: &mut H, page: PageId, e: runtime::BindingCalledEvent) {
    if e.name != BINDING {
        return;
    }
    let Some(p) = cx.browser().pages.get(page) else {
        return;
    };
    let (document, main) = (p.document, p.context == Some(e.execution_context_id));
    let Some(body) = cx.tables().entry(page).guard.open(document, &e.payload) else {
        log!("dropped a binding call without the shim's secret on page {page}");
        return;
    };
    if !main {
        log!("ignored a tool report from a frame other than page {page}'s main frame");
        return;
    }
    let Ok(message) = serde_json::from_str::<Value>(body) else {
        return;
    };
    match message["type"].as_str() {
        Some("hello") => cx.tables().entry(page).guard.trusted = Some(e.execution_context_id),
        Some("groups") => apply(cx, page, document, &message["report"]),
        _ => {}
    }
}

/// Splits the shim's ENVELOPE into its header and body. The body keeps the envelope's
/// allocation (the header is drained from its front).
pub(crate) fn split_envelope(mut text: String) -> Result<(Value, String), Error> {
    let header_end = text.find('\n').unwrap_or(text.len());
    let header: Value = serde_json::from_str(&text[..header_end])
        .map_err(|e| Error::Page(format!("the page's tool runner answered garbage: {e}")))?;
    text.drain(..(header_end + 1).min(text.len()));
    Ok((header, text))
}
