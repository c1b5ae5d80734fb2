//! MCP over Streamable HTTP as a client speaks it: the server started with `--port 0` (its
//! address read from its log), sessions by `Mcp-Session-Id`, answers read as JSON or as an
//! event stream, and raw requests for the refusals.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::http::HttpReply;
use super::procs::wait_until;
use super::{http_request, Mcp, ToolResult};

/// A server on `--port 0` and the address it listens on.
pub struct HttpServer {
    /// The server's process.
    pub process: Mcp,
    /// `127.0.0.1:<port>`.
    pub addr: String,
}

impl HttpServer {
    /// Starts the server on a free port with `extra` flags and `env`, and waits until it
    /// listens.
    pub fn start(extra: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let mut args = vec!["--port", "0"];
        args.extend_from_slice(extra);
        let mcp = Mcp::start_with_env(&args, env);
        let mut addr = String::new();
        let listening = wait_until(Duration::from_secs(10), || {
            let log = mcp.stderr_log();
            let found = log.split("listening on http://").nth(1);
            if let Some(rest) = found.and_then(|r| r.split("/mcp").next()) {
                addr = rest.to_owned();
            }
            !addr.is_empty()
        });
        assert!(listening, "the server did not listen: {}", mcp.stderr_log());
        HttpServer { process: mcp, addr }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A raw request to `path`.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> HttpReply {
        http_request(method, &self.url(path), headers, body).expect("HTTP request")
    }

    /// A new handshake session on `path` (`/mcp` or `/mcp/<name>`), initialized.
    pub fn session(&self, path: &str) -> Session<'_> {
        self.session_with(path, json!({}))
    }

    /// A new handshake session whose client has `roots`: the server asks for them with
    /// `roots/list` on the session's GET stream once it is initialized, and this answers. The
    /// stream is returned open (the server's later requests come on it).
    pub fn session_with_roots(
        &self,
        path: &str,
        roots: &[&Path],
    ) -> (Session<'_>, BufReader<TcpStream>) {
        let session = self.session_with(path, json!({"roots": {"listChanged": true}}));
        let mut stream = open_stream(self, &session.id);
        let ask = next_request(&mut stream, "roots/list");
        let roots: Vec<Value> = roots
            .iter()
            .map(|r| json!({"uri": format!("file://{}", r.display())}))
            .collect();
        let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": roots}});
        assert_eq!(session.post(&answer).status, 202);
        (session, stream)
    }

    /// A new handshake session on `path` whose client declares `capabilities`, initialized.
    fn session_with(&self, path: &str, capabilities: Value) -> Session<'_> {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": capabilities,
            "clientInfo": {"name": "devtools-mcp-tests", "version": "0.0.0"}}});
        let reply = self.request("POST", path, &ACCEPT_BOTH, init.to_string().as_bytes());
        assert_eq!(reply.status, 200, "initialize: {}", reply.text());
        let id = reply
            .header("mcp-session-id")
            .expect("Mcp-Session-Id")
            .to_owned();
        assert!(message(&reply)["result"]["protocolVersion"].is_string());
        let session = Session {
            server: self,
            path: path.to_owned(),
            id,
        };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(session.post(&note).status, 202);
        session
    }
}

pub const ACCEPT_BOTH: [(&str, &str); 2] = [
    ("Accept", "application/json, text/event-stream"),
    ("Content-Type", "application/json"),
];

/// A 2026-07-28 request to `path` (no session): its envelope, and headers that repeat it.
pub fn stateless(server: &HttpServer, path: &str, method: &str, params: Value) -> HttpReply {
    let name = params["name"].as_str().unwrap_or_default().to_owned();
    let params = super::modern::with_envelope(params);
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": params});
    let mut headers = ACCEPT_BOTH.to_vec();
    headers.push(("MCP-Protocol-Version", super::modern::VERSION));
    headers.push(("Mcp-Method", method));
    if !name.is_empty() {
        headers.push(("Mcp-Name", &name));
    }
    server.request("POST", path, &headers, body.to_string().as_bytes())
}

