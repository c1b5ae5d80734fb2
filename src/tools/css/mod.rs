//! `get_css_styles`: the CSS rules that apply to an element, in cascade order, with the
//! losing declarations marked, and what it inherits — DevTools' Styles pane as text.
//!
//! The browser gives the matched rules (`CSS.getMatchedStylesForNode`); which declarations
//! win is computed here ([`cascade`]), as DevTools computes it. Style sheet names and line
//! numbers come from the sheets the page reported since CSS was enabled on it ([`Sheets`]).
//! After the element's styles come the at-rule blocks DevTools shows ([`at_rules`]); above
//! each `@container` header, the element that query matched ([`containers`]). Not shown
//! (unlike the reference): `@function` rules, and animation and transition styles.
//! [`Styles::next`] is the call's whole story.

mod at_rules;
mod cascade;
mod containers;
mod model;
mod render;
mod selector;
pub(super) mod sheets;
mod shorthands;

use serde_json::Value;

use crate::browser::{self, pages, Flow, PageId, RawEvent};
use crate::cdp::generated::css::{
    self as cdp_css, CSSContainerQuery, GetMatchedStylesForNodeReturns,
};
use crate::cdp::generated::dom::{self, GetContainerForNodeReturns};
use crate::error::Error;
use crate::paging::{paginate, Paging};
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::dialogs;
use crate::tools::response::{finish, Response};
use crate::tools::snapshot::model::{no_snapshot_message, Snapshot};
use crate::tools::snapshot::AsJson;
use crate::tools::tool::Tool;
use sheets::Sheets;

pub(super) const TOOLS: &[Tool] = &[Tool {
    name: "get_css_styles",
    description: "CSS rules applying to an element (uid), most precedent first with sources; losing declarations marked [overloaded]; inherited styles too. 10 rules a page.",
    args: args::schema::<CssArgs>(),
    category: Category::Debugging,
    read_only: true,
    run: get_css_styles,
}];

tool_args! {
    struct CssArgs {
        "uid" uid: String = {"type": "string", "maxLength": max::UID, "description": "From take_snapshot."},
        "pageSize" page_size: Option<u64> = {"type": "integer", "minimum": 1, "maximum": max::COUNT, "default": 10},
        "pageIdx" page_idx: Option<u64> = {"type": "integer", "minimum": 0, "maximum": max::COUNT, "default": 0},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn get_css_styles(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<CssArgs>(cx, call, args) else {
        return;
    };
    let paging = Paging::of(args.page_size.unwrap_or(10), args.page_idx.unwrap_or(0));
    Styles::new(call, args.uid, paging).start(cx, args.page);
}

/// One `get_css_styles` call.
struct Styles {
    call: CallId,
    /// The element's uid in the page's latest snapshot.
    uid: String,
    paging: Paging,
    /// The page it works on, once found.
    page: PageId,
    session: String,
    /// The element's backend node id, from the snapshot.
    backend: i64,
    /// The element in the document, and its ancestors (the nearest first).
    element: Option<selector::Node>,
    ancestors: Vec<selector::Node>,
    /// The element's matched styles.
    matched: Option<Box<GetMatchedStylesForNodeReturns>>,
    /// The `@container` queries whose container is still to be asked for.
    queries: Vec<CSSContainerQuery>,
    /// The header of the query asked for now.
    asking: Option<String>,
    /// Each `@container` header with the node it queried.
    containers: Vec<(String, i64)>,
}

enum Step {
    /// The page the call works on (a crashed page is an error).
    Page(Result<PageId, Error>),
    /// `DOM.getDocument`, the whole tree through shadow roots and frames: where the element
    /// and its ancestors are.
    Document(Result<Value, Error>),
    /// `CSS.enable` answered (once per page; the browser has reported every sheet by then).
    CssEnabled(Result<(), Error>),
    /// `CSS.getMatchedStylesForNode`: the element's rules, inherited ones, pseudo-elements.
    Matched(Result<Box<GetMatchedStylesForNodeReturns>, Error>),
    /// `DOM.getContainerForNode` for one `@container` query (a failure names no container,
    /// as in the reference).
    Container(Result<GetContainerForNodeReturns, Error>),
}

impl Styles {
    fn new(call: CallId, uid: String, paging: Paging) -> Styles {
        Styles {
            call,
            uid,
            paging,
            page: PageId::NONE,
            session: String::new(),
            backend: 0,
            element: None,
            ancestors: Vec::new(),
            matched: None,
            queries: Vec::new(),
            asking: None,
            containers: Vec::new(),
        }
    }

    /// Starts the call on page `requested` (the selected page when `None`).
    fn start(self, cx: &mut Ctx, requested: Option<PageId>) {
        let call = self.call;
        call::live_page(cx, call, requested, self.then(Step::Page));
    }
}

impl Flow<Ctx> for Styles {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Page(Ok(page)) => self.read_document(cx, page),
            Step::Document(document) => self.find_element(cx, document.ok()),
            Step::CssEnabled(Ok(())) => self.ask_matched(cx),
            Step::Matched(Ok(matched)) => self.ask_containers(cx, matched),
            Step::Matched(Err(_)) => {
                let uid = &self.uid;
                let e =
                    format!("Could not retrieve matched styles for element with uid \"{uid}\".");
                call::fail(cx, self.call, Error::Page(e))
            }
            Step::Container(container) => self.took_container(cx, container.ok()),
            Step::CssEnabled(Err(e)) => {
                // Asked again by the next call.
                cx.css_sheets.entry(self.page).enabled = false;
                call::fail(cx, self.call, e)
            }
            Step::Page(Err(e)) => call::fail(cx, self.call, e),
        }
    }
}

