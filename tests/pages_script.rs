//! Issue 2's page and script tools against the real binary and real headless Chromium:
//! `list_pages`, `new_page`, `select_page`, `close_page`, `navigate_page`, `wait_for` and
//! `evaluate_script`, with the response texts of chrome-devtools-mcp 1.11 (the reference; see
//! /work/notes/reference-responses.md sections 1, 2 and 5), and the server's robustness: page
//! routing by `pageId`, calls that hang or block a page, cancellation, a browser that dies, a
//! renderer that crashes, connecting to a browser that is already running, and a missing browser.
//!
//! Pages come from `tests/fixtures/pages_script/` and from routes the tests program on the
//! fixture server (a route that never answers, for navigation timeouts).

mod common;

use std::fs;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::calls::{
    assert_error, assert_no_response, call_async, error_text, returned, tool_result, uid_of,
};
use common::procs;
use common::{
    browser_main_process, chrome_path, closed_port, started, started_in, Fixtures, Mcp, Response,
    ToolResult,
};
use serde_json::json;

/// The reference's first line after the browser was lost and started again.
const RESTART_NOTE: &str = "Note: the browser was restarted or reconnected since the last call. \
Page ids have changed. Call list_pages to see open pages.";

/// How soon calls that do not depend on a busy page must answer. The calls themselves take
/// milliseconds; the slack is for a shared two-core machine under load.
const PROMPT: Duration = Duration::from_secs(5);

// ---------------------------------------------------------------- helpers

fn page_url(fx: &Fixtures, file: &str) -> String {
    fx.url(&format!("/pages_script/{file}"))
}

fn evaluate(mcp: &Mcp, function: &str) -> ToolResult {
    mcp.call("evaluate_script", json!({ "function": function }))
}

fn evaluate_on(mcp: &Mcp, page: u32, function: &str) -> ToolResult {
    mcp.call(
        "evaluate_script",
        json!({ "function": function, "pageId": page }),
    )
}

/// Asserts a successful `evaluate_script` that returned exactly `json_text`.
fn assert_returned(result: &ToolResult, json_text: &str) {
    assert!(!result.is_error, "evaluate_script failed: {}", result.text);
    assert_eq!(result.text, returned(json_text));
}

// ---------------------------------------------------------------- list, new, select, close

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
        "\"hidden\"",
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
        "\"hidden\"",
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
        "\"hidden\"",
    );

    assert_error(
        &mcp.call("select_page", json!({"pageId": 99})),
        "No page found",
    );
}

#[test]
fn close_page_closes_other_pages_and_keeps_the_last_one() {
    let fx = Fixtures::start();
    let start = page_url(&fx, "start.html");
    let second = page_url(&fx, "second.html");
    let mcp = started();
    mcp.call_ok("new_page", json!({ "url": start }));
    mcp.call_ok("new_page", json!({ "url": second }));

    // Another page than the selected one.
    let closed = mcp.call_ok("close_page", json!({"pageId": 2}));
    assert_eq!(
        closed.text,
        format!("## Pages\n1: about:blank\n3: Second page ({second}) [selected]")
    );
    assert_error(
        &mcp.call("close_page", json!({"pageId": 2})),
        "No page found",
    );

    // The selected page: the first remaining one is selected, and the answer says so.
    let closed = mcp.call_ok("close_page", json!({"pageId": 3}));
    assert_eq!(
        closed.text,
        "Note: the previously selected page was closed. Page 1 is now selected.\n\
         ## Pages\n1: about:blank [selected]"
    );

    // The last page stays open, and that is not an error.
    let last = mcp.call("close_page", json!({"pageId": 1}));
    assert!(!last.is_error, "{}", last.text);
    assert_eq!(
        last.text,
        "The last open page cannot be closed. It is fine to keep it open.\n\
         ## Pages\n1: about:blank [selected]"
    );
    assert_returned(&evaluate(&mcp, "() => 1 + 1"), "2");
}

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

    let began = Instant::now();
    mcp.call_ok("list_pages", json!({}));
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
    assert!(began.elapsed() < PROMPT, "took {:?}", began.elapsed());

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

// ---------------------------------------------------------------- evaluate_script values

