//! URLs spelled the ways a hand-written reading gets wrong, against the real binary and
//! Chromium: a blocked URL stays blocked however it is spelled (and the page's own URLPattern
//! agrees that the pattern matches it), and the `file:`, `javascript:` and `chrome:`
//! navigations the flags refuse stay refused.

use crate::support::{started_with, Fixtures, Mcp};
use serde_json::json;

/// What the page's own `URLPattern` says of `url`.
fn browser_matches(mcp: &Mcp, pattern: &str, url: &str) -> bool {
    let function = format!(
        "() => new URLPattern({}).test({})",
        json!(pattern),
        json!(url)
    );
    let r = mcp.call_ok("evaluate_script", json!({ "function": function }));
    r.text.contains("```json\ntrue\n```")
}

#[test]
fn a_blocked_url_stays_blocked_however_it_is_spelled() {
    let fx = Fixtures::start();
    let pattern = "*://*:*/blocked*";
    let mcp = started_with(&[&format!("--blockedUrlPattern={pattern}")]);
    mcp.call_ok("new_page", json!({"url": "about:blank"}));
    let origin = fx.origin();
    let host = origin.trim_start_matches("http://");
    for url in [
        format!("http:\\\\{host}\\blocked.html"),
        format!("ht\ttp://{host}/blocked.html"),
        format!("http://{host}/x/../blocked.html"),
        format!("http://{host}/%2e/blocked.html"),
        format!("HTTP://{host}/blocked.html"),
        format!("http://user:pw@{host}/blocked.html"),
        format!(" http://{host}/blo\nck\ted.html"),
    ] {
        assert!(browser_matches(&mcp, pattern, &url), "{url:?}");
        let r = mcp.call("new_page", json!({ "url": url }));
        assert!(r.is_error, "{url:?} opened: {}", r.text);
        assert!(
            r.text.contains("is blocked by blocklist/allowlist rules"),
            "{url:?}: {}",
            r.text
        );
    }
    assert!(fx.requests_to("/blocked.html").is_empty());
}

#[test]
fn refused_schemes_stay_refused_however_they_are_spelled() {
    let mcp = started_with(&["--no-javascript-evaluation", "--fileNavigations=false"]);
    let file = "Navigating to file: URLs is not allowed when --file-navigations is disabled.";
    let js =
        "Navigating to javascript: URLs is not allowed when JavaScript evaluation is disabled.";
    let chrome = "Navigating to chrome: URLs is not allowed.";
    for (url, refusal) in [
        ("fi\tle:///etc/hostname", file),
        ("\u{1} FILE:///etc/hostname", file),
        ("file:\\\\\\etc\\hostname", file),
        ("view-source:view-source:file:///etc/hostname", file),
        ("view-source:fi\nle:///etc/hostname", file),
        ("java\tscript:document.title='x'", js),
        ("chrome://newtab@settings/", chrome),
        ("chrome://settings/newtab", chrome),
    ] {
        let r = mcp.call("new_page", json!({ "url": url }));
        assert!(r.is_error, "{url:?} opened: {}", r.text);
        assert!(r.text.contains(refusal), "{url:?}: {}", r.text);
    }
}
