//! The page tools against the real binary and real headless Chromium: `list_pages`,
//! `new_page` and `select_page` with the response texts of chrome-devtools-mcp 1.11 (the
//! reference; its answers, `close_page`'s too, are kept in `tests/fixtures/reference/` and
//! compared by `reference_texts.rs`), and calls routed to a page by `pageId`.
//!
//! Pages come from `tests/fixtures/pages_script/`; the helpers are in `support/pages.rs`.

use crate::support::calls::assert_error;
use crate::support::pages::{assert_returned, evaluate, evaluate_on, page_url};
use crate::support::{closed_port, started, started_with, Fixtures, Mcp};
use serde_json::json;

// ---------------------------------------------------------------- list, new, select, close

/// What a page that is not in front reports as its visibility: `hidden` in full Chromium;
/// the headless shell has no tabs, so there every page is `visible` (README, "Flags").
fn hidden(mcp: &Mcp) -> &'static str {
    if crate::support::runs_headless_shell(mcp) {
        "\"visible\""
    } else {
        "\"hidden\""
    }
}

#[test]
fn list_pages_at_start_launches_the_browser_with_one_blank_page() {
    let mcp = started();
    let result = mcp.call_ok("list_pages", json!({}));
    assert_eq!(result.text, "## Pages\n1: about:blank [selected]");
    assert!(
        mcp.started_processes()
            .iter()
            .any(|p| p.command().contains("--remote-debugging-pipe")),
        "the first tool call did not start the browser"
    );
}

#[test]
fn new_page_opens_selects_and_shows_the_loaded_title() {
    let fx = Fixtures::start();
    let start = page_url(&fx, "start.html");
    let second = page_url(&fx, "second.html");
    let mcp = started();

    let opened = mcp.call_ok("new_page", json!({ "url": start }));
    assert_eq!(
        opened.text,
        format!("## Pages\n1: about:blank\n2: Start page ({start}) [selected]")
    );

    // In the background it still becomes the selected page, as in the reference.
    let background = mcp.call_ok("new_page", json!({"url": second, "background": true}));
    let expected = format!(
        "## Pages\n1: about:blank\n2: Start page ({start})\n3: Second page ({second}) [selected]"
    );
    assert_eq!(background.text, expected);
    assert_eq!(mcp.call_ok("list_pages", json!({})).text, expected);
    // The loaded document is the one tools see.
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Second page\"");
    // Selected, but not in front: page 2 is still the visible tab.
    assert_returned(
        &evaluate(&mcp, "() => document.visibilityState"),
        hidden(&mcp),
    );
    assert_returned(
        &evaluate_on(&mcp, 2, "() => document.visibilityState"),
        "\"visible\"",
    );
}

#[test]
fn new_page_with_a_bad_url_or_a_refused_connection_is_an_error() {
    let fx = Fixtures::start();
    let mcp = started();
    let port = closed_port();
    let refused = format!("http://127.0.0.1:{port}/");
    let result = mcp.call("new_page", json!({ "url": refused }));
    assert_error(
        &result,
        &format!("net::ERR_CONNECTION_REFUSED at {refused}"),
    );
    // The server goes on serving, and the page that failed to load stays open.
    let listed = mcp.call_ok("list_pages", json!({}));
    assert!(
        listed.text.starts_with("## Pages\n1: about:blank\n2: "),
        "{}",
        listed.text
    );
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));
}

#[test]
fn select_page_changes_the_selection_and_can_bring_a_page_to_front() {
    let fx = Fixtures::start();
    let start = page_url(&fx, "start.html");
    let second = page_url(&fx, "second.html");
    let mcp = started();
    mcp.call_ok("new_page", json!({ "url": start }));
    mcp.call_ok("new_page", json!({ "url": second }));

    let selected = mcp.call_ok("select_page", json!({"pageId": 1}));
    assert_eq!(
        selected.text,
        format!(
            "## Pages\n1: about:blank [selected]\n2: Start page ({start})\n3: Second page ({second})"
        )
    );
    // Tools without a pageId now work on page 1.
    assert_returned(&evaluate(&mcp, "() => location.href"), "\"about:blank\"");
    // Selecting alone does not bring a page to the front: page 3 was opened last.
    assert_returned(
        &evaluate_on(&mcp, 2, "() => document.visibilityState"),
        hidden(&mcp),
    );

    let front = mcp.call_ok("select_page", json!({"pageId": 2, "bringToFront": true}));
    assert_eq!(
        front.text,
        format!(
            "## Pages\n1: about:blank\n2: Start page ({start}) [selected]\n3: Second page ({second})"
        )
    );
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");
    // Brought to the front: the page is the visible one.
    assert_returned(
        &evaluate(&mcp, "() => document.visibilityState"),
        "\"visible\"",
    );
    assert_returned(
        &evaluate_on(&mcp, 3, "() => document.visibilityState"),
        hidden(&mcp),
    );

    assert_error(
        &mcp.call("select_page", json!({"pageId": 99})),
        "No page found",
    );
}

