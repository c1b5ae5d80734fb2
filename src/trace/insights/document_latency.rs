//! DevTools' DocumentLatency insight: the navigation's document request checked for
//! redirects, a slow server response (over 600 ms) and a missing text compression.

use super::super::event::Bounds;
use super::super::network::Request;
use super::super::report::{InsightSet, Report};
use super::super::request_text;

/// DevTools fails the server response above this many ms, and counts savings down to the target.
const TOO_SLOW_MS: f64 = 600.0;
const TARGET_MS: f64 = 100.0;
/// Compression savings under this many bytes do not count.
const IGNORE_BYTES: f64 = 1400.0;

/// The checks and what failing them costs.
pub(super) struct Checks<'a> {
    document: &'a Request,
    /// ms, rounded.
    server_response: f64,
    redirect_ms: f64,
    uncompressed_bytes: f64,
}

impl Checks<'_> {
    fn server_fast(&self) -> bool {
        self.server_response <= TOO_SLOW_MS
    }

    fn fail(&self) -> bool {
        self.redirect_ms != 0.0 || !self.server_fast() || self.uncompressed_bytes != 0.0
    }

    /// FCP and LCP savings, ms: the slow response down to the target, and the redirects.
    pub(super) fn savings_ms(&self) -> f64 {
        let slow = if self.server_fast() {
            0.0
        } else {
            (self.server_response - TARGET_MS).max(0.0)
        };
        slow + self.redirect_ms
    }
}

/// The checks for a navigation's set whose document request has timings.
pub(super) fn checks(set: &InsightSet) -> Option<Checks<'_>> {
    set.navigation.as_ref()?;
    let document = set.document.as_ref()?;
    let server_response = (document.server_response_time()? / 1000.0).round();
    Some(Checks {
        document,
        server_response,
        redirect_ms: (document.redirection_duration() / 1000.0).round(),
        uncompressed_bytes: compression_savings(document),
    })
}

/// DevTools' `isRequestCompressed`.
fn compressed(request: &Request) -> bool {
    request.headers.iter().any(|(name, value)| {
        let name = name.to_ascii_lowercase();
        matches!(
            name.as_str(),
            "content-encoding" | "x-content-encoding-over-network" | "x-original-content-encoding"
        ) && matches!(value.as_str(), "gzip" | "br" | "deflate" | "zstd")
    })
}

/// The bytes compression would save, by DevTools' ratio for the MIME type.
fn compression_savings(request: &Request) -> f64 {
    if compressed(request) {
        return 0.0;
    }
    let ratio = match request.mime_type.as_str() {
        "text/css" => 0.8,
        "text/html" | "text/javascript" => 0.67,
        "text/plain"
        | "text/xml"
        | "text/x-component"
        | "application/javascript"
        | "application/json"
        | "application/manifest+json"
        | "application/vnd.api+json"
        | "application/xml"
        | "application/xhtml+xml"
        | "application/rss+xml"
        | "application/atom+xml"
        | "application/vnd.ms-fontobject"
        | "application/x-font-ttf"
        | "application/x-font-opentype"
        | "application/x-font-truetype"
        | "image/svg+xml"
        | "image/x-icon"
        | "image/vnd.microsoft.icon"
        | "font/ttf"
        | "font/eot"
        | "font/otf"
        | "font/opentype" => 0.5,
        _ => 0.0,
    };
    let savings = (request.decoded_body_length * ratio).round();
    if savings < IGNORE_BYTES {
        0.0
    } else {
        savings
    }
}

