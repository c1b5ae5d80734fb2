//! Issue 4, points 4, 5 and 7: the console and network tools against real Chromium.
//!
//! Pages live in `tests/fixtures/console_network/`; the routes a test needs (an echo endpoint,
//! error statuses, large and binary bodies) are added to the fixture server per test. Expected
//! texts are the ones chrome-devtools-mcp 1.11 prints for the same pages, except where
//! devtools-mcp says more on purpose (the reason of an unhandled rejection, a request's timing).

mod common;

use std::time::{Duration, Instant};

use common::{closed_port, started, Fixtures, Mcp, Response, ToolResult};
use serde_json::{json, Value};

const NOTE: &str = "Note: line and column numbers use 1-based indexing";

/// A server with the fixtures, and a page open on `path`.
fn open(path: &str) -> (Fixtures, Mcp) {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url(path)}));
    (fx, mcp)
}

/// Calls `tool` until its text satisfies `done` (the page logs and loads asynchronously).
fn until(mcp: &Mcp, tool: &str, args: Value, done: impl Fn(&str) -> bool) -> ToolResult {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = mcp.call_ok(tool, args.clone());
        if done(&r.text) {
            return r;
        }
        if Instant::now() > deadline {
            panic!("{tool} {args} never got there; last answer:\n{}", r.text);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// The msgid of the first listed message whose line contains `needle`.
fn msgid(list: &str, needle: &str) -> u64 {
    let line = list
        .lines()
        .find(|l| l.starts_with("msgid=") && l.contains(needle))
        .unwrap_or_else(|| panic!("no message with {needle:?} in:\n{list}"));
    line["msgid=".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("bad line {line}"))
}

/// The reqid of the first listed request whose line contains `needle`.
fn reqid(list: &str, needle: &str) -> u64 {
    let line = list
        .lines()
        .find(|l| l.starts_with("reqid=") && l.contains(needle))
        .unwrap_or_else(|| panic!("no request with {needle:?} in:\n{list}"));
    line["reqid=".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("bad line {line}"))
}

// ---------------------------------------------------------------- console

#[test]
fn console_messages_errors_and_stack_traces() {
    let (_fx, mcp) = open("/console_network/console.html");
    let list = until(&mcp, "list_console_messages", json!({}), |t| {
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
    until(&mcp, "list_console_messages", json!({}), |t| {
        t.contains("visit 1")
    });
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { console.log(null, undefined, 1.5, -0, NaN, 10n, true, 'str'); const c = {}; c.c = c; console.log('circ', c, [1, {b: 2}]); console.log('dup'); console.log('dup'); console.log('dup'); console.log('after'); return 1 }"}),
    );
    let list = until(&mcp, "list_console_messages", json!({}), |t| {
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

    // Navigations: the current document's messages, or the last three documents'.
    for n in 2..=4 {
        mcp.call_ok(
            "navigate_page",
            json!({"url": fx.url(&format!("/console_network/nav.html?n={n}"))}),
        );
        let now = until(&mcp, "list_console_messages", json!({}), |t| {
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
}

// ---------------------------------------------------------------- network

#[test]
fn network_requests_bodies_statuses_and_failures() {
    let fx = Fixtures::start();
    fx.echo_route("/api/echo");
    fx.route_response("/status/500", Response::text("server broke").status(500));
    let mcp = started();
    mcp.call_ok(
        "new_page",
        json!({"url": fx.url("/console_network/network.html")}),
    );
    let origin = fx.origin();
    let list = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("network.js [")
    });
    assert_eq!(
        lines(&list.text),
        vec![
            "## Network requests".to_owned(),
            "Showing 1-4 of 4 (Page 1 of 1).".to_owned(),
            format!("reqid=1 GET {origin}/console_network/network.html [200]"),
            format!("reqid=2 GET {origin}/console_network/style.css [200]"),
            format!("reqid=3 GET {origin}/console_network/pixel.png [200]"),
            format!("reqid=4 GET {origin}/console_network/network.js [200]"),
        ]
    );

    // A POST with a JSON body, read back both ways.
    let posted = mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => postJson('/api/echo', {hello: 'world', n: 1})"}),
    );
    assert!(posted.text.contains("200"), "{}", posted.text);
    let refused = closed_port();
    for path in ["/missing.txt", "/status/500"] {
        mcp.call_ok(
            "evaluate_script",
            json!({"function": format!("() => getStatus('{path}')")}),
        );
    }
    let failed = mcp.call_ok(
        "evaluate_script",
        json!({"function": format!("() => getStatus('http://127.0.0.1:{refused}/nothing')")}),
    );
    assert!(failed.text.contains("Failed to fetch"), "{}", failed.text);
    let list = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("/nothing [")
    });
    let t = list.text.as_str();
    assert!(t.contains(&format!("POST {origin}/api/echo [200]")), "{t}");
    assert!(
        t.contains(&format!("GET {origin}/missing.txt [404]")),
        "{t}"
    );
    assert!(t.contains(&format!("GET {origin}/status/500 [500]")), "{t}");
    assert!(
        t.contains(&format!(
            "GET http://127.0.0.1:{refused}/nothing [net::ERR_CONNECTION_REFUSED]"
        )),
        "{t}"
    );

    let echo = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(t, "/api/echo")}),
    );
    let e = echo.text.as_str();
    assert!(
        e.starts_with(&format!(
            "## Request {origin}/api/echo\nStatus: 200\n### Request Headers\n"
        )),
        "{e}"
    );
    assert!(e.contains("\n- x-test-header:yes\n"), "{e}");
    assert!(e.contains("\n- content-type:application/json\n"), "{e}");
    assert!(
        e.contains("\n### Request Body\n{\"hello\":\"world\",\"n\":1}\n### Response Headers\n"),
        "{e}"
    );
    assert!(e.contains("\n- access-control-allow-origin:*\n"), "{e}");
    // The echo answers with what it received: the body went out as the page sent it.
    let body_line = e
        .split("### Response Body\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_else(|| panic!("no response body in:\n{e}"));
    let echoed: Value =
        serde_json::from_str(body_line).unwrap_or_else(|err| panic!("{err}: {body_line}"));
    assert_eq!(echoed["method"], "POST");
    assert_eq!(echoed["body"], "{\"hello\":\"world\",\"n\":1}");
    assert!(e.contains("\n### Timing\nResponse headers after "), "{e}");
    let detail = &echo.structured.clone().unwrap_or_default()["networkRequest"];
    assert_eq!(
        detail["requestBody"], "{\"hello\":\"world\",\"n\":1}",
        "{detail}"
    );
    assert_eq!(detail["resourceType"], "fetch", "{detail}");
    assert_eq!(detail["requestHeaders"]["x-test-header"], "yes", "{detail}");

    let missing = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(t, "missing.txt")}),
    );
    assert!(missing.text.contains("Status: 404\n"), "{}", missing.text);
    assert!(
        missing
            .text
            .contains("### Response Body\n404 Not Found: /missing.txt"),
        "{}",
        missing.text
    );
    let broken = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(t, "status/500")}),
    );
    assert!(broken.text.contains("Status: 500\n"), "{}", broken.text);
    assert!(
        broken.text.contains("### Response Body\nserver broke"),
        "{}",
        broken.text
    );
    let nothing = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(t, "/nothing")}),
    );
    let n = nothing.text.as_str();
    assert!(
        n.contains("Status: net::ERR_CONNECTION_REFUSED\n### Request Headers\n"),
        "{n}"
    );
    assert!(
        n.contains("\n### Request failed with\nnet::ERR_CONNECTION_REFUSED"),
        "{n}"
    );
    assert!(!n.contains("### Response"), "{n}");
    // Failed loads also show in the console, as the browser logs them.
    let console = mcp.call_ok("list_console_messages", json!({}));
    assert!(
        console.text.contains("[error] Failed to load resource: the server responded with a status of 404 (Not Found) (0 args)"),
        "{}",
        console.text
    );
    assert!(
        console
            .text
            .contains("Failed to load resource: net::ERR_CONNECTION_REFUSED"),
        "{}",
        console.text
    );

    // Filters and pages.
    let fetches = mcp.call_ok("list_network_requests", json!({"resourceTypes": ["fetch"]}));
    assert!(
        fetches.text.contains("Showing 1-4 of 4 (Page 1 of 1)."),
        "{}",
        fetches.text
    );
    let assets = mcp.call_ok(
        "list_network_requests",
        json!({"resourceTypes": ["image", "stylesheet"]}),
    );
    assert_eq!(
        lines(&assets.text)[1..],
        [
            "Showing 1-2 of 2 (Page 1 of 1).".to_owned(),
            format!("reqid=2 GET {origin}/console_network/style.css [200]"),
            format!("reqid=3 GET {origin}/console_network/pixel.png [200]"),
        ]
    );
    let page = mcp.call_ok(
        "list_network_requests",
        json!({"pageSize": 3, "pageIdx": 1}),
    );
    assert_eq!(
        lines(&page.text)[1..5],
        [
            "Showing 4-6 of 8 (Page 2 of 3).".to_owned(),
            "Next page: 2".to_owned(),
            "Previous page: 0".to_owned(),
            format!("reqid=4 GET {origin}/console_network/network.js [200]"),
        ]
    );
    // A request still waiting for its answer.
    fx.route_response(
        "/slow",
        Response::text("late").delay(Duration::from_secs(3)),
    );
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { window.slow = fetch('/slow'); return 1 }"}),
    );
    let pending = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("/slow [")
    });
    assert!(
        pending
            .text
            .contains(&format!("GET {origin}/slow [pending]")),
        "{}",
        pending.text
    );
    let slow = mcp.call_ok("get_network_request", json!({"reqid": 9}));
    assert!(
        slow.text
            .starts_with(&format!("## Request {origin}/slow\nStatus: pending\n")),
        "{}",
        slow.text
    );
    assert!(!slow.text.contains("### Response"), "{}", slow.text);
    let done = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("/slow [200]")
    });
    assert!(done.text.contains("reqid=9 GET"), "{}", done.text);

    let none = mcp.call_ok(
        "list_network_requests",
        json!({"resourceTypes": ["websocket"]}),
    );
    assert_eq!(none.text, "## Network requests\nNo requests found.");

    // A redirect: each hop is a request; the last one names the chain.
    fx.route_response(
        "/hop",
        Response::redirect("/console_network/style.css?via=hop"),
    );
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => getStatus('/hop')"}),
    );
    let hops = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("via=hop [")
    });
    assert!(hops.text.contains(&format!("reqid=10 GET {origin}/hop [302]\nreqid=11 GET {origin}/console_network/style.css?via=hop [200]")), "{}", hops.text);
    let last = mcp.call_ok("get_network_request", json!({"reqid": 11}));
    assert!(
        last.text.contains(&format!(
            "### Redirect chain\nreqid=10 GET {origin}/hop [302]"
        )),
        "{}",
        last.text
    );
    let first = mcp.call_ok("get_network_request", json!({"reqid": 10}));
    assert!(first.text.contains("Status: 302\n"), "{}", first.text);
    assert!(
        first
            .text
            .contains("\n- location:/console_network/style.css?via=hop\n"),
        "{}",
        first.text
    );

    // While a dialog is open the list still answers (showing it); the details wait for it.
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { setTimeout(() => alert('stop'), 50); return 1 }"}),
    );
    let blocked = until(&mcp, "list_network_requests", json!({"pageSize": 1}), |t| {
        t.contains("# Open dialog")
    });
    assert!(blocked.text.starts_with("# Open dialog\nalert: stop.\nCall handle_dialog to handle it before continuing.\n## Network requests\n"), "{}", blocked.text);
    let refused_detail = mcp.call_err("get_network_request", json!({"reqid": 1}));
    assert_eq!(
        refused_detail.text,
        "# Open dialog\nalert: stop.\nCall handle_dialog to handle it before continuing.\nError: A dialog is open (alert: stop)."
    );
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));
    mcp.call_ok("get_network_request", json!({"reqid": 1}));

    let unknown = mcp.call_err("get_network_request", json!({"reqid": 999}));
    assert_eq!(unknown.text, "Request not found for selected page");
    let unselected = mcp.call_ok("get_network_request", json!({}));
    assert_eq!(
        unselected.text,
        "Nothing is currently selected in the DevTools Network panel."
    );

    // A new document starts a new list with its own request; the old ones stay available.
    mcp.call_ok(
        "navigate_page",
        json!({"url": fx.url("/console_network/nav.html?n=1")}),
    );
    let now = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("pixel.png [")
    });
    assert_eq!(
        lines(&now.text)[1..],
        [
            "Showing 1-2 of 2 (Page 1 of 1).".to_owned(),
            format!("reqid=12 GET {origin}/console_network/nav.html?n=1 [200]"),
            format!("reqid=13 GET {origin}/console_network/pixel.png [200]"),
        ]
    );
    let all = mcp.call_ok(
        "list_network_requests",
        json!({"includePreservedRequests": true}),
    );
    assert!(all.text.contains("Showing 1-13 of 13"), "{}", all.text);
    mcp.call_ok("navigate_page", json!({"url": "about:blank"}));
    let blank = mcp.call_ok("list_network_requests", json!({}));
    assert_eq!(blank.text, "## Network requests\nNo requests found.");
}

