//! The per-page network record: requests by document, with ids, within fixed bounds; and
//! how the `Network.*` events build them.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use super::{DOCUMENTS_KEPT, MAX_BYTES, MAX_REQUESTS, MAX_TEXT};

/// Header (lower-case name, value) pairs, in the order the browser sent them.
pub type Headers = Vec<(String, String)>;

/// Raw-header events that arrived before their request, waiting for it.
const MAX_EARLY_EXTRAS: usize = 200;

/// Per-page network record.
#[derive(Default)]
pub struct Log {
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
    response: Option<RawResponse>,
}

/// What `Network.responseReceivedExtraInfo` tells: the status and headers as sent on the
/// wire (a revalidated response shows 304 there, 200 in `responseReceived`).
struct RawResponse {
    status: Option<u16>,
    headers: Headers,
}

pub struct Request {
    pub id: u64,
    pub cdp_id: String,
    loader_id: String,
    frame_id: String,
    /// Our ids of the hops that redirected to this one, oldest first.
    pub redirected_from: Vec<u64>,
    /// This hop was answered with a redirect (the browser keeps no body for it).
    pub redirected: bool,
    pub method: String,
    pub url: String,
    /// Lower case, as the `resourceTypes` filter names them.
    pub resource_type: String,
    pub headers: Headers,
    raw_request_headers: bool,
    pub has_post_data: bool,
    pub response: Option<Answer>,
    pub failure: Option<String>,
    /// The browser's monotonic clock (seconds) when the request started, and the wall clock.
    pub started: f64,
    pub wall_time: f64,
    pub finished: Option<f64>,
    pub encoded_length: Option<f64>,
}

pub struct Answer {
    pub status: u16,
    pub headers: Headers,
    raw_headers: bool,
    pub mime_type: String,
    /// When the headers arrived (monotonic seconds).
    pub at: f64,
}

