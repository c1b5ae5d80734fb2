//! `list_network_requests` and `get_network_request`, and the per-page record they read.
//!
//! Every request the page makes is recorded from the moment its session is attached
//! (`Network.requestWillBeSent`, the response, the end or failure, and the raw headers of
//! the `…ExtraInfo` events). Each redirect hop is a request of its own. Requests are kept per
//! document like console messages: a main-frame navigation starts a new list that begins with
//! the navigation's own request; the two lists before it are kept for
//! `includePreservedRequests`. Ids (`reqid`) count up per page and are never reused.
//!
//! Bounded memory, however long a session runs: at most [`MAX_REQUESTS`] requests and about
//! [`MAX_BYTES`] of URLs and headers per page (the oldest go first); a stored URL or header
//! value is cut at [`MAX_TEXT`] characters. Bodies are never stored here: `get_network_request`
//! asks the browser for them when called, and shows text up to [`BODY_LIMIT`] characters
//! inline (binary or larger bodies go to a file when a path is given).

mod bodies;
pub(crate) mod record;
mod redact;

use crate::browser::PageId;
use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args::{max, Shared};
use super::paging::{paginate, Paging};
use super::response::{finish, Response};
use super::Tool;
use crate::browser::{self, RawEvent};
use crate::cdp::generated::network as cdp_network;
use crate::settings::Category;
use crate::tools::call;
use crate::tools::CallId;
use crate::tools::Ctx;
use crate::tools::ToolResult;
use bodies::Body;
pub use record::Log;
use record::{Headers, Request};

/// Most requests kept per page, over all kept documents.
pub const MAX_REQUESTS: usize = 1000;
/// About how much URL and header text is kept per page.
pub const MAX_BYTES: usize = 2 << 20;
/// Longest URL or header value kept.
pub const MAX_TEXT: usize = 10_000;
/// Body text shown inline, in characters (as the reference).
pub const BODY_LIMIT: usize = 10_000;
/// URL characters shown in the list (as the reference).
const LIST_URL_LIMIT: usize = 255;
/// Documents whose requests are kept: the current one and the two before it.
const DOCUMENTS_KEPT: usize = 3;

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

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "list_network_requests",
        description:
            "List the page's requests since its last navigation: reqid, method, URL, status.",
        args: Schema {
            properties: || {
                json!({
                    "pageSize": {"type": "integer", "exclusiveMinimum": 0, "maximum": max::COUNT, "description": "Default: all"},
                    "pageIdx": {"type": "integer", "minimum": 0, "maximum": max::COUNT, "description": "From 0"},
                    "resourceTypes": {
                        "type": "array",
                        "maxItems": max::ITEMS,
                        "items": {"type": "string", "enum": RESOURCE_TYPES},
                    },
                    "includePreservedRequests": {"type": "boolean", "description": "Also the 2 previous navigations'"},
                })
            },
            required: &[],
        },
        read_only: true,
        page_scoped: true,
        category: Category::Network,
        run: list_network_requests,
    },
    Tool {
        name: "get_network_request",
        description: "Show one request in full by reqid: headers, bodies, timing, redirects.",
        args: Schema {
            properties: || {
                json!({
                    "reqid": {"type": "number", "minimum": 0, "maximum": max::ID},
                    "requestFilePath": {"type": "string", "maxLength": max::PATH, "description": "Save the request body here"},
                    "responseFilePath": {"type": "string", "maxLength": max::PATH, "description": "Save the response body here"},
                })
            },
            required: &[],
        },
        read_only: false,
        page_scoped: true,
        category: Category::Network,
        run: get_network_request,
    },
];

// ---------------------------------------------------------------------------------------
// Collecting

/// A new page session: start receiving its network events (the page is paused before its
/// first request).
pub fn attach(cx: &mut Ctx, session: &str) {
    browser::fire(cx, Some(session), cdp_network::EnableParams::default());
}

pub fn on_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    if let Some(p) = cx.browser.pages.get(page) {
        cx.network.entry(page).on_event(event, &p.target_id);
    }
}

// URLs and bodies are cut as console texts are (`<text>... <truncated>`).
use super::console::format::cut;

// ---------------------------------------------------------------------------------------
// list_network_requests

#[derive(Deserialize)]
struct ListArgs {
    #[serde(flatten)]
    shared: Shared,
    #[serde(flatten)]
    paging: Paging,
    #[serde(rename = "resourceTypes", default)]
    resource_types: Vec<String>,
    #[serde(rename = "includePreservedRequests", default)]
    preserved: bool,
}

