//! Network requests, assembled from the `Resource*` events the way DevTools' network
//! handler builds its synthetic requests (only the fields the metrics and insights use).

use std::collections::HashMap;

use serde::Deserialize;

use super::event::At;

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
    #[serde(default)]
    frame: Option<String>,
    #[serde(default)]
    from_service_worker: Option<bool>,
    #[serde(default)]
    decoded_body_length: Option<f64>,
    #[serde(default)]
    did_fail: Option<bool>,
    #[serde(default)]
    stack_trace: Option<Vec<CallFrame>>,
    // What Lantern's simulation reads (RenderBlocking savings).
    #[serde(default)]
    connection_id: Option<f64>,
    #[serde(default)]
    connection_reused: Option<bool>,
    #[serde(default)]
    from_cache: Option<bool>,
}

#[derive(Deserialize, Default)]
struct CallFrame {
    #[serde(default)]
    url: String,
}

#[derive(Deserialize, Default)]
struct Header {
    #[serde(default)]
    name: String,
    #[serde(default)]
    value: String,
}

#[derive(Deserialize, Default, Clone, Debug)]
pub(super) struct Initiator {
    #[serde(default, rename = "type")]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) url: Option<String>,
    /// Lantern reads XHR and fetch requests by this.
    #[serde(default)]
    pub(super) fetch_type: Option<String>,
}

/// `ResourceReceiveResponse`'s timing (seconds for `requestTime`, ms since it for the rest).
#[derive(Deserialize, Default, Clone, Copy, Debug)]
#[serde(rename_all = "camelCase")]
pub(super) struct Timing {
    #[serde(default)]
    pub(super) request_time: f64,
    #[serde(default)]
    pub(super) receive_headers_start: Option<f64>,
    #[serde(default)]
    pub(super) receive_headers_end: f64,
    #[serde(default)]
    pub(super) send_start: f64,
    #[serde(default)]
    pub(super) send_end: f64,
    #[serde(default)]
    pub(super) dns_start: f64,
    #[serde(default)]
    pub(super) dns_end: f64,
    #[serde(default)]
    pub(super) connect_start: f64,
    #[serde(default)]
    pub(super) connect_end: f64,
    #[serde(default = "unset")]
    pub(super) ssl_start: f64,
    #[serde(default = "unset")]
    pub(super) ssl_end: f64,
}

/// A timing the browser did not give (its own marker for one that did not happen).
fn unset() -> f64 {
    -1.0
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
    /// Every send's time and URL: all but the last are redirects.
    sends: Vec<(f64, String)>,
    will_sends: Vec<f64>,
    frame: String,
    stack_url: Option<String>,
    headers: Vec<(String, String)>,
    from_service_worker: bool,
    decoded_body_length: f64,
    failed: bool,
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
    // Lantern (RenderBlocking savings).
    sent_render_blocking: bool,
    connection_id: f64,
    connection_reused: bool,
    from_cache: bool,
}

/// One request as DevTools' synthetic network event describes it.
#[derive(Clone, Debug)]
pub(super) struct Request {
    pub(super) id: String,
    /// The final `ResourceSendRequest`: its position keys the request (`s-N`).
    pub(super) send: At,
    /// Queued at (the first will-send or send).
    pub(super) ts: f64,
    pub(super) end: f64,
    /// The last will-send (or send): where redirects end.
    end_redirect: f64,
    /// When the last byte arrived (`finishTime`), or `end` without one.
    pub(super) finish_time: f64,
    pub(super) url: String,
    pub(super) priority: String,
    pub(super) initial_priority: String,
    pub(super) resource_type: String,
    pub(super) render_blocking: String,
    pub(super) fetch_priority: String,
    pub(super) initiator: Option<Initiator>,
    pub(super) is_link_preload: bool,
    pub(super) timing: Option<Timing>,
    pub(super) status: i64,
    pub(super) mime_type: String,
    pub(super) protocol: String,
    /// The response's `Content-Type` header, as sent.
    pub(super) content_type: Option<String>,
    pub(super) frame: String,
    /// The response's headers, as sent.
    pub(super) headers: Vec<(String, String)>,
    pub(super) from_service_worker: bool,
    pub(super) decoded_body_length: f64,
    pub(super) finished: bool,
    pub(super) failed: bool,
    pub(super) redirects: Vec<Redirect>,
    /// The URL of the top frame of the script stack that sent it.
    pub(super) stack_url: Option<String>,
    /// The request whose URL is this one's initiator URL (DevTools' network-handler
    /// initiator), by its event index.
    pub(super) initiated_by: Option<u64>,
    // What Lantern's simulation reads (RenderBlocking savings).
    /// Bytes received (`encodedDataLength`).
    pub(super) transfer_size: f64,
    pub(super) connection_id: f64,
    pub(super) connection_reused: bool,
    pub(super) from_disk_cache: bool,
    pub(super) from_memory_cache: bool,
    /// Whether the send event itself said whether it blocks rendering.
    sent_render_blocking: bool,
}

