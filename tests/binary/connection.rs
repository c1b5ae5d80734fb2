//! A missing browser, reported with how to install one (the connections that find one are in
//! `browser/connection.rs`).

use crate::support::Mcp;
use serde_json::json;

#[test]
fn a_missing_browser_is_an_error_that_says_how_to_install_one() {
    // Nothing on PATH, no CHROME_PATH, and a channel of Chrome that is not installed (the
    // Chromium of the machine would be found in its usual place without one).
    let mcp = Mcp::spawn(
        &["--headless", "--isolated", "--channel=canary"],
        &[("PATH", "/nonexistent-bin"), ("CHROME_PATH", "")],
    );
    mcp.initialize();
    let result = mcp.call("list_pages", json!({}));
    assert!(result.is_error, "{}", result.text);
    for needle in [
        "apt-get install chromium",
        "--executablePath",
        "CHROME_PATH",
    ] {
        assert!(
            result.text.contains(needle),
            "missing {needle:?}: {}",
            result.text
        );
    }
    // The server is still there, and says the same again.
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
    assert!(mcp.call("new_page", json!({"url": "about:blank"})).is_error);

    // A path that does not exist names the path and how to get a browser.
    let mcp = Mcp::spawn(
        &[
            "--headless",
            "--isolated",
            "--executablePath",
            "/nonexistent/chrome",
        ],
        &[],
    );
    mcp.initialize();
    let result = mcp.call("list_pages", json!({}));
    assert!(result.is_error, "{}", result.text);
    for needle in ["/nonexistent/chrome", "apt-get install chromium"] {
        assert!(
            result.text.contains(needle),
            "missing {needle:?}: {}",
            result.text
        );
    }
}
