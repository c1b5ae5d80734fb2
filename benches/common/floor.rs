//! The floor: raw CDP over --remote-debugging-pipe to a Chromium we start ourselves, with the
//! crate's launcher but none of the server's work.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use devtools_mcp::browser::launch::{self, Process};
use serde_json::{json, Value};

use super::{default_browser, CHROMIUM_FLAGS};

pub struct Browser {
    process: Process,
    to_browser: File,
    from_browser: BufReader<File>,
    next_id: u64,
    /// Events read while waiting for answers.
    events: Vec<Value>,
    /// When the process was spawned.
    pub spawned: Instant,
}

static PROFILE_COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Browser {
    /// [`Browser::launch_exe`] on the server's default browser.
    pub fn launch() -> Browser {
        Browser::launch_exe(&default_browser().exe)
    }

    /// Starts `exe` with CHROMIUM_FLAGS, a fresh profile and the pipe on fds 3 and 4, the
    /// way the server starts it (`launch::spawn_piped`) but with none of its switches.
    pub fn launch_exe(exe: &str) -> Browser {
        let n = PROFILE_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let profile = std::env::temp_dir().join(format!(
            "devtools-mcp-bench-profile-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).expect("create a profile dir");
        let mut cmd = Command::new(exe);
        cmd.args(CHROMIUM_FLAGS)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("--remote-debugging-pipe")
            .arg("about:blank");
        let spawned = Instant::now();
        let (child, we_write, we_read) = launch::spawn_piped(&mut cmd).expect("spawn chromium");
        Browser {
            process: Process::new(child, Some(profile)),
            to_browser: File::from(we_write),
            from_browser: BufReader::with_capacity(1 << 20, File::from(we_read)),
            next_id: 0,
            events: Vec::new(),
            spawned,
        }
    }

    fn read_message(&mut self, buf: &mut Vec<u8>) -> Instant {
        buf.clear();
        match self.from_browser.read_until(0, buf) {
            Ok(n) if n > 0 && buf.last() == Some(&0) => {}
            _ => panic!("the floor browser closed its pipe"),
        }
        buf.pop();
        Instant::now()
    }

    /// Sends a command and waits for its answer. Returns the result and the latency.
    pub fn call(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> (Value, Duration) {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message).expect("serialize");
        bytes.push(0);
        let mut buf = Vec::with_capacity(256);
        let sent = Instant::now();
        self.to_browser
            .write_all(&bytes)
            .expect("write to the floor browser");
        loop {
            let arrived = self.read_message(&mut buf);
            let reply: Value = serde_json::from_slice(&buf).expect("CDP message is JSON");
            if reply["id"] == id {
                if let Some(e) = reply.get("error") {
                    panic!("{method}: {e}");
                }
                return (reply["result"].clone(), arrived - sent);
            }
            self.events.push(reply);
        }
    }

    pub fn wait_event(&mut self, method: &str, session: Option<&str>) -> Value {
        let matches = |e: &Value| e["method"] == method && e["sessionId"].as_str() == session;
        if let Some(i) = self.events.iter().position(matches) {
            return self.events.remove(i);
        }
        let mut buf = Vec::new();
        loop {
            self.read_message(&mut buf);
            let event: Value = serde_json::from_slice(&buf).expect("CDP message is JSON");
            if matches(&event) {
                return event;
            }
        }
    }

    pub fn clear_events(&mut self) {
        self.events.clear();
    }

    /// Attaches (flattened) to the first page target; returns the session id.
    pub fn attach_first_page(&mut self) -> String {
        let (targets, _) = self.call("Target.getTargets", json!({}), None);
        let target = targets["targetInfos"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .map(|t| t["targetId"].clone())
            .expect("a page target");
        let (attached, _) = self.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
            None,
        );
        attached["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned()
    }

    /// Navigates the session's page and waits for its load event.
    pub fn navigate(&mut self, session: &str, url: &str) {
        self.call("Page.enable", json!({}), Some(session));
        self.clear_events();
        self.call("Page.navigate", json!({"url": url}), Some(session));
        self.wait_event("Page.loadEventFired", Some(session));
        self.call("Page.disable", json!({}), Some(session));
        self.clear_events();
    }

    /// `Runtime.evaluate` by value; returns the value and the latency.
    pub fn evaluate(
        &mut self,
        session: &str,
        expression: &str,
        await_promise: bool,
    ) -> (Value, Duration) {
        let (result, took) = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": await_promise}),
            Some(session),
        );
        (result["result"]["value"].clone(), took)
    }

    /// `Runtime.callFunctionOn` in an execution context, by value.
    pub fn call_function(
        &mut self,
        session: &str,
        context: i64,
        declaration: &str,
        arguments: Value,
        await_promise: bool,
    ) -> (Value, Duration) {
        let (result, took) = self.call(
            "Runtime.callFunctionOn",
            json!({
                "functionDeclaration": declaration,
                "arguments": arguments,
                "executionContextId": context,
                "returnByValue": true,
                "awaitPromise": await_promise,
            }),
            Some(session),
        );
        (result["result"]["value"].clone(), took)
    }

    /// The id of the main frame's default execution context (Runtime is enabled just long
    /// enough to be told).
    pub fn default_context(&mut self, session: &str) -> i64 {
        self.clear_events();
        self.call("Runtime.enable", json!({}), Some(session));
        let mut id = None;
        while id.is_none() {
            let event = self.wait_event("Runtime.executionContextCreated", Some(session));
            let context = &event["params"]["context"];
            if context["auxData"]["isDefault"] == true {
                id = context["id"].as_i64();
            }
        }
        self.call("Runtime.disable", json!({}), Some(session));
        self.clear_events();
        id.unwrap_or_default()
    }

    /// The browser process and its helpers.
    pub fn pids(&self) -> Vec<u32> {
        let pid = self.process.child.id();
        let mut all = vec![pid];
        all.extend(super::descendants(pid));
        all
    }

    /// Ends the browser and all its helpers, and deletes the profile.
    pub fn close(mut self) {
        self.process.terminate(Duration::from_secs(5));
    }
}
