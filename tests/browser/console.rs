//! The console tools against real Chromium: messages, errors and
//! stack traces, argument values, repeats, messages kept across navigations, and a bounded
//! record.
//!
//! Pages live in `tests/fixtures/console_network/`; the routes a test needs (an echo endpoint,
//! error statuses, large and binary bodies) are added to the fixture server per test. Expected
//! texts are the ones chrome-devtools-mcp 1.11 prints for the same pages, except where
//! devtools-mcp says more on purpose (the reason of an unhandled rejection, a request's timing).

use crate::support::console_network::{lines, msgid, until};
use crate::support::{started_with, Fixtures, Mcp};
use serde_json::json;

const NOTE: &str = "Note: line and column numbers use 1-based indexing";

/// A server with the fixtures, and a page open on `path`.
fn open(path: &str) -> (Fixtures, Mcp) {
    let fx = Fixtures::start();
    let mcp = started_with(&["--experimentalStructuredContent"]);
    mcp.call_ok("new_page", json!({"url": fx.url(path)}));
    (fx, mcp)
}

// ---------------------------------------------------------------- console

#[test]
fn console_messages_errors_and_stack_traces() {
    let (_fx, mcp) = open("/console_network/console.html");
    messages_are_listed(&mcp);
    let t = listed_with_stack_traces(&mcp);
    messages_in_full(&mcp, &t);
    types_filter(&mcp);
    pagination(&mcp);
}

