//! `evaluate_script` against the real binary and real headless Chromium: values and
//! errors in the response texts of chrome-devtools-mcp 1.11 (the reference; its answers are
//! kept in `tests/fixtures/reference/` and compared by `reference_texts.rs`), elements by
//! snapshot uid, waiting for the DOM to settle, and scripts stopped at their timeout.
//!
//! Pages come from `tests/fixtures/pages_script/`; the helpers are in `support/pages.rs`.

use std::time::{Duration, Instant};

use crate::support::calls::{assert_error, error_text, uid_of};
use crate::support::pages::{assert_returned, evaluate, page_url};
use crate::support::{started, Fixtures};
use serde_json::json;

// ---------------------------------------------------------------- evaluate_script values

#[test]
fn evaluate_script_errors_carry_the_page_message() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));

    for (function, message) in [
        ("() => { throw new Error('boom here') }", "boom here"),
        (
            "async () => { throw new Error('rejected here') }",
            "rejected here",
        ),
        ("() => Promise.reject(new Error('rej2'))", "rej2"),
        ("() => {{", "Unexpected token ')'"),
        (
            "() => { null.x }",
            "Cannot read properties of null (reading 'x')",
        ),
    ] {
        let result = evaluate(&mcp, function);
        assert!(result.is_error, "{function} did not fail: {}", result.text);
        assert_eq!(result.text, error_text(message), "{function}");
    }
    assert_error(
        &mcp.call("evaluate_script", json!({})),
        "Specify exactly one of function or sourcePath.",
    );
    // The page is fine after all that.
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");
}

#[test]
fn evaluate_script_takes_elements_by_snapshot_uid() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));

    // Before any snapshot there is nothing to resolve a uid against.
    assert_error(
        &mcp.call(
            "evaluate_script",
            json!({"function": "(el) => el.tagName", "args": ["1_1"]}),
        ),
        "No snapshot found for page 2. Use take_snapshot to capture one.",
    );

    let snapshot = mcp.call_ok("take_snapshot", json!({})).text;
    let heading = uid_of(&snapshot, "heading \"Start heading\"");
    let button = uid_of(&snapshot, "button \"Press here\"");

    let one = mcp.call(
        "evaluate_script",
        json!({"function": "(el) => el.innerText", "args": [heading]}),
    );
    assert_returned(&one, "\"Start heading\"");
    let two = mcp.call(
        "evaluate_script",
        json!({"function": "(h, b) => [h.tagName, b.id]", "args": [heading, button]}),
    );
    assert_returned(&two, r#"["H1","go"]"#);

    assert_error(
        &mcp.call(
            "evaluate_script",
            json!({"function": "(el) => el.tagName", "args": ["9_99"]}),
        ),
        "Element uid \"9_99\" not found on page 2.",
    );
}

#[test]
fn evaluate_script_waits_for_the_dom_it_changed_to_settle() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));

    // The script starts a chain of DOM changes and returns at once; the answer comes when
    // the chain has run out.
    let result = evaluate(
        &mcp,
        "() => { let n = 0; const tick = () => { document.body.dataset.n = String(++n); \
         if (n < 5) setTimeout(tick, 20); }; tick(); return 'started'; }",
    );
    assert_returned(&result, "\"started\"");
    assert_returned(&evaluate(&mcp, "() => document.body.dataset.n"), "\"5\"");

    // A script that changes nothing does not wait for the DOM: DOM changes it schedules for
    // later have not happened yet when it answers.
    let result = evaluate(
        &mcp,
        "() => { setTimeout(() => { document.body.dataset.later = 'yes'; }, 1500); return 1; }",
    );
    assert_returned(&result, "1");
    assert_returned(
        &evaluate(&mcp, "() => document.body.dataset.later === undefined"),
        "true",
    );
}

// ---------------------------------------------------------------- evaluate_script limits

#[test]
fn a_script_that_never_settles_ends_at_its_timeout() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));

    let began = Instant::now();
    let result = mcp.call(
        "evaluate_script",
        json!({"function": "() => new Promise(() => {})", "timeout": 1500}),
    );
    let took = began.elapsed();
    assert!(result.is_error, "{}", result.text);
    assert!(result.text.contains("timed out"), "{}", result.text);
    assert!(result.text.contains("1500 ms"), "{}", result.text);
    assert!(
        took >= Duration::from_millis(1400),
        "answered after {took:?}"
    );
    assert!(took < Duration::from_secs(10), "answered after {took:?}");
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");
}

#[test]
fn a_busy_loop_is_stopped_at_the_timeout_and_the_page_stays_usable() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));

    let began = Instant::now();
    let result = mcp.call(
        "evaluate_script",
        json!({"function": "() => { while (true) {} }", "timeout": 1500}),
    );
    let took = began.elapsed();
    assert!(result.is_error, "{}", result.text);
    assert!(result.text.contains("timed out"), "{}", result.text);
    assert!(
        took >= Duration::from_millis(1400),
        "answered after {took:?}"
    );
    assert!(took < Duration::from_secs(10), "answered after {took:?}");

    // The server stopped the loop: the page's main thread answers again (a page still
    // looping would hold this call to its time limit and answer an error).
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");
    mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "second.html")}),
    );
}
