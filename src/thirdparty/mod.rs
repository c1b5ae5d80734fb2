//! Third-party developer tools: the tools a page exposes about itself through the
//! `devtoolstooldiscovery` event. The page side is the shim (`shim/*.js`, joined into one
//! script and installed on every page target); this side keeps each page's table current
//! from the shim's reports, which come either as the answer to a discovery we ask for or,
//! unasked, through a binding.

pub mod exposed;
pub mod table;

use std::time::Duration;

use serde_json::{json, Value};

use crate::app::{App, Done};
use crate::browser::{self, pages};
use crate::error::Error;
use crate::log::log;

/// The discovery shim, installed before any page script runs: one classic script, a single
/// IIFE, kept in parts by concern (`shim/`, contract at the top of the first part) and joined
/// here in file-name order.
pub const SHIM: &str = concat!(
    include_str!("shim/00-open.js"),
    include_str!("shim/10-builtins.js"),
    include_str!("shim/20-describe.js"),
    include_str!("shim/30-convert.js"),
    include_str!("shim/40-print.js"),
    include_str!("shim/50-runs.js"),
    include_str!("shim/60-schema.js"),
    include_str!("shim/70-table.js"),
    include_str!("shim/80-discovery.js"),
    include_str!("shim/90-close.js"),
);

/// The binding through which the shim reports tables the server did not ask for.
pub const BINDING: &str = "__dtmcp_notify";

/// Dispatches discovery in the page and installs the resulting table. Never fails the
/// caller: a page without the shim (or without a document) simply has no tools.
pub fn discover(app: &mut App, page: u32, done: Done<()>) {
    let Some(p) = app.browser.pages.get(page) else {
        return done(app, Ok(()));
    };
    if p.crashed {
        return done(app, Ok(()));
    }
    let session = p.session.clone();
    let document = p.document;
    // With the seq of the table we hold, an unchanged table comes back as that number
    // alone: no report to transfer, parse and compare on every list.
    let known = match p.tools.seq {
        Some(seq) => seq.to_string(),
        None => String::new(),
    };
    let expression =
        format!("window.__dtmcp && window.__dtmcp.shim ? window.__dtmcp.discover({known}) : null");
    let s2 = session.clone();
    browser::send_raw(
        app,
        Some(&session),
        "Runtime.evaluate",
        json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        Box::new(move |app, r| match r {
            Ok(v) if v["result"]["value"].is_object() => {
                apply(app, page, document, &v["result"]["value"]);
                done(app, Ok(()))
            }
            Ok(v) if v["result"]["value"].is_u64() => {
                // The table we hold is the page's current one.
                if let Some(p) = app.browser.pages.get_mut(page) {
                    if p.document == document && p.tools.seq == v["result"]["value"].as_u64() {
                        p.tools.confirm();
                    }
                }
                done(app, Ok(()))
            }
            Ok(v) if v.get("exceptionDetails").is_none() => {
                // No shim in this document (it was created before we attached, or the page
                // replaced it): install it and ask once more.
                install_and_discover(app, page, s2, document, done)
            }
            Ok(_) | Err(_) => done(app, Ok(())),
        }),
    );
}

fn install_and_discover(app: &mut App, page: u32, session: String, document: u64, done: Done<()>) {
    let expression = format!("{SHIM}\n;window.__dtmcp ? window.__dtmcp.discover() : null");
    browser::send_raw(
        app,
        Some(&session),
        "Runtime.evaluate",
        json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        Box::new(move |app, r| {
            if let Ok(v) = r {
                if v["result"]["value"].is_object() {
                    apply(app, page, document, &v["result"]["value"]);
                }
            }
            done(app, Ok(()))
        }),
    );
}

/// Installs a report for the page, if it is still about the same document.
fn apply(app: &mut App, page: u32, document: u64, report: &Value) {
    let Some(p) = app.browser.pages.get_mut(page) else {
        return;
    };
    if p.document != document {
        return; // the page moved on; the new document reports for itself
    }
    if p.tools.replace(report) {
        crate::tools::page_tools_changed(app);
    }
}

/// Runtime.bindingCalled: the shim reports a table nobody asked for (a listener added
/// after load, a late answer). Only the main frame's own document is a tool source.
pub fn on_binding(app: &mut App, session: &str, params: &Value) {
    if params["name"] != BINDING {
        return;
    }
    let Some(page) = app.browser.pages.by_session(session) else {
        return;
    };
    let context = params["executionContextId"].as_i64();
    if context.is_none() || page.context != context {
        log!(
            "ignored a tool report from a frame other than page {}'s main frame",
            page.id
        );
        return;
    }
    let (id, document) = (page.id, page.document);
    let payload: Value = match params["payload"].as_str().map(serde_json::from_str) {
        Some(Ok(v)) => v,
        _ => return,
    };
    if payload["type"] == "groups" {
        apply(app, id, document, &payload["report"]);
    }
}

/// How long a call on a page whose new document is still loading waits for its load event
/// before discovering anyway.
const LOAD_WAIT: Duration = Duration::from_secs(3);

/// Makes sure the page's table belongs to its current document, discovering if needed.
/// A document that is still loading (the page navigated itself a moment ago) may not have
/// registered its tools yet: discovery waits for its load event first (bounded), unless the
/// shim reports the tools earlier.
pub fn ensure_current(app: &mut App, page: u32, done: Done<()>) {
    let Some(p) = app.browser.pages.get(page) else {
        return done(app, Err(pages::no_such_page(page)));
    };
    if p.tools.discovered {
        return done(app, Ok(()));
    }
    let loading = !p.crashed
        && (p.tools.navigating
            || (!p.loader_id.is_empty()
                && p.loaded_loader.as_deref() != Some(p.loader_id.as_str())));
    if !loading {
        return discover(app, page, done);
    }
    let (session, frame) = (p.session.clone(), p.target_id.clone());
    browser::waiters::wait(
        app,
        &session,
        "Page.lifecycleEvent",
        move |e: &Value| e["name"] == "load" && e["frameId"].as_str() == Some(frame.as_str()),
        LOAD_WAIT,
        "the page did not finish loading".into(),
        Box::new(move |app, _| match app.browser.pages.get(page) {
            Some(p) if p.tools.discovered => done(app, Ok(())),
            Some(_) => discover(app, page, done),
            None => done(app, Err(pages::no_such_page(page))),
        }),
    );
}

/// Splits the shim's ENVELOPE into its header and body. The body keeps the envelope's
/// allocation (the header is drained from its front).
pub fn split_envelope(mut text: String) -> Result<(Value, String), Error> {
    let header_end = text.find('\n').unwrap_or(text.len());
    let header: Value = serde_json::from_str(&text[..header_end])
        .map_err(|e| Error::Page(format!("the page's tool runner answered garbage: {e}")))?;
    text.drain(..(header_end + 1).min(text.len()));
    Ok((header, text))
}

#[cfg(test)]
mod tests {
    /// The parts of the shim in `shim/`, joined in file-name order: what `SHIM` must be (a
    /// part left out of the `concat!`, or listed out of order, fails here).
    #[test]
    fn shim_is_every_part_in_name_order() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/thirdparty/shim");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".js"))
            .collect();
        names.sort();
        let joined: String = names
            .iter()
            .map(|n| std::fs::read_to_string(dir.join(n)).unwrap())
            .collect();
        assert!(names.len() > 1);
        assert!(super::SHIM == joined, "SHIM is not shim/*.js in name order");
    }
}
