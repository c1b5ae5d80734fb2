//! Lantern's network requests: the trace's requests as its simulation reads them, with a
//! redirected request split into one request per hop (the graph's network nodes).

use super::super::network::{Request, Timing};

/// One network node's request (times: `start` in µs as the graph's, the rest in ms).
#[derive(Clone, Debug)]
pub(super) struct Net<'a> {
    pub(super) request: &'a Request,
    /// Which of its redirect hops this is; None for the request itself.
    pub(super) hop: Option<usize>,
    /// Lantern's request id: a hop after the first, and the request after its hops, add
    /// `:redirect` once per hop before them.
    pub(super) id: String,
    pub(super) url: &'a str,
    pub(super) origin: String,
    pub(super) host: String,
    pub(super) scheme: String,
    /// When the renderer started it (µs).
    pub(super) start: f64,
    pub(super) request_time: f64,
    pub(super) headers_end: f64,
    pub(super) end: f64,
    pub(super) timing: Option<Timing>,
    pub(super) transfer_size: f64,
    pub(super) status: i64,
    /// None for a redirect hop.
    pub(super) resource_type: Option<&'a str>,
}

impl<'a> Net<'a> {
    /// The request itself (`hop` None) or its redirect hop `hop`, starting at `start` µs.
    pub(super) fn new(request: &'a Request, hop: Option<usize>, start: f64) -> Net<'a> {
        let hops = request.redirects.len();
        let depth = hop.unwrap_or(hops);
        let id = format!("{}{}", request.id, ":redirect".repeat(depth));
        match hop.and_then(|h| request.redirects.get(h)) {
            Some(redirect) => {
                let (from, to) = (redirect.ts / 1000.0, (redirect.ts + redirect.dur) / 1000.0);
                let (origin, host, scheme) = parts(&redirect.url);
                Net {
                    request,
                    hop,
                    id,
                    origin,
                    host,
                    scheme,
                    url: &redirect.url,
                    start: redirect.ts,
                    request_time: from,
                    headers_end: to,
                    end: to,
                    timing: Some(hop_timing(from, to)),
                    transfer_size: 400.0,
                    status: 302,
                    resource_type: None,
                }
            }
            None => {
                let (origin, host, scheme) = parts(&request.url);
                Net {
                    request,
                    hop: None,
                    id,
                    origin,
                    host,
                    scheme,
                    url: &request.url,
                    start,
                    request_time: match request.timing {
                        Some(t) => t.request_time * 1000.0,
                        None => request.download_start() / 1000.0,
                    },
                    headers_end: request.download_start() / 1000.0,
                    end: request.finish_time / 1000.0,
                    timing: request.timing,
                    transfer_size: request.transfer_size,
                    status: request.status,
                    resource_type: Some(lantern_type(request)),
                }
            }
        }
    }

    pub(super) fn protocol(&self) -> &str {
        &self.request.protocol
    }

    pub(super) fn is_multiplexed(&self) -> bool {
        let p = self.protocol();
        p == "h2" || p.starts_with("h3")
    }

    pub(super) fn disk_cached(&self) -> bool {
        self.request.from_disk_cache
    }

    pub(super) fn memory_cached(&self) -> bool {
        self.request.from_memory_cache
    }

    /// Served without a connection: from the disk cache, or not over the network.
    pub(super) fn is_connectionless(&self) -> bool {
        const LOCAL: [&str; 6] = [
            "blob",
            "data",
            "intent",
            "file",
            "filesystem",
            "chrome-extension",
        ];
        let protocol = self.protocol();
        let protocol = protocol.split(':').next().unwrap_or(protocol);
        self.disk_cached() || LOCAL.contains(&protocol) || LOCAL.contains(&self.scheme.as_str())
    }

    /// Lantern's `hasRenderBlockingPriority`.
    pub(super) fn has_render_blocking_priority(&self) -> bool {
        let r = self.request;
        match r.lantern_render_blocking() {
            Some("non_blocking" | "dynamically_injected_non_blocking" | "potentially_blocking") => {
                return false
            }
            Some("blocking") => return true,
            _ => {}
        }
        let high = r.priority == "High";
        r.priority == "VeryHigh"
            || (high && self.resource_type == Some("Script"))
            || (high && self.resource_type == Some("Document"))
    }

    pub(super) fn initiator_type(&self) -> &str {
        let initiator = self.request.initiator.as_ref();
        initiator.and_then(|i| i.kind.as_deref()).unwrap_or("other")
    }
}

/// Lantern reads `fetch` and XHR requests by their fetch type.
pub(super) fn lantern_type(r: &Request) -> &str {
    match r.initiator.as_ref().and_then(|i| i.fetch_type.as_deref()) {
        Some("xmlhttprequest") => "XHR",
        Some("fetch") => "Fetch",
        _ => &r.resource_type,
    }
}

/// A hop's timing as Lantern makes one up: sent at `from`, headers in at `to` (ms).
fn hop_timing(from: f64, to: f64) -> Timing {
    Timing {
        request_time: from / 1000.0,
        receive_headers_start: Some(to - from),
        receive_headers_end: to - from,
        send_start: -1.0,
        send_end: -1.0,
        dns_start: -1.0,
        dns_end: -1.0,
        connect_start: -1.0,
        connect_end: -1.0,
        ssl_start: -1.0,
        ssl_end: -1.0,
    }
}

/// A URL's origin, host and scheme as the URL standard gives them (default ports left out).
fn parts(url: &str) -> (String, String, String) {
    let (scheme, rest) = url.split_once(':').unwrap_or(("", url));
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest
        .strip_prefix("//")
        .map(|r| r.split(['/', '?', '#']).next().unwrap_or(""))
        .unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let authority = authority.to_ascii_lowercase();
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !p.contains(']') => (h.to_owned(), p.to_owned()),
        _ => (authority.clone(), String::new()),
    };
    let default = matches!(
        (scheme.as_str(), port.as_str()),
        ("http", "80") | ("https", "443")
    );
    let origin = match (authority.is_empty(), port.is_empty() || default) {
        (true, _) => "null".to_owned(),
        (false, true) => format!("{scheme}://{host}"),
        (false, false) => format!("{scheme}://{host}:{port}"),
    };
    (origin, host, scheme)
}

#[cfg(test)]
mod tests {
    use super::parts;

    #[test]
    fn origins_leave_default_ports_out() {
        assert_eq!(
            parts("http://127.0.0.1:8080/a?b").0,
            "http://127.0.0.1:8080"
        );
        assert_eq!(parts("https://Example.com:443/").0, "https://example.com");
        assert_eq!(parts("https://example.com").1, "example.com");
        assert_eq!(parts("data:text/plain,x").0, "null");
        assert_eq!(parts("data:text/plain,x").2, "data");
    }
}