fn list_network_requests(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<ListArgs>(cx, call, args) else {
        return;
    };
    call::on_page(cx, call, args.shared.page(), move |cx, page| {
        if cx.browser.pages.get(page).is_none() {
            return call::fail(cx, call, crate::browser::pages::no_such_page(page));
        }
        let (section, structured) = render_list(cx.network.entry(page), &args);
        let mut resp = Response::for_page(page);
        resp.structured = structured;
        // After the page's own blocks (an open dialog), as the reference lays it out.
        resp.snapshot = Some(section);
        finish(cx, call, resp);
    });
}

fn render_list(log: &Log, args: &ListArgs) -> (String, Map<String, Value>) {
    let types = &args.resource_types;
    let requests: Vec<&Request> = log
        .requests(args.preserved)
        .into_iter()
        .filter(|r| types.is_empty() || types.contains(&r.resource_type))
        .collect();
    let mut structured = Map::new();
    let mut out = vec!["## Network requests".to_owned()];
    if requests.is_empty() {
        out.push("No requests found.".to_owned());
        return (out.join("\n"), structured);
    }
    let paged = paginate(requests.len(), &args.paging);
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

const NOTHING_SELECTED: &str = "Nothing is currently selected in the DevTools Network panel.";

/// What the detail view needs of a request, copied out of the record.
struct Detail {
    summary: Value,
    url: String,
    status: String,
    headers: Headers,
    response: Option<(Headers, String)>,
    failure: Option<String>,
    /// The hops that redirected to this request, the latest first: (line, JSON).
    chain: Vec<(String, Value)>,
    timing: Option<(String, Value)>,
}

#[derive(Deserialize)]
struct GetArgs {
    #[serde(flatten)]
    shared: Shared,
    reqid: Option<f64>,
    #[serde(rename = "requestFilePath")]
    request_file: Option<String>,
    #[serde(rename = "responseFilePath")]
    response_file: Option<String>,
}

fn get_network_request(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<GetArgs>(cx, call, args) else {
        return;
    };
    let wanted = args.reqid.unwrap_or(0.0);
    let (request_file, response_file) = (args.request_file, args.response_file);
    call::on_page(cx, call, args.shared.page(), move |cx, page| {
        if wanted == 0.0 {
            // The reference then shows the request selected in a DevTools window; there is
            // no such window here.
            let mut resp = Response::for_page(page);
            resp.line(NOTHING_SELECTED);
            return finish(cx, call, resp);
        }
        if super::dialogs::refuse(cx, call, page) {
            return;
        }
        if cx.browser.pages.get(page).is_none() {
            return call::fail(cx, call, crate::browser::pages::no_such_page(page));
        }
        let log = cx.network.entry(page);
        let found = (wanted >= 1.0 && wanted.fract() == 0.0)
            .then(|| log.find(wanted as u64))
            .flatten();
        let Some(r) = found else {
            return fail_bare(cx, call, "Request not found for selected page");
        };
        let mut detail = detail_of(log, r);
        if cx.settings.policies.redact_network_headers {
            // --redactNetworkHeaders (issue 10 part 3)
            redact::redact(&mut detail.headers);
            if let Some((headers, _)) = &mut detail.response {
                redact::redact(headers);
            }
        }
        let wanted = bodies::Wanted {
            cdp_id: r.cdp_id.clone(),
            has_post_data: r.has_post_data,
            has_response: r.response.is_some(),
            loading: r.response.is_some() && r.finished.is_none(),
            redirected: r.redirected,
            request_file,
            response_file,
        };
        let frame = r.frame_id().to_owned();
        let page_session = cx.browser.pages.get(page).map(|p| p.session.clone());
        let session = crate::browser::frames::frame_session(cx, page, &frame)
            .or(page_session)
            .unwrap_or_default();
        bodies::fetch(
            cx,
            session,
            wanted,
            Box::new(move |cx, r| match r {
                Err(e) => fail_bare(cx, call, e),
                Ok((request, response)) => {
                    let (text, structured) = render_detail(&detail, request, response);
                    let mut resp = Response::for_page(page);
                    resp.structured = structured;
                    resp.snapshot = Some(text);
                    finish(cx, call, resp);
                }
            }),
        );
    });
}

/// An error the reference reports outside its tool handler: the bare message, without the
/// `Error: ` line prefix.
fn fail_bare(cx: &mut Ctx, call: CallId, message: impl Into<String>) {
    call::finish(cx, call, ToolResult::error(message));
}

fn detail_of(log: &Log, r: &Request) -> Detail {
    let chain = r
        .redirected_from
        .iter()
        .rev()
        .filter_map(|id| log.find(*id))
        .map(|hop| (concise(hop), summary(hop)))
        .collect();
    Detail {
        summary: summary(r),
        url: r.url.clone(),
        status: r.status(),
        headers: r.headers.clone(),
        response: r
            .response
            .as_ref()
            .map(|a| (a.headers.clone(), a.mime_type.clone())),
        failure: r.failure.clone(),
        chain,
        timing: timing(r),
    }
}

/// How long the request took, by the browser's own clock.
fn timing(r: &Request) -> Option<(String, Value)> {
    if r.started <= 0.0 {
        return None;
    }
    let ms = |t: f64| ((t - r.started) * 10_000.0).round() / 10.0;
    let mut parts = Vec::new();
    let mut data = json!({"startedAt": r.wall_time});
    if let Some(a) = r.response.as_ref().filter(|a| a.at > 0.0) {
        parts.push(format!("response headers after {} ms", ms(a.at)));
        data["responseHeadersMs"] = json!(ms(a.at));
    }
    match r.finished {
        Some(end) => {
            let verb = if r.failure.is_some() {
                "failed"
            } else {
                "finished"
            };
            parts.push(format!("{verb} after {} ms", ms(end)));
            data["totalMs"] = json!(ms(end));
        }
        None => parts.push("not finished yet".to_owned()),
    }
    if let Some(n) = r.encoded_length {
        parts.push(format!("{n} bytes transferred"));
        data["encodedDataLength"] = json!(n);
    }
    let text = parts.join(", ");
    let mut chars = text.chars();
    let text = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
        None => text,
    };
    Some((format!("{text}."), data))
}