impl Answer {
    /// `at`: the event's time; `started`: when the request started.
    fn from_event(response: &Value, at: Option<f64>, started: f64) -> Answer {
        // When the headers arrived, by the browser's own timing of the request if it has one
        // for this request (a response from the cache carries the timing of an older one).
        let timing = &response["timing"];
        let measured = match (
            timing["requestTime"].as_f64(),
            timing["receiveHeadersEnd"].as_f64(),
        ) {
            (Some(base), Some(end)) if base >= started && end >= 0.0 => Some(base + end / 1000.0),
            _ => None,
        };
        Answer {
            status: response["status"].as_u64().unwrap_or(0) as u16,
            headers: headers_of(&response["headers"]),
            raw_headers: false,
            mime_type: response["mimeType"].as_str().unwrap_or("").to_owned(),
            at: measured.or(at).unwrap_or(0.0),
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

    /// The status as listed: the HTTP status, the error of a failed request, or `pending`.
    pub fn status(&self) -> String {
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
    pub fn find(&self, id: u64) -> Option<&Request> {
        self.documents.iter().find_map(|doc| {
            doc.binary_search_by_key(&id, |r| r.id)
                .ok()
                .map(|i| &doc[i])
        })
    }

    /// The requests of the current document, or of every kept one (oldest first).
    pub fn requests(&self, preserved: bool) -> Vec<&Request> {
        if preserved {
            self.documents.iter().rev().flatten().collect()
        } else {
            self.documents.front().into_iter().flatten().collect()
        }
    }

    /// Records what a page event says. `main_frame` is the page's main frame id.
    pub fn on_event(&mut self, method: &str, params: &Value, main_frame: &str) {
        let cdp_id = params["requestId"].as_str().unwrap_or("");
        match method {
            "Network.requestWillBeSent" => self.will_be_sent(params),
            "Network.requestWillBeSentExtraInfo" => {
                let headers = headers_of(&params["headers"]);
                let id = self.by_cdp.get(cdp_id).copied();
                let has_raw = id
                    .and_then(|id| self.find(id))
                    .map(|r| r.raw_request_headers);
                match (id, has_raw) {
                    (Some(id), Some(false)) => self.update(id, |r| {
                        merge_headers(&mut r.headers, headers);
                        r.raw_request_headers = true;
                    }),
                    // Not seen yet, or it belongs to a redirect hop still to come.
                    _ => self.early(cdp_id).request_headers = Some(headers),
                }
            }
            "Network.responseReceivedExtraInfo" => {
                let raw = RawResponse {
                    status: params["statusCode"].as_u64().map(|s| s as u16),
                    headers: headers_of(&params["headers"]),
                };
                let id = self.by_cdp.get(cdp_id).copied();
                let answered = id
                    .and_then(|id| self.find(id))
                    .map(|r| r.response.as_ref().map(|a| a.raw_headers));
                match (id, answered) {
                    (Some(id), Some(Some(false))) => self.update(id, |r| {
                        r.response = r.response.take().map(|a| a.with_raw(Some(raw)));
                    }),
                    // The answer is still to come.
                    _ => self.early(cdp_id).response = Some(raw),
                }
            }
            "Network.responseReceived" => {
                let at = params["timestamp"].as_f64();
                let raw = self.early.get_mut(cdp_id).and_then(|e| e.response.take());
                let kind = params["type"].as_str().map(str::to_ascii_lowercase);
                self.update_cdp(cdp_id, |r| {
                    let answer = Answer::from_event(&params["response"], at, r.started);
                    r.response = Some(answer.with_raw(raw));
                    if let Some(kind) = kind {
                        r.resource_type = kind;
                    }
                });
            }
            "Network.loadingFinished" => {
                let at = params["timestamp"].as_f64();
                let length = params["encodedDataLength"].as_f64();
                self.update_cdp(cdp_id, |r| {
                    r.finished = at;
                    r.encoded_length = length;
                });
                self.early.remove(cdp_id);
            }
            "Network.loadingFailed" => {
                let at = params["timestamp"].as_f64();
                let error = params["errorText"].as_str().unwrap_or("").to_owned();
                self.update_cdp(cdp_id, |r| {
                    r.finished = at;
                    r.failure = Some(error);
                });
                self.early.remove(cdp_id);
            }
            "Page.frameNavigated" => {
                let frame = &params["frame"];
                if frame["parentId"].is_null() && frame["id"].as_str() == Some(main_frame) {
                    self.new_document(main_frame, frame["loaderId"].as_str().unwrap_or(""));
                }
            }
            _ => {}
        }
    }

    fn will_be_sent(&mut self, params: &Value) {
        let cdp_id = params["requestId"].as_str().unwrap_or("").to_owned();
        let timestamp = params["timestamp"].as_f64().unwrap_or(0.0);
        let mut redirected_from = Vec::new();
        let redirect = params.get("redirectResponse").filter(|r| r.is_object());
        if let (Some(redirect), Some(prev)) = (redirect, self.by_cdp.get(&cdp_id).copied()) {
            // The same CDP request goes on to a new URL: the hop so far ends with this answer.
            let raw = self.early.get_mut(&cdp_id).and_then(|e| e.response.take());
            self.update(prev, |r| {
                if r.response.as_ref().is_none_or(|a| !a.raw_headers) {
                    let answer = Answer::from_event(redirect, Some(timestamp), r.started);
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
        let request = &params["request"];
        let url = format!(
            "{}{}",
            request["url"].as_str().unwrap_or(""),
            request["urlFragment"].as_str().unwrap_or("")
        );
        self.push(Request {
            id: 0,
            cdp_id,
            loader_id: params["loaderId"].as_str().unwrap_or("").to_owned(),
            frame_id: params["frameId"].as_str().unwrap_or("").to_owned(),
            redirected_from,
            redirected: false,
            method: request["method"].as_str().unwrap_or("GET").to_owned(),
            url: cut(&url),
            resource_type: params["type"]
                .as_str()
                .unwrap_or("Other")
                .to_ascii_lowercase(),
            headers: headers_of(&request["headers"]),
            raw_request_headers: false,
            has_post_data: request["hasPostData"].as_bool().unwrap_or(false)
                || request.get("postData").is_some(),
            response: None,
            failure: None,
            started: timestamp,
            wall_time: params["wallTime"].as_f64().unwrap_or(0.0),
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
fn cut(text: &str) -> String {
    super::cut(text, MAX_TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sent(log: &mut Log, id: &str, kind: &str) {
        log.on_event(
            "Network.requestWillBeSent",
            &json!({"requestId": id, "loaderId": id, "frameId": "F", "type": kind, "timestamp": 1.0,
                "request": {"url": format!("http://h/{id}"), "method": "GET", "headers": {"Accept": "*/*"}}}),
            "F",
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
            log.on_event(
                "Page.frameNavigated",
                &json!({"frame": {"id": "F", "loaderId": loader}}),
                "F",
            )
        };
        nav(&mut log, "doc2");
        assert_eq!(ids(&log, false), vec!["doc2"]);
        assert_eq!(ids(&log, true), vec!["doc1", "img", "doc2"]);
        // An iframe's navigation changes nothing.
        log.on_event(
            "Page.frameNavigated",
            &json!({"frame": {"id": "sub", "parentId": "F", "loaderId": "x"}}),
            "F",
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
        log.on_event(
            "Network.requestWillBeSentExtraInfo",
            &json!({"requestId": "r", "headers": {"Accept": "*/*", "Cookie": "a=1"}}),
            "F",
        );
        sent(&mut log, "r", "Fetch");
        log.on_event(
            "Network.requestWillBeSent",
            &json!({"requestId": "r", "loaderId": "r", "type": "Fetch", "timestamp": 2.0,
                "request": {"url": "http://h/next", "method": "GET", "headers": {}},
                "redirectResponse": {"status": 302, "headers": {"Location": "/next"}}}),
            "F",
        );
        log.on_event(
            "Network.responseReceivedExtraInfo",
            &json!({"requestId": "r", "statusCode": 304, "headers": {"ETag": "x"}}),
            "F",
        );
        log.on_event(
            "Network.responseReceived",
            &json!({"requestId": "r", "type": "Fetch", "timestamp": 3.0,
                "response": {"status": 200, "headers": {"Content-Type": "text/plain"}, "mimeType": "text/plain"}}),
            "F",
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
        log.on_event(
            "Network.loadingFailed",
            &json!({"requestId": "r", "timestamp": 4.0, "errorText": "net::ERR_ABORTED"}),
            "F",
        );
        assert_eq!(
            log.find(2).and_then(|r| r.failure.clone()).as_deref(),
            Some("net::ERR_ABORTED")
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
            log.on_event(
                "Network.requestWillBeSent",
                &json!({"requestId": format!("b{i}"), "timestamp": 1.0,
                    "request": {"url": format!("http://h/{big}"), "method": "GET", "headers": {"X": big}}}),
                "F",
            );
        }
        assert!(log.bytes <= MAX_BYTES, "{}", log.bytes);
        assert!(log
            .requests(false)
            .iter()
            .all(|r| r.url.len() < MAX_TEXT + 100));
        for i in 0..(MAX_EARLY_EXTRAS * 3) {
            log.on_event(
                "Network.responseReceivedExtraInfo",
                &json!({"requestId": format!("never{i}"), "headers": {}}),
                "F",
            );
        }
        assert!(log.early.len() <= MAX_EARLY_EXTRAS);
    }
}
