//! The per-page network record: requests by document, with ids, within fixed bounds; and
//! how the `Network.*` events build them. `Ctx` holds one [`Log`] per page.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::browser::RawEvent;
use crate::cdp::generated::network::{
    self as cdp_network, LoadingFailedEvent, LoadingFinishedEvent, RequestWillBeSentEvent,
    RequestWillBeSentExtraInfoEvent, ResourceType, ResponseReceivedEvent,
    ResponseReceivedExtraInfoEvent,
};
use crate::cdp::generated::page::FrameNavigatedEvent;
use crate::tools::text;

/// Most requests kept per page, over all kept documents.
pub(super) const MAX_REQUESTS: usize = 1000;
/// About how much URL and header text is kept per page.
pub(super) const MAX_BYTES: usize = 2 << 20;
/// Longest URL or header value kept.
pub(super) const MAX_TEXT: usize = 10_000;
/// Documents whose requests are kept: the current one and the two before it.
const DOCUMENTS_KEPT: usize = 3;

/// Header (lower-case name, value) pairs, in the order the browser sent them.
pub(super) type Headers = Vec<(String, String)>;

/// Raw-header events that arrived before their request, waiting for it.
const MAX_EARLY_EXTRAS: usize = 200;

/// Per-page network record.
#[derive(Default)]
pub(crate) struct Log {
    /// Requests by document, the current document first; ids ascend within and across them.
    documents: VecDeque<Vec<Request>>,
    next_id: u64,
    count: usize,
    bytes: usize,
    /// The CDP request id → our id of its latest hop.
    by_cdp: HashMap<String, u64>,
    /// Raw headers (the `…ExtraInfo` events) that came before the event they complete.
    early: HashMap<String, Extra>,
}

#[derive(Default)]
struct Extra {
    request_headers: Option<Headers>,
    /// In the order they came: across a redirect the browser may report the next hop's answer
    /// before the event that ends the hop before it, so each hop takes the oldest.
    responses: VecDeque<RawResponse>,
}

/// More answers than a redirect chain can have (Chromium follows at most 20 redirects).
const MAX_EARLY_RESPONSES: usize = 32;

/// What `Network.responseReceivedExtraInfo` tells: the status and headers as sent on the
/// wire (a revalidated response shows 304 there, 200 in `responseReceived`).
struct RawResponse {
    status: Option<u16>,
    headers: Headers,
}

pub(super) struct Request {
    pub(super) id: u64,
    pub(super) cdp_id: String,
    loader_id: String,
    frame_id: String,
    /// Our ids of the hops that redirected to this one, oldest first.
    pub(super) redirected_from: Vec<u64>,
    /// This hop was answered with a redirect (the browser keeps no body for it).
    pub(super) redirected: bool,
    pub(super) method: String,
    pub(super) url: String,
    /// Lower case, as the `resourceTypes` filter names them.
    pub(super) resource_type: String,
    pub(super) headers: Headers,
    raw_request_headers: bool,
    pub(super) has_post_data: bool,
    pub(super) response: Option<Answer>,
    pub(super) failure: Option<String>,
    /// The browser's monotonic clock (seconds) when the request started, and the wall clock.
    pub(super) started: f64,
    pub(super) wall_time: f64,
    pub(super) finished: Option<f64>,
    pub(super) encoded_length: Option<f64>,
}

pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) headers: Headers,
    raw_headers: bool,
    pub(super) mime_type: String,
    /// When the headers arrived (monotonic seconds).
    pub(super) at: f64,
}

impl Answer {
    /// `at`: the event's time; `started`: when the request started.
    fn from_event(response: &cdp_network::Response, at: f64, started: f64) -> Answer {
        // When the headers arrived, by the browser's own timing of the request if it has one
        // for this request (a response from the cache carries the timing of an older one).
        let measured = response.timing.as_ref().and_then(|t| {
            let (base, end) = (t.request_time, t.receive_headers_end);
            (base >= started && end >= 0.0).then(|| base + end / 1000.0)
        });
        Answer {
            status: u64::try_from(response.status).unwrap_or(0) as u16,
            headers: headers_of(&response.headers),
            raw_headers: false,
            mime_type: response.mime_type.clone(),
            at: measured.unwrap_or(at),
        }
    }

