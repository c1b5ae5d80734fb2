//! Robustness against the real binary and real headless Chromium: a call that hangs
//! or blocks one page holds up no other, a cancelled call gets no answer, a browser that dies
//! is started again, and a renderer crash is reported while the page can be used again.
//!
//! Pages come from `tests/fixtures/pages_script/`; the helpers are in `support/pages.rs`.

use std::time::Duration;

use crate::support::calls::{assert_no_response, call_async, tool_result, until_logged};
use crate::support::pages::{assert_returned, evaluate, page_url};
use crate::support::procs;
use crate::support::{browser_main_process, started, Fixtures, PROMPT};
use serde_json::json;

/// The reference's first line after the browser was lost and started again.
/// A script that never settles, and says on the console that it reached the page.
const HANG: &str = "() => { console.log('reached the page'); return new Promise(() => {}) }";

const RESTART_NOTE: &str = "Note: the browser was restarted or reconnected since the last call. \
Page ids have changed. Call list_pages to see open pages.";

// ---------------------------------------------------------------- concurrency

/// While a call waits on one page — the selected one — `ping`, `list_pages` and a call on
/// another page answer.
fn others_answer_while_one_page_is_busy(function: &str) {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "second.html")}));

    // Page 3 is the selected page.
    let hanging = call_async(
        &mcp,
        "evaluate_script",
        json!({"function": function, "timeout": 60000}),
    );
    until_logged(&mcp, None, "reached the page");

    assert_eq!(
        mcp.request_timeout("ping", json!({}), PROMPT)["result"],
        json!({})
    );
    let list = mcp.call_timeout("list_pages", json!({}), PROMPT);
    assert!(
        list.text
            .starts_with("## Pages\n1: about:blank\n2: Start page"),
        "{}",
        list.text
    );
    let other = mcp.call_timeout(
        "evaluate_script",
        json!({"function": "() => document.title", "pageId": 2}),
        PROMPT,
    );
    assert_returned(&other, "\"Start page\"");
    // All of that while the busy page's call still runs.
    assert!(!mcp.answered(hanging), "the busy call ended first");

    // The busy call is still going; cancelling it frees the page again.
    mcp.cancel(hanging, "test over");
    let after = mcp.call_timeout(
        "evaluate_script",
        json!({"function": "() => document.title"}),
        PROMPT,
    );
    assert_returned(&after, "\"Second page\"");
}

#[test]
fn a_pending_promise_does_not_hold_up_other_calls() {
    others_answer_while_one_page_is_busy(
        "() => { console.log('reached the page'); return new Promise(() => {}) }",
    );
}

#[test]
fn a_page_stuck_in_a_busy_loop_does_not_hold_up_other_calls() {
    others_answer_while_one_page_is_busy(
        "() => { console.log('reached the page'); while (true) {} }",
    );
}

#[test]
fn a_cancelled_call_gets_no_answer_and_the_server_keeps_serving() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));

    for (marker, function) in [
        (
            "pending",
            "() => { console.log('pending'); return new Promise(() => {}) }",
        ),
        ("busy", "() => { console.log('busy'); while (true) {} }"),
    ] {
        let id = call_async(
            &mcp,
            "evaluate_script",
            json!({"function": function, "timeout": 60000}),
        );
        until_logged(&mcp, None, marker);
        mcp.cancel(id, "the user changed their mind");
        assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
        // The next call on the same page works (a page still busy would hold it to its
        // 25 s limit, past this wait).
        let next = mcp.call_timeout(
            "evaluate_script",
            json!({"function": "() => document.title"}),
            PROMPT,
        );
        assert_returned(&next, "\"Start page\"");
        assert_no_response(&mcp, id, Duration::from_millis(500));
    }
}

// ---------------------------------------------------------------- a lost browser, a crash

#[test]
fn a_dying_browser_fails_the_pending_call_and_the_next_call_relaunches_it() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));
    let browser = browser_main_process(&mcp);

    let hanging = call_async(
        &mcp,
        "evaluate_script",
        json!({"function": HANG, "timeout": 60000}),
    );
    until_logged(&mcp, None, "reached the page");
    procs::signal(&[browser.pid], libc::SIGKILL);
    // Answered long before its own 60 s limit.
    let failed = tool_result(&mcp.wait_response_timeout(hanging, PROMPT * 4));
    assert!(failed.is_error, "{}", failed.text);
    assert!(
        failed.text.to_lowercase().contains("browser"),
        "the error does not name the lost browser: {}",
        failed.text
    );

    // The next call starts a new browser and says that page ids changed.
    let listed = mcp.call_ok("list_pages", json!({}));
    assert_eq!(
        listed.text,
        format!("{RESTART_NOTE}\n## Pages\n3: about:blank [selected]")
    );
    let relaunched = browser_main_process(&mcp);
    assert_ne!(relaunched.pid, browser.pid);
    // Said once only.
    assert_eq!(
        mcp.call_ok("list_pages", json!({})).text,
        "## Pages\n3: about:blank [selected]"
    );
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "second.html")}));
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Second page\"");
}

#[test]
fn a_renderer_crash_is_reported_and_the_page_can_be_navigated_again() {
    let fx = Fixtures::start();
    let start = page_url(&fx, "start.html");
    let mcp = started();
    mcp.call_ok("new_page", json!({ "url": start }));

    // A call waiting on the page when it crashes fails, naming the crash.
    let hanging = call_async(
        &mcp,
        "evaluate_script",
        json!({"function": HANG, "timeout": 60000}),
    );
    until_logged(&mcp, None, "reached the page");
    crate::support::kill_renderers(&mcp);
    let pending = tool_result(&mcp.wait_response_timeout(hanging, PROMPT));
    assert!(pending.is_error, "{}", pending.text);
    assert!(
        pending.text.to_lowercase().contains("crash"),
        "the pending call's error does not name the crash: {}",
        pending.text
    );
    // Calls on the crashed page say so too, at once (a call that waited for the page would
    // answer its time limit's error instead).
    for (tool, args) in [
        ("evaluate_script", json!({"function": "() => 1"})),
        ("wait_for", json!({"text": ["Start heading"]})),
        ("take_snapshot", json!({})),
    ] {
        let dead = mcp.call(tool, args);
        assert!(dead.is_error, "{tool}: {}", dead.text);
        assert!(dead.text.contains("crashed"), "{tool}: {}", dead.text);
    }
    mcp.call_ok("list_pages", json!({}));

    // The page can be navigated again, and works.
    let nav = mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "second.html")}),
    );
    assert!(
        nav.text.starts_with(&format!(
            "Successfully navigated to {}.",
            page_url(&fx, "second.html")
        )),
        "{}",
        nav.text
    );
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Second page\"");
    mcp.call_ok("new_page", json!({ "url": start }));
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");
}