#[test]
fn evaluate_script_returns_values_as_json() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));

    for (function, expected) in [
        ("() => 1 + 1", "2"),
        (
            "() => ({a: 1, b: [true, null, 'x'], c: {d: 'e'}})",
            r#"{"a":1,"b":[true,null,"x"],"c":{"d":"e"}}"#,
        ),
        (r#"() => 'hello "world"'"#, r#""hello \"world\"""#),
        ("() => undefined", "undefined"),
        ("() => null", "null"),
        ("() => document.querySelector('h1')", "{}"),
        (
            "() => ({n: NaN, i: Infinity, u: undefined, d: new Date(0)})",
            r#"{"n":null,"i":null,"d":"1970-01-01T00:00:00.000Z"}"#,
        ),
        (
            "async () => { await new Promise(r => setTimeout(r, 50)); return 'late' }",
            "\"late\"",
        ),
        ("() => 3;", "3"),
        ("() => document.title", "\"Start page\""),
    ] {
        let result = evaluate(&mcp, function);
        assert!(!result.is_error, "{function}: {}", result.text);
        assert_eq!(result.text, returned(expected), "{function}");
    }
}

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

    // The server stopped the loop: the page's main thread answers again.
    let began = Instant::now();
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");
    assert!(began.elapsed() < PROMPT, "took {:?}", began.elapsed());
    mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "second.html")}),
    );
}

// ---------------------------------------------------------------- pageId, concurrency

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
    // Let the script reach the page.
    thread::sleep(Duration::from_millis(300));

    let began = Instant::now();
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
    assert!(began.elapsed() < PROMPT, "took {:?}", began.elapsed());

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
    others_answer_while_one_page_is_busy("() => new Promise(() => {})");
}

#[test]
fn a_page_stuck_in_a_busy_loop_does_not_hold_up_other_calls() {
    others_answer_while_one_page_is_busy("() => { while (true) {} }");
}

#[test]
fn a_cancelled_call_gets_no_answer_and_the_server_keeps_serving() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));

    for function in ["() => new Promise(() => {})", "() => { while (true) {} }"] {
        let id = call_async(
            &mcp,
            "evaluate_script",
            json!({"function": function, "timeout": 60000}),
        );
        thread::sleep(Duration::from_millis(300));
        mcp.cancel(id, "the user changed their mind");
        assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
        // The next call on the same page works, promptly.
        let began = Instant::now();
        let next = mcp.call_timeout(
            "evaluate_script",
            json!({"function": "() => document.title"}),
            PROMPT,
        );
        assert_returned(&next, "\"Start page\"");
        assert!(
            began.elapsed() < PROMPT,
            "{function}: took {:?}",
            began.elapsed()
        );
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
        json!({"function": "() => new Promise(() => {})", "timeout": 60000}),
    );
    thread::sleep(Duration::from_millis(300));
    let killed = Instant::now();
    procs::signal(&[browser.pid], "KILL");
    let failed = tool_result(&mcp.wait_response_timeout(hanging, PROMPT));
    assert!(failed.is_error, "{}", failed.text);
    assert!(
        failed.text.to_lowercase().contains("browser"),
        "the error does not name the lost browser: {}",
        failed.text
    );
    assert!(killed.elapsed() < PROMPT, "took {:?}", killed.elapsed());

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
        json!({"function": "() => new Promise(() => {})", "timeout": 60000}),
    );
    thread::sleep(Duration::from_millis(300));
    // The navigation itself is aborted (the reference says the same); the crash follows it.
    let crash = mcp.call("navigate_page", json!({"url": "chrome://crash"}));
    assert!(
        crash
            .text
            .starts_with("Unable to navigate in the selected page: "),
        "{}",
        crash.text
    );
    let pending = tool_result(&mcp.wait_response_timeout(hanging, PROMPT));
    assert!(pending.is_error, "{}", pending.text);
    assert!(
        pending.text.to_lowercase().contains("crash"),
        "the pending call's error does not name the crash: {}",
        pending.text
    );
    // Calls on the crashed page say so too, at once.
    let began = Instant::now();
    for (tool, args) in [
        ("evaluate_script", json!({"function": "() => 1"})),
        ("wait_for", json!({"text": ["Start heading"]})),
        ("take_snapshot", json!({})),
    ] {
        let dead = mcp.call(tool, args);
        assert!(dead.is_error, "{tool}: {}", dead.text);
        assert!(dead.text.contains("crashed"), "{tool}: {}", dead.text);
    }
    assert!(began.elapsed() < PROMPT, "took {:?}", began.elapsed());
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