impl Styles {
    /// The element must be in the page's latest snapshot (and no dialog in the way); then
    /// the document is read to find it and its ancestors.
    fn read_document(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        if let Some(message) = dialogs::blocked(cx, page) {
            return call::fail(cx, self.call, message);
        }
        let Some(snapshot) = cx.snapshots.latest(page) else {
            return call::fail(cx, self.call, no_snapshot_message(page));
        };
        self.backend = match snapshot.resolve(&self.uid) {
            Ok(e) => e.backend_node_id,
            Err(e) => return call::fail(cx, self.call, e.message(&self.uid, page)),
        };
        self.session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return call::fail(cx, self.call, e),
        };
        call::limit_by_default(cx, self.call, |ms| {
            format!("The styles were not read within {ms} ms (is the page's main thread busy?).")
        });
        let request = AsJson(dom::GetDocumentParams {
            depth: Some(-1),
            pierce: Some(true),
        });
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), request, self, Step::Document);
    }

    /// Finds the element and its ancestors in the document, then enables CSS on the page
    /// unless it is already.
    fn find_element(mut self, cx: &mut Ctx, document: Option<Value>) {
        let chain = document.and_then(|doc| selector::chain(&doc, self.backend));
        let Some((element, ancestors)) = chain else {
            let uid = &self.uid;
            let e = format!("Element with uid \"{uid}\" was detached or no longer exists on the page. Please take a new snapshot with take_snapshot.");
            return call::fail(cx, self.call, Error::Invalid(e));
        };
        self.element = Some(element);
        self.ancestors = ancestors;
        let sheets = cx.css_sheets.entry(self.page);
        if sheets.enabled {
            return self.ask_matched(cx);
        }
        sheets.enabled = true;
        let session = self.session.clone();
        let enable = cdp_css::EnableParams {};
        browser::send_then(cx, Some(&session), enable, self, |r| {
            Step::CssEnabled(r.map(drop))
        });
    }

    fn ask_matched(self, cx: &mut Ctx) {
        let Some(node_id) = self.element.as_ref().map(|e| e.node_id) else {
            // Only a step out of order could get here; the call still gets its answer.
            return call::fail(
                cx,
                self.call,
                "The element was lost before its styles were read.",
            );
        };
        let params = cdp_css::GetMatchedStylesForNodeParams { node_id };
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, |r| {
            Step::Matched(r.map(Box::new))
        });
    }

    /// Which element each `@container` query around the matched rules queried, one query
    /// after another.
    fn ask_containers(mut self, cx: &mut Ctx, matched: Box<GetMatchedStylesForNodeReturns>) {
        self.queries = containers::queries(&matched);
        self.matched = Some(matched);
        self.ask_container(cx)
    }

    fn ask_container(mut self, cx: &mut Ctx) {
        let node_id = self.element.as_ref().map_or(0, |e| e.node_id);
        let Some(query) = self.queries.pop() else {
            return self.reply(cx);
        };
        let params = containers::container_params(node_id, &query);
        self.asking = Some(containers::header(&query));
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, Step::Container);
    }

    fn took_container(mut self, cx: &mut Ctx, container: Option<GetContainerForNodeReturns>) {
        let header = self.asking.take();
        if let (Some(header), Some(node)) = (header, container.and_then(|c| c.node_id)) {
            self.containers.push((header, node));
        }
        self.ask_container(cx)
    }
}

/// Keeps the page's sheets up to date.
pub(super) fn on_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    if let Some(added) = event.decode::<cdp_css::StyleSheetAddedEvent>() {
        cx.css_sheets.entry(page).added(added.header);
    } else if let Some(removed) = event.decode::<cdp_css::StyleSheetRemovedEvent>() {
        if let Some(sheets) = cx.css_sheets.get_mut(page) {
            sheets.removed(&removed.style_sheet_id);
        }
    }
}

impl Styles {
    /// The blocks in DevTools' order, containers named, one page of them as text.
    fn reply(self, cx: &mut Ctx) {
        let (Some(element), Some(mut matched)) = (self.element, self.matched) else {
            return;
        };
        let snapshot = cx.snapshots.latest(self.page);
        let uid_of = |n: &selector::Node| {
            snapshot
                .and_then(|s: &Snapshot| s.uid_for_backend(n.backend_id))
                .map(str::to_owned)
        };
        let ancestors: Vec<model::Element> = (self.ancestors.iter())
            .map(|n| model::Element {
                selector: n.simple_selector(),
                uid: uid_of(n),
            })
            .collect();
        let empty = Sheets::default();
        let sheets = cx.css_sheets.get(self.page).unwrap_or(&empty);
        let tag = element.tag();
        let mut blocks = model::blocks(&mut matched, &tag, &ancestors, &sheets.known);
        blocks.extend(at_rules::blocks(&matched, &sheets.known));
        let nodes = || std::iter::once(&element).chain(&self.ancestors);
        let comments: Vec<(String, String)> = (self.containers.iter())
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
        let paged = paginate(blocks.len(), &self.paging);
        let mut resp = Response::for_page(self.page);
        for line in paged.lines {
            resp.line(line);
        }
        let text = render::text(
            &element.simple_selector(),
            &self.uid,
            &blocks[paged.start..paged.end],
        );
        resp.line(text);
        finish(cx, self.call, resp);
    }
}
