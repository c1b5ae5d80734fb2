//! Third-party tools never wedge the server, against the real binary and real headless
//! Chromium: tools that never settle or block the main thread, cancellation, dialogs, and
//! navigation, a renderer crash or a dying browser in the middle of a call.
//!
//! Pages come from `tests/fixtures/thirdparty/` (its README says what each one registers) and,
//! for one-off registrations, from inline pages on the fixture server; the helpers are in
//! `support/thirdparty.rs`.

use std::time::{Duration, Instant};

use crate::support::calls::{
    assert_error, assert_no_response, call_async, tool_result, until_logged,
};
use crate::support::thirdparty::{
    assert_not_found, exec, exec_ok, json_body, list, open, page_url, section, EXECUTE, LIST,
    LIST_CHANGED, NOTIFIED,
};
use crate::support::{browser_main_process, started, Fixtures, PROMPT};
use serde_json::json;

// ---------------------------------------------------------------- never wedged

#[test]
fn a_tool_that_never_settles_times_out_while_everything_else_answers() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    open(&mcp, &fx, "sync.html");
    let began = Instant::now();
    let hanging = call_async(
        &mcp,
        EXECUTE,
        json!({"toolName": "never_settles", "pageId": 2, "timeout": 12000}),
    );
    until_logged(&mcp, Some(2), "never_settles started");

    assert_eq!(
        mcp.request_timeout("ping", json!({}), PROMPT)["result"],
        json!({})
    );
    let pages = mcp.call_timeout("list_pages", json!({}), PROMPT);
    assert!(pages.text.starts_with("## Pages\n"), "{}", pages.text);
    let other = mcp.call_timeout(
        EXECUTE,
        json!({"toolName": "add", "params": r#"{"a":1,"b":1}"#, "pageId": 3}),
        PROMPT,
    );
    assert_eq!(other.text, "2");
    let listed = mcp.call_timeout(LIST, json!({"pageId": 3}), PROMPT);
    assert!(listed.text.contains("Sync: "), "{}", listed.text);
    // All of that while the hanging call still waits (it ends at 12 s: slack for a loaded
    // machine, where a stopwatch on the calls above would fail).
    assert!(!mcp.answered(hanging), "the hanging call ended first");

    let r = tool_result(&mcp.wait_response_timeout(hanging, PROMPT * 4));
    assert_error(
        &r,
        "Tool never_settles timed out after 12000 ms without settling.",
    );
    // Not before its time limit (the text says which limit ended it).
    let took = began.elapsed();
    assert!(took >= Duration::from_millis(11_900), "{took:?}");
    // The page is usable afterwards.
    let after = mcp.call_timeout(
        EXECUTE,
        json!({"toolName": "number_result", "pageId": 2}),
        PROMPT,
    );
    assert_eq!(after.text, "42");
}

#[test]
fn a_tool_that_blocks_the_main_thread_is_stopped_at_its_timeout() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "behaviour.html");
    let began = Instant::now();
    let blocked = call_async(
        &mcp,
        EXECUTE,
        json!({"toolName": "block_forever", "timeout": 10000}),
    );
    until_logged(&mcp, None, "block_forever started");
    assert_eq!(
        mcp.request_timeout("ping", json!({}), PROMPT)["result"],
        json!({})
    );
    let pages = mcp.call_timeout("list_pages", json!({}), PROMPT);
    assert!(pages.text.starts_with("## Pages\n"), "{}", pages.text);
    // Listing the busy page's tools cannot run discovery there; it answers with the table
    // as it stands, without waiting for the page.
    let listed = mcp.call_timeout(LIST, json!({}), PROMPT);
    assert!(listed.text.contains("Behaviour: "), "{}", listed.text);
    assert!(
        !mcp.answered(blocked),
        "the listing waited for the page to be free"
    );

    let r = tool_result(&mcp.wait_response_timeout(blocked, PROMPT * 4));
    assert_error(
        &r,
        "Tool block_forever timed out after 10000 ms without settling.",
    );
    assert!(began.elapsed() >= Duration::from_millis(9_900));
    // The page's main thread is free again: a page still blocked would hold this call to
    // the server's 25 s limit.
    let text = mcp
        .call_timeout(
            EXECUTE,
            json!({"toolName": "block", "params": r#"{"ms":10}"#}),
            PROMPT * 4,
        )
        .text;
    assert_eq!(json_body(&text), json!({"blocked": 10}));
    assert!(list(&mcp).text.contains("Behaviour: "));
}

#[test]
fn a_cancelled_tool_call_gets_no_answer_and_frees_the_page() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "behaviour.html");
    for tool in ["never_settles", "block_forever"] {
        let id = call_async(&mcp, EXECUTE, json!({"toolName": tool, "timeout": 60000}));
        until_logged(&mcp, None, &format!("{tool} started"));
        mcp.cancel(id, "the agent moved on");
        // The page is free again: a page still held would keep this call past its wait.
        assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
        let next = mcp.call_timeout(
            EXECUTE,
            json!({"toolName": "block", "params": r#"{"ms":1}"#}),
            PROMPT,
        );
        assert!(!next.is_error, "{tool}: {}", next.text);
        assert_no_response(&mcp, id, Duration::from_millis(500));
    }
}

#[test]
fn dialogs_opened_by_a_tool_are_answered_and_reported() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "behaviour.html");
    // A dialog left unanswered would hold its tool to the time limit, an error exec_ok refuses.
    let r = exec_ok(&mcp, "alert", None);
    assert!(r.starts_with("\"after alert\"\n"), "{r}");
    assert!(
        r.contains("alert dialog") && r.contains("hello from a tool"),
        "{r}"
    );
    let r = exec_ok(&mcp, "confirm", None);
    assert!(r.contains("\"confirmed\": true"), "{r}");
    assert!(
        r.contains("confirm dialog") && r.contains("Proceed?"),
        "{r}"
    );
    let r = exec_ok(&mcp, "prompt", None);
    assert!(r.contains("\"text\": \"default name\""), "{r}");
    assert!(
        r.contains("prompt dialog") && r.contains("Your name?"),
        "{r}"
    );
    // Nothing is left open.
    let listed = list(&mcp);
    assert!(!listed.text.contains("# Open dialog"), "{}", listed.text);
    assert_eq!(
        exec_ok(&mcp, "block", Some(r#"{"ms":1}"#)),
        "{\n  \"blocked\": 1\n}"
    );
}

#[test]
fn a_page_navigating_away_mid_call_fails_it_at_once_and_its_new_tools_work() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "behaviour.html");
    for tool in ["navigate_away", "reload"] {
        let r = exec(&mcp, tool, None);
        // The call fails because the document went; a server that waited would answer its
        // time limit's error instead (a stopwatch here failed only on a loaded machine).
        assert!(r.is_error, "{tool}: {}", r.text);
        assert!(r.text.contains("navigated away"), "{tool}: {}", r.text);
        // The next document's tools, right away and without a list.
        if tool == "navigate_away" {
            assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":4,"b":5}"#)), "9");
            assert_not_found(&exec(&mcp, "set_text", Some(r#"{"text":"x"}"#)), "set_text");
            mcp.call_ok(
                "navigate_page",
                json!({"url": page_url(&fx, "behaviour.html")}),
            );
        } else {
            assert!(exec_ok(&mcp, "set_text", Some(r#"{"text":"x"}"#)).contains("uid"));
        }
    }
}

#[test]
fn after_the_page_navigated_itself_old_tools_are_gone_and_new_ones_work() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "links.html");
    // By a link the page follows itself.
    mcp.drain_notifications(LIST_CHANGED);
    assert_eq!(exec_ok(&mcp, "follow_link", None), "\"clicked\"");
    // The old document's tools leave with it (announced); no list call in between.
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":1,"b":2}"#)), "3");
    assert_not_found(&exec(&mcp, "where", None), "where");

    // By a location change from a script.
    mcp.call_ok("navigate_page", json!({"url": page_url(&fx, "links.html")}));
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { setTimeout(() => { location.href = 'duplicates.html'; }, 0); return 1; }"}),
    );
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    assert_eq!(exec_ok(&mcp, "get_version", None), "\"from First\"");
    assert_not_found(&exec(&mcp, "follow_link", None), "follow_link");

    // Back in history.
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { setTimeout(() => history.back(), 0); return 1; }"}),
    );
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    let url = exec_ok(&mcp, "where", None);
    assert_eq!(url, format!("\"{}\"", page_url(&fx, "links.html")));
    assert_not_found(&exec(&mcp, "get_version", None), "get_version");
}

#[test]
fn a_renderer_crash_mid_call_is_reported_and_pages_work_afterwards() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let hanging = call_async(
        &mcp,
        EXECUTE,
        json!({"toolName": "never_settles", "timeout": 60000}),
    );
    until_logged(&mcp, None, "never_settles started");
    crate::support::kill_renderers(&mcp);
    // Answered by the crash, long before its own 60 s limit.
    let r = tool_result(&mcp.wait_response_timeout(hanging, PROMPT * 4));
    assert!(r.is_error, "{}", r.text);
    assert!(r.text.to_lowercase().contains("crash"), "{}", r.text);
    // A tool call on the crashed page says so at once.
    let dead = exec(&mcp, "number_result", None);
    assert!(
        dead.is_error && dead.text.to_lowercase().contains("crash"),
        "{}",
        dead.text
    );

    // A new page works, and so does the crashed one once navigated.
    open(&mcp, &fx, "sync.html");
    assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":1,"b":1}"#)), "2");
    let nav = mcp.call_ok(
        "navigate_page",
        json!({"pageId": 2, "url": page_url(&fx, "values.html")}),
    );
    assert!(section(&nav.text).contains("Values: "), "{}", nav.text);
    let again = mcp.call(EXECUTE, json!({"toolName": "number_result", "pageId": 2}));
    assert_eq!(again.text, "42");
}

#[test]
fn a_dying_browser_fails_a_running_tool_and_the_next_call_starts_a_new_one() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let browser = browser_main_process(&mcp);
    let hanging = call_async(
        &mcp,
        EXECUTE,
        json!({"toolName": "never_settles", "timeout": 60000}),
    );
    until_logged(&mcp, None, "never_settles started");
    crate::support::procs::signal(&[browser.pid], libc::SIGKILL);
    // Answered by the loss, long before its own 60 s limit.
    let r = tool_result(&mcp.wait_response_timeout(hanging, PROMPT * 4));
    assert!(r.is_error, "{}", r.text);
    assert!(r.text.to_lowercase().contains("browser"), "{}", r.text);
    // The next call starts a browser again and says that page ids changed.
    let page = open(&mcp, &fx, "sync.html");
    assert!(page.text.contains("Page ids have changed"), "{}", page.text);
    assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":3,"b":4}"#)), "7");
}
