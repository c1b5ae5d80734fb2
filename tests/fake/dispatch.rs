//! The server against a scripted browser (`support::wire`), no Chromium: answers reach the right
//! JSON-RPC id exactly once, calls in flight are independent, time limits and cancellation
//! end a call for good (and stop page code), and a lost browser fails the call in flight and
//! is started again by the next one.
//!
//! The test drives the server as the event loop does (`app::event_loop`): a client line, then
//! the deferred work and the answers; browser messages through `browser::on_readable`; due
//! timers through `run_due_timers`. The fake plays the browser's side of the wire the way
//! Chromium does for these calls (see `Rig::boot`).

use std::time::{Duration, Instant};

use crate::support::fake::{Rig, SESSION};
use crate::support::wire::FakeBrowser;
use devtools_mcp::app::InProcess;
use serde_json::{json, Value};

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn an_answered_command_answers_the_call_once() {
    let mut rig = Rig::new(&[]);
    rig.evaluate(7, "() => 1 + 1");
    assert!(
        rig.output().is_empty(),
        "nothing to say before the browser is up"
    );
    assert_eq!(rig.browser.connections(), 1);
    rig.boot();
    let script = rig.script_request("() => 1 + 1");
    let request = rig.browser.requests();
    let request = request.iter().find(|r| r.id == script).unwrap();
    assert_eq!(request.session.as_deref(), Some(SESSION));
    assert_eq!(request.params["executionContextId"], 1);
    rig.script_returns(script, "2");

    let out = rig.output();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 7);
    assert!(out[0]["result"].get("isError").is_none(), "{out:?}");
    assert!(text(&out[0]).contains("```json\n2\n```"), "{out:?}");

    // The same answer again (a browser never does this) reaches nobody.
    rig.script_returns(script, "2");
    assert!(rig.output().is_empty());
    // A call that ended on its own interrupts nothing.
    assert_eq!(rig.sent("Runtime.terminateExecution"), 0);
}

#[test]
fn calls_in_flight_each_get_their_own_answer() {
    let mut rig = Rig::new(&[]);
    // The second and third call wait for the start the first began.
    for (id, n) in [(1, 10), (2, 20), (3, 30)] {
        rig.evaluate(id, &format!("() => {n}"));
    }
    assert_eq!(rig.sent("Target.setAutoAttach"), 1, "one start for all");
    rig.boot();
    let scripts: Vec<u64> = [10, 20, 30]
        .iter()
        .map(|n| rig.script_request(&format!("() => {n}")))
        .collect();
    // Answered last first.
    for (script, n) in scripts.iter().zip([10, 20, 30]).rev() {
        rig.script_returns(*script, &n.to_string());
    }
    let out = rig.output();
    let ids: Vec<&Value> = out.iter().map(|m| &m["id"]).collect();
    assert_eq!(ids, [&json!(3), &json!(2), &json!(1)], "{out:?}");
    for m in &out {
        let n = m["id"].as_u64().unwrap() * 10;
        assert!(text(m).contains(&format!("```json\n{n}\n```")), "{m}");
    }
}

#[test]
fn a_call_past_its_time_limit_fails_and_its_late_answer_is_dropped() {
    let mut rig = Rig::new(&["--toolTimeout", "50"]);
    rig.evaluate(4, "() => { while (true) {} }");
    rig.boot();
    let script = rig.script_request("while (true)");
    assert!(rig.output().is_empty());

    rig.time_passes(Duration::from_secs(1));
    let out = rig.output();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 4);
    assert_eq!(out[0]["result"]["isError"], true);
    assert_eq!(
        text(&out[0]),
        "Error: evaluate_script timed out after 50 ms: the script did not settle."
    );
    // The busy page is interrupted.
    let stop = rig.browser.pending("Runtime.terminateExecution");
    assert_eq!(stop.and_then(|r| r.session).as_deref(), Some(SESSION));

    rig.script_returns(script, "1");
    assert!(
        rig.output().is_empty(),
        "the late answer produced a message"
    );
}

/// The README's default time limit (25 s, `--toolTimeout` not given), on the rig's clock: no
/// real waiting.
#[test]
fn without_a_flag_a_call_runs_for_25_s() {
    let mut rig = Rig::new(&[]);
    rig.evaluate(5, "() => { while (true) {} }");
    rig.boot();
    rig.script_request("while (true)");

    // Set a moment ago, the deadline has not passed 20 s on.
    rig.time_passes(Duration::from_secs(20));
    assert!(rig.output().is_empty(), "ended before 20 s");
    rig.time_passes(Duration::from_secs(30));
    let out = rig.output();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(
        text(&out[0]),
        "Error: evaluate_script timed out after 25000 ms: the script did not settle."
    );
}