/// Listed when a check fails; about the document request and the parts that failed.
/// DevTools places the server-response part at the request's `sendEnd` offset (ms since
/// the request started) read as a trace time, so these bounds start near zero; kept as it is.
pub(super) fn bounds(set: &InsightSet) -> Option<Bounds> {
    let c = checks(set)?;
    if !c.fail() {
        return None;
    }
    let d = c.document;
    let mut windows = vec![Bounds {
        min: d.ts,
        max: d.end,
    }];
    if c.redirect_ms != 0.0 {
        windows.push(Bounds {
            min: d.ts,
            max: d.ts + c.redirect_ms * 1000.0,
        });
    }
    if let (false, Some(t)) = (c.server_fast(), d.timing) {
        let send_end = t.send_end * 1000.0;
        windows.push(Bounds {
            min: send_end,
            max: send_end + c.server_response * 1000.0,
        });
    }
    if c.uncompressed_bytes != 0.0 {
        windows.push(Bounds {
            min: d.download_start(),
            max: d.finish_time,
        });
    }
    Bounds::union(windows)
}

/// `FCP N ms, LCP N ms`.
pub(super) fn savings(set: &InsightSet) -> Option<String> {
    let ms = checks(set)?.savings_ms();
    Some(format!("FCP {ms} ms, LCP {ms} ms"))
}

pub(super) fn wasted_bytes(set: &InsightSet) -> Option<f64> {
    checks(set).map(|c| c.uncompressed_bytes)
}

pub(crate) fn details(report: &Report, set: &InsightSet) -> String {
    let Some(c) = checks(set) else {
        return String::new();
    };
    let verdict = |passed: bool| if passed { "PASSED" } else { "FAILED" };
    format!(
        "{}\n\n{}\n\nThe result of the checks for this insight are:\n- The request was not redirected: {}\n- Server responded quickly: {}\n- Compression was applied: {}",
        super::super::lcp_text::shared_context(report, set),
        request_text::verbose(report, c.document, "Document network request"),
        verdict(c.redirect_ms == 0.0),
        verdict(c.server_fast()),
        verdict(c.uncompressed_bytes == 0.0),
    )
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::super::event::At;
    use super::super::super::network::{Request, Requests};
    use super::compression_savings;

    /// A document request as the trace describes it: sent, answered with these headers after
    /// `wait_ms` of server time, `size` bytes decoded.
    fn document(headers: &str, wait_ms: f64, size: f64) -> Request {
        let mut requests = Requests::default();
        let mut urls = HashMap::new();
        let at = |index, ts| At {
            index,
            ts,
            pid: 1,
            tid: 1,
        };
        let send = r#"{"data":{"requestId":"1","url":"http://a.test/","resourceType":"Document","priority":"VeryHigh"}}"#;
        let response = format!(
            r#"{{"data":{{"requestId":"1","statusCode":200,"mimeType":"text/html","headers":{headers},"timing":{{"requestTime":1.0,"sendStart":1.0,"sendEnd":2.0,"receiveHeadersStart":{start},"receiveHeadersEnd":{end}}}}}}}"#,
            start = 2.0 + wait_ms,
            end = 2.5 + wait_ms,
        );
        let finish = format!(r#"{{"data":{{"requestId":"1","decodedBodyLength":{size}}}}}"#);
        assert!(requests.take("ResourceSendRequest", at(1, 1e6), send, &mut urls));
        assert!(requests.take(
            "ResourceReceiveResponse",
            at(2, 1.1e6),
            &response,
            &mut urls
        ));
        assert!(requests.take("ResourceFinish", at(3, 1.2e6), &finish, &mut urls));
        requests.finish().remove(0)
    }

    #[test]
    fn compression_counts_from_1400_bytes_saved_unless_encoded() {
        let plain = document("[]", 10.0, 4779.0);
        assert_eq!(compression_savings(&plain), 3202.0);
        assert_eq!(compression_savings(&document("[]", 10.0, 2000.0)), 0.0);
        let gzip = r#"[{"name":"Content-Encoding","value":"gzip"}]"#;
        assert_eq!(compression_savings(&document(gzip, 10.0, 4779.0)), 0.0);
        // The server's time is from the request's end of sending to its first header byte.
        assert_eq!(plain.server_response_time(), Some(10_000.0));
        assert_eq!(
            document("[]", 700.0, 0.0).server_response_time(),
            Some(700_000.0)
        );
    }
}
