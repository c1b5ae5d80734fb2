//! `navigate_page` and `wait_for` against the real binary and real headless Chromium,
//! with the response texts of chrome-devtools-mcp 1.11 (the reference; its answers are kept in
//! `tests/fixtures/reference/` and compared by `reference_texts.rs`): urls, history, reloads,
//! init scripts, errors, and navigations that never finish (a fixture route that never
//! answers).
//!
//! Pages come from `tests/fixtures/pages_script/`; the helpers are in `support/pages.rs`.

use std::time::{Duration, Instant};

use crate::support::calls::assert_error;
use crate::support::pages::{assert_returned, evaluate, page_url};
use crate::support::{closed_port, started, Fixtures, Response};
use serde_json::json;

// ---------------------------------------------------------------- navigate_page

#[test]
fn navigate_page_goes_to_urls_back_forward_and_reloads() {
    let fx = Fixtures::start();
    let start = page_url(&fx, "start.html");
    let second = page_url(&fx, "second.html");
    let mcp = started();
    mcp.call_ok("list_pages", json!({}));

    let nav = mcp.call_ok("navigate_page", json!({"type": "url", "url": start}));
    assert_eq!(
        nav.text,
        format!("Successfully navigated to {start}.\n## Pages\n1: Start page ({start}) [selected]")
    );
    // `type` may be left out when a url is given.
    let nav = mcp.call_ok("navigate_page", json!({ "url": second }));
    assert_eq!(
        nav.text,
        format!(
            "Successfully navigated to {second}.\n## Pages\n1: Second page ({second}) [selected]"
        )
    );

    let back = mcp.call_ok("navigate_page", json!({"type": "back"}));
    assert_eq!(
        back.text,
        format!(
            "Successfully navigated back to {start}.\n## Pages\n1: Start page ({start}) [selected]"
        )
    );
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");

    let forward = mcp.call_ok("navigate_page", json!({"type": "forward"}));
    assert_eq!(
        forward.text,
        format!(
            "Successfully navigated forward to {second}.\n\
             ## Pages\n1: Second page ({second}) [selected]"
        )
    );

    // A reload gives a new document: a mark left in the old one is gone.
    evaluate(&mcp, "() => { window.mark = 'old document'; }");
    let reload = mcp.call_ok(
        "navigate_page",
        json!({"type": "reload", "ignoreCache": true}),
    );
    assert_eq!(
        reload.text,
        format!("Successfully reloaded the page.\n## Pages\n1: Second page ({second}) [selected]")
    );
    assert_returned(&evaluate(&mcp, "() => window.mark === undefined"), "true");
}

#[test]
fn navigate_page_init_script_runs_first_and_only_for_that_navigation() {
    let fx = Fixtures::start();
    let start = page_url(&fx, "start.html");
    let second = page_url(&fx, "second.html");
    let mcp = started();
    mcp.call_ok("new_page", json!({ "url": second }));

    let nav = mcp.call_ok(
        "navigate_page",
        json!({"url": start, "initScript": "window.__initMark = 'set by the init script'"}),
    );
    assert!(
        nav.text
            .starts_with(&format!("Successfully navigated to {start}.\n## Pages\n")),
        "{}",
        nav.text
    );
    // The page's first script already saw what the init script set.
    assert_returned(
        &evaluate(&mcp, "() => window.seenAtStart"),
        "\"set by the init script\"",
    );

    // The next navigation runs without it.
    mcp.call_ok("navigate_page", json!({"type": "reload"}));
    assert_returned(
        &evaluate(
            &mcp,
            "() => [window.seenAtStart, window.__initMark === undefined]",
        ),
        "[null,true]",
    );
    mcp.call_ok("navigate_page", json!({ "url": second }));
    assert_returned(&evaluate(&mcp, "() => window.seenAtStart"), "null");
}

#[test]
fn navigate_page_argument_errors_use_the_reference_texts() {
    let mcp = started();
    assert_error(
        &mcp.call("navigate_page", json!({})),
        "Either URL or a type is required.",
    );
    assert_error(
        &mcp.call("navigate_page", json!({"type": "url"})),
        "A URL is required for navigation of type=url.",
    );
}