/// The README's wait for a client's roots (five seconds at most), on the server's own
/// deadline: a call that comes while `roots/list` is unanswered is held until exactly then.
#[test]
fn a_call_waits_5_s_for_the_roots_of_a_client_that_does_not_answer() {
    let mut rig = Rig::new(&[]);
    let params = json!({"protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
        "clientInfo": {"name": "test", "version": "1"}});
    rig.client(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}));
    let before = Instant::now();
    rig.client(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let after = Instant::now();
    let out = rig.output();
    assert!(out.iter().any(|m| m["method"] == "roots/list"), "{out:?}");
    let deadline = rig
        .server
        .next_deadline()
        .expect("a deadline for the roots");
    let wait = Duration::from_secs(5);
    assert!(
        before + wait <= deadline && deadline <= after + wait,
        "the roots are not awaited for 5 s"
    );

    rig.evaluate(2, "() => 1");
    rig.server.time_is(deadline - Duration::from_millis(1));
    assert_eq!(
        rig.browser.connections(),
        0,
        "the call ran before the deadline"
    );
    rig.server.time_is(deadline);
    assert_eq!(rig.browser.connections(), 1, "the call is still held");
}

/// The README's bound on `notifications/tools/list_changed`: at most 10 in a second, and one
/// more when the second is over, so the last change is always announced.
#[test]
fn tools_changing_without_end_are_announced_10_times_a_second() {
    let created = Instant::now();
    let mut rig = Rig::new(&[]);
    let params = json!({"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}});
    rig.client(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}));
    rig.client(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    rig.output();
    let announced = |rig: &mut Rig| {
        let out = rig.output();
        out.iter()
            .filter(|m| m["method"] == "notifications/tools/list_changed")
            .count()
    };

    for _ in 0..50 {
        rig.server.tools_changed();
    }
    // The second began at the start or at a change (if the machine is very slow).
    let changed = Instant::now();
    assert_eq!(announced(&mut rig), 10);
    let deadline = rig.server.next_deadline().expect("a notice is due");
    let window = Duration::from_secs(1);
    assert!(
        created + window <= deadline && deadline <= changed + window,
        "the next notice is not due when the second ends"
    );
    rig.server.time_is(deadline - Duration::from_millis(1));
    assert_eq!(announced(&mut rig), 0);
    rig.server.time_is(deadline);
    assert_eq!(announced(&mut rig), 1);
}

#[test]
fn a_cancelled_call_is_not_answered_and_its_page_code_is_stopped() {
    let mut rig = Rig::new(&[]);
    rig.evaluate(5, "() => new Promise(() => {})");
    rig.boot();
    let script = rig.script_request("new Promise");
    assert_eq!(rig.sent("Runtime.terminateExecution"), 0);

    let cancel = json!({"requestId": 5, "reason": "the user changed their mind"});
    rig.client(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}));
    assert!(rig.output().is_empty());
    let stop = rig.browser.pending("Runtime.terminateExecution");
    assert_eq!(stop.and_then(|r| r.session).as_deref(), Some(SESSION));

    rig.script_returns(script, "1");
    rig.time_passes(Duration::from_secs(60));
    assert!(rig.output().is_empty(), "a cancelled call was answered");

    // The server goes on: the next call is answered.
    rig.evaluate(6, "() => 'next'");
    let next = rig.script_request("'next'");
    rig.script_returns(next, "\"next\"");
    let out = rig.output();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 6);
}

#[test]
fn a_lost_browser_fails_the_call_and_the_next_call_starts_it_again() {
    let mut rig = Rig::new(&[]);
    rig.evaluate(8, "() => document.title");
    rig.boot();
    rig.script_request("document.title");

    rig.browser.close();
    rig.deliver();
    let out = rig.output();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 8);
    assert_eq!(out[0]["result"]["isError"], true);
    assert_eq!(
        text(&out[0]),
        "Error: The browser connection was lost: the browser closed the connection (did it exit or crash?)"
    );

    rig.evaluate(9, "() => 'again'");
    assert_eq!(rig.browser.connections(), 2, "no new connection");
    assert_eq!(rig.sent("Target.setAutoAttach"), 1);
    rig.boot();
    let script = rig.script_request("'again'");
    rig.script_returns(script, "\"again\"");
    let out = rig.output();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 9);
    assert!(text(&out[0]).contains("\"again\""), "{out:?}");
}

#[test]
fn a_browser_that_cannot_be_reached_fails_the_call() {
    let server = InProcess::new(&[], || Err("nothing listens there".into())).expect("a server");
    let browser = FakeBrowser::new();
    let mut rig = Rig { server, browser };
    rig.evaluate(10, "() => 1");
    let out = rig.output();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 10);
    assert_eq!(
        text(&out[0]),
        "Error: Could not start the browser: nothing listens there"
    );
    assert_eq!(rig.browser.connections(), 0);
}
