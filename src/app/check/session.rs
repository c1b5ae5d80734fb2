//! The server `check` talks to: the real one, in this process ([`InProcess`]), with the
//! browser it starts itself. Requests go in as the lines a client would write and answers
//! come back as a client would read them, so a tool runs exactly as it runs for agents; what
//! the check reads besides (the page's tool table, what the last run said) it reads from the
//! server's own state, never from the answers' text.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::app::cli::{initialize_params, initialized};
use crate::app::InProcess;
use crate::browser::AgentId;
use crate::pagetools::Table;
use crate::tools::Ctx;

/// The most a call may take beyond its own time limit before the check gives up on the server.
const SLACK: Duration = Duration::from_secs(30);
/// How long after the load the check waits for registrations that come late (a listener
/// added after load, a group answered by a promise) before it reads the tools.
pub(super) const LATE: Duration = Duration::from_secs(2);
/// How much longer it waits for group promises still pending then.
pub(super) const PENDING: Duration = Duration::from_secs(3);
/// The most the page may take to load.
const LOAD: Duration = Duration::from_secs(60);

pub(super) struct Session {
    server: InProcess,
    next_id: u64,
    /// What the server wrote that is not a whole line yet.
    partial: Vec<u8>,
    /// The page checked.
    url: String,
}

/// A tool's answer as a client reads it.
pub(super) struct Answer {
    pub is_error: bool,
    /// Its text blocks, joined.
    pub text: String,
    pub structured: Value,
}

impl Session {
    /// A server made from `server_args` (as `devtools-mcp <server_args>` would make it), past
    /// the MCP handshake. The browser starts with the first call that needs it.
    pub(super) fn start(server_args: &[String]) -> Result<Session, String> {
        // The check reads answers as data (a snapshot's first element, for a tool that takes
        // one): structured content on, which changes no tool's text and no page tool's run.
        let mut args: Vec<&str> = server_args.iter().map(String::as_str).collect();
        args.push("--experimentalStructuredContent");
        let mut session = Session {
            server: InProcess::launching(&args)?,
            next_id: 0,
            partial: Vec::new(),
            url: String::new(),
        };
        session.request("initialize", initialize_params(), SLACK)?;
        session.server.client(initialized().to_string().as_bytes());
        Ok(session)
    }

    /// Calls a tool and waits for its answer (at most `limit` and [`SLACK`]).
    pub(super) fn call(
        &mut self,
        tool: &str,
        args: Value,
        limit: Duration,
    ) -> Result<Answer, String> {
        let params = json!({"name": tool, "arguments": args});
        let response = self.request("tools/call", params, limit + SLACK)?;
        if let Some(e) = response.get("error") {
            let message = e["message"].as_str().unwrap_or("an error");
            return Err(format!("{tool} was refused: {message}"));
        }
        let result = &response["result"];
        let text: Vec<&str> = (result["content"].as_array().into_iter().flatten())
            .filter_map(|c| c["text"].as_str())
            .collect();
        Ok(Answer {
            is_error: result["isError"] == true,
            text: text.join("\n"),
            structured: result["structuredContent"].clone(),
        })
    }

    /// Opens `url` in a new page (the browser starts now), and waits for its tools.
    pub(super) fn open(&mut self, url: &str) -> Result<(), String> {
        self.url = url.to_owned();
        let opened = self.call("new_page", json!({"url": url}), LOAD)?;
        if opened.is_error {
            return Err(format!("cannot open {url}: {}", opened.text));
        }
        match self.http_status()? {
            Some(status) if status >= 400 => Err(format!("{url} answered HTTP {status}")),
            _ => Ok(()),
        }
    }

    /// The HTTP status of the page's document, as the page's navigation entry has it (none
    /// for a page not loaded over HTTP): a page that answered 404 has no tools to check.
    fn http_status(&mut self) -> Result<Option<u64>, String> {
        let script = "() => performance.getEntriesByType('navigation')[0]?.responseStatus";
        let answer = self.call("evaluate_script", json!({"function": script}), LOAD)?;
        if answer.is_error {
            return Ok(None);
        }
        let value = answer
            .text
            .split("```json\n")
            .nth(1)
            .and_then(|v| v.split("\n```").next());
        Ok(value.and_then(|v| v.trim().parse().ok()))
    }

    /// Loads the page again (a tool navigated it), and waits for its tools.
    pub(super) fn reopen(&mut self) -> Result<(), String> {
        let again = json!({"type": "url", "url": self.url});
        let loaded = self.call("navigate_page", again, LOAD)?;
        if loaded.is_error {
            return Err(format!("cannot open {} again: {}", self.url, loaded.text));
        }
        self.await_tools().map(|_| ())
    }

    /// Waits [`LATE`] after the load, asks the page for its tools as
    /// `list_3p_developer_tools` does, then up to [`PENDING`] more while group promises are
    /// pending. Returns how many still are.
    pub(super) fn await_tools(&mut self) -> Result<u64, String> {
        self.idle(LATE)?;
        let listed = self.call("list_3p_developer_tools", json!({}), LOAD)?;
        if listed.is_error {
            return Err(format!("list_3p_developer_tools failed: {}", listed.text));
        }
        let end = Instant::now() + PENDING;
        let pending = |s: &mut Session| s.table().map_or(0, |t| t.pending);
        while pending(self) > 0 && Instant::now() < end {
            self.idle(Duration::from_millis(100))?;
        }
        Ok(pending(self))
    }

    /// Which of its documents the page shows (each load counts one).
    pub(super) fn document(&mut self) -> Option<u64> {
        let cx = self.server.ctx();
        let page = cx.browser.pages.selected(AgentId::DEFAULT)?;
        cx.browser.pages.get(page).map(|p| p.document)
    }

    /// Lets the server run for `time`: the browser's events and the page's reports arrive.
    pub(super) fn idle(&mut self, time: Duration) -> Result<(), String> {
        let end = Instant::now() + time;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            self.server.wait(left)?;
            self.drop_output();
        }
        Ok(())
    }

    /// The server's state.
    pub(super) fn ctx(&mut self) -> &mut Ctx {
        self.server.ctx()
    }

    /// The tool table of the selected page (the one the check opened).
    pub(super) fn table(&mut self) -> Option<&mut Table> {
        let cx = self.server.ctx();
        let page = cx.browser.pages.selected(AgentId::DEFAULT)?;
        Some(cx.tables.entry(page))
    }

    /// Ends the browser and deletes its profile.
    pub(super) fn close(mut self) {
        self.server.shutdown();
    }

    /// Sends a request and waits for its response (notifications are dropped).
    fn request(&mut self, method: &str, params: Value, limit: Duration) -> Result<Value, String> {
        self.next_id += 1;
        let id = json!(self.next_id);
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.server.client(line.to_string().as_bytes());
        let deadline = Instant::now() + limit;
        loop {
            if let Some(response) = self.response(&id) {
                return Ok(response);
            }
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                let s = limit.as_secs();
                return Err(format!("the server did not answer {method} within {s} s"));
            };
            self.server.wait(left)?;
        }
    }

    /// The response to request `id`, if the server wrote it (what else it wrote is dropped).
    fn response(&mut self, id: &Value) -> Option<Value> {
        self.partial.extend(self.server.output());
        let mut found = None;
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let Ok(message) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            if message["id"] == *id && message.get("method").is_none() {
                found = Some(message);
            }
        }
        found
    }

    fn drop_output(&mut self) {
        self.partial.extend(self.server.output());
        if let Some(end) = self.partial.iter().rposition(|&b| b == b'\n') {
            self.partial.drain(..=end);
        }
    }
}
