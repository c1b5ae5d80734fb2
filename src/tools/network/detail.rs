//! `get_network_request`, step by step: the request found in the page's record, a response
//! still loading waited for a moment, its request body and its response body asked from the
//! browser (in the session of the frame that made it), and the detail view.
//! [`RequestDetail::next`] is the whole story.

use serde_json::{json, Map, Value};

use super::bodies::{self, Body};
use super::record::{Headers, Log, Request};
use super::{concise, redact, summary};
use crate::browser::{self, Flow, PageId};
use crate::cdp::generated::network::{
    GetRequestPostDataParams, GetRequestPostDataReturns, GetResponseBodyParams,
    GetResponseBodyReturns,
};
use crate::error::Error;
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::dialogs;
use crate::tools::files::Roots;
use crate::tools::response::{finish, Response};
use crate::tools::result::ToolResult;

const NOTHING_SELECTED: &str = "Nothing is currently selected in the DevTools Network panel.";

/// One `get_network_request` call.
pub(super) struct RequestDetail {
    call: CallId,
    /// The `reqid` asked for, as given (0: none).
    wanted: f64,
    /// Save the request body here instead of showing it.
    request_file: Option<String>,
    /// Save the response body here instead of showing it.
    response_file: Option<String>,
    /// The page whose record holds the request, once found.
    page: PageId,
    /// The session its bodies are asked in: its frame's, or the page's.
    session: String,
    /// What is known of the request, once found.
    request: Option<Found>,
    /// The request body, once read (`None`: it has none).
    request_body: Option<Body>,
}

pub(super) enum Step {
    /// The page the call works on.
    Page(Result<PageId, Error>),
    /// The response that was still loading has finished or failed, or its wait ran out: its
    /// body is asked for as the browser has it either way.
    Loaded,
    /// `Network.getRequestPostData` answered (a failure reads as a body no longer there).
    RequestBody(Result<GetRequestPostDataReturns, Error>),
    /// `Network.getResponseBody` answered (a failure reads as a body no longer there).
    ResponseBody(Result<GetResponseBodyReturns, Error>),
}

/// What the call needs of a request, copied out of the record.
struct Found {
    detail: Detail,
    cdp_id: String,
    has_post_data: bool,
    has_response: bool,
    /// Answered with a redirect: the browser keeps no body for it.
    redirected: bool,
}

impl RequestDetail {
    pub(super) fn new(
        call: CallId,
        wanted: f64,
        request_file: Option<String>,
        response_file: Option<String>,
    ) -> RequestDetail {
        RequestDetail {
            call,
            wanted,
            request_file,
            response_file,
            page: PageId::NONE,
            session: String::new(),
            request: None,
            request_body: None,
        }
    }

    /// Starts the call on page `requested` (the selected page when `None`).
    pub(super) fn start(self, cx: &mut Ctx, requested: Option<PageId>) {
        let call = self.call;
        call::page(cx, call, requested, self.then(Step::Page));
    }
}

impl Flow<Ctx> for RequestDetail {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Page(Ok(page)) => self.find(cx, page),
            Step::Loaded => self.ask_request_body(cx),
            Step::RequestBody(answer) => self.took_request_body(cx, answer),
            Step::ResponseBody(answer) => self.took_response_body(cx, answer),
            Step::Page(Err(e)) => call::fail(cx, self.call, e),
        }
    }
}

impl RequestDetail {
    /// Finds the request in the page's record (an open dialog refuses the call first); a
    /// response still loading is waited for a moment, as the browser has its whole body only
    /// once it has loaded.
    fn find(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        let wanted = self.wanted;
        if wanted == 0.0 {
            // The reference then shows the request selected in a DevTools window; there is
            // no such window here.
            let mut resp = Response::for_page(page);
            resp.line(NOTHING_SELECTED);
            return finish(cx, self.call, resp);
        }
        if dialogs::refuse(cx, self.call, page) {
            return;
        }
        let Some(page_session) = cx.browser.pages.get(page).map(|p| p.session.clone()) else {
            return call::fail(cx, self.call, browser::pages::no_such_page(page));
        };
        let log = cx.network.entry(page);
        let found = (wanted >= 1.0 && wanted.fract() == 0.0)
            .then(|| log.find(wanted as u64))
            .flatten();
        let Some(r) = found else {
            return fail_bare(cx, self.call, "Request not found for selected page");
        };
        let mut found = Found {
            detail: Detail::of(log, r),
            cdp_id: r.cdp_id.clone(),
            has_post_data: r.has_post_data,
            has_response: r.response.is_some(),
            redirected: r.redirected,
        };
        let loading = r.response.is_some() && r.finished.is_none();
        let frame = r.frame_id().to_owned();
        if cx.settings.policies.redact_network_headers {
            found.detail.redact();
        }
        self.session = browser::frames::frame_session(cx, page, &frame).unwrap_or(page_session);
        if loading {
            let (session, cdp_id) = (self.session.clone(), found.cdp_id.clone());
            self.request = Some(found);
            // However the wait ends, the bodies are asked for next, as the browser has them.
            let loaded = self.then(|_| Step::Loaded);
            return bodies::when_loaded(cx, &session, &cdp_id, loaded);
        }
        self.request = Some(found);
        self.ask_request_body(cx)
    }

