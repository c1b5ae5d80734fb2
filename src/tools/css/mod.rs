//! `get_css_styles`: the CSS rules that apply to an element, in cascade order, with the
//! losing declarations marked, and what it inherits — DevTools' Styles pane as text.
//!
//! The browser gives the matched rules (`CSS.getMatchedStylesForNode`); which declarations
//! win is computed here ([`cascade`]), as DevTools computes it. Style sheet names and line
//! numbers come from the sheets the page reported since CSS was enabled on it ([`Sheets`]).
//! Not shown (unlike the reference): `@keyframes`, `@property`, `@position-try`, `@function`
//! and other at-rule blocks, animation and transition styles, and which element a
//! `@container` query matched.

mod at_rules;
mod cascade;
mod containers;
mod model;
mod render;
mod selector;
mod shorthands;

use crate::tools::args::Schema;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::browser::{self, pages, PageId, RawEvent};
use crate::cdp::generated::{css as cdp_css, dom};
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::dialogs;
use crate::tools::paging::{paginate, Paging};
use crate::tools::response::{finish, Response};
use crate::tools::snapshot::model::{no_snapshot_message, Snapshot};
use crate::tools::snapshot::AsJson;
use crate::tools::{call, fail, CallId, Ctx, Done, Tool};

pub const TOOLS: &[Tool] = &[Tool {
    name: "get_css_styles",
    description: "CSS rules applying to an element (uid), most precedent first with sources; losing declarations marked [overloaded]; inherited styles too. 10 rules a page.",
    args: Schema {
        properties: || {
        json!({
            "uid": {"type": "string", "maxLength": max::UID, "description": "From take_snapshot."},
            "pageSize": {"type": "integer", "minimum": 1, "maximum": max::COUNT, "default": 10},
            "pageIdx": {"type": "integer", "minimum": 0, "maximum": max::COUNT, "default": 0},
        })
    },
        required: &["uid"],
    },
    category: Category::Debugging,
    read_only: true,
    page_scoped: true,
    run: get_css_styles,
}];

/// The most style sheets remembered per page: a page that keeps adding sheets cannot grow
/// the server's memory without bound (the others show without a file name).
const MAX_SHEETS: usize = 4096;

/// What a page reported of its style sheets since CSS was enabled on it.
#[derive(Default)]
pub struct Sheets {
    enabled: bool,
    known: HashMap<String, model::Sheet>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CssArgs {
    #[serde(flatten)]
    shared: Shared,
    uid: String,
    page_size: Option<u64>,
    page_idx: Option<u64>,
}

fn get_css_styles(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<CssArgs>(cx, call, args) else {
        return;
    };
    let paging = Paging::of(args.page_size.unwrap_or(10), args.page_idx.unwrap_or(0));
    let uid = args.uid;
    call::on_live_page(cx, call, args.shared.page(), move |cx, page| {
        if let Some(message) = dialogs::blocked(cx, page) {
            return fail(cx, call, message);
        }
        let Some(snapshot) = cx.snapshots.latest(page) else {
            return fail(cx, call, no_snapshot_message(page));
        };
        let backend = match snapshot.resolve(&uid) {
            Ok(e) => e.backend_node_id,
            Err(e) => return fail(cx, call, e.message(&uid, page)),
        };
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return fail(cx, call, e),
        };
        call::limit_by_default(cx, call, |ms| {
            format!("The styles were not read within {ms} ms (is the page's main thread busy?).")
        });
        let u = uid.clone();
        let found = Box::new(move |cx: &mut Ctx, r: Result<Found, Error>| match r {
            Ok(found) => answer(cx, call, page, &uid, found, &paging),
            Err(e) => fail(cx, call, e),
        });
        read(cx, page, session, backend, u, found);
    });
}

/// What the answer is built from.
struct Found {
    element: selector::Node,
    ancestors: Vec<selector::Node>,
    matched: cdp_css::GetMatchedStylesForNodeReturns,
    /// Each `@container` header with the node it queried.
    containers: Vec<(String, i64)>,
}