/// The page's messages, listed as the reference lists them.
fn messages_are_listed(mcp: &Mcp) {
    let list = until(mcp, "list_console_messages", json!({}), |t| {
        t.contains("Uncaught Error: uncaught boom") && t.contains("unhandled rejection")
    });
    let text = list.text.as_str();
    assert!(
        text.starts_with("## Console messages\nShowing 1-7 of 7 (Page 1 of 1).\n"),
        "{text}"
    );
    for line in [
        "msgid=1 [log] hello log 42 [object Object] [array Array] (4 args)",
        "msgid=2 [warn] a warning (1 args)",
        "msgid=3 [info] some info (1 args)",
        "msgid=4 [debug] debug detail (1 args)",
        "msgid=5 [error] an error message Error: inner failure (2 args)",
        // The reference prints only "Uncaught (in promise)"; the reason is added here.
        "[error] Uncaught (in promise) Error: unhandled rejection (0 args)",
        "[error] Uncaught Error: uncaught boom (0 args)",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    assert!(!text.contains("Note:"), "{text}");
    let structured = list.structured.clone().unwrap_or_default();
    assert_eq!(
        structured["consoleMessages"][0]["argsCount"], 4,
        "{structured}"
    );
    assert_eq!(structured["pagination"]["totalPages"], 1, "{structured}");
}

/// The list with stack traces; returns its text.
fn listed_with_stack_traces(mcp: &Mcp) -> String {
    // Stack traces with source locations, async parts included.
    let with = mcp.call_ok("list_console_messages", json!({"includeStackTraces": true}));
    let t = with.text.as_str();
    assert!(
        t.contains("msgid=1 [log] hello log 42 [object Object] [array Array] (4 args)\n  at  (console.js:2:9)\n"),
        "{t}"
    );
    assert!(
        t.contains("(2 args)\n  at inner (console.js:10:11)\n  at outer (console.js:7:3)\n  at  (console.js:12:1)"),
        "{t}"
    );
    assert!(
        t.contains("Uncaught Error: uncaught boom (0 args)\n  at thrower (console.js:14:9)\n  --- setTimeout -------------------------\n  at  (console.js:16:1)"),
        "{t}"
    );
    assert!(
        t.ends_with("\nNote: stack trace line and column numbers use 1-based indexing"),
        "{t}"
    );
    with.text
}

/// Messages in full, found in `t` (the list with stack traces).
fn messages_in_full(mcp: &Mcp, t: &str) {
    // One message in full: arguments as JSON, its stack trace.
    let one = mcp.call_ok("get_console_message", json!({"msgid": 1}));
    assert_eq!(
        one.text,
        format!("ID: 1\nMessage: log> hello log 42 [object Object] [array Array]\n### Arguments\nArg #0: hello log\nArg #1: 42\nArg #2: {{\"a\":1,\"nested\":{{\"b\":[1,2]}}}}\nArg #3: [3,4]\n### Stack trace\nat  (console.js:2:9)\n{NOTE}")
    );
    let detail = &one.structured.clone().unwrap_or_default()["consoleMessage"];
    assert_eq!(detail["args"][3], "[3,4]", "{detail}");
    // An Error argument comes with its own stack (where it was created).
    let five = mcp.call_ok("get_console_message", json!({"msgid": 5}));
    assert_eq!(
        five.text,
        format!("ID: 5\nMessage: error> an error message Error: inner failure\n### Arguments\nArg #0: an error message\nArg #1: Error: inner failure\nat inner (console.js:10:37)\nat outer (console.js:7:3)\nat  (console.js:12:1)\n{NOTE}\n### Stack trace\nat inner (console.js:10:11)\nat outer (console.js:7:3)\nat  (console.js:12:1)\n{NOTE}")
    );
    let uncaught = msgid(t, "uncaught boom");
    let boom = mcp.call_ok("get_console_message", json!({"msgid": uncaught}));
    assert_eq!(
        boom.text,
        format!("ID: {uncaught}\nMessage: error> Uncaught Error: uncaught boom\n### Stack trace\nat thrower (console.js:14:9)\n--- setTimeout -------------------------\nat  (console.js:16:1)\n{NOTE}")
    );
    let rejected = msgid(t, "unhandled rejection");
    let rej = mcp.call_ok("get_console_message", json!({"msgid": rejected}));
    assert!(rej.text.contains("Message: error> Uncaught (in promise) Error: unhandled rejection\n### Stack trace\nat  (console.js:17:16)"), "{}", rej.text);

    let missing = mcp.call_err("get_console_message", json!({"msgid": 999}));
    assert!(missing.text.contains("999"), "{}", missing.text);
}

/// The list filtered by message types.
fn types_filter(mcp: &Mcp) {
    // Types filter.
    let filtered = mcp.call_ok("list_console_messages", json!({"types": ["warn", "info"]}));
    assert_eq!(
        filtered.text,
        "## Console messages\nShowing 1-2 of 2 (Page 1 of 1).\nmsgid=2 [warn] a warning (1 args)\nmsgid=3 [info] some info (1 args)"
    );
    let errors = mcp.call_ok("list_console_messages", json!({"types": ["error"]}));
    assert!(errors.text.contains("Showing 1-3 of 3"), "{}", errors.text);
    let none = mcp.call_ok("list_console_messages", json!({"types": ["table"]}));
    assert_eq!(
        none.text,
        "## Console messages\n<no console messages found>"
    );
}

/// The list in pages of two.
fn pagination(mcp: &Mcp) {
    // Pagination.
    let p0 = mcp.call_ok("list_console_messages", json!({"pageSize": 2}));
    assert_eq!(
        lines(&p0.text),
        vec![
            "## Console messages",
            "Showing 1-2 of 7 (Page 1 of 4).",
            "Next page: 1",
            "msgid=1 [log] hello log 42 [object Object] [array Array] (4 args)",
            "msgid=2 [warn] a warning (1 args)",
        ]
    );
    let p1 = mcp.call_ok(
        "list_console_messages",
        json!({"pageSize": 2, "pageIdx": 1}),
    );
    assert_eq!(
        lines(&p1.text)[1..4],
        [
            "Showing 3-4 of 7 (Page 2 of 4).",
            "Next page: 2",
            "Previous page: 0"
        ]
    );
    let last = mcp.call_ok(
        "list_console_messages",
        json!({"pageSize": 2, "pageIdx": 3}),
    );
    assert_eq!(
        lines(&last.text)[1..3],
        ["Showing 7-7 of 7 (Page 4 of 4).", "Previous page: 2"]
    );
    let bad = mcp.call_ok(
        "list_console_messages",
        json!({"pageSize": 2, "pageIdx": 9}),
    );
    assert_eq!(
        lines(&bad.text)[1..3],
        [
            "Invalid page number provided. Showing first page.",
            "Showing 1-2 of 7 (Page 1 of 4)."
        ]
    );
    let invalid = mcp.call("list_console_messages", json!({"pageSize": 0}));
    assert!(invalid.is_error, "{}", invalid.text);
}

#[test]
fn console_values_repeats_and_preserved_documents() {
    let (fx, mcp) = open("/console_network/nav.html?n=1");
    let after = values_and_repeats(&mcp);
    preserved_documents(&mcp, &fx, after);
}

/// Logged values and repeats; returns the msgid of the last message logged.
fn values_and_repeats(mcp: &Mcp) -> u64 {
    until(mcp, "list_console_messages", json!({}), |t| {
        t.contains("visit 1")
    });
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { console.log(null, undefined, 1.5, -0, NaN, 10n, true, 'str'); const c = {}; c.c = c; console.log('circ', c, [1, {b: 2}]); console.log('dup'); console.log('dup'); console.log('dup'); console.log('after'); return 1 }"}),
    );
    let list = until(mcp, "list_console_messages", json!({}), |t| {
        t.contains("after")
    });
    let t = list.text.as_str();
    assert!(t.contains("[log]   1.5 0 NaN 10 true str (8 args)"), "{t}");
    assert!(
        t.contains("[log] circ [object Object] [array Array] (3 args)"),
        "{t}"
    );
    assert!(t.contains("[log] dup (1 args) [3 times]"), "{t}");
    let values = mcp.call_ok(
        "get_console_message",
        json!({"msgid": msgid(t, "1.5 0 NaN")}),
    );
    assert!(
        values.text.contains("### Arguments\nArg #0: null\nArg #1: undefined\nArg #2: 1.5\nArg #3: 0\nArg #4: NaN\nArg #5: 10\nArg #6: true\nArg #7: str\n"),
        "{}",
        values.text
    );
    let circ = mcp.call_ok("get_console_message", json!({"msgid": msgid(t, "circ")}));
    assert!(
        circ.text.contains("Arg #0: circ\nArg #1: <error: Argument 1 is no longer available>\nArg #2: [1,{\"b\":2}]"),
        "{}",
        circ.text
    );
    let dup = msgid(t, "dup");
    let after = msgid(t, "after");
    assert_eq!(after, dup + 3, "a repeat keeps its own ids:\n{t}");
    after
}

