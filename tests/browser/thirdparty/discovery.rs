//! Third-party developer tools against the real binary and real headless Chromium:
//! discovery of the tools a page registers, synchronously, from a microtask, by promise, late
//! (announced by `notifications/tools/list_changed`) and as an SPA changes its routes.
//!
//! Pages come from `tests/fixtures/thirdparty/` (its README says what each one registers) and,
//! for one-off registrations, from inline pages on the fixture server; the helpers are in
//! `support/thirdparty.rs`.

use std::time::{Duration, Instant};

use crate::support::thirdparty::{
    assert_not_found, exec, exec_ok, json_body, list, open, page_url, section, until_notified,
    LIST_CHANGED,
};
use crate::support::{started, Fixtures};
use serde_json::json;

// ---------------------------------------------------------------- discovery

#[test]
fn sync_tools_are_listed_by_new_page_and_run_at_once() {
    let fx = Fixtures::start();
    let mcp = started();
    let page = open(&mcp, &fx, "sync.html");
    assert!(
        section(&page.text).contains("Sync: Tools answered synchronously."),
        "{}",
        page.text
    );
    // Right after new_page, without a list.
    assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":2,"b":3}"#)), "5");
    assert_eq!(
        json_body(&exec_ok(&mcp, "get_status", None)),
        json!({"status": "ready", "title": "Sync tools"})
    );
    // Listing never takes long for a page that answers at once.
    let began = Instant::now();
    list(&mcp);
    assert!(
        began.elapsed() < Duration::from_secs(1),
        "{:?}",
        began.elapsed()
    );
}

#[test]
fn microtask_and_promise_responders_are_collected_in_call_order() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "microtask.html");
    let text = list(&mcp).text;
    let micro = text.find("Microtask: Answered from queueMicrotask.");
    let awaited = text.find("AfterAwait: Answered after two awaits.");
    assert!(
        micro.is_some() && awaited.is_some() && micro < awaited,
        "{text}"
    );
    assert_eq!(exec_ok(&mcp, "microtask_ping", None), "\"pong\"");
    assert_eq!(exec_ok(&mcp, "after_await_ping", None), "\"pong\"");

    // Promises: the groups keep the order of the respondWith calls, not of settling; the
    // rejected one is reported, the others count; listing waits for the 150 ms promise only.
    let began = Instant::now();
    let nav = mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "promise.html")}),
    );
    assert!(
        began.elapsed() < Duration::from_secs(3),
        "{:?}",
        began.elapsed()
    );
    let tools = section(&nav.text);
    let order: Vec<Option<usize>> = ["Slow: ", "Plain: ", "Quick: "]
        .iter()
        .map(|g| tools.find(g))
        .collect();
    assert!(
        order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] < w[1]),
        "{tools}"
    );
    assert!(
        tools
            .contains("a tool group promise given to respondWith() was rejected: registry offline"),
        "{tools}"
    );
    for (tool, result) in [
        ("slow_tool", "slow"),
        ("plain_tool", "plain"),
        ("quick_tool", "quick"),
    ] {
        assert_eq!(exec_ok(&mcp, tool, None), format!("\"{result}\""));
    }
}

#[test]
fn late_tools_arrive_by_notification_and_never_vanish() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "late.html");
    // The slow promise (800 ms) and the listener added 1 s after load reach the table by
    // themselves; each change is announced.
    until_notified(&mcp, "late_tool", || {
        !exec(&mcp, "late_tool", None).is_error
    });
    assert_eq!(exec_ok(&mcp, "late_tool", None), "\"late\"");
    assert_eq!(exec_ok(&mcp, "slow_tool", None), "\"slow\"");
    // Listing again dispatches discovery again; the slow promise is still slower than the
    // grace period, but its group must not drop out of the list meanwhile.
    for _ in 0..2 {
        let began = Instant::now();
        let text = list(&mcp).text;
        // The grace period (500 ms) plus slack; never the slow promise's full wait.
        assert!(
            began.elapsed() < Duration::from_secs(2),
            "{:?}",
            began.elapsed()
        );
        let slow = text.find("Slow: Resolved after 800 ms.");
        let late = text.find("Late: Registered one second after load.");
        assert!(slow.is_some() && late.is_some() && slow < late, "{text}");
    }
    // Nothing changed, so nothing is announced.
    mcp.drain_notifications(LIST_CHANGED);
    assert!(
        mcp.poll_notification(LIST_CHANGED, Duration::from_millis(2500))
            .is_none(),
        "a list_changed without a change"
    );
    assert_eq!(exec_ok(&mcp, "slow_tool", None), "\"slow\"");
}

#[test]
fn a_responder_that_turns_asynchronous_is_not_lost() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "switching.html");
    // Lists of a page whose responders answer during the dispatch end right after it.
    for _ in 0..3 {
        assert!(list(&mcp).text.contains("Switching: Answers at once."));
    }
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { window.answerLater = true; }"}),
    );
    mcp.drain_notifications(LIST_CHANGED);
    // The next list may still show the old answer, but the late one reaches the table and
    // is announced, and every later list has it.
    let first = list(&mcp).text;
    if !first.contains("from_microtask") {
        until_notified(&mcp, "the microtask answer", || {
            list(&mcp)
                .text
                .contains("Switching: Answers from a microtask.")
        });
    }
    for _ in 0..3 {
        assert!(list(&mcp)
            .text
            .contains("Switching: Answers from a microtask."));
    }
    assert_eq!(exec_ok(&mcp, "from_microtask", None), "\"from_microtask\"");
}