#[test]
fn a_navigation_error_is_reported_in_the_answer() {
    let mcp = started();
    let refused = format!("http://127.0.0.1:{}/", closed_port());
    let nav = mcp.call("navigate_page", json!({ "url": refused }));
    // As in the reference, a failed navigation is not a tool error: the answer says what
    // happened and lists the pages.
    assert!(!nav.is_error, "{}", nav.text);
    let first_line = nav.text.lines().next().unwrap_or_default();
    assert_eq!(
        first_line,
        format!(
            "Unable to navigate in the selected page: net::ERR_CONNECTION_REFUSED at {refused}."
        )
    );
    assert!(nav.text.contains("\n## Pages\n1: "), "{}", nav.text);
    assert!(nav.text.ends_with(" [selected]"), "{}", nav.text);
}

#[test]
fn a_navigation_that_never_finishes_times_out_and_the_server_still_answers() {
    let fx = Fixtures::start();
    // Never answers within the test: the browser waits for the response head.
    fx.route_response(
        "/pages_script/never",
        Response::html("<title>too late</title>").delay(Duration::from_secs(90)),
    );
    let never = fx.url("/pages_script/never");
    let mcp = started();
    mcp.call_ok("list_pages", json!({}));

    let began = Instant::now();
    let nav = mcp.call("navigate_page", json!({"url": never, "timeout": 1000}));
    let took = began.elapsed();
    assert!(!nav.is_error, "{}", nav.text);
    assert!(
        nav.text.starts_with(
            "Unable to navigate in the selected page: Navigation timeout of 1000 ms exceeded.\n\
             ## Pages\n"
        ),
        "{}",
        nav.text
    );
    assert!(
        took >= Duration::from_millis(900),
        "answered after {took:?}"
    );
    assert!(took < Duration::from_secs(10), "answered after {took:?}");

    // The server is not wedged: it answers (a stopwatch here failed only on a loaded machine).
    mcp.call_ok("list_pages", json!({}));
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));

    // A document that arrives but never finishes loading (an image that never comes).
    let stuck = fx.page_url_with_html(&format!(
        "<title>Stuck</title><p>almost there</p><img src=\"{never}\">"
    ));
    let nav = mcp.call("navigate_page", json!({"url": stuck, "timeout": 1000}));
    assert!(
        nav.text.starts_with(
            "Unable to navigate in the selected page: Navigation timeout of 1000 ms exceeded.\n"
        ),
        "{}",
        nav.text
    );
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Stuck\"");

    // new_page: the same timeout is a tool error there, as in the reference.
    let opened = mcp.call("new_page", json!({"url": never, "timeout": 1000}));
    assert_error(&opened, "Navigation timeout of 1000 ms exceeded");
    // And the page can be used again.
    mcp.call_ok("navigate_page", json!({"url": page_url(&fx, "start.html")}));
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");
}

// ---------------------------------------------------------------- wait_for

#[test]
fn wait_for_finds_text_that_appears_later_and_times_out_on_text_that_never_does() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "late-text.html")}));

    let found = mcp.call_ok(
        "wait_for",
        json!({"text": ["nothing like this", "The late arrival"], "timeout": 10000}),
    );
    assert!(
        found.text.starts_with(
            "Element matching one of [\"nothing like this\",\"The late arrival\"] found.\n\
             ## Latest page snapshot\nuid="
        ),
        "{}",
        found.text
    );
    assert!(found.text.contains("The late arrival"), "{}", found.text);

    let began = Instant::now();
    let missing = mcp.call(
        "wait_for",
        json!({"text": ["never appears xyz"], "timeout": 1000}),
    );
    assert_error(&missing, "Timed out after waiting 1000ms");
    assert!(began.elapsed() >= Duration::from_millis(900));
    assert!(began.elapsed() < Duration::from_secs(10));
}

#[test]
fn urls_the_reference_refuses_are_refused_before_the_browser_is_asked() {
    let mcp = started();
    let refusals = [
        (
            "nope",
            "Invalid URL: \"nope\". URLs must be valid according to the URL standard.",
        ),
        (
            "http://a b/",
            "Invalid URL: \"http://a b/\". URLs must be valid according to the URL standard.",
        ),
        (
            "chrome://settings",
            "Navigating to chrome: URLs is not allowed.",
        ),
        (
            "chrome://crash",
            "Navigating to chrome: URLs is not allowed.",
        ),
        (
            "chrome-extension://abcdefghijklmnop/x.html",
            "Navigating to chrome-extension: URLs is not allowed without --categoryExtensions.",
        ),
    ];
    for (url, text) in refusals {
        assert_error(&mcp.call("navigate_page", json!({ "url": url })), text);
        assert_error(&mcp.call("new_page", json!({ "url": url })), text);
    }
    // Nothing above needed the browser; the first call that does still works.
    mcp.call_ok("new_page", json!({"url": "about:blank"}));
}