/// A tool call as a 2026-07-28 request to `path`.
pub fn stateless_call(server: &HttpServer, path: &str, tool: &str, args: Value) -> ToolResult {
    let params = json!({"name": tool, "arguments": args});
    let reply = stateless(server, path, "tools/call", params);
    assert_eq!(reply.status, 200, "{tool}: {}", reply.text());
    super::calls::tool_result(&message(&reply))
}

/// One handshake session.
pub struct Session<'a> {
    pub server: &'a HttpServer,
    pub path: String,
    pub id: String,
}

impl Session<'_> {
    /// POSTs one message in the session.
    pub fn post(&self, message: &Value) -> HttpReply {
        let mut headers = ACCEPT_BOTH.to_vec();
        headers.push(("Mcp-Session-Id", &self.id));
        headers.push(("MCP-Protocol-Version", "2025-06-18"));
        self.server
            .request("POST", &self.path, &headers, message.to_string().as_bytes())
    }

    /// A request's answer.
    pub fn request(&self, method: &str, params: Value) -> Value {
        let reply =
            self.post(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
        assert_eq!(reply.status, 200, "{method}: {}", reply.text());
        message(&reply)
    }

    pub fn call(&self, tool: &str, args: Value) -> ToolResult {
        let response = self.request("tools/call", json!({"name": tool, "arguments": args}));
        super::calls::tool_result(&response)
    }

    pub fn call_ok(&self, tool: &str, args: Value) -> ToolResult {
        let result = self.call(tool, args.clone());
        assert!(!result.is_error, "{tool} {args} failed: {}", result.text);
        result
    }

    /// The page ids a `list_pages` answer shows.
    pub fn page_ids(&self) -> Vec<u64> {
        let listed = self.call_ok("list_pages", json!({}));
        // Its `## Pages` lines: `<id>: <title> (<url>)`.
        let lines = listed.text.lines().skip_while(|l| *l != "## Pages").skip(1);
        let ids = lines.map_while(|l| l.split_once(": ")?.0.parse().ok());
        ids.collect()
    }

    /// What `evaluate_script` returned for `function`, as JSON.
    pub fn eval(&self, function: &str) -> Value {
        let r = self.call_ok("evaluate_script", json!({ "function": function }));
        super::calls::returned_value(&r.text)
    }

    pub fn delete(&self) -> HttpReply {
        let headers = [("Mcp-Session-Id", self.id.as_str())];
        self.server.request("DELETE", &self.path, &headers, b"")
    }
}

/// The one JSON-RPC message of an answer, whether it came as JSON or as an event stream.
pub fn message(reply: &HttpReply) -> Value {
    let text = reply.text();
    let is_stream = reply
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/event-stream"));
    if !is_stream {
        return serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    }
    let mut data = text.lines().filter_map(|l| l.strip_prefix("data: "));
    let last = data
        .next_back()
        .unwrap_or_else(|| panic!("no event in {text}"));
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {last}"))
}

/// Sends `bytes` as they are and reads what the server answers before it closes (or 5 s).
pub fn raw_exchange(addr: &str, bytes: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    // The server may answer and close before it has read everything: a failed write is fine.
    let _ = stream.write_all(bytes);
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Opens a session's GET stream on a connection of its own and reads its head.
pub fn open_stream(server: &HttpServer, session: &str) -> BufReader<TcpStream> {
    let mut stream = TcpStream::connect(&server.addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\r\n",
        server.addr
    );
    stream.write_all(get.as_bytes()).expect("GET");
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).expect("status line");
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    while line != "\r\n" {
        line.clear();
        reader.read_line(&mut line).expect("header");
    }
    reader
}

/// The next event's message on a stream (chunk sizes skipped).
pub fn next_event(reader: &mut BufReader<TcpStream>) -> Option<Value> {
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line.trim() == "0" {
            return None;
        }
        if let Some(data) = line.strip_prefix("data: ") {
            return serde_json::from_str(data.trim()).ok();
        }
    }
}

/// The server's next request `method` on a stream, notifications before it skipped.
pub fn next_request(reader: &mut BufReader<TcpStream>, method: &str) -> Value {
    loop {
        let event = next_event(reader).unwrap_or_else(|| panic!("no {method} on the stream"));
        if event["method"] == method && event.get("id").is_some() {
            return event;
        }
    }
}
