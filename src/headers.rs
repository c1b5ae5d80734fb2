//! The response headers whose values Chrome DevTools shows because they carry no secrets;
//! every other value (cookies, authorization, custom tokens) reads `<redacted>`. The network
//! tools (`--redactNetworkHeaders`) and the trace's request texts both follow this list, as
//! the reference does: the same names, HTTP/2 pseudo-headers included.

/// Lowercase names, sorted for binary search.
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

/// Whether the value of header `name` (any case, surrounding spaces ignored) is shown.
pub(crate) fn shown(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    SHOWN.binary_search(&name.as_str()).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_and_names_are_matched_in_any_case() {
        assert!(
            SHOWN.windows(2).all(|w| w[0] < w[1]),
            "SHOWN must stay sorted"
        );
        assert!(shown(" Content-Type") && shown(":path"));
        assert!(!shown("Cookie") && !shown("authorization") && !shown("x-api-key"));
    }
}
