//! The server against a scripted browser (`cdp::fake`), no Chromium: answers reach the right
//! JSON-RPC id exactly once, calls in flight are independent, time limits and cancellation
//! end a call for good (and stop page code), and a lost browser fails the call in flight and
//! is started again by the next one.
//!
//! The test drives the server as the event loop does (`app::event_loop`): a client line, then
//! the deferred work and the answers; browser messages through `browser::on_readable`; due
//! timers through `run_due_timers`. The fake plays the browser's side of the wire the way
//! Chromium does for these calls (see `Rig::boot`).

use std::time::{Duration, Instant};

use devtools_mcp::app::flags::{self, Flags};
use devtools_mcp::browser::{self, Browser, Host, Tokens};
use devtools_mcp::cdp::fake::FakeBrowser;
use devtools_mcp::mcp::Server;
use devtools_mcp::tools::Ctx;
use mio::{Poll, Token};
use serde_json::{json, Value};

const SESSION: &str = "S1";
const TARGET: &str = "T1";

struct Rig {
    server: Server,
    browser: FakeBrowser,
    /// Owns the registry the browser layer holds (nothing is registered for a fake).
    _poll: Poll,
}

impl Rig {
    /// A server as `devtools-mcp <args>` would make it, connected to a scripted browser.
    fn new(args: &[&str]) -> Rig {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let (parsed, _) = Flags::parse("devtools-mcp", &args).expect("flags parse");
        let settings = flags::settings(&parsed).expect("settings");
        let poll = Poll::new().expect("poll");
        let registry = poll.registry().try_clone().expect("registry");
        let tokens = Tokens {
            read: Token(3),
            write: Token(4),
        };
        let mut b = Browser::new(registry, tokens);
        let fake = FakeBrowser::new();
        let endpoint = fake.clone();
        b.connect_with(move || Ok(endpoint.connect()));
        Rig {
            server: Server::new(Ctx::new(settings, b)),
            browser: fake,
            _poll: poll,
        }
    }

    /// What the loop does after any event: deferred continuations, then answers out.
    fn settle(&mut self) {
        self.server.cx.run_deferred();
        self.server.drain();
    }

    fn client(&mut self, message: Value) {
        self.server.handle_line(message.to_string().as_bytes());
        self.settle();
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) {
        let params = json!({"name": tool, "arguments": arguments});
        self.client(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
    }

    fn evaluate(&mut self, id: u64, function: &str) {
        self.call(id, "evaluate_script", json!({ "function": function }));
    }

    /// The server reads what the fake browser wrote.
    fn deliver(&mut self) {
        browser::on_readable(&mut self.server.cx);
        self.settle();
    }

    /// Time passes beyond every deadline set so far.
    fn time_passes(&mut self, by: Duration) {
        self.server.cx.run_due_timers(Instant::now() + by);
        self.settle();
    }

    /// The messages the server wrote for the client since the last look.
    fn output(&mut self) -> Vec<Value> {
        let bytes = self.server.out.take_queued();
        String::from_utf8(bytes)
            .expect("UTF-8 output")
            .lines()
            .map(|l| serde_json::from_str(l).expect("each line is JSON"))
            .collect()
    }

    /// The browser side of a start, as Chromium plays it: target discovery and auto-attach
    /// are answered, the about:blank page it opened with is attached (not paused: it exists
    /// already), and every command that sets the page up is answered, its default execution
    /// context announced once Runtime is enabled.
    fn boot(&mut self) {
        let b = &self.browser;
        let discover = b.pending("Target.setDiscoverTargets").expect("discovery");
        b.answer(discover.id, json!({}));
        let page = json!({
            "sessionId": SESSION,
            "targetInfo": {"targetId": TARGET, "type": "page", "title": "about:blank",
                "url": "about:blank", "attached": true, "canAccessOpener": false},
            "waitingForDebugger": false,
        });
        b.event(None, "Target.attachedToTarget", page);
        let attach = b.pending("Target.setAutoAttach").expect("auto-attach");
        b.answer(attach.id, json!({}));
        self.deliver();
        self.answer_page_setup();
    }

    /// Answers what a page's set-up sends, until nothing of it is left.
    fn answer_page_setup(&mut self) {
        loop {
            let setup: Vec<_> = self
                .browser
                .unanswered()
                .into_iter()
                .filter(|r| r.session.as_deref() == Some(SESSION))
                .filter_map(|r| setup_answer(&r.method, &r.params).map(|a| (r, a)))
                .collect();
            if setup.is_empty() {
                return;
            }
            for (request, answer) in setup {
                if request.method == "Runtime.enable" {
                    let context = json!({"context": {"id": 1, "origin": "://", "name": "",
                        "uniqueId": "1.1", "auxData": {"isDefault": true, "type": "default", "frameId": TARGET}}});
                    self.browser
                        .event(Some(SESSION), "Runtime.executionContextCreated", context);
                }
                self.browser.answer(request.id, answer);
            }
            self.deliver();
        }
    }

    /// The unanswered script request whose function source contains `function`.
    fn script_request(&self, function: &str) -> u64 {
        self.browser
            .unanswered()
            .into_iter()
            .find(|r| {
                r.method == "Runtime.callFunctionOn"
                    && r.params["functionDeclaration"]
                        .as_str()
                        .is_some_and(|f| f.contains(function))
            })
            .unwrap_or_else(|| panic!("no script request for {function}"))
            .id
    }

    /// The answer evaluate_script's page wrapper gives: `[changedDom, JSON text]`.
    fn script_returns(&mut self, id: u64, json_text: &str) {
        let value = json!({"result": {"type": "object", "value": [false, json_text]}});
        self.browser.answer(id, value);
        self.deliver();
    }

    fn sent(&self, method: &str) -> usize {
        self.browser
            .requests()
            .iter()
            .filter(|r| r.method == method)
            .count()
    }
}

/// Chromium's answer to each command a page's set-up sends (`None`: not a set-up command).
fn setup_answer(method: &str, params: &Value) -> Option<Value> {
    match method {
        "Page.enable"
        | "Page.setLifecycleEventsEnabled"
        | "Runtime.enable"
        | "Runtime.addBinding"
        | "Log.enable"
        | "Runtime.setAsyncCallStackDepth"
        | "Network.enable"
        | "Runtime.runIfWaitingForDebugger" => Some(json!({})),
        "Page.addScriptToEvaluateOnNewDocument" => Some(json!({"identifier": "1"})),
        // The shim run in the page that already exists.
        "Runtime.evaluate" if params.get("awaitPromise").is_none() => {
            Some(json!({"result": {"type": "undefined"}}))
        }
        _ => None,
    }
}

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
    let mut rig = Rig::new(&[]);
    rig.server
        .cx
        .browser
        .connect_with(|| Err("nothing listens there".into()));
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
