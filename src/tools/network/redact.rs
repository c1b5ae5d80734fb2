//! `--redactNetworkHeaders` (issue 10 part 3): header values are shown only for names on
//! Chrome DevTools' list of headers that carry no secrets (the list the reference uses);
//! every other value (cookies, authorization, custom tokens) becomes `<redacted>`.

use super::record::Headers;

/// Lowercase names whose values are shown, sorted for binary search.
const SHOWN: &[&str] = &[
    ":authority",
    ":method",
    ":path",
    ":scheme",
    "a-im",
    "accept",
    "accept-ch",
    "accept-charset",
    "accept-datetime",
    "accept-encoding",
    "accept-language",
    "accept-patch",
    "accept-ranges",
    "access-control-allow-credentials",
    "access-control-allow-headers",
    "access-control-allow-methods",
    "access-control-allow-origin",
    "access-control-expose-headers",
    "access-control-max-age",
    "access-control-request-headers",
    "access-control-request-method",
    "age",
    "allow",
    "alt-svc",
    "cache-control",
    "connection",
    "content-disposition",
    "content-encoding",
    "content-language",
    "content-location",
    "content-range",
    "content-security-policy",
    "content-type",
    "correlation-id",
    "date",
    "delta-base",
    "dnt",
    "expect",
    "expect-ct",
    "expires",
    "forwarded",
    "front-end-https",
    "host",
    "http2-settings",
    "if-modified-since",
    "if-range",
    "if-unmodified-source",
    "im",
    "last-modified",
    "link",
    "location",
    "max-forwards",
    "nel",
    "origin",
    "permissions-policy",
    "pragma",
    "preference-applied",
    "proxy-connection",
    "public-key-pins",
    "range",
    "referer",
    "refresh",
    "report-to",
    "retry-after",
    "save-data",
    "sec-gpc",
    "server",
    "status",
    "strict-transport-security",
    "te",
    "timing-allow-origin",
    "tk",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "upgrade-insecure-requests",
    "user-agent",
    "vary",
    "via",
    "warning",
    "www-authenticate",
    "x-att-deviceid",
    "x-content-duration",
    "x-content-security-policy",
    "x-content-type-options",
    "x-correlation-id",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-frame-options",
    "x-http-method-override",
    "x-powered-by",
    "x-redirected-by",
    "x-request-id",
    "x-requested-with",
    "x-ua-compatible",
    "x-wap-profile",
    "x-webkit-csp",
    "x-xss-protection",
];

fn shown(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    SHOWN.binary_search(&name.as_str()).is_ok()
}

/// Replaces the value of every header not on the list.
pub fn redact(headers: &mut Headers) {
    for (name, value) in headers.iter_mut() {
        if !shown(name) {
            *value = "<redacted>".to_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted() {
        assert!(
            SHOWN.windows(2).all(|w| w[0] < w[1]),
            "SHOWN must stay sorted"
        );
        let mut h: Headers = vec![
            ("Content-Type".into(), "text/html".into()),
            ("Cookie".into(), "session=1".into()),
            ("Authorization".into(), "Bearer x".into()),
            ("X-Api-Key".into(), "k".into()),
        ];
        redact(&mut h);
        let values: Vec<&str> = h.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(
            values,
            ["text/html", "<redacted>", "<redacted>", "<redacted>"]
        );
    }
}
