//! A page never stalls or steers the server: page code that floods the shim's binding and
//! forges tool reports (with the current seq, big schemas full of patterns) changes no
//! table, the server keeps answering other pages promptly, the client gets few
//! `list_changed` notices; and registrations over the documented limits are refused with a
//! reason. Real headless Chromium; pages in `tests/fixtures/thirdparty/` (its README).

use std::time::{Duration, Instant};

use crate::support::calls::tool_result;
use crate::support::thirdparty::{exec_ok, json_body, list, open, section, EXECUTE, LIST_CHANGED};
use crate::support::{started, Fixtures, Mcp};
use serde_json::{json, Value};

/// Binding calls the page makes, and how many of them carry big forged reports.
const CALLS: u64 = 50_000;
const BIG: u64 = 30;

/// `evaluate_script` of `function` on page `page`: its JSON value.
fn eval_on(mcp: &Mcp, page: u64, function: &str) -> Value {
    let r = mcp.call_ok(
        "evaluate_script",
        json!({"function": function, "pageId": page}),
    );
    let body = r
        .text
        .split("```json\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next());
    serde_json::from_str(body.unwrap_or("null")).unwrap_or(Value::Null)
}

/// Pings and calls on another page while the flooding page runs: the latencies (ms).
fn measure_while_flooding(mcp: &Mcp, flooding: u64, other: u64) -> Vec<f64> {
    let mut latencies = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(90);
    for i in 0.. {
        let began = Instant::now();
        let pong = mcp.request_timeout("ping", json!({}), Duration::from_secs(20));
        assert_eq!(pong["result"], json!({}), "{pong}");
        latencies.push(began.elapsed().as_secs_f64() * 1000.0);
        if i % 10 == 0 {
            let id = mcp.request_async(
                "tools/call",
                json!({"name": EXECUTE, "arguments": {"toolName": "add", "params": "{\"a\":2,\"b\":3}", "pageId": other}}),
            );
            let r = tool_result(&mcp.wait_response_timeout(id, Duration::from_secs(20)));
            assert!(r.text.starts_with('5'), "{}", r.text);
            let done = eval_on(mcp, flooding, "() => window.floodState.done");
            if done == json!(true) {
                break;
            }
        }
        assert!(Instant::now() < deadline, "the flood did not end");
    }
    latencies
}

fn p99(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms[(ms.len() * 99 / 100).min(ms.len() - 1)]
}

#[test]
fn a_page_flooding_the_binding_with_forged_reports_changes_nothing_and_stalls_nothing() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "flood.html"); // page 2
    assert!(
        section(&list(&mcp).text).contains("name=\"echo\", description=\"Returns its params.\"")
    );
    open(&mcp, &fx, "sync.html"); // page 3
    assert!(section(&list(&mcp).text).contains("name=\"add\""));
    mcp.drain_notifications(LIST_CHANGED);

    let bindings = eval_on(&mcp, 2, &format!("() => window.flood({CALLS}, {BIG})"));
    let latencies = measure_while_flooding(&mcp, 2, 3);
    let state = eval_on(&mcp, 2, "() => window.floodState");
    let notices = mcp.drain_notifications(LIST_CHANGED).len();
    let p99 = p99(latencies.clone());
    eprintln!(
        "flood: {} attempts, {} binding calls went through ({bindings} bindings reachable); \
         {notices} list_changed; {} pings, p99 {p99:.1} ms",
        state["attempts"],
        state["reached"],
        latencies.len()
    );
    assert_eq!(state["attempts"], json!(CALLS));
    assert!(p99 < 1000.0, "ping p99 {p99:.1} ms while a page floods");
    assert!(notices < 10, "{notices} list_changed notifications");

    // The table is the page's own: the real schema lists and validates.
    mcp.call_ok("select_page", json!({"pageId": 2}));
    let tools = list(&mcp).text;
    let tools = section(&tools);
    assert!(
        tools.contains("name=\"echo\", description=\"Returns its params.\""),
        "{tools}"
    );
    assert!(
        !tools.contains("FORGED") && !tools.contains("forged_"),
        "{tools}"
    );
    assert_eq!(
        json_body(&exec_ok(&mcp, "echo", Some(r#"{"n":1}"#))),
        json!({"n": 1})
    );
    let log = mcp.stderr_log();
    assert!(
        log.lines().count() < 200,
        "{} stderr lines",
        log.lines().count()
    );
}

#[test]
fn page_code_finds_no_binding_to_call() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "flood.html");
    let found = eval_on(
        &mcp,
        2,
        "() => { const f = document.body.appendChild(document.createElement('iframe')); \
         return [typeof window.__dtmcp_notify, typeof f.contentWindow.__dtmcp_notify, \
         Object.getOwnPropertyNames(window).filter((n) => n.startsWith('__dtmcp')).join()]; }",
    );
    assert_eq!(found, json!(["undefined", "undefined", "__dtmcp"]));
}