// ---------------------------------------------------------------- pageId

#[test]
fn page_id_routes_a_call_without_changing_the_selection() {
    let fx = Fixtures::start();
    let start = page_url(&fx, "start.html");
    let second = page_url(&fx, "second.html");
    let mcp = started();
    mcp.call_ok("new_page", json!({ "url": start }));
    mcp.call_ok("new_page", json!({ "url": second }));

    assert_returned(
        &evaluate_on(&mcp, 2, "() => document.title"),
        "\"Start page\"",
    );
    assert_returned(
        &evaluate_on(&mcp, 3, "() => document.title"),
        "\"Second page\"",
    );
    assert_returned(
        &evaluate_on(&mcp, 1, "() => location.href"),
        "\"about:blank\"",
    );
    // Without pageId: the selected page, still page 3.
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Second page\"");
    assert_eq!(
        mcp.call_ok("list_pages", json!({})).text,
        format!(
            "## Pages\n1: about:blank\n2: Start page ({start})\n3: Second page ({second}) [selected]"
        )
    );

    // Other page-scoped tools route the same way.
    let nav = mcp.call_ok("navigate_page", json!({"pageId": 2, "url": second}));
    assert!(nav
        .text
        .starts_with(&format!("Successfully navigated to {second}.")));
    assert_returned(
        &evaluate_on(&mcp, 2, "() => document.title"),
        "\"Second page\"",
    );
    mcp.call_ok("wait_for", json!({"pageId": 2, "text": ["Second heading"]}));

    assert_error(&evaluate_on(&mcp, 99, "() => 1"), "No page found");
}

#[test]
fn two_new_pages_naming_one_new_context_at_once_share_it() {
    let fx = Fixtures::start();
    let start = page_url(&fx, "start.html");
    let mcp = started();
    // Both calls are in flight before either context exists: one context must serve both.
    let args = json!({"name": "new_page", "arguments": {"url": start, "isolatedContext": "carol"}});
    let first = mcp.request_async("tools/call", args.clone());
    let second = mcp.request_async("tools/call", args);
    for id in [first, second] {
        let answer = mcp.wait_response(id);
        assert!(answer["result"]["content"].is_array(), "{answer}");
        assert_ne!(answer["result"]["isError"], json!(true), "{answer}");
    }
    assert_returned(
        &evaluate_on(
            &mcp,
            2,
            "() => { document.cookie = 'who=carol'; return document.cookie; }",
        ),
        "\"who=carol\"",
    );
    assert_returned(
        &evaluate_on(&mcp, 3, "() => document.cookie"),
        "\"who=carol\"",
    );
    let listed = mcp.call_ok("list_pages", json!({}));
    assert_eq!(
        listed.text.matches("isolatedContext=carol").count(),
        2,
        "{}",
        listed.text
    );
}

#[test]
fn new_page_in_an_isolated_context_keeps_its_cookies_to_that_context() {
    let fx = Fixtures::start();
    let start = page_url(&fx, "start.html");
    let mcp = started_with(&["--experimentalStructuredContent"]);
    mcp.call_ok(
        "new_page",
        json!({"url": start, "isolatedContext": "alice"}),
    );
    assert_returned(
        &evaluate(
            &mcp,
            "() => { document.cookie = 'who=alice'; return document.cookie; }",
        ),
        "\"who=alice\"",
    );
    // Another page of the same context shares the cookie; the default context does not.
    let listed = mcp.call_ok(
        "new_page",
        json!({"url": start, "isolatedContext": "alice"}),
    );
    assert_returned(&evaluate(&mcp, "() => document.cookie"), "\"who=alice\"");
    mcp.call_ok("new_page", json!({"url": start}));
    assert_returned(&evaluate(&mcp, "() => document.cookie"), "\"\"");
    let bob = mcp.call_ok("new_page", json!({"url": start, "isolatedContext": "bob"}));
    assert_returned(&evaluate(&mcp, "() => document.cookie"), "\"\"");

    assert_eq!(
        listed.text,
        format!(
            "## Pages\n1: about:blank\n2: Start page ({start}) isolatedContext=alice\n\
             3: Start page ({start}) [selected] isolatedContext=alice"
        )
    );
    let bob_line = bob.text.lines().last().unwrap_or_default();
    assert_eq!(
        bob_line,
        format!("5: Start page ({start}) [selected] isolatedContext=bob")
    );
    let structured = bob.structured.clone().unwrap_or_default();
    let pages = &structured["pages"];
    assert_eq!(pages[1]["isolatedContext"], json!("alice"));
    assert!(pages[3].get("isolatedContext").is_none(), "{pages}");
    assert_eq!(pages[4]["isolatedContext"], json!("bob"));
}