// ---------------------------------------------------------------- a browser already running

/// A Chromium started by the test with a debugging port, as a user would start one for
/// `--browserUrl` / `--wsEndpoint`. Killed (with its helpers) and its profile removed on drop.
struct RunningBrowser {
    child: Child,
    profile: PathBuf,
    port: u16,
    ws_path: String,
    /// Counts against the machine-wide cap on browsers, like a server does.
    _slot: Arc<common::slots::Slot>,
}

impl RunningBrowser {
    fn start() -> RunningBrowser {
        let slot = common::slots::acquire();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let profile = std::env::temp_dir().join(format!(
            "devtools-mcp-tests-browser-{}-{nanos}",
            std::process::id()
        ));
        fs::create_dir_all(&profile).expect("create the browser profile");
        use std::os::unix::process::CommandExt;
        let child = Command::new(chrome_path())
            .args([
                "--headless",
                "--remote-debugging-port=0",
                &format!("--user-data-dir={}", profile.display()),
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chrome_path()));
        let mut browser = RunningBrowser {
            child,
            profile,
            port: 0,
            ws_path: String::new(),
            _slot: slot,
        };
        // Chromium writes the port it chose and the browser target's path to this file.
        let file = browser.profile.join("DevToolsActivePort");
        let found = procs::wait_until(Duration::from_secs(30), || {
            let text = fs::read_to_string(&file).unwrap_or_default();
            let mut lines = text.lines();
            match (lines.next().and_then(|p| p.parse().ok()), lines.next()) {
                (Some(port), Some(path)) if path.starts_with("/devtools/browser/") => {
                    browser.port = port;
                    browser.ws_path = path.to_owned();
                    true
                }
                _ => false,
            }
        });
        assert!(found, "Chromium wrote no usable {}", file.display());
        browser
    }

    fn browser_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn ws_endpoint(&self) -> String {
        format!("ws://127.0.0.1:{}{}", self.port, self.ws_path)
    }
}

impl Drop for RunningBrowser {
    fn drop(&mut self) {
        // The whole process group: the browser and its zygotes, renderers and utilities.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.profile);
    }
}

/// Lists pages and evaluates through a server connected with `flag value`.
fn use_running_browser(flag: &str, value: &str, fx: &Fixtures, browser: &RunningBrowser) {
    let mcp = Mcp::spawn(&[flag, value], &[]);
    mcp.initialize();
    let listed = mcp.call_ok("list_pages", json!({}));
    assert_eq!(listed.text, "## Pages\n1: about:blank [selected]");
    assert_returned(&evaluate(&mcp, "() => 6 * 7"), "42");
    let start = page_url(fx, "start.html");
    let opened = mcp.call_ok("new_page", json!({ "url": start }));
    assert_eq!(
        opened.text,
        format!("## Pages\n1: about:blank\n2: Start page ({start}) [selected]")
    );
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");
    // The server did not start a browser of its own.
    assert!(
        mcp.descendants().is_empty(),
        "the server started processes: {:?}",
        mcp.descendants()
    );
    // Leave the browser as we found it for the next connection.
    mcp.call_ok("close_page", json!({"pageId": 2}));
    drop(mcp);
    assert!(
        procs::alive(browser.child.id()),
        "the browser did not survive the server that only connected to it"
    );
}

#[test]
fn ws_endpoint_connects_to_a_running_browser() {
    let fx = Fixtures::start();
    let browser = RunningBrowser::start();
    use_running_browser("--wsEndpoint", &browser.ws_endpoint(), &fx, &browser);
    // The `--flag=value` spelling works too.
    let mcp = Mcp::spawn(&[&format!("--wsEndpoint={}", browser.ws_endpoint())], &[]);
    mcp.initialize();
    assert_returned(&evaluate(&mcp, "() => 'connected'"), "\"connected\"");
}

#[test]
fn browser_url_connects_to_a_running_browser() {
    let fx = Fixtures::start();
    let browser = RunningBrowser::start();
    use_running_browser("--browserUrl", &browser.browser_url(), &fx, &browser);
    let mcp = Mcp::spawn(&[&format!("--browserUrl={}", browser.browser_url())], &[]);
    mcp.initialize();
    assert_returned(&evaluate(&mcp, "() => 'connected'"), "\"connected\"");
}