/// Navigations: messages kept across documents; `after` is a message of the first one.
fn preserved_documents(mcp: &Mcp, fx: &Fixtures, after: u64) {
    // Navigations: the current document's messages, or the last three documents'.
    for n in 2..=4 {
        mcp.call_ok(
            "navigate_page",
            json!({"url": fx.url(&format!("/console_network/nav.html?n={n}"))}),
        );
        let now = until(mcp, "list_console_messages", json!({}), |t| {
            t.contains(&format!("visit {n}"))
        });
        assert_eq!(
            lines(&now.text).len(),
            3,
            "only this document's message:\n{}",
            now.text
        );
    }
    let kept = mcp.call_ok(
        "list_console_messages",
        json!({"includePreservedMessages": true}),
    );
    let visits: Vec<&str> = kept.text.lines().filter(|l| l.contains("visit")).collect();
    assert_eq!(visits.len(), 3, "{}", kept.text);
    assert!(
        visits[0].ends_with("[log] visit 2 (1 args)"),
        "{}",
        kept.text
    );
    assert!(
        visits[2].ends_with("[log] visit 4 (1 args)"),
        "{}",
        kept.text
    );
    // Gone with its document.
    let gone = mcp.call_err("get_console_message", json!({"msgid": after}));
    assert!(gone.text.contains(&after.to_string()), "{}", gone.text);
    // A kept message of an earlier document still shows, its objects no longer readable.
    let old = msgid(&kept.text, "visit 2");
    let shown = mcp.call_ok("get_console_message", json!({"msgid": old}));
    assert!(
        shown.text.starts_with(&format!(
            "ID: {old}\nMessage: log> visit 2\n### Arguments\nArg #0: visit 2"
        )),
        "{}",
        shown.text
    );

    // A same-document navigation keeps the list.
    mcp.call_ok(
        "navigate_page",
        json!({"url": fx.url("/console_network/nav.html?n=4#part")}),
    );
    let same = mcp.call_ok("list_console_messages", json!({}));
    assert!(same.text.contains("visit 4"), "{}", same.text);
}

#[test]
fn the_console_record_is_bounded() {
    let (_fx, mcp) = open("/console_network/nav.html?n=1");
    until(&mcp, "list_console_messages", json!({}), |t| {
        t.contains("visit 1")
    });
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { for (let i = 0; i < 2500; i++) console.log('message ' + i, {i}); return 1 }"}),
    );
    let list = until(&mcp, "list_console_messages", json!({"pageSize": 1}), |t| {
        t.contains("of 1000 (")
    });
    // The oldest went first: the page's own message and the first 1500 logged ones.
    assert!(
        list.text
            .contains("msgid=1502 [log] message 1500 [object Object] (2 args)"),
        "{}",
        list.text
    );
    let last = mcp.call_ok(
        "list_console_messages",
        json!({"pageSize": 1, "pageIdx": 999}),
    );
    assert!(
        last.text
            .contains("msgid=2501 [log] message 2499 [object Object] (2 args)"),
        "{}",
        last.text
    );
    let newest = mcp.call_ok("get_console_message", json!({"msgid": 2501}));
    assert!(
        newest.text.contains("Arg #1: {\"i\":2499}"),
        "{}",
        newest.text
    );
    // Evicted objects were released in the page, newer ones still read.
    mcp.call_err("get_console_message", json!({"msgid": 1501}));
    let oldest = mcp.call_ok("get_console_message", json!({"msgid": 1502}));
    assert!(
        oldest.text.contains("Arg #1: {\"i\":1500}"),
        "{}",
        oldest.text
    );

    // A message's text is kept up to 10,000 characters; one more is cut, saying so.
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { console.log('k'.repeat(10000)); console.log('c'.repeat(10000) + 'd'); return 1 }"}),
    );
    let last_two = json!({"pageSize": 2, "pageIdx": 499});
    let list = until(&mcp, "list_console_messages", last_two, |t| {
        t.contains("ccc")
    });
    let kept = format!(" [log] {} (1 args)", "k".repeat(10_000));
    let cut = format!(" [log] {}... <truncated> (1 args)", "c".repeat(10_000));
    let lines: Vec<&str> = list
        .text
        .lines()
        .filter(|l| l.starts_with("msgid="))
        .collect();
    assert_eq!(lines.len(), 2, "{}", list.text);
    assert!(lines[0].ends_with(&kept), "{}", &lines[0][..60]);
    assert!(lines[1].ends_with(&cut), "{}", &lines[1][..60]);
}