    /// Asks for the request body, if the request sent one.
    fn ask_request_body(self, cx: &mut Ctx) {
        let Some(found) = self.request.as_ref().filter(|f| f.has_post_data) else {
            return self.ask_response_body(cx);
        };
        let params = GetRequestPostDataParams {
            request_id: found.cdp_id.clone(),
        };
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, Step::RequestBody);
    }

    fn took_request_body(mut self, cx: &mut Ctx, answer: Result<GetRequestPostDataReturns, Error>) {
        let file = self.request_file.take();
        match bodies::request_body(&Roots::of(cx, self.call), answer, file) {
            Ok(body) => {
                self.request_body = Some(body);
                self.ask_response_body(cx)
            }
            Err(e) => fail_bare(cx, self.call, e),
        }
    }

    /// Asks for the response body, if there was a response and the browser keeps its body.
    fn ask_response_body(self, cx: &mut Ctx) {
        let Some(found) = &self.request else {
            return;
        };
        if !found.has_response {
            return self.reply(cx, None);
        }
        if found.redirected {
            let saving = self.response_file.is_some();
            return self.reply(cx, Some(bodies::no_response_body(saving)));
        }
        let params = GetResponseBodyParams {
            request_id: found.cdp_id.clone(),
        };
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, Step::ResponseBody);
    }

    fn took_response_body(mut self, cx: &mut Ctx, answer: Result<GetResponseBodyReturns, Error>) {
        let file = self.response_file.take();
        match bodies::response_body(&Roots::of(cx, self.call), answer, file) {
            Ok(body) => self.reply(cx, Some(body)),
            Err(e) => fail_bare(cx, self.call, e),
        }
    }

    fn reply(self, cx: &mut Ctx, response_body: Option<Body>) {
        let Some(found) = &self.request else {
            return;
        };
        let (text, structured) = found.detail.render(self.request_body, response_body);
        let mut resp = Response::for_page(self.page);
        resp.structured = structured;
        resp.snapshot = Some(text);
        finish(cx, self.call, resp);
    }
}

/// An error the reference reports outside its tool handler: the bare message, without the
/// `Error: ` line prefix.
fn fail_bare(cx: &mut Ctx, call: CallId, message: impl Into<String>) {
    call::finish(cx, call, ToolResult::error(message));
}

/// What the detail view shows of a request, copied out of the record.
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

impl Detail {
    fn of(log: &Log, r: &Request) -> Detail {
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

    /// `--redactNetworkHeaders`: the headers' values as [`redact`] shows them.
    fn redact(&mut self) {
        redact::redact(&mut self.headers);
        if let Some((headers, _)) = &mut self.response {
            redact::redact(headers);
        }
    }

    fn render(
        &self,
        request: Option<Body>,
        response: Option<Body>,
    ) -> (String, Map<String, Value>) {
        let mut out = vec![
            format!("## Request {}", self.url),
            format!("Status: {}", self.status),
            "### Request Headers".to_owned(),
        ];
        let mut json = self.summary.clone();
        out.extend(header_lines(&self.headers));
        json["requestHeaders"] = header_map(&self.headers);
        body_section(&mut out, &mut json, "Request", request);
        if let Some((headers, mime)) = &self.response {
            out.push("### Response Headers".to_owned());
            out.extend(header_lines(headers));
            json["responseHeaders"] = header_map(headers);
            json["mimeType"] = json!(mime);
        }
        body_section(&mut out, &mut json, "Response", response);
        if let Some(failure) = &self.failure {
            out.push("### Request failed with".to_owned());
            out.push(failure.clone());
            json["failure"] = json!(failure);
        }
        if !self.chain.is_empty() {
            out.push("### Redirect chain".to_owned());
            for (indent, (line, _)) in self.chain.iter().enumerate() {
                out.push(format!("{}{line}", "  ".repeat(indent)));
            }
            let chain = self.chain.iter().map(|(_, j)| j.clone());
            json["redirectChain"] = Value::Array(chain.collect());
        }
        // Not in the reference's text: how long the request took.
        if let Some((text, data)) = &self.timing {
            out.push("### Timing".to_owned());
            out.push(text.clone());
            json["timing"] = data.clone();
        }
        let mut structured = Map::new();
        structured.insert("networkRequest".into(), json);
        (out.join("\n"), structured)
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
