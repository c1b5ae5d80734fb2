//! The network tools against real Chromium: requests, their bodies,
//! statuses and failures, filters and pages, pending requests, redirects, requests kept across
//! navigations, and a bounded record.
//!
//! Pages live in `tests/fixtures/console_network/`; the routes a test needs (an echo endpoint,
//! error statuses, large and binary bodies) are added to the fixture server per test. Expected
//! texts are the ones chrome-devtools-mcp 1.11 prints for the same pages, except where
//! devtools-mcp says more on purpose (the reason of an unhandled rejection, a request's timing).

use std::time::Duration;

use crate::support::console_network::{lines, reqid, until};
use crate::support::{closed_port, started, started_with, Fixtures, Mcp, Response};
use serde_json::{json, Value};

// ---------------------------------------------------------------- network

#[test]
fn network_requests_bodies_statuses_and_failures() {
    let fx = Fixtures::start();
    fx.echo_route("/api/echo");
    fx.route_response("/status/500", Response::text("server broke").status(500));
    let mcp = started_with(&["--experimentalStructuredContent"]);
    mcp.call_ok(
        "new_page",
        json!({"url": fx.url("/console_network/network.html")}),
    );
    let origin = fx.origin();
    page_requests_are_listed(&mcp, &origin);
    let t = requests_of_every_outcome(&mcp, &origin);
    the_post_in_full(&mcp, &origin, &t);
    statuses_and_failures_in_full(&mcp, &t);
    filters_and_pages(&mcp, &origin);
    a_pending_request(&mcp, &fx, &origin);
    a_redirect(&mcp, &fx, &origin);
    a_dialog_and_unknown_requests(&mcp);
    a_new_document(&mcp, &fx, &origin);
}

/// The page's own requests, listed as the reference lists them.
fn page_requests_are_listed(mcp: &Mcp, origin: &str) {
    // Until every request has its status (a request listed as pending gets one later).
    let list = until(mcp, "list_network_requests", json!({}), |t| {
        t.contains("network.js [200]") && !t.contains("[pending]")
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
}

/// Requests that succeed, fail with a status or do not connect; returns the list.
fn requests_of_every_outcome(mcp: &Mcp, origin: &str) -> String {
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
    let list = until(mcp, "list_network_requests", json!({}), |t| {
        t.contains("/nothing [net::") && !t.contains("[pending]")
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
    list.text
}

/// The POST to the echo route in full, found in the list `t`.
fn the_post_in_full(mcp: &Mcp, origin: &str, t: &str) {
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
}

/// Error statuses and a failed request in full, found in the list `t`, and in the console.
fn statuses_and_failures_in_full(mcp: &Mcp, t: &str) {
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
}

/// The list filtered by resource types, and in pages.
fn filters_and_pages(mcp: &Mcp, origin: &str) {
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
}

/// A pending request, listed and in full, then answered.
fn a_pending_request(mcp: &Mcp, fx: &Fixtures, origin: &str) {
    // A request still waiting for its answer.
    fx.route_response(
        "/slow",
        Response::text("late").delay(Duration::from_secs(3)),
    );
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { window.slow = fetch('/slow'); return 1 }"}),
    );
    let pending = until(mcp, "list_network_requests", json!({}), |t| {
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
    let done = until(mcp, "list_network_requests", json!({}), |t| {
        t.contains("/slow [200]")
    });
    assert!(done.text.contains("reqid=9 GET"), "{}", done.text);

    let none = mcp.call_ok(
        "list_network_requests",
        json!({"resourceTypes": ["websocket"]}),
    );
    assert_eq!(none.text, "## Network requests\nNo requests found.");
}

/// A redirect, hop by hop.
fn a_redirect(mcp: &Mcp, fx: &Fixtures, origin: &str) {
    // A redirect: each hop is a request; the last one names the chain.
    fx.route_response(
        "/hop",
        Response::redirect("/console_network/style.css?via=hop"),
    );
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => getStatus('/hop')"}),
    );
    let hops = until(mcp, "list_network_requests", json!({}), |t| {
        t.contains("via=hop [200]")
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
}

/// An open dialog, an unknown request and no request selected.
fn a_dialog_and_unknown_requests(mcp: &Mcp) {
    // While a dialog is open the list still answers (showing it); the details wait for it.
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { setTimeout(() => alert('stop'), 50); return 1 }"}),
    );
    let blocked = until(mcp, "list_network_requests", json!({"pageSize": 1}), |t| {
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
}

/// Navigations: requests kept across documents.
fn a_new_document(mcp: &Mcp, fx: &Fixtures, origin: &str) {
    // A new document starts a new list with its own request; the old ones stay available.
    mcp.call_ok(
        "navigate_page",
        json!({"url": fx.url("/console_network/nav.html?n=1")}),
    );
    let now = until(mcp, "list_network_requests", json!({}), |t| {
        t.contains("pixel.png [200]")
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

    // The preserved requests are those of the current document and the two before it.
    for n in 2..=5 {
        mcp.call_ok(
            "navigate_page",
            json!({"url": fx.url(&format!("/console_network/nav.html?n={n}"))}),
        );
        until(mcp, "list_network_requests", json!({}), |t| {
            t.contains(&format!("nav.html?n={n} [200]")) && t.contains("pixel.png [200]")
        });
    }
    let kept = mcp.call_ok(
        "list_network_requests",
        json!({"includePreservedRequests": true}),
    );
    let k = kept.text.as_str();
    assert!(k.contains("Showing 1-6 of 6 (Page 1 of 1)."), "{k}");
    for n in 3..=5 {
        assert!(k.contains(&format!("nav.html?n={n} [200]")), "{k}");
    }
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
    // Until the last fetch is in (the record is full before that).
    let last = json!({"pageSize": 1, "pageIdx": 999});
    until(&mcp, "list_network_requests", last, |t| {
        t.contains("tiny?n=1099 [200]")
    });
    let list = mcp.call_ok("list_network_requests", json!({"pageSize": 1}));
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

    // Header values are kept up to 10,000 characters; one more is cut, saying so.
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => fetch('/tiny?long', {headers: {'x-kept': 'k'.repeat(10000), 'x-cut': 'c'.repeat(10000) + 'd'}}).then(r => r.status)"}),
    );
    let last = json!({"pageSize": 1, "pageIdx": 999});
    let list = until(&mcp, "list_network_requests", last, |t| {
        t.contains("tiny?long [200]")
    });
    let long = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(&list.text, "tiny?long")}),
    );
    let kept = format!("\n- x-kept:{}\n", "k".repeat(10_000));
    let cut = format!("\n- x-cut:{}... <truncated>\n", "c".repeat(10_000));
    assert!(long.text.contains(&kept), "x-kept was changed");
    assert!(long.text.contains(&cut), "x-cut was not cut at 10,000");
}