#[test]
fn large_and_binary_bodies_go_to_files() {
    let fx = Fixtures::start();
    fx.echo_route("/api/echo");
    let large = format!("{}END", "0123456789".repeat(5000));
    fx.route_response("/large", Response::text(large.clone()));
    let binary: Vec<u8> = (0..=255u8).collect();
    fx.route_response(
        "/binary",
        Response::bytes("application/octet-stream", binary.clone()),
    );
    let mcp = started();
    mcp.call_ok(
        "new_page",
        json!({"url": fx.url("/console_network/network.html")}),
    );
    for path in ["/large", "/binary"] {
        mcp.call_ok(
            "evaluate_script",
            json!({"function": format!("() => getStatus('{path}')")}),
        );
    }
    mcp.call_ok(
        "evaluate_script",
        json!({"function": format!("() => postJson('/api/echo', {{big: '{}'}})", "x".repeat(20_000))}),
    );
    let list = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("/api/echo [200]")
    });
    let t = list.text.as_str();

    let inline = mcp.call_ok("get_network_request", json!({"reqid": reqid(t, "/large")}));
    let body = inline
        .text
        .split("### Response Body\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_default();
    assert_eq!(body, format!("{}... <truncated>", &large[..10_000]));
    let bin = mcp.call_ok("get_network_request", json!({"reqid": reqid(t, "/binary")}));
    assert!(
        bin.text.contains("### Response Body\n<binary data>"),
        "{}",
        bin.text
    );

    let dir = std::env::temp_dir().join(format!("devtools-mcp-cn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let wanted = dir.join("nested").join("large.txt");
    let saved = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(t, "/large"), "responseFilePath": wanted.to_string_lossy()}),
    );
    let written = dir.join("nested").join("large.network-response");
    assert!(
        saved.text.contains(&format!(
            "### Response Body\nSaved to {}.",
            written.display()
        )),
        "{}",
        saved.text
    );
    assert_eq!(std::fs::read_to_string(&written).unwrap_or_default(), large);
    let saved = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(t, "/binary"), "responseFilePath": dir.join("bin").to_string_lossy()}),
    );
    assert!(
        saved.text.contains("bin.network-response."),
        "{}",
        saved.text
    );
    assert_eq!(
        std::fs::read(dir.join("bin.network-response")).unwrap_or_default(),
        binary
    );

    let echo = reqid(t, "/api/echo");
    let inline = mcp.call_ok("get_network_request", json!({"reqid": echo}));
    assert!(
        inline.text.contains("### Request Body\n{\"big\":\"xxxx"),
        "{}",
        inline.text
    );
    assert!(
        inline
            .text
            .contains("... <truncated>\n### Response Headers"),
        "{}",
        inline.text
    );
    let saved = mcp.call_ok(
        "get_network_request",
        json!({"reqid": echo, "requestFilePath": dir.join("post.json").to_string_lossy()}),
    );
    let post = dir.join("post.network-request");
    assert!(
        saved
            .text
            .contains(&format!("### Request Body\nSaved to {}.", post.display())),
        "{}",
        saved.text
    );
    assert_eq!(
        std::fs::read_to_string(&post).unwrap_or_default(),
        format!("{{\"big\":\"{}\"}}", "x".repeat(20_000))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_network_record_is_bounded() {
    let fx = Fixtures::start();
    fx.route_response("/tiny", Response::text("t"));
    let mcp = started();
    mcp.call_ok(
        "new_page",
        json!({"url": fx.url("/console_network/network.html")}),
    );
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "async () => { for (let b = 0; b < 11; b++) { await Promise.all(Array.from({length: 100}, (_, i) => fetch('/tiny?n=' + (b * 100 + i)).then(r => r.text()))); } return 1 }", "timeout": 60000}),
    );
    let list = until(&mcp, "list_network_requests", json!({"pageSize": 1}), |t| {
        t.contains("tiny?n=1099 [") || t.contains("of 1000 (Page 1 of 1000)")
    });
    assert!(
        list.text.contains("Showing 1-1 of 1000 (Page 1 of 1000)."),
        "{}",
        list.text
    );
    // The four page requests and the first 100 fetches were dropped, oldest first.
    assert!(list.text.contains("reqid=105 GET "), "{}", list.text);
    mcp.call_err("get_network_request", json!({"reqid": 104}));
    let kept = mcp.call_ok("get_network_request", json!({"reqid": 105}));
    assert!(kept.text.contains("Status: 200"), "{}", kept.text);
}
