//! The server against a scripted browser (`support::wire`), no Chromium, for the tests of `fake/`:
//! a server made from real flags, stepped as the event loop steps it (`app::InProcess`: a client
//! line, the browser's messages, time passing), and the browser's side of a start played the
//! way Chromium plays it (see `Rig::boot`).

use std::time::{Duration, Instant};

use crate::support::wire::FakeBrowser;
use devtools_mcp::app::InProcess;
use serde_json::{json, Value};

pub const SESSION: &str = "S1";
pub const TARGET: &str = "T1";

pub struct Rig {
    pub server: InProcess,
    pub browser: FakeBrowser,
}

impl Rig {
    /// A server as `devtools-mcp <args>` would make it, connected to a scripted browser.
    pub fn new(args: &[&str]) -> Rig {
        let fake = FakeBrowser::new();
        let endpoint = fake.clone();
        let server = InProcess::new(args, move || Ok(endpoint.connect())).expect("a server");
        Rig {
            server,
            browser: fake,
        }
    }

    /// A server whose browser is up with its first page: one `evaluate_script` call (id 0)
    /// started it and has been answered.
    pub fn started(args: &[&str]) -> Rig {
        let mut rig = Rig::new(args);
        rig.evaluate(0, "() => 1");
        rig.boot();
        let script = rig.script_request("() => 1");
        rig.script_returns(script, "1");
        assert_eq!(rig.output().len(), 1, "the call that started the browser");
        rig
    }

    pub fn client(&mut self, message: Value) {
        self.server.client(message.to_string().as_bytes());
    }

    pub fn call(&mut self, id: u64, tool: &str, arguments: Value) {
        let params = json!({"name": tool, "arguments": arguments});
        self.client(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
    }

    pub fn evaluate(&mut self, id: u64, function: &str) {
        self.call(id, "evaluate_script", json!({ "function": function }));
    }

    /// The server reads what the fake browser wrote.
    pub fn deliver(&mut self) {
        self.server.browser_readable();
    }

    /// Time passes beyond every deadline set so far.
    pub fn time_passes(&mut self, by: Duration) {
        self.server.time_is(Instant::now() + by);
    }

    /// The messages the server wrote for the client since the last look.
    pub fn output(&mut self) -> Vec<Value> {
        let bytes = self.server.output();
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
    pub fn boot(&mut self) {
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
    pub fn answer_page_setup(&mut self) {
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
    pub fn script_request(&self, function: &str) -> u64 {
        self.find_script_request(function)
            .unwrap_or_else(|| panic!("no script request for {function}"))
    }

    /// The same, when there is one.
    pub fn find_script_request(&self, function: &str) -> Option<u64> {
        self.browser
            .unanswered()
            .into_iter()
            .find(|r| {
                r.method == "Runtime.callFunctionOn"
                    && r.params["functionDeclaration"]
                        .as_str()
                        .is_some_and(|f| f.contains(function))
            })
            .map(|r| r.id)
    }

    /// The answer evaluate_script's page wrapper gives: `[changedDom, JSON text]`.
    pub fn script_returns(&mut self, id: u64, json_text: &str) {
        let value = json!({"result": {"type": "object", "value": [false, json_text]}});
        self.browser.answer(id, value);
        self.deliver();
    }

    pub fn sent(&self, method: &str) -> usize {
        self.browser
            .requests()
            .iter()
            .filter(|r| r.method == method)
            .count()
    }
}

/// Chromium's answer to each command a page's set-up sends (`None`: not a set-up command).
pub fn setup_answer(method: &str, params: &Value) -> Option<Value> {
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