    /// Takes the raw status and headers, when known (as the reference shows them).
    fn with_raw(mut self, raw: Option<RawResponse>) -> Answer {
        if let Some(raw) = raw {
            self.headers = raw.headers;
            self.raw_headers = true;
            if let Some(s) = raw.status {
                self.status = s;
            }
        }
        self
    }
}

impl Request {
    /// About how many bytes the request holds.
    fn weight(&self) -> usize {
        let headers =
            |h: &Headers| -> usize { h.iter().map(|(n, v)| n.len() + v.len() + 48).sum() };
        let answer = self
            .response
            .as_ref()
            .map_or(0, |a| headers(&a.headers) + a.mime_type.len() + 64);
        self.cdp_id.len()
            + self.loader_id.len()
            + self.frame_id.len()
            + self.url.len()
            + self.method.len()
            + self.resource_type.len()
            + headers(&self.headers)
            + answer
            + self.failure.as_ref().map_or(0, String::len)
            + self.redirected_from.len() * 8
            + 200
    }

    /// The frame that made it: its body is read in that frame's session when it is an
    /// out-of-process iframe.
    pub(super) fn frame_id(&self) -> &str {
        &self.frame_id
    }

    /// The status as listed: the HTTP status, the error of a failed request, or `pending`.
    pub(super) fn status(&self) -> String {
        match (&self.response, &self.failure) {
            (Some(a), _) => a.status.to_string(),
            (None, Some(f)) => f.clone(),
            (None, None) => "pending".to_owned(),
        }
    }

    fn is_navigation(&self) -> bool {
        self.resource_type == "document" && self.cdp_id == self.loader_id
    }
}

impl Log {
    pub(super) fn find(&self, id: u64) -> Option<&Request> {
        self.documents.iter().find_map(|doc| {
            doc.binary_search_by_key(&id, |r| r.id)
                .ok()
                .map(|i| &doc[i])
        })
    }

    /// The requests of the current document, or of every kept one (oldest first).
    pub(super) fn requests(&self, preserved: bool) -> Vec<&Request> {
        if preserved {
            self.documents.iter().rev().flatten().collect()
        } else {
            self.documents.front().into_iter().flatten().collect()
        }
    }

    /// Records what a page event says. `main_frame` is the page's main frame id.
    pub(super) fn on_event(&mut self, event: &RawEvent, main_frame: &str) {
        if let Some(e) = event.decode::<RequestWillBeSentEvent>() {
            self.will_be_sent(e);
        } else if let Some(e) = event.decode::<RequestWillBeSentExtraInfoEvent>() {
            self.request_extra(&e);
        } else if let Some(e) = event.decode::<ResponseReceivedExtraInfoEvent>() {
            self.response_extra(&e);
        } else if let Some(e) = event.decode::<ResponseReceivedEvent>() {
            self.response_received(&e);
        } else if let Some(e) = event.decode::<LoadingFinishedEvent>() {
            self.update_cdp(&e.request_id, |r| {
                r.finished = Some(e.timestamp);
                r.encoded_length = Some(e.encoded_data_length);
            });
            self.early.remove(&e.request_id);
        } else if let Some(e) = event.decode::<LoadingFailedEvent>() {
            self.update_cdp(&e.request_id, |r| {
                r.finished = Some(e.timestamp);
                r.failure = Some(e.error_text.clone());
            });
            self.early.remove(&e.request_id);
        } else if let Some(e) = event.decode::<FrameNavigatedEvent>() {
            let frame = &e.frame;
            if frame.parent_id.is_none() && frame.id == main_frame {
                self.new_document(main_frame, &frame.loader_id);
            }
        }
    }

    /// The request headers as sent on the wire (with cookies).
    fn request_extra(&mut self, e: &RequestWillBeSentExtraInfoEvent) {
        let headers = headers_of(&e.headers);
        let id = self.by_cdp.get(&e.request_id).copied();
        let has_raw = id
            .and_then(|id| self.find(id))
            .map(|r| r.raw_request_headers);
        match (id, has_raw) {
            (Some(id), Some(false)) => self.update(id, |r| {
                merge_headers(&mut r.headers, headers);
                r.raw_request_headers = true;
            }),
            // Not seen yet, or it belongs to a redirect hop still to come.
            _ => self.early(&e.request_id).request_headers = Some(headers),
        }
    }