#[test]
fn registrations_over_the_limits_are_refused_with_a_reason() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "limits.html");
    let text = list(&mcp).text;
    let tools = section(&text);
    let refused = |needle: &str| {
        assert!(
            tools
                .lines()
                .any(|l| l.starts_with("- ") && l.contains(needle)),
            "no refusal with {needle:?}:\n{tools}"
        )
    };
    refused("tool 'long_description' in group 'Limits': the tool's description is 5000 bytes, over the limit of 4096");
    refused("its name is 200 bytes, over the limit of 128");
    refused("tool 'many_patterns' in group 'Limits': its inputSchema has 40 patterns, over the limit of 32");
    refused(
        "tool 'big_schema' in group 'Limits': its inputSchema is over the limit of 32768 bytes",
    );
    refused("group 'Limits': 10 tools after the first 64 were left out: a group may hold at most 64 tools");
    refused("9 groups after the first 32 were left out: a page may register at most 32 groups");
    assert!(tools.contains("name=\"fine\""), "{tools}");
    assert!(tools.contains("name=\"filler_58\"") && !tools.contains("name=\"filler_59\""));
    assert!(
        tools.contains("\nG30\n") && !tools.contains("\nG31\n"),
        "{tools}"
    );
    assert!(!tools.contains("name=\"many_patterns\"") && !tools.contains(&"y".repeat(100)));
    assert_eq!(exec_ok(&mcp, "fine", None).lines().next(), Some("\"ran\""));
}

#[test]
fn a_same_origin_opener_cannot_forge_its_popups_table() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "flood.html"); // page 2
                                   // The opener watches its popup from the first moment for a binding to keep, then
                                   // calls whatever it got with forged reports once the popup has loaded.
    let opened = eval_on(
        &mcp,
        2,
        "() => new Promise((resolve) => { \
           const popup = window.open('sync.html'); const grabbed = new Set(); \
           const t = setInterval(() => { \
             try { const f = popup.__dtmcp_notify; if (typeof f === 'function') grabbed.add(f); } catch (e) {} \
             if (popup.document.readyState !== 'complete' || !popup.document.title) return; \
             clearInterval(t); let reached = 0; \
             for (const f of grabbed) for (let i = 0; i < 100; i++) { \
               try { f(forged(i, false)); reached++; } catch (e) {} } \
             resolve([grabbed.size, reached]); }, 0); })",
    );
    eprintln!("opener: [bindings grabbed, calls made] = {opened}");
    let pages = mcp.call_ok("list_pages", json!({})).text;
    assert!(pages.contains("3: Sync tools"), "{pages}");
    mcp.call_ok("select_page", json!({"pageId": 3}));
    let text = list(&mcp).text;
    let tools = section(&text);
    assert!(
        tools.contains("Sync: Tools answered synchronously."),
        "{tools}"
    );
    assert!(
        !tools.contains("FORGED") && !tools.contains("Hostile"),
        "{tools}"
    );
    assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":2,"b":3}"#)), "5");
}