#[test]
fn an_spa_route_adds_tools_and_removed_listeners_take_theirs_away() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "spa.html");
    assert_eq!(exec_ok(&mcp, "core_route", None), "\"#/\"");
    assert_not_found(&exec(&mcp, "route_a_info", None), "route_a_info");

    let evaluate = |f: &str| mcp.call_ok("evaluate_script", json!({ "function": f }));
    mcp.drain_notifications(LIST_CHANGED);
    evaluate("() => { window.loadRoute('A'); }");
    until_notified(&mcp, "route A", || {
        !exec(&mcp, "route_a_info", None).is_error
    });
    assert_eq!(
        json_body(&exec_ok(&mcp, "route_a_info", None)),
        json!({"route": "A"})
    );
    assert!(list(&mcp).text.contains("Route A: Tools of route A."));

    evaluate("() => { window.addExtraListener(); }");
    until_notified(&mcp, "extra_tool", || {
        !exec(&mcp, "extra_tool", None).is_error
    });
    assert_eq!(exec_ok(&mcp, "extra_tool", None), "\"extra\"");
    evaluate("() => { window.removeExtraListener(); }");
    until_notified(&mcp, "the removal", || {
        exec(&mcp, "extra_tool", None).is_error
    });
    assert_not_found(&exec(&mcp, "extra_tool", None), "extra_tool");

    evaluate("() => { window.addAbortableListener(); }");
    until_notified(&mcp, "abortable_tool", || {
        !exec(&mcp, "abortable_tool", None).is_error
    });
    evaluate("() => { window.abortListener(); }");
    until_notified(&mcp, "the abort", || {
        exec(&mcp, "abortable_tool", None).is_error
    });
    // The rest is untouched.
    assert_eq!(exec_ok(&mcp, "core_route", None), "\"#/a\"");
}

// ---------------------------------------------------------------- how long discovery waits

/// A page whose responders answer after `turns` microtask turns each (one group per entry).
fn microtask_page(fx: &Fixtures, turns: &[u32]) -> String {
    let calls: Vec<String> = turns
        .iter()
        .map(|n| format!("after({n}, event);"))
        .collect();
    fx.page_url_with_html(&format!(
        "<title>Turns</title><script>
  const after = (turns, event) => {{
    let p = Promise.resolve();
    for (let i = 0; i < turns; i++) p = p.then(() => {{}});
    p.then(() => event.respondWith({{name: 'After' + turns, tools: [{{name: 'after_' + turns,
      description: 'x', inputSchema: {{type: 'object', properties: {{}}}}, execute: () => turns}}]}}));
  }};
  window.addEventListener('devtoolstooldiscovery', (event) => {{ {} }});
</script>",
        calls.join(" ")
    ))
}

/// The README's 16 microtask turns: a responder that answers on the 15th turn after the
/// dispatch is in the discovery's report, one that answers on the 16th comes late (and
/// still reaches the table). Counted in turns, not time: no timing involved.
#[test]
fn discovery_waits_16_microtask_turns_for_responders() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": microtask_page(&fx, &[15, 16])}));
    // The first discovery ends any in flight since the load; the second is the one measured.
    let r = mcp.call_ok(
        "evaluate_script",
        json!({"function": "async () => { await window.__dtmcp.discover(); \
            const report = await window.__dtmcp.discover(); return report.groups.map(g => g.name); }"}),
    );
    assert!(r.text.contains("\n[\"After15\"]\n"), "{}", r.text);
    // The late answer was a valid group: it reaches the table (pushed by the page).
    let deadline = Instant::now() + Duration::from_secs(10);
    while exec(&mcp, "after_16", None).is_error {
        assert!(Instant::now() < deadline, "the late group never arrived");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The README's grace period for promise responders (500 ms), on the page's own clock: a
/// discovery waiting on a promise that never settles ends after a timer set for 400 ms before
/// it and before one set for 650 ms (the page runs due timers in deadline order, however
/// late a loaded machine runs them).
#[test]
fn discovery_waits_500_ms_for_pending_promises() {
    let fx = Fixtures::start();
    let mcp = started();
    let url = fx.page_url_with_html(
        "<title>Pending</title><script>
  window.addEventListener('devtoolstooldiscovery', (event) => event.respondWith(new Promise(() => {})));
</script>",
    );
    mcp.call_ok("new_page", json!({ "url": url }));
    let r = mcp.call_ok(
        "evaluate_script",
        json!({"function": "async () => {
            await window.__dtmcp.discover();
            const order = [];
            setTimeout(() => order.push('400 ms'), 400);
            const later = new Promise((done) => setTimeout(() => { order.push('650 ms'); done(); }, 650));
            const report = await window.__dtmcp.discover();
            order.push('discovered, ' + report.pending + ' pending');
            await later;
            return order;
        }"}),
    );
    assert!(
        r.text
            .contains("\n[\"400 ms\",\"discovered, 1 pending\",\"650 ms\"]\n"),
        "{}",
        r.text
    );
}