    /// The response status and headers as received on the wire.
    fn response_extra(&mut self, e: &ResponseReceivedExtraInfoEvent) {
        let raw = RawResponse {
            // A status left out decodes as 0: none known.
            status: u64::try_from(e.status_code)
                .ok()
                .filter(|s| *s > 0)
                .map(|s| s as u16),
            headers: headers_of(&e.headers),
        };
        let id = self.by_cdp.get(&e.request_id).copied();
        let answered = id
            .and_then(|id| self.find(id))
            .map(|r| r.response.as_ref().map(|a| a.raw_headers));
        // Whose raw answer it is: the request's, when its answer came without one; the hop's
        // before it, when that hop's redirect answer comes after the request went on.
        let owner = match (id, answered) {
            (Some(id), Some(Some(false))) => Some(id),
            (Some(id), Some(None)) => self.hop_without_raw(id, raw.status),
            _ => None,
        };
        match owner {
            Some(id) => self.update(id, |r| {
                r.response = r.response.take().map(|a| a.with_raw(Some(raw)));
            }),
            // The answer is still to come.
            None => {
                let early = &mut self.early(&e.request_id).responses;
                if early.len() < MAX_EARLY_RESPONSES {
                    early.push_back(raw);
                }
            }
        }
    }

    /// The hop before request `id` when it ended with a redirect answered `status` whose
    /// raw headers have not come. The raw answer of a redirect may come after the request
    /// went on to its next URL: it is that hop's, not the next one's.
    fn hop_without_raw(&self, id: u64, status: Option<u16>) -> Option<u64> {
        let status = status.filter(|s| (300..400).contains(s))?;
        let hop = *self.find(id)?.redirected_from.last()?;
        let answer = self.find(hop)?.response.as_ref()?;
        (answer.status == status && !answer.raw_headers).then_some(hop)
    }