/// A redirect the request went through before its final URL.
#[derive(Clone, Debug)]
pub(super) struct Redirect {
    pub(super) url: String,
    pub(super) ts: f64,
    pub(super) dur: f64,
}

/// Requests by id while the stream runs.
#[derive(Default)]
pub(super) struct Requests {
    parts: HashMap<String, Parts>,
}

impl Requests {
    /// Takes a `Resource*` event; any other name is ignored. False when its args are malformed.
    pub(super) fn take(
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
                parts.will_sends.push(at.ts);
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
                parts.from_service_worker = data.from_service_worker.unwrap_or(false);
                parts.connection_id = data.connection_id.unwrap_or(0.0);
                parts.connection_reused = data.connection_reused.unwrap_or(false);
                parts.from_cache = data.from_cache.unwrap_or(false);
                parts.headers = data
                    .headers
                    .unwrap_or_default()
                    .into_iter()
                    .map(|h| (h.name, h.value))
                    .collect();
                parts.content_type = parts
                    .headers
                    .iter()
                    .find(|h| h.0.eq_ignore_ascii_case("content-type"))
                    .map(|h| h.1.clone());
            }
            "ResourceFinish" => {
                let length = data.encoded_data_length.unwrap_or(0.0);
                parts.decoded_body_length = data.decoded_body_length.unwrap_or(0.0);
                parts.failed = data.did_fail.unwrap_or(false);
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
    pub(super) fn finish(self) -> Vec<Request> {
        let mut out: Vec<Request> = self
            .parts
            .into_iter()
            .filter_map(|(id, parts)| parts.into_request(id))
            .collect();
        out.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(a.send.index.cmp(&b.send.index)));
        link_initiators(&mut out);
        out
    }
}

/// DevTools' network-handler initiators: a request's initiator is the last request (by
/// time) for its initiator's URL, or for the URL atop the stack that sent it.
fn link_initiators(requests: &mut [Request]) {
    let mut by_url: HashMap<String, u64> = HashMap::new();
    for r in requests.iter() {
        by_url.insert(r.url.clone(), r.send.index);
    }
    for r in requests.iter_mut() {
        let url = r
            .initiator
            .as_ref()
            .and_then(|i| i.url.clone())
            .filter(|u| !u.is_empty())
            .or_else(|| r.stack_url.clone());
        r.initiated_by = url.and_then(|u| by_url.get(&u).copied());
    }
}

