//! `list_network_requests` and `get_network_request`, and the per-page record they read.
//!
//! Every request the page makes is recorded from the moment its session is attached
//! (`Network.requestWillBeSent`, the response, the end or failure, and the raw headers of
//! the `…ExtraInfo` events). Each redirect hop is a request of its own. Requests are kept per
//! document like console messages: a main-frame navigation starts a new list that begins with
//! the navigation's own request; the two lists before it are kept for
//! `includePreservedRequests`. Ids (`reqid`) count up per page and are never reused.
//!
//! Bounded memory, however long a session runs: at most [`record::MAX_REQUESTS`] requests and
//! about [`record::MAX_BYTES`] of URLs and headers per page (the oldest go first); a stored
//! URL or header value is cut at [`record::MAX_TEXT`] characters. Bodies are never stored
//! here: `get_network_request` ([`detail`]) asks the browser for them when called, and shows
//! text up to [`bodies::BODY_LIMIT`] characters inline (binary or larger bodies go to a file
//! when a path is given).

mod bodies;
mod detail;
pub(super) mod record;
mod redact;

use serde_json::{json, Map, Number, Value};

use super::args::{self, max, tool_args};
use super::call::{self, CallId};
use super::ctx::Ctx;
use super::response::{finish, Response};
use super::text::cut;
use super::tool::Tool;
use crate::browser::{self, PageId, RawEvent};
use crate::cdp::generated::network as cdp_network;
use crate::paging::{paginate, Paging};
use crate::settings::Category;
use detail::RequestDetail;
use record::{Log, Request};

/// URL characters shown in the list (as the reference).
const LIST_URL_LIMIT: usize = 255;

const RESOURCE_TYPES: &[&str] = &[
    "document",
    "stylesheet",
    "image",
    "media",
    "font",
    "script",
    "texttrack",
    "xhr",
    "fetch",
    "prefetch",
    "eventsource",
    "websocket",
    "manifest",
    "signedexchange",
    "ping",
    "cspviolationreport",
    "preflight",
    "fedcm",
    "other",
];

pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "list_network_requests",
        description:
            "List the page's requests since its last navigation: reqid, method, URL, status.",
        args: args::schema::<ListArgs>(),
        read_only: true,
        category: Category::Network,
        run: list_network_requests,
    },
    Tool {
        name: "get_network_request",
        description: "Show one request in full by reqid: headers, bodies, timing, redirects.",
        args: args::schema::<GetArgs>(),
        read_only: false,
        category: Category::Network,
        run: get_network_request,
    },
];

tool_args! {
    struct ListArgs {
        "pageSize" page_size: Option<Number> = {"type": "integer", "exclusiveMinimum": 0, "maximum": max::COUNT, "description": "Default: all"},
        "pageIdx" page_idx: Option<Number> = {"type": "integer", "minimum": 0, "maximum": max::COUNT, "description": "From 0"},
        /// Only requests of these types (all when absent or empty).
        "resourceTypes" resource_types: Option<Vec<String>> = {
            "type": "array",
            "maxItems": max::ITEMS,
            "items": {"type": "string", "enum": RESOURCE_TYPES},
        },
        "includePreservedRequests" preserved: Option<bool> = {"type": "boolean", "description": "Also the 2 previous navigations'"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

tool_args! {
    struct GetArgs {
        /// Absent or 0: the request selected in DevTools (there is none here).
        "reqid" reqid: Option<f64> = {"type": "number", "minimum": 0, "maximum": max::ID},
        "requestFilePath" request_file: Option<String> = {"type": "string", "maxLength": max::PATH, "description": "Save the request body here"},
        "responseFilePath" response_file: Option<String> = {"type": "string", "maxLength": max::PATH, "description": "Save the response body here"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

// ---------------------------------------------------------------------------------------
// Collecting

/// A new page session: start receiving its network events (the page is paused before its
/// first request).
pub(super) fn attach(cx: &mut Ctx, session: &str) {
    browser::fire(cx, Some(session), cdp_network::EnableParams::default());
}

pub(super) fn on_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    if let Some(p) = cx.browser.pages.get(page) {
        cx.network.entry(page).on_event(event, &p.target_id);
    }
}

// ---------------------------------------------------------------------------------------
// list_network_requests

/// Which requests a listing shows.
struct Filter {
    resource_types: Vec<String>,
    preserved: bool,
    paging: Paging,
}

fn list_network_requests(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<ListArgs>(cx, call, args) else {
        return;
    };
    let filter = Filter {
        resource_types: args.resource_types.unwrap_or_default(),
        preserved: args.preserved.unwrap_or(false),
        paging: Paging::new(args.page_size, args.page_idx),
    };
    call::on_page(cx, call, args.page, move |cx, page| {
        if cx.browser.pages.get(page).is_none() {
            return call::fail(cx, call, browser::pages::no_such_page(page));
        }
        let (section, structured) = render_list(cx.network.entry(page), &filter);
        let mut resp = Response::for_page(page);
        resp.structured = structured;
        // After the page's own blocks (an open dialog), as the reference lays it out.
        resp.snapshot = Some(section);
        finish(cx, call, resp);
    });
}

fn render_list(log: &Log, filter: &Filter) -> (String, Map<String, Value>) {
    let types = &filter.resource_types;
    let requests: Vec<&Request> = log
        .requests(filter.preserved)
        .into_iter()
        .filter(|r| types.is_empty() || types.contains(&r.resource_type))
        .collect();
    let mut structured = Map::new();
    let mut out = vec!["## Network requests".to_owned()];
    if requests.is_empty() {
        out.push("No requests found.".to_owned());
        return (out.join("\n"), structured);
    }
    let paged = paginate(requests.len(), &filter.paging);
    out.extend(paged.lines);
    structured.insert("pagination".into(), paged.structured);
    let mut items = Vec::new();
    for r in &requests[paged.start..paged.end] {
        out.push(concise(r));
        let mut item = summary(r);
        item["selectedInDevToolsUI"] = json!(false);
        items.push(item);
    }
    structured.insert("networkRequests".into(), Value::Array(items));
    (out.join("\n"), structured)
}

/// `reqid=<id> <method> <url> [<status>]`, the URL cut as the reference cuts it.
fn concise(r: &Request) -> String {
    format!(
        "reqid={} {} {} [{}]",
        r.id,
        r.method,
        cut(&r.url, LIST_URL_LIMIT),
        r.status()
    )
}

fn summary(r: &Request) -> Value {
    json!({
        "requestId": r.id,
        "method": r.method,
        "url": r.url,
        "status": r.status(),
        "resourceType": r.resource_type,
    })
}

// ---------------------------------------------------------------------------------------
// get_network_request

fn get_network_request(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<GetArgs>(cx, call, args) else {
        return;
    };
    let wanted = args.reqid.unwrap_or(0.0);
    RequestDetail::new(call, wanted, args.request_file, args.response_file).start(cx, args.page);
}