    fn response_received(&mut self, e: &ResponseReceivedEvent) {
        let raw = self
            .early
            .get_mut(&e.request_id)
            .and_then(|x| x.responses.pop_front());
        // A type left out decodes as an empty one: the request keeps the type it was sent as.
        let kind = Some(e.r#type.as_str())
            .filter(|t| !t.is_empty())
            .map(str::to_ascii_lowercase);
        self.update_cdp(&e.request_id, |r| {
            let answer = Answer::from_event(&e.response, e.timestamp, r.started);
            r.response = Some(answer.with_raw(raw));
            if let Some(kind) = kind {
                r.resource_type = kind;
            }
        });
    }

    fn will_be_sent(&mut self, e: RequestWillBeSentEvent) {
        let cdp_id = e.request_id;
        let timestamp = e.timestamp;
        let mut redirected_from = Vec::new();
        if let (Some(redirect), Some(prev)) =
            (&e.redirect_response, self.by_cdp.get(&cdp_id).copied())
        {
            // The same CDP request goes on to a new URL: the hop so far ends with this answer.
            let raw = self
                .early
                .get_mut(&cdp_id)
                .and_then(|x| x.responses.pop_front());
            self.update(prev, |r| {
                if r.response.as_ref().is_none_or(|a| !a.raw_headers) {
                    let answer = Answer::from_event(redirect, timestamp, r.started);
                    r.response = Some(answer.with_raw(raw));
                }
                r.redirected = true;
                r.finished = Some(timestamp);
            });
            if let Some(p) = self.find(prev) {
                redirected_from = p.redirected_from.clone();
                redirected_from.push(prev);
            }
        }
        let request = e.request;
        let fragment = request.url_fragment.as_deref().unwrap_or("");
        let url = format!("{}{fragment}", request.url);
        // A method left out decodes as an empty one.
        let method = match request.method.as_str() {
            "" => "GET".to_owned(),
            _ => request.method,
        };
        let kind = e.r#type.as_ref().map_or("Other", ResourceType::as_str);
        self.push(Request {
            id: 0,
            cdp_id,
            loader_id: e.loader_id,
            frame_id: e.frame_id.unwrap_or_default(),
            redirected_from,
            redirected: false,
            method,
            url: cut(&url),
            resource_type: kind.to_ascii_lowercase(),
            headers: headers_of(&request.headers),
            raw_request_headers: false,
            has_post_data: request.has_post_data.unwrap_or(false) || request.post_data.is_some(),
            response: None,
            failure: None,
            started: timestamp,
            wall_time: e.wall_time,
            finished: None,
            encoded_length: None,
        });
    }

    /// Changes one request, keeping the byte count right.
    fn update(&mut self, id: u64, change: impl FnOnce(&mut Request)) {
        for doc in self.documents.iter_mut() {
            if let Ok(i) = doc.binary_search_by_key(&id, |r| r.id) {
                let r = &mut doc[i];
                self.bytes = self.bytes.saturating_sub(r.weight());
                change(r);
                self.bytes += r.weight();
                break;
            }
        }
        self.trim();
    }

    fn update_cdp(&mut self, cdp_id: &str, change: impl FnOnce(&mut Request)) {
        if let Some(id) = self.by_cdp.get(cdp_id).copied() {
            self.update(id, change);
        }
    }

    fn push(&mut self, mut request: Request) {
        self.next_id += 1;
        request.id = self.next_id;
        if let Some(extra) = self.early.get_mut(&request.cdp_id) {
            if let Some(h) = extra.request_headers.take() {
                merge_headers(&mut request.headers, h);
                request.raw_request_headers = true;
            }
        }
        self.by_cdp.insert(request.cdp_id.clone(), request.id);
        self.count += 1;
        self.bytes += request.weight();
        if self.documents.is_empty() {
            self.documents.push_back(Vec::new());
        }
        if let Some(current) = self.documents.front_mut() {
            current.push(request);
        }
        self.trim();
    }

    /// Drops the oldest requests while over the bounds.
    fn trim(&mut self) {
        while self.count > MAX_REQUESTS || (self.bytes > MAX_BYTES && self.count > 1) {
            let Some(oldest) = self.documents.iter_mut().rev().find(|d| !d.is_empty()) else {
                break;
            };
            let gone = oldest.remove(0);
            self.forget(&gone);
        }
    }

    fn forget(&mut self, gone: &Request) {
        self.count -= 1;
        self.bytes = self.bytes.saturating_sub(gone.weight());
        if self.by_cdp.get(&gone.cdp_id) == Some(&gone.id) {
            self.by_cdp.remove(&gone.cdp_id);
        }
    }

    /// A new document in the main frame, loaded by `loader_id`: its list starts with the
    /// request that loaded it (and that request's redirect hops); a document that needed no
    /// request (about:blank, the back/forward cache) starts with an empty list.
    fn new_document(&mut self, main_frame: &str, loader_id: &str) {
        let moved = match self.documents.front_mut() {
            Some(doc) => doc
                .iter()
                .position(|r| {
                    r.is_navigation() && r.frame_id == main_frame && r.loader_id == loader_id
                })
                .map(|i| doc.split_off(i))
                .unwrap_or_default(),
            None => Vec::new(),
        };
        self.documents.push_front(moved);
        while self.documents.len() > DOCUMENTS_KEPT {
            if let Some(gone) = self.documents.pop_back() {
                for r in &gone {
                    self.forget(r);
                }
            }
        }
    }

    fn early(&mut self, cdp_id: &str) -> &mut Extra {
        if self.early.len() >= MAX_EARLY_EXTRAS && !self.early.contains_key(cdp_id) {
            // Extras whose request never came (filtered out, or lost): forget them all.
            self.early.clear();
        }
        self.early.entry(cdp_id.to_owned()).or_default()
    }
}

/// Adds `extra` headers to `headers`, replacing values of names already there.
fn merge_headers(headers: &mut Headers, extra: Headers) {
    for (name, value) in extra {
        match headers.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => headers.push((name, value)),
        }
    }
}

/// A CDP `Headers` object as (lower-case name, value) pairs, in the order sent.
fn headers_of(v: &Value) -> Headers {
    let mut out = Headers::new();
    for (name, value) in v.as_object().into_iter().flatten() {
        let value = match value {
            Value::String(s) => cut(s),
            other => other.to_string(),
        };
        merge_headers(&mut out, vec![(name.to_ascii_lowercase(), value)]);
    }
    out
}