// ---------------------------------------------------------------- no browser

#[test]
fn a_missing_browser_is_an_error_that_says_how_to_install_one() {
    // Nothing on PATH, no CHROME_PATH.
    let mcp = Mcp::spawn(
        &["--headless", "--isolated"],
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

// ---------------------------------------------------------------- file paths

fn save(mcp: &Mcp, path: &std::path::Path) -> ToolResult {
    mcp.call(
        "evaluate_script",
        json!({"function": "() => 42", "filePath": path.to_str().expect("utf-8 path")}),
    )
}

fn denied(path: &std::path::Path) -> String {
    let canonical = fs::canonicalize(path.parent().expect("a folder"))
        .expect("folder exists")
        .join(path.file_name().expect("a name"));
    error_text(&format!(
        "Access denied: path {} (canonical: {}) is not within any of the configured workspace roots.",
        path.display(),
        canonical.display()
    ))
}

#[test]
fn files_are_written_only_inside_the_roots() {
    let base = std::env::temp_dir().join(format!("dtmcp-roots-{}", std::process::id()));
    let (tmp, outside, elsewhere) = (
        base.join("tmp"),
        base.join("outside"),
        base.join("elsewhere"),
    );
    for d in [&tmp, &outside, &elsewhere] {
        fs::create_dir_all(d).expect("scratch folder");
    }

    // No client roots, no flags: the temp directory only, as the reference does.
    let mcp = started_in(&tmp, &[]);
    mcp.initialize();
    let r = save(&mcp, &outside.join("a.json"));
    assert_eq!(r.text, denied(&outside.join("a.json")));
    assert!(r.is_error && !outside.join("a.json").exists());
    let r = save(&mcp, &tmp.join("a.json"));
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(
        fs::read_to_string(tmp.join("a.json")).expect("written"),
        "42"
    );
    // Files a launched browser would read (uploads) too.
    fs::write(outside.join("up.txt"), "x").expect("scratch file");
    let r = mcp.call(
        "upload_file",
        json!({"uid": "1_1", "filePaths": [outside.join("up.txt").to_str().unwrap()]}),
    );
    assert_eq!(r.text, denied(&outside.join("up.txt")));
    drop(mcp);

    // --allowUnrestrictedPaths: anywhere. --workspace (--filesystemRoot): that folder too.
    let mcp = started_in(&tmp, &["--allowUnrestrictedPaths"]);
    mcp.initialize();
    assert!(!save(&mcp, &outside.join("b.json")).is_error);
    drop(mcp);
    let outside_text = outside.to_str().expect("utf-8 path");
    let mcp = started_in(&tmp, &["--workspace", outside_text]);
    mcp.initialize();
    assert!(!save(&mcp, &outside.join("c.json")).is_error);
    assert_eq!(
        save(&mcp, &elsewhere.join("c.json")).text,
        denied(&elsewhere.join("c.json"))
    );
    drop(mcp);

    // A client with roots: asked at once; a call made before the answer waits for it.
    let mcp = started_in(&tmp, &[]);
    mcp.initialize_with("2025-06-18", json!({"roots": {"listChanged": true}}));
    let ask = mcp.wait_notification("roots/list", PROMPT);
    let call = call_async(
        &mcp,
        "evaluate_script",
        json!({"function": "() => 42", "filePath": outside.join("d.json").to_str().unwrap()}),
    );
    assert_no_response(&mcp, call, Duration::from_millis(300));
    let uri = format!("file://{}", outside_text.replace(' ', "%20"));
    mcp.respond(
        &ask["id"],
        json!({"roots": [{"uri": uri, "name": "outside"}]}),
    );
    let r = tool_result(&mcp.wait_response(call));
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(
        save(&mcp, &elsewhere.join("d.json")).text,
        denied(&elsewhere.join("d.json"))
    );
    // The roots changed: asked again; now only the temp directory is left.
    mcp.notify("notifications/roots/list_changed", serde_json::Value::Null);
    let ask = mcp.wait_notification("roots/list", PROMPT);
    mcp.respond(&ask["id"], json!({"roots": []}));
    assert_eq!(
        save(&mcp, &outside.join("e.json")).text,
        denied(&outside.join("e.json"))
    );
    assert!(!save(&mcp, &tmp.join("e.json")).is_error);
    let _ = fs::remove_dir_all(&base);
}