/// Finds the element (and its ancestors) in the document, enables CSS on the page once, and
/// reads the element's matched styles.
fn read(cx: &mut Ctx, page: PageId, session: String, backend: i64, uid: String, done: Done<Found>) {
    let request = AsJson(dom::GetDocumentParams {
        depth: Some(-1),
        pierce: Some(true),
    });
    let s = session.clone();
    browser::send(cx, Some(&session), request, move |cx, r| {
        let chain = r.ok().and_then(|doc| selector::chain(&doc, backend));
        let Some((element, ancestors)) = chain else {
            return done(cx, Err(Error::Invalid(format!("Element with uid \"{uid}\" was detached or no longer exists on the page. Please take a new snapshot with take_snapshot."))));
        };
        let node_id = element.node_id;
        enable(cx, page, &s.clone(), move |cx, r| {
            if let Err(e) = r {
                return done(cx, Err(e));
            }
            let params = cdp_css::GetMatchedStylesForNodeParams { node_id };
            let session = s.clone();
            browser::send(cx, Some(&session), params, move |cx, r| match r {
                Ok(matched) => {
                    let queries = containers::queries(&matched);
                    let found = Box::new(move |cx: &mut Ctx, r: Result<Vec<_>, Error>| {
                        let containers = r.unwrap_or_default();
                        let found = Found {
                            element,
                            ancestors,
                            matched,
                            containers,
                        };
                        done(cx, Ok(found))
                    });
                    containers::resolve(cx, s, node_id, queries, Vec::new(), found);
                }
                Err(_) => done(
                    cx,
                    Err(Error::Page(format!(
                        "Could not retrieve matched styles for element with uid \"{uid}\"."
                    ))),
                ),
            });
        });
    });
}

/// `CSS.enable`, once per page: the browser reports every sheet before it answers, and
/// later ones as they come ([`on_event`]).
fn enable(
    cx: &mut Ctx,
    page: PageId,
    session: &str,
    then: impl FnOnce(&mut Ctx, Result<(), Error>) + 'static,
) {
    if cx.css_sheets.get(page).is_some_and(|s| s.enabled) {
        return then(cx, Ok(()));
    }
    cx.css_sheets.entry(page).enabled = true;
    browser::send(cx, Some(session), cdp_css::EnableParams {}, move |cx, r| {
        if r.is_err() {
            cx.css_sheets.entry(page).enabled = false;
        }
        then(cx, r.map(|_| ()))
    });
}

/// Keeps the page's sheets up to date.
pub fn on_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    if let Some(added) = event.decode::<cdp_css::StyleSheetAddedEvent>() {
        let sheets = cx.css_sheets.entry(page);
        if sheets.known.len() < MAX_SHEETS {
            let h = added.header;
            let sheet = model::Sheet {
                url: h.source_url,
                start_line: h.start_line,
                constructed: h.is_constructed,
            };
            sheets.known.insert(h.style_sheet_id, sheet);
        }
    } else if let Some(removed) = event.decode::<cdp_css::StyleSheetRemovedEvent>() {
        if let Some(sheets) = cx.css_sheets.get_mut(page) {
            sheets.known.remove(&removed.style_sheet_id);
        }
    }
}

fn answer(cx: &mut Ctx, call: CallId, page: PageId, uid: &str, found: Found, paging: &Paging) {
    let snapshot = cx.snapshots.latest(page);
    let uid_of = |n: &selector::Node| {
        snapshot
            .and_then(|s: &Snapshot| s.uid_for_backend(n.backend_id))
            .map(str::to_owned)
    };
    let ancestors: Vec<model::Element> = found
        .ancestors
        .iter()
        .map(|n| model::Element {
            selector: n.simple_selector(),
            uid: uid_of(n),
        })
        .collect();
    let empty = Sheets::default();
    let sheets = cx.css_sheets.get(page).unwrap_or(&empty);
    let mut matched = found.matched;
    let mut blocks = model::blocks(
        &mut matched,
        &found.element.tag(),
        &ancestors,
        &sheets.known,
    );
    blocks.extend(at_rules::blocks(&matched, &sheets.known));
    let nodes = || std::iter::once(&found.element).chain(&found.ancestors);
    let comments: Vec<(String, String)> = found
        .containers
        .iter()
        .filter_map(|(header, id)| {
            let node = nodes().find(|n| n.node_id == *id)?;
            let uid = uid_of(node).map(|u| format!(" (uid: \"{u}\")"));
            let selector = node.simple_selector();
            Some((
                header.clone(),
                format!("container: {selector}{}", uid.unwrap_or_default()),
            ))
        })
        .collect();
    containers::annotate(&mut blocks, &comments);
    let paged = paginate(blocks.len(), paging);
    let mut resp = Response::for_page(page);
    for line in paged.lines {
        resp.line(line);
    }
    resp.line(render::text(
        &found.element.simple_selector(),
        uid,
        &blocks[paged.start..paged.end],
    ));
    finish(cx, call, resp);
}