/// Cuts a stored string at [`MAX_TEXT`] characters, saying so.
fn cut(s: &str) -> String {
    text::cut(s, MAX_TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdp::Event;
    use serde_json::json;

    /// Feeds `log` the event `name` with `params`, as the page's session delivers it (the
    /// page's main frame is `F`).
    fn on(log: &mut Log, name: &str, params: Value) {
        let event = RawEvent {
            session: None,
            method: name.to_owned(),
            params,
        };
        log.on_event(&event, "F");
    }

    fn sent(log: &mut Log, id: &str, kind: &str) {
        on(
            log,
            RequestWillBeSentEvent::NAME,
            json!({"requestId": id, "loaderId": id, "frameId": "F", "type": kind, "timestamp": 1.0,
                "request": {"url": format!("http://h/{id}"), "method": "GET", "headers": {"Accept": "*/*"}}}),
        );
    }

    /// Request `r` goes on to `/next` after a 302.
    fn redirected(log: &mut Log) {
        on(
            log,
            RequestWillBeSentEvent::NAME,
            json!({"requestId": "r", "loaderId": "r", "type": "Fetch", "timestamp": 2.0,
                "request": {"url": "http://h/next", "method": "GET", "headers": {}},
                "redirectResponse": {"status": 302, "headers": {"Location": "/next"}}}),
        );
    }

    fn ids(log: &Log, preserved: bool) -> Vec<&str> {
        log.requests(preserved)
            .iter()
            .map(|r| r.cdp_id.as_str())
            .collect()
    }

    #[test]
    fn a_navigation_starts_a_list_with_its_own_request() {
        let mut log = Log::default();
        sent(&mut log, "doc1", "Document");
        sent(&mut log, "img", "Image");
        sent(&mut log, "doc2", "Document");
        let nav = |log: &mut Log, loader: &str| {
            on(
                log,
                FrameNavigatedEvent::NAME,
                json!({"frame": {"id": "F", "loaderId": loader}}),
            )
        };
        nav(&mut log, "doc2");
        assert_eq!(ids(&log, false), vec!["doc2"]);
        assert_eq!(ids(&log, true), vec!["doc1", "img", "doc2"]);
        // An iframe's navigation changes nothing.
        on(
            &mut log,
            FrameNavigatedEvent::NAME,
            json!({"frame": {"id": "sub", "parentId": "F", "loaderId": "x"}}),
        );
        assert_eq!(ids(&log, false), vec!["doc2"]);
        // A document without a request of its own (about:blank) starts empty.
        nav(&mut log, "other");
        assert!(ids(&log, false).is_empty());
        nav(&mut log, "x");
        nav(&mut log, "y");
        assert!(ids(&log, true).is_empty());
        assert_eq!((log.count, log.bytes), (0, 0));
        assert!(log.by_cdp.is_empty());
    }

    #[test]
    fn raw_headers_and_redirects() {
        let mut log = Log::default();
        // The raw request headers may come first.
        on(
            &mut log,
            RequestWillBeSentExtraInfoEvent::NAME,
            json!({"requestId": "r", "headers": {"Accept": "*/*", "Cookie": "a=1"}}),
        );
        sent(&mut log, "r", "Fetch");
        redirected(&mut log);
        on(
            &mut log,
            ResponseReceivedExtraInfoEvent::NAME,
            json!({"requestId": "r", "statusCode": 304, "headers": {"ETag": "x"}}),
        );
        on(
            &mut log,
            ResponseReceivedEvent::NAME,
            json!({"requestId": "r", "type": "Fetch", "timestamp": 3.0,
                "response": {"status": 200, "headers": {"Content-Type": "text/plain"}, "mimeType": "text/plain"}}),
        );
        let first = log
            .find(1)
            .map(|r| (r.status(), r.redirected, r.headers.clone()));
        assert_eq!(
            first,
            Some((
                "302".to_owned(),
                true,
                vec![
                    ("accept".to_owned(), "*/*".to_owned()),
                    ("cookie".to_owned(), "a=1".to_owned())
                ]
            ))
        );
        let second = log.find(2).map(|r| (r.status(), r.redirected_from.clone()));
        assert_eq!(second, Some(("304".to_owned(), vec![1])));
        let headers = log
            .find(2)
            .and_then(|r| r.response.as_ref())
            .map(|a| a.headers.clone());
        assert_eq!(headers, Some(vec![("etag".to_owned(), "x".to_owned())]));
        on(
            &mut log,
            LoadingFailedEvent::NAME,
            json!({"requestId": "r", "timestamp": 4.0, "errorText": "net::ERR_ABORTED"}),
        );
        assert_eq!(
            log.find(2).and_then(|r| r.failure.clone()).as_deref(),
            Some("net::ERR_ABORTED")
        );
    }

    #[test]
    fn a_hops_answer_that_comes_after_the_next_hops_is_still_the_hops() {
        let mut log = Log::default();
        sent(&mut log, "r", "Fetch");
        // Both raw answers come before the event that ends the first hop (seen with the
        // network service in the browser process).
        for (status, location) in [(302, "/next"), (200, "")] {
            on(
                &mut log,
                ResponseReceivedExtraInfoEvent::NAME,
                json!({"requestId": "r", "statusCode": status, "headers": {"Location": location}}),
            );
        }
        redirected(&mut log);
        on(
            &mut log,
            ResponseReceivedEvent::NAME,
            json!({"requestId": "r", "type": "Fetch", "timestamp": 3.0,
                "response": {"status": 200, "headers": {}, "mimeType": "text/plain"}}),
        );
        let statuses: Vec<_> = [1, 2]
            .iter()
            .filter_map(|id| log.find(*id).map(|r| r.status()))
            .collect();
        assert_eq!(statuses, ["302", "200"]);
    }

    #[test]
    fn a_hops_raw_answer_that_comes_after_the_request_went_on_is_still_the_hops() {
        let mut log = Log::default();
        sent(&mut log, "r", "Fetch");
        // The order a loaded browser showed: the redirect first, both raw answers after it.
        redirected(&mut log);
        for (status, header) in [(302, "hop"), (200, "last")] {
            on(
                &mut log,
                ResponseReceivedExtraInfoEvent::NAME,
                json!({"requestId": "r", "statusCode": status, "headers": {"X-Raw": header}}),
            );
        }
        on(
            &mut log,
            ResponseReceivedEvent::NAME,
            json!({"requestId": "r", "type": "Fetch", "timestamp": 3.0,
                "response": {"status": 200, "headers": {}, "mimeType": "text/plain"}}),
        );
        let answers: Vec<_> = [1, 2]
            .iter()
            .filter_map(|id| log.find(*id))
            .map(|r| {
                let raw = r.response.as_ref().map(|a| a.headers.clone());
                (r.status(), raw)
            })
            .collect();
        let raw = |v: &str| Some(vec![("x-raw".to_owned(), v.to_owned())]);
        assert_eq!(
            answers,
            [
                ("302".to_owned(), raw("hop")),
                ("200".to_owned(), raw("last"))
            ]
        );
    }

    #[test]
    fn the_record_stays_bounded() {
        let mut log = Log::default();
        for i in 0..(MAX_REQUESTS + 10) {
            sent(&mut log, &format!("r{i}"), "Fetch");
        }
        assert_eq!(log.count, MAX_REQUESTS);
        assert_eq!(log.requests(false)[0].id, 11);
        assert_eq!(log.by_cdp.len(), MAX_REQUESTS);
        let big = "y".repeat(MAX_TEXT * 2);
        for i in 0..1000 {
            on(
                &mut log,
                RequestWillBeSentEvent::NAME,
                json!({"requestId": format!("b{i}"), "timestamp": 1.0,
                    "request": {"url": format!("http://h/{big}"), "method": "GET", "headers": {"X": big}}}),
            );
        }
        assert!(log.bytes <= MAX_BYTES, "{}", log.bytes);
        assert!(log
            .requests(false)
            .iter()
            .all(|r| r.url.len() < MAX_TEXT + 100));
        for i in 0..(MAX_EARLY_EXTRAS * 3) {
            on(
                &mut log,
                ResponseReceivedExtraInfoEvent::NAME,
                json!({"requestId": format!("never{i}"), "headers": {}}),
            );
        }
        assert!(log.early.len() <= MAX_EARLY_EXTRAS);
    }
}