impl Parts {
    fn send(&mut self, at: At, data: Data) {
        self.send_first.get_or_insert(at);
        self.send_last = Some(at);
        self.url = data.url.unwrap_or_default();
        self.sends.push((at.ts, self.url.clone()));
        self.frame = data.frame.unwrap_or_default();
        self.stack_url = data
            .stack_trace
            .and_then(|s| s.into_iter().next())
            .map(|f| f.url)
            .filter(|u| !u.is_empty());
        self.priority = data.priority.unwrap_or_default();
        self.resource_type = data.resource_type.unwrap_or_else(|| "Other".into());
        self.sent_render_blocking = data.render_blocking.is_some();
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
        let redirects = self.redirects();
        let transfer_size = self.finish.map(|f| f.2);
        Some(Request {
            transfer_size: transfer_size.unwrap_or(0.0),
            connection_id: self.connection_id,
            connection_reused: self.connection_reused,
            // DevTools: from the cache with no bytes over the wire and not a worker's.
            from_disk_cache: self.from_cache
                && !self.from_service_worker
                && transfer_size == Some(0.0),
            from_memory_cache: self.cached,
            sent_render_blocking: self.sent_render_blocking,
            id,
            frame: self.frame,
            headers: self.headers,
            from_service_worker: self.from_service_worker,
            decoded_body_length: self.decoded_body_length,
            finished: self.finish.is_some(),
            failed: self.failed,
            redirects,
            stack_url: self.stack_url,
            initiated_by: None,
            send: last,
            ts: start,
            end,
            end_redirect,
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

impl Parts {
    /// DevTools' redirects: each send but the last, timed by the will-sends when there are
    /// enough of them.
    fn redirects(&self) -> Vec<Redirect> {
        const ALLOWED: [&str; 5] = ["blob:", "file:", "filesystem:", "http:", "https:"];
        self.sends
            .windows(2)
            .enumerate()
            .map(|(i, pair)| {
                let (ts, dur) = match (self.will_sends.get(i), self.will_sends.get(i + 1)) {
                    (Some(a), Some(b)) => (*a, b - a),
                    _ => (pair[0].0, pair[1].0 - pair[0].0),
                };
                let url = &pair[0].1;
                Redirect {
                    url: if ALLOWED.iter().any(|p| url.starts_with(p)) {
                        url.clone()
                    } else {
                        String::new()
                    },
                    ts,
                    dur,
                }
            })
            .collect()
    }
}

impl Request {
    pub(super) fn dur(&self) -> f64 {
        self.end - self.ts
    }

    /// When the request was sent (DevTools' `sendStartTime`).
    pub(super) fn send_start_time(&self) -> f64 {
        match self.timing {
            Some(t) => t.request_time * 1_000_000.0 + t.send_start * 1000.0,
            None => self.ts,
        }
    }

    /// When the response headers were in (DevTools' `downloadStart`).
    pub(super) fn download_start(&self) -> f64 {
        match self.timing {
            Some(t) => t.request_time * 1_000_000.0 + t.receive_headers_end * 1000.0,
            None => self.ts,
        }
    }

    /// From the last will-send (or send) to the first: time spent in redirects, µs.
    pub(super) fn redirection_duration(&self) -> f64 {
        self.end_redirect - self.ts
    }

    /// The first byte's wait after the request was sent, µs (DevTools' `serverResponseTime`).
    pub(super) fn server_response_time(&self) -> Option<f64> {
        let t = self.timing?;
        Some((t.receive_headers_start.unwrap_or(t.receive_headers_end) - t.send_end) * 1000.0)
    }

    /// Lantern's `renderBlocking`: none when the send did not say and the request is not blocking.
    pub(super) fn lantern_render_blocking(&self) -> Option<&str> {
        (self.sent_render_blocking || self.render_blocking != "non_blocking")
            .then_some(self.render_blocking.as_str())
    }

    /// DevTools' `isSyntheticNetworkRequestEventRenderBlocking`.
    pub(super) fn is_render_blocking(&self) -> bool {
        !matches!(
            self.render_blocking.as_str(),
            "non_blocking" | "dynamically_injected_non_blocking" | "potentially_blocking"
        )
    }

    pub(super) fn is_high_priority(&self) -> bool {
        matches!(self.priority.as_str(), "VeryHigh" | "High" | "Medium")
    }

    /// Its event key: the final send's position.
    pub(super) fn key(&self) -> String {
        format!("s-{}", self.send.index)
    }

    /// When the document's first byte arrived (DevTools' `calculateDocFirstByteTs`).
    pub(super) fn first_byte(&self) -> Option<f64> {
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
