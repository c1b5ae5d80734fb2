//! Network requests, assembled from the `Resource*` events the way DevTools' network
//! handler builds its synthetic requests (only the fields the metrics and insights use).

use std::collections::HashMap;

use serde::Deserialize;

use super::events::At;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Data {
    #[serde(default)]
    request_id: String,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    priority: Option<String>,
    #[serde(default)]
    resource_type: Option<String>,
    #[serde(default)]
    render_blocking: Option<String>,
    #[serde(default)]
    fetch_priority_hint: Option<String>,
    #[serde(default)]
    initiator: Option<Initiator>,
    #[serde(default)]
    is_link_preload: Option<bool>,
    #[serde(default)]
    timing: Option<Timing>,
    #[serde(default)]
    status_code: Option<i64>,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    finish_time: Option<f64>,
    #[serde(default)]
    encoded_data_length: Option<f64>,
    #[serde(default)]
    headers: Option<Vec<Header>>,
}

#[derive(Deserialize, Default)]
struct Header {
    #[serde(default)]
    name: String,
    #[serde(default)]
    value: String,
}

#[derive(Deserialize, Default, Clone, Debug)]
pub struct Initiator {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
}

/// `ResourceReceiveResponse`'s timing (seconds for `requestTime`, ms since it for the rest).
#[derive(Deserialize, Default, Clone, Copy, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    #[serde(default)]
    pub request_time: f64,
    #[serde(default)]
    pub receive_headers_start: Option<f64>,
    #[serde(default)]
    pub receive_headers_end: f64,
    #[serde(default)]
    pub send_start: f64,
}

#[derive(Deserialize)]
struct Args {
    data: Option<Data>,
}

/// The events of one request id, as they arrive.
#[derive(Default, Debug)]
struct Parts {
    will_send_first: Option<f64>,
    will_send_last: Option<f64>,
    send_first: Option<At>,
    send_last: Option<At>,
    url: String,
    priority: String,
    change_priority: Option<String>,
    resource_type: String,
    render_blocking: Option<String>,
    fetch_priority: String,
    initiator: Option<Initiator>,
    is_link_preload: bool,
    timing: Option<Timing>,
    status: i64,
    mime_type: String,
    protocol: String,
    content_type: Option<String>,
    finish: Option<(f64, Option<f64>, f64)>,
    cached: bool,
}

/// One request as DevTools' synthetic network event describes it.
#[derive(Clone, Debug)]
pub struct Request {
    pub id: String,
    /// The final `ResourceSendRequest`: its position keys the request (`s-N`).
    pub send: At,
    /// Queued at (the first will-send or send).
    pub ts: f64,
    pub end: f64,
    /// When the last byte arrived (`finishTime`), or `end` without one.
    pub finish_time: f64,
    pub url: String,
    pub priority: String,
    pub initial_priority: String,
    pub resource_type: String,
    pub render_blocking: String,
    pub fetch_priority: String,
    pub initiator: Option<Initiator>,
    pub is_link_preload: bool,
    pub timing: Option<Timing>,
    pub status: i64,
    pub mime_type: String,
    pub protocol: String,
    /// The response's `Content-Type` header, as sent.
    pub content_type: Option<String>,
}

/// Requests by id while the stream runs.
#[derive(Default)]
pub struct Requests {
    parts: HashMap<String, Parts>,
}