fn render_detail(
    d: &Detail,
    request: Option<Body>,
    response: Option<Body>,
) -> (String, Map<String, Value>) {
    let mut out = vec![
        format!("## Request {}", d.url),
        format!("Status: {}", d.status),
        "### Request Headers".to_owned(),
    ];
    let mut json = d.summary.clone();
    out.extend(header_lines(&d.headers));
    json["requestHeaders"] = header_map(&d.headers);
    body_section(&mut out, &mut json, "Request", request);
    if let Some((headers, mime)) = &d.response {
        out.push("### Response Headers".to_owned());
        out.extend(header_lines(headers));
        json["responseHeaders"] = header_map(headers);
        json["mimeType"] = json!(mime);
    }
    body_section(&mut out, &mut json, "Response", response);
    if let Some(failure) = &d.failure {
        out.push("### Request failed with".to_owned());
        out.push(failure.clone());
        json["failure"] = json!(failure);
    }
    if !d.chain.is_empty() {
        out.push("### Redirect chain".to_owned());
        for (indent, (line, _)) in d.chain.iter().enumerate() {
            out.push(format!("{}{line}", "  ".repeat(indent)));
        }
        json["redirectChain"] = Value::Array(d.chain.iter().map(|(_, j)| j.clone()).collect());
    }
    // Not in the reference's text: how long the request took.
    if let Some((text, data)) = &d.timing {
        out.push("### Timing".to_owned());
        out.push(text.clone());
        json["timing"] = data.clone();
    }
    let mut structured = Map::new();
    structured.insert("networkRequest".into(), json);
    (out.join("\n"), structured)
}

fn header_lines(headers: &Headers) -> impl Iterator<Item = String> + '_ {
    headers
        .iter()
        .map(|(name, value)| format!("- {name}:{value}"))
}

fn header_map(headers: &Headers) -> Value {
    Value::Object(
        headers
            .iter()
            .map(|(n, v)| (n.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// `### Request Body` / `### Response Body` with the text, or where it was saved.
fn body_section(out: &mut Vec<String>, json: &mut Value, which: &str, body: Option<Body>) {
    let key = which.to_ascii_lowercase();
    match body {
        Some(Body::Inline(text)) => {
            out.push(format!("### {which} Body"));
            out.push(text.clone());
            json[format!("{key}Body")] = json!(text);
        }
        Some(Body::Saved(path)) => {
            out.push(format!("### {which} Body"));
            out.push(format!("Saved to {path}."));
            json[format!("{key}BodyFilePath")] = json!(path);
        }
        None => {}
    }
}