impl Requests {
    /// Takes a `Resource*` event; any other name is ignored. False when its args are malformed.
    pub fn take(
        &mut self,
        name: &str,
        at: At,
        args: &str,
        final_urls: &mut HashMap<String, String>,
    ) -> bool {
        if !name.starts_with("Resource") && name != "PreloadRenderBlockingStatusChange" {
            return true;
        }
        let Ok(parsed) = serde_json::from_str::<Args>(args) else {
            return false;
        };
        let Some(data) = parsed.data else { return true };
        let parts = self.parts.entry(data.request_id.clone()).or_default();
        match name {
            "ResourceWillSendRequest" => {
                parts.will_send_first.get_or_insert(at.ts);
                parts.will_send_last = Some(at.ts);
            }
            "ResourceSendRequest" => {
                if data.resource_type.as_deref() == Some("Document") {
                    if let (Some(url), Some(nav)) =
                        (data.url.as_ref(), final_urls.get_mut(&data.request_id))
                    {
                        nav.clone_from(url);
                    }
                }
                parts.send(at, data);
            }
            "ResourceReceiveResponse" => {
                parts.timing = data.timing;
                parts.status = data.status_code.unwrap_or(0);
                parts.mime_type = data.mime_type.unwrap_or_default();
                parts.protocol = data.protocol.unwrap_or_else(|| "unknown".into());
                parts.content_type = data
                    .headers
                    .unwrap_or_default()
                    .into_iter()
                    .find(|h| h.name.eq_ignore_ascii_case("content-type"))
                    .map(|h| h.value);
            }
            "ResourceFinish" => {
                let length = data.encoded_data_length.unwrap_or(0.0);
                parts.finish = Some((at.ts, data.finish_time, length));
            }
            "ResourceMarkAsCached" => parts.cached = true,
            "ResourceChangePriority" => parts.change_priority = data.priority,
            "PreloadRenderBlockingStatusChange" => parts.render_blocking = data.render_blocking,
            _ => {}
        }
        true
    }

    /// The requests DevTools keeps (sent, over http(s), file, blob or filesystem), by start time.
    pub fn finish(self) -> Vec<Request> {
        let mut out: Vec<Request> = self
            .parts
            .into_iter()
            .filter_map(|(id, parts)| parts.into_request(id))
            .collect();
        out.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(a.send.index.cmp(&b.send.index)));
        out
    }
}

impl Parts {
    fn send(&mut self, at: At, data: Data) {
        self.send_first.get_or_insert(at);
        self.send_last = Some(at);
        self.url = data.url.unwrap_or_default();
        self.priority = data.priority.unwrap_or_default();
        self.resource_type = data.resource_type.unwrap_or_else(|| "Other".into());
        if self.render_blocking.is_none() {
            self.render_blocking = data.render_blocking;
        }
        self.fetch_priority = data.fetch_priority_hint.unwrap_or_else(|| "auto".into());
        self.initiator = data.initiator;
        self.is_link_preload = data.is_link_preload.unwrap_or(false);
    }

    fn into_request(self, id: String) -> Option<Request> {
        let (first, last) = (self.send_first?, self.send_last?);
        const ALLOWED: [&str; 5] = ["blob:", "file:", "filesystem:", "http:", "https:"];
        if !ALLOWED.iter().any(|p| self.url.starts_with(p)) {
            return None;
        }
        let start = self.will_send_first.unwrap_or(first.ts);
        let end_redirect = self.will_send_last.unwrap_or(last.ts);
        let end = self.finish.map_or(end_redirect, |f| f.0);
        let finish_time = match self.finish.and_then(|f| f.1) {
            Some(s) if s != 0.0 => s * 1_000_000.0,
            _ => end,
        };
        Some(Request {
            id,
            send: last,
            ts: start,
            end,
            finish_time,
            initial_priority: self.priority.clone(),
            priority: self.change_priority.unwrap_or(self.priority),
            url: self.url,
            resource_type: self.resource_type,
            render_blocking: self
                .render_blocking
                .unwrap_or_else(|| "non_blocking".into()),
            fetch_priority: self.fetch_priority,
            initiator: self.initiator,
            is_link_preload: self.is_link_preload,
            timing: if self.cached { None } else { self.timing },
            status: self.status,
            mime_type: self.mime_type,
            content_type: self.content_type,
            protocol: if self.protocol.is_empty() {
                "unknown".into()
            } else {
                self.protocol
            },
        })
    }
}

impl Request {
    /// When the document's first byte arrived (DevTools' `calculateDocFirstByteTs`).
    pub fn first_byte(&self) -> Option<f64> {
        if self.protocol == "file" {
            return Some(self.ts);
        }
        let timing = self.timing?;
        let headers = timing
            .receive_headers_start
            .unwrap_or(timing.receive_headers_end);
        // Seconds to ms to µs in two steps, as DevTools rounds them.
        Some(timing.request_time * 1000.0 * 1000.0 + headers * 1000.0)
    }
}
