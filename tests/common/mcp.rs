//! Drives the real `devtools-mcp` binary over stdio, as an MCP client would.
//!
//! A reader thread splits the server's stdout into lines and parses each as JSON-RPC: responses
//! are filed by id, notifications (and any server-to-client requests) are queued for
//! [`Mcp::wait_notification`]. Anything else on stdout — a log line, an empty line, a second
//! response to one id — is a protocol violation: the next wait on this `Mcp` panics, and so does
//! dropping it. The server's stderr goes to a temporary log file that is printed (with the tail of
//! the stdio transcript) when the test fails, and deleted when it passes.
//!
//! `Mcp` is `Sync`: tests may issue requests from several threads at once (e.g. with
//! `std::thread::scope`) to check that a slow call does not hold up others.
//!
//! ```ignore
//! let mcp = Mcp::start(&[]);
//! mcp.initialize();
//! let page = mcp.call_ok("new_page", json!({"url": fx.url("/pages/hello.html")}));
//! assert!(page.text.contains("hello.html"));
//! let err = mcp.call_err("evaluate_script", json!({"function": "() => { throw new Error('boom') }"}));
//! assert!(err.text.contains("boom"));
//! ```

use std::collections::{HashMap, HashSet, VecDeque};
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{procs, slots};

/// How long [`Mcp::request`], [`Mcp::call`] and friends wait for a response before failing the
/// test. Generous, because the machine is shared and a browser launch can be slow under load;
/// tests that assert speed measure it themselves.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Environment variable naming another server program to test instead of the crate's binary.
pub const SERVER_ENV: &str = "DEVTOOLS_MCP_TEST_SERVER";

/// Environment variable set on every spawned server to a value unique to that server; all the
/// processes it starts inherit it, which is how [`Mcp::tagged_processes`] finds them.
pub const TAG_ENV: &str = "DEVTOOLS_MCP_TEST_TAG";

/// The protocol version [`Mcp::initialize`] asks for.
pub const CLIENT_PROTOCOL_VERSION: &str = "2025-06-18";

/// The browser flags every test run needs on this machine (root, no network), spelled the way
/// chrome-devtools-mcp accepts them.
pub const BROWSER_FLAGS: &[&str] = &[
    "--chromeArg=--no-sandbox",
    "--chromeArg=--disable-gpu",
    "--chromeArg=--disable-quic",
    "--chromeArg=--no-first-run",
    "--chromeArg=--disable-background-networking",
    "--chromeArg=--disable-component-update",
    "--chromeArg=--disable-sync",
];

/// How many lines of stdio traffic are kept for the failure report.
const TRANSCRIPT_LINES: usize = 200;
/// Longest transcript entry kept (a screenshot is megabytes of base64).
const TRANSCRIPT_LINE_CHARS: usize = 2000;
/// Most of the stderr log printed on failure (the tail is kept).
const STDERR_PRINT_BYTES: usize = 256 * 1024;
/// How long Drop lets the server shut down by itself (EOF on stdin) before killing it.
const GRACEFUL_EXIT: Duration = Duration::from_secs(3);

/// The browser executable for tests: `CHROME_PATH` if set, else `/usr/bin/chromium`.
pub fn chrome_path() -> String {
    std::env::var("CHROME_PATH").unwrap_or_else(|_| "/usr/bin/chromium".to_string())
}

/// The outcome of a `tools/call` that got a result (not a JSON-RPC error).
#[derive(Clone, Debug)]
pub struct ToolResult {
    /// `result.isError` (false when absent).
    pub is_error: bool,
    /// The `text` of every text content item, joined with "\n".
    pub text: String,
    /// `result.content` as sent.
    pub content: Vec<Value>,
    /// `result.structuredContent`, if any.
    pub structured: Option<Value>,
    /// The whole `result` object.
    pub raw: Value,
}

impl ToolResult {
    /// Build from a `tools/call` result object.
    pub fn from_result(result: &Value) -> ToolResult {
        let content = result
            .get("content")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let text = content
            .iter()
            .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|c| c.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        ToolResult {
            is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
            text,
            content,
            structured: result.get("structuredContent").cloned(),
            raw: result.clone(),
        }
    }

    /// The content items of type `image`.
    pub fn images(&self) -> Vec<&Value> {
        self.content
            .iter()
            .filter(|c| c.get("type").and_then(Value::as_str) == Some("image"))
            .collect()
    }
}

/// What the reader thread has received and not yet handed out.
#[derive(Default)]
struct Inbox {
    /// Responses with a non-null id, keyed by the id's JSON text (`7`, `"abc"`).
    responses: HashMap<String, Value>,
    /// Every non-null response id seen, to catch a second response after the first was consumed.
    answered: HashSet<String>,
    /// Responses whose id is null (e.g. -32700 parse errors), in arrival order.
    null_id_responses: VecDeque<Value>,
    /// Messages with a `method` (notifications, server-to-client requests) not yet consumed.
    pending_messages: VecDeque<Value>,
    /// Every message with a `method` ever received.
    message_history: Vec<Value>,
    /// Lines on stdout that were not valid JSON-RPC messages, with the reason.
    violations: Vec<String>,
    /// Number of lines read from stdout.
    lines: usize,
    /// stdout reached EOF.
    stdout_closed: bool,
    /// Recent traffic in both directions for the failure report.
    transcript: VecDeque<String>,
}

impl Inbox {
    fn note(&mut self, direction: &str, line: &str) {
        if self.transcript.len() == TRANSCRIPT_LINES {
            self.transcript.pop_front();
        }
        let mut entry = format!("{direction} ");
        if line.chars().count() > TRANSCRIPT_LINE_CHARS {
            entry.extend(line.chars().take(TRANSCRIPT_LINE_CHARS));
            entry.push_str(" …(truncated)");
        } else {
            entry.push_str(line);
        }
        self.transcript.push_back(entry);
    }
}

struct Shared {
    inbox: Mutex<Inbox>,
    changed: Condvar,
}

/// Lock a mutex, ignoring poisoning: a panic elsewhere must not hide the test's real failure.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// A running `devtools-mcp` server process and a JSON-RPC client for it. Dropping it closes stdin,
/// gives the server a moment to exit by itself, then kills it and every process it started.
pub struct Mcp {
    pid: u32,
    child: Mutex<Child>,
    stdin: Mutex<Option<ChildStdin>>,
    shared: Arc<Shared>,
    next_id: AtomicU64,
    /// Method of each request sent, for timeout messages.
    methods: Mutex<HashMap<u64, String>>,
    stderr_path: PathBuf,
    /// Profile directories seen on the browser's command line, for cleanup after a kill.
    seen_profile_dirs: Mutex<Vec<PathBuf>>,
    args: Vec<String>,
    /// The value of [`TAG_ENV`] given to this server.
    tag: String,
    /// Held for the server's whole life; released after Drop has cleaned up.
    slot: Option<Arc<slots::Slot>>,
}

static SPAWNED: AtomicUsize = AtomicUsize::new(0);

impl Mcp {
    /// Spawn the server with the flags this machine needs — `--headless --isolated
    /// --executablePath <CHROME_PATH or /usr/bin/chromium>` and [`BROWSER_FLAGS`] — followed by
    /// `extra_args`. Nothing is sent yet; call [`Mcp::initialize`] next.
    pub fn start(extra_args: &[&str]) -> Mcp {
        Mcp::start_with_env(extra_args, &[])
    }

    /// [`Mcp::start`] with extra environment variables, as [`Mcp::spawn`] takes them.
    pub fn start_with_env(extra_args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let chrome = chrome_path();
        let mut args: Vec<&str> = vec!["--headless", "--isolated", "--executablePath", &chrome];
        args.extend_from_slice(BROWSER_FLAGS);
        args.extend_from_slice(extra_args);
        Mcp::spawn(&args, env)
    }

    /// Spawn the server with exactly `args` (no default flags), for flag-parsing tests.
    pub fn start_raw(args: &[&str]) -> Mcp {
        Mcp::spawn(args, &[])
    }

    /// Spawn the server with exactly `args` and extra environment variables (`(name, value)`;
    /// an empty value removes the variable from the child's environment).
    /// Waits for a free server slot first (see [`slots`]): at most two real servers run at once
    /// machine-wide unless `DEVTOOLS_MCP_TEST_SLOTS` says otherwise.
    ///
    /// The program is the crate's binary, or the one named by `DEVTOOLS_MCP_TEST_SERVER`, to check
    /// a test's expectations against chrome-devtools-mcp. `../shared/bench/reference.sh` passes its
    /// own `--executablePath`, and the reference reads two of them as a list and finds no browser,
    /// so point the variable at a wrapper that drops the pair `--executablePath <path>` from its
    /// arguments and execs reference.sh with the rest.
    pub fn spawn(args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let slot = slots::acquire();
        let program = std::env::var(SERVER_ENV)
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_devtools-mcp").to_string());
        let mut mcp = Mcp::spawn_program(&program, args, env);
        mcp.slot = Some(slot);
        mcp
    }

    /// Spawn any program as the "server" — used by the harness self-tests to check the client
    /// side against a scripted fake. Same piping, logging and cleanup as [`Mcp::spawn`].
    pub fn spawn_program(program: &str, args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let n = SPAWNED.fetch_add(1, Ordering::Relaxed);
        let log_dir = std::env::temp_dir().join("devtools-mcp-tests");
        let _ = fs::create_dir_all(&log_dir);
        let test_name: String = thread::current()
            .name()
            .unwrap_or("test")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let stderr_path = log_dir.join(format!(
            "{}-{}-{}.stderr.log",
            test_name,
            std::process::id(),
            n
        ));
        let stderr = File::create(&stderr_path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", stderr_path.display()));

        let tag = format!("{}-{}", std::process::id(), n);
        let mut command = Command::new(program);
        command
            .env(TAG_ENV, &tag)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr));
        for (name, value) in env {
            if value.is_empty() {
                command.env_remove(name);
            } else {
                command.env(name, value);
            }
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {program} {args:?}: {e}"));
        let pid = child.id();
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .unwrap_or_else(|| panic!("devtools-mcp has no stdout pipe"));

        let shared = Arc::new(Shared {
            inbox: Mutex::new(Inbox::default()),
            changed: Condvar::new(),
        });
        let reader_shared = shared.clone();
        thread::Builder::new()
            .name(format!("mcp-stdout-{pid}"))
            .spawn(move || read_stdout(stdout, &reader_shared))
            .unwrap_or_else(|e| panic!("cannot spawn the stdout reader: {e}"));

        Mcp {
            pid,
            child: Mutex::new(child),
            stdin: Mutex::new(stdin),
            shared,
            next_id: AtomicU64::new(1),
            methods: Mutex::new(HashMap::new()),
            stderr_path,
            seen_profile_dirs: Mutex::new(Vec::new()),
            args: args.iter().map(|a| a.to_string()).collect(),
            tag,
            slot: None,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Where the server's stderr is being written.
    pub fn stderr_path(&self) -> &Path {
        &self.stderr_path
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr_log(&self) -> String {
        fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    // ---- sending ----

    /// Write one raw line (a newline is appended) to the server's stdin — for malformed input.
    /// Panics if stdin was closed or the server is gone.
    pub fn send_line(&self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_raw(&bytes);
    }

    /// Write bytes to the server's stdin exactly as given (no newline added) — for input that is
    /// not even UTF-8. Panics if stdin was closed or the server is gone.
    pub fn send_raw(&self, bytes: &[u8]) {
        let shown = String::from_utf8_lossy(bytes);
        lock(&self.shared.inbox).note(">>", shown.trim_end_matches('\n'));
        let mut stdin = lock(&self.stdin);
        let Some(pipe) = stdin.as_mut() else {
            panic!("writing to stdin after it was closed: {shown}");
        };
        if let Err(e) = pipe.write_all(bytes).and_then(|_| pipe.flush()) {
            drop(stdin);
            panic!(
                "cannot write to devtools-mcp stdin ({e}); has it exited? status: {:?}",
                self.try_exit_status()
            );
        }
    }

    /// Send a notification (`params` omitted when `Value::Null`).
    pub fn notify(&self, method: &str, params: Value) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send_line(&message.to_string());
    }

    /// Send a request without waiting; returns its id for [`Mcp::wait_response`]. `params` is
    /// omitted when `Value::Null`.
    pub fn request_async(&self, method: &str, params: Value) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        lock(&self.methods).insert(id, method.to_string());
        self.send_line(&message.to_string());
        id
    }

    /// Send `notifications/cancelled` for request `id`.
    pub fn cancel(&self, id: u64, reason: &str) {
        self.notify(
            "notifications/cancelled",
            json!({"requestId": id, "reason": reason}),
        );
    }

    /// Answer a server-to-client request (one received through [`Mcp::wait_notification`]).
    pub fn respond(&self, id: &Value, result: Value) {
        self.send_line(&json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string());
    }

    // ---- receiving ----

    /// Wait for the response to request `id` (the whole message, `result` or `error`), up to
    /// [`DEFAULT_TIMEOUT`].
    pub fn wait_response(&self, id: u64) -> Value {
        self.wait_response_timeout(id, DEFAULT_TIMEOUT)
    }

    /// Wait for the response to request `id`. Panics, naming the request, if none arrives within
    /// `timeout`, if the server closes stdout first, or if stdout carried a non-protocol line.
    pub fn wait_response_timeout(&self, id: u64, timeout: Duration) -> Value {
        let key = id.to_string();
        let method = lock(&self.methods).get(&id).cloned().unwrap_or_default();
        let what = format!("response to request {id} ({method})");
        self.wait_for(&what, timeout, |inbox| inbox.responses.remove(&key))
    }

    /// Send a request and wait for its whole response (`result` or `error`), up to
    /// [`DEFAULT_TIMEOUT`].
    pub fn request(&self, method: &str, params: Value) -> Value {
        self.request_timeout(method, params, DEFAULT_TIMEOUT)
    }

    /// Send a request and wait for its whole response, up to `timeout`.
    pub fn request_timeout(&self, method: &str, params: Value, timeout: Duration) -> Value {
        let id = self.request_async(method, params);
        self.wait_response_timeout(id, timeout)
    }

    /// Send a request and return its `result`; panics showing the error if it got one.
    pub fn request_ok(&self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        match response.get("result") {
            Some(result) if response.get("error").is_none() => result.clone(),
            _ => panic!("{method} failed: {response}"),
        }
    }

    /// Wait for the response carrying this exact `id` — for requests written by hand with
    /// [`Mcp::send_line`]. Use string ids there (`"bad-1"`) so they can never collide with the
    /// numeric ids [`Mcp::request_async`] hands out.
    pub fn wait_raw_response(&self, id: &Value, timeout: Duration) -> Value {
        let key = id.to_string();
        self.wait_for(
            &format!("response to hand-written request {key}"),
            timeout,
            |inbox| inbox.responses.remove(&key),
        )
    }

    /// Like [`Mcp::wait_null_id_response`] but returns `None` on timeout.
    pub fn poll_null_id_response(&self, timeout: Duration) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        let mut inbox = lock(&self.shared.inbox);
        loop {
            self.check_violations(&inbox);
            if let Some(found) = inbox.null_id_responses.pop_front() {
                return Some(found);
            }
            let now = Instant::now();
            if now >= deadline || inbox.stdout_closed {
                return None;
            }
            inbox = match self.shared.changed.wait_timeout(inbox, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Wait for the next response whose id is null (what a server sends for a line it could not
    /// parse, -32700), up to `timeout`.
    pub fn wait_null_id_response(&self, timeout: Duration) -> Value {
        self.wait_for("response with id null", timeout, |inbox| {
            inbox.null_id_responses.pop_front()
        })
    }

    /// Wait for the oldest not-yet-consumed message with this `method` (a notification such as
    /// `notifications/tools/list_changed`, or a server-to-client request), consume and return it.
    /// One that arrived before the call counts. Panics after `timeout`.
    pub fn wait_notification(&self, method: &str, timeout: Duration) -> Value {
        self.wait_for(&format!("{method} message"), timeout, |inbox| {
            take_message(inbox, method)
        })
    }

    /// Like [`Mcp::wait_notification`] but returns `None` on timeout — for asserting that
    /// something did NOT arrive.
    pub fn poll_notification(&self, method: &str, timeout: Duration) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        let mut inbox = lock(&self.shared.inbox);
        loop {
            self.check_violations(&inbox);
            if let Some(found) = take_message(&mut inbox, method) {
                return Some(found);
            }
            let now = Instant::now();
            if now >= deadline || inbox.stdout_closed {
                return None;
            }
            inbox = match self.shared.changed.wait_timeout(inbox, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Consume and return every pending message with this method (possibly none).
    pub fn drain_notifications(&self, method: &str) -> Vec<Value> {
        let mut inbox = lock(&self.shared.inbox);
        let mut taken = Vec::new();
        while let Some(m) = take_message(&mut inbox, method) {
            taken.push(m);
        }
        taken
    }

    /// Every message with this method received so far, consumed or not.
    pub fn notification_history(&self, method: &str) -> Vec<Value> {
        lock(&self.shared.inbox)
            .message_history
            .iter()
            .filter(|m| m.get("method").and_then(Value::as_str) == Some(method))
            .cloned()
            .collect()
    }

    /// The stdout lines so far that were not JSON-RPC messages, each with the reason.
    pub fn violations(&self) -> Vec<String> {
        lock(&self.shared.inbox).violations.clone()
    }

    /// How many lines the server has written to stdout so far.
    pub fn stdout_line_count(&self) -> usize {
        lock(&self.shared.inbox).lines
    }

    /// Panic if stdout carried anything but JSON-RPC messages.
    pub fn assert_stdout_clean(&self) {
        self.check_violations(&lock(&self.shared.inbox));
    }

    /// Wait until the server's stdout reaches EOF; returns whether it did within `timeout`.
    pub fn wait_stdout_closed(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut inbox = lock(&self.shared.inbox);
        while !inbox.stdout_closed {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            inbox = match self.shared.changed.wait_timeout(inbox, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        true
    }

    // ---- MCP conveniences ----

    /// `initialize` with protocol version 2025-06-18, no capabilities and a test clientInfo, then
    /// `notifications/initialized`. Returns the `result` (panics on an error response).
    pub fn initialize(&self) -> Value {
        self.initialize_with(CLIENT_PROTOCOL_VERSION, json!({}))
    }

    /// `initialize` asking for `protocol_version` with these client `capabilities`, then
    /// `notifications/initialized`. Returns the `result` (panics on an error response).
    pub fn initialize_with(&self, protocol_version: &str, capabilities: Value) -> Value {
        let result = self.request_ok(
            "initialize",
            json!({
                "protocolVersion": protocol_version,
                "capabilities": capabilities,
                "clientInfo": {"name": "devtools-mcp-tests", "version": "0.0.0"},
            }),
        );
        self.notify("notifications/initialized", Value::Null);
        result
    }

    /// `tools/list` → the `tools` array (panics on an error response).
    pub fn list_tools(&self) -> Vec<Value> {
        let result = self.request_ok("tools/list", json!({}));
        result
            .get("tools")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_else(|| panic!("tools/list result has no tools array: {result}"))
    }

    /// `tools/call` with `arguments: args` (`{}` when `Value::Null`), up to [`DEFAULT_TIMEOUT`].
    /// Panics if the response is a JSON-RPC error rather than a result (use [`Mcp::request`]
    /// to test those).
    pub fn call(&self, tool: &str, args: Value) -> ToolResult {
        self.call_timeout(tool, args, DEFAULT_TIMEOUT)
    }

    /// [`Mcp::call`] with an explicit timeout.
    pub fn call_timeout(&self, tool: &str, args: Value, timeout: Duration) -> ToolResult {
        let args = if args.is_null() { json!({}) } else { args };
        let response = self.request_timeout(
            "tools/call",
            json!({"name": tool, "arguments": args}),
            timeout,
        );
        match response.get("result") {
            Some(result) if response.get("error").is_none() => ToolResult::from_result(result),
            _ => panic!("tools/call {tool} got a JSON-RPC error instead of a result: {response}"),
        }
    }

    /// [`Mcp::call`] that panics, showing the text, if the result has `isError: true`.
    pub fn call_ok(&self, tool: &str, args: Value) -> ToolResult {
        let args_text = args.to_string();
        let result = self.call(tool, args);
        assert!(
            !result.is_error,
            "tool {tool} {args_text} failed:\n{}",
            result.text
        );
        result
    }

    /// [`Mcp::call`] that panics, showing the text, unless the result has `isError: true`.
    pub fn call_err(&self, tool: &str, args: Value) -> ToolResult {
        let args_text = args.to_string();
        let result = self.call(tool, args);
        assert!(
            result.is_error,
            "tool {tool} {args_text} was expected to fail but succeeded:\n{}",
            result.text
        );
        result
    }

    // ---- process lifetime ----

    /// Close the server's stdin (EOF) and wait for it to exit; panics if it has not exited within
    /// `timeout`. Returns the exit status.
    pub fn close_stdin_and_wait(&self, timeout: Duration) -> ExitStatus {
        self.close_stdin();
        self.wait_exit(timeout).unwrap_or_else(|| {
            panic!("devtools-mcp did not exit within {timeout:?} after stdin was closed")
        })
    }

    /// Close the server's stdin without waiting.
    pub fn close_stdin(&self) {
        lock(&self.shared.inbox).note(">>", "<EOF>");
        lock(&self.stdin).take();
    }

    /// Send SIGTERM to the server process (only the server, not its children).
    pub fn terminate(&self) {
        procs::signal(&[self.pid], "TERM");
    }

    /// Wait up to `timeout` for the server to exit; `None` if it is still running.
    pub fn wait_exit(&self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_exit_status() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// The exit status if the server has exited (reaping it), else `None`.
    pub fn try_exit_status(&self) -> Option<ExitStatus> {
        lock(&self.child).try_wait().ok().flatten()
    }

    /// The server's live descendants (browser, renderers, ...), read from `/proc`.
    pub fn descendants(&self) -> Vec<procs::Proc> {
        procs::descendants(self.pid)
            .into_iter()
            .filter(|p| p.state != 'Z')
            .collect()
    }

    /// Live processes that inherited this server's [`TAG_ENV`] variable, however they were
    /// re-parented (Chromium's double-forked crash handlers among them). Excludes the server
    /// itself. Not complete on its own: Chromium's zygote scrubs the environment of the renderers
    /// it forks — see [`Mcp::started_processes`].
    pub fn tagged_processes(&self) -> Vec<procs::Proc> {
        procs::find_by_env(TAG_ENV, &self.tag)
            .into_iter()
            .filter(|p| p.pid != self.pid)
            .collect()
    }

    /// Every live process the server started that can be found: its descendants plus the tagged
    /// processes ([`Mcp::tagged_processes`]), without duplicates. Take this while the server runs
    /// and check each pid with [`procs::alive`] after shutdown.
    pub fn started_processes(&self) -> Vec<procs::Proc> {
        let mut all = self.descendants();
        for p in self.tagged_processes() {
            if !all.iter().any(|known| known.pid == p.pid) {
                all.push(p);
            }
        }
        all
    }

    /// The `--user-data-dir` of the browsers the server has launched (empty before the first
    /// launch). Remembered, so Drop can clean up after a server that had to be killed.
    pub fn user_data_dirs(&self) -> Vec<PathBuf> {
        let dirs = procs::user_data_dirs(self.pid);
        let mut seen = lock(&self.seen_profile_dirs);
        for d in &dirs {
            if !seen.contains(d) {
                seen.push(d.clone());
            }
        }
        dirs
    }

    // ---- internals ----

    fn check_violations(&self, inbox: &Inbox) {
        if !inbox.violations.is_empty() {
            panic!(
                "devtools-mcp wrote non-protocol output on stdout:\n{}",
                inbox.violations.join("\n")
            );
        }
    }

    /// Wait until `take` yields something, with the standard failure reports.
    fn wait_for<T>(
        &self,
        what: &str,
        timeout: Duration,
        mut take: impl FnMut(&mut Inbox) -> Option<T>,
    ) -> T {
        let deadline = Instant::now() + timeout;
        let mut inbox = lock(&self.shared.inbox);
        loop {
            self.check_violations(&inbox);
            if let Some(found) = take(&mut inbox) {
                return found;
            }
            if inbox.stdout_closed {
                drop(inbox);
                let status = self.wait_exit(Duration::from_millis(500));
                panic!(
                    "devtools-mcp closed stdout (exit status {status:?}) while waiting for {what}"
                );
            }
            let now = Instant::now();
            if now >= deadline {
                panic!("no {what} within {timeout:?}");
            }
            inbox = match self.shared.changed.wait_timeout(inbox, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    fn print_failure_report(&self) {
        let transcript: Vec<String> = lock(&self.shared.inbox)
            .transcript
            .iter()
            .cloned()
            .collect();
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| {
                if a.chars().count() > 100 {
                    format!("{}…", a.chars().take(100).collect::<String>())
                } else {
                    a.clone()
                }
            })
            .collect();
        eprintln!(
            "----- devtools-mcp {:?} (pid {}) stdio, last {} lines -----",
            args,
            self.pid,
            transcript.len()
        );
        for line in transcript {
            eprintln!("{line}");
        }
        let log = fs::read(&self.stderr_path).unwrap_or_default();
        let start = log.len().saturating_sub(STDERR_PRINT_BYTES);
        eprintln!(
            "----- devtools-mcp stderr ({}, {} bytes{}) -----",
            self.stderr_path.display(),
            log.len(),
            if start > 0 { ", tail" } else { "" }
        );
        eprintln!("{}", String::from_utf8_lossy(&log[start..]));
        eprintln!("----- end of devtools-mcp stderr -----");
        if start == 0 {
            // Printed in full: the file has nothing more to tell.
            let _ = fs::remove_file(&self.stderr_path);
        }
    }

    /// Stop the server and everything it started; remove browser profiles it left behind.
    fn shut_down(&self) {
        // Learn the process tree while the server is still its root: once it exits, its
        // children are re-parented and can only be found by their tag or command line.
        let mut doomed: Vec<u32> = self.started_processes().iter().map(|p| p.pid).collect();
        self.user_data_dirs();
        // EOF is the normal way a client ends a session; let the server clean up itself.
        self.close_stdin();
        let graceful = self.wait_exit(GRACEFUL_EXIT).is_some();
        if !graceful {
            doomed.extend(procs::descendants(self.pid).iter().map(|p| p.pid));
            let _ = lock(&self.child).kill();
            let _ = lock(&self.child).wait();
        }
        doomed.extend(self.tagged_processes().iter().map(|p| p.pid));
        let dirs = lock(&self.seen_profile_dirs).clone();
        for dir in &dirs {
            if let Some(text) = dir.to_str() {
                doomed.extend(procs::find_by_cmdline(text).iter().map(|p| p.pid));
            }
        }
        doomed.retain(|pid| procs::alive(*pid));
        procs::signal(&doomed, "KILL");
        if !graceful {
            // A killed server cannot remove its temporary profile. Only directories under the
            // temp dir that the test did not pass in itself are removed.
            let tmp = std::env::temp_dir();
            for dir in dirs {
                let given = self
                    .args
                    .iter()
                    .any(|a| a.contains(&*dir.to_string_lossy()));
                if dir.starts_with(&tmp) && !given {
                    let _ = fs::remove_dir_all(&dir);
                }
            }
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let failing = thread::panicking();
        self.shut_down();
        if failing {
            self.print_failure_report();
            return;
        }
        let violations = self.violations();
        if violations.is_empty() {
            let _ = fs::remove_file(&self.stderr_path);
        } else {
            self.print_failure_report();
            panic!(
                "devtools-mcp wrote non-protocol output on stdout:\n{}",
                violations.join("\n")
            );
        }
    }
}

fn take_message(inbox: &mut Inbox, method: &str) -> Option<Value> {
    let index = inbox
        .pending_messages
        .iter()
        .position(|m| m.get("method").and_then(Value::as_str) == Some(method))?;
    inbox.pending_messages.remove(index)
}

/// The reader thread: one JSON-RPC message per line, classified into the inbox.
fn read_stdout(stdout: impl std::io::Read, shared: &Shared) {
    let mut reader = BufReader::new(stdout);
    let mut raw = Vec::new();
    loop {
        raw.clear();
        let n = reader.read_until(b'\n', &mut raw).unwrap_or(0);
        let mut inbox = lock(&shared.inbox);
        if n == 0 {
            inbox.stdout_closed = true;
            shared.changed.notify_all();
            return;
        }
        inbox.lines += 1;
        let terminated = raw.last() == Some(&b'\n');
        if terminated {
            raw.pop();
        }
        let line = String::from_utf8_lossy(&raw).into_owned();
        inbox.note("<<", &line);
        if !terminated {
            inbox.violations.push(format!(
                "line not terminated by a newline before EOF: {line}"
            ));
        } else {
            classify(&mut inbox, &line);
        }
        shared.changed.notify_all();
    }
}

fn classify(inbox: &mut Inbox, line: &str) {
    let message: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            inbox.violations.push(format!("not JSON ({e}): {line:?}"));
            return;
        }
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        inbox
            .violations
            .push(format!("not a JSON-RPC 2.0 message: {line}"));
        return;
    }
    if message.get("method").and_then(Value::as_str).is_some() {
        inbox.message_history.push(message.clone());
        inbox.pending_messages.push_back(message);
        return;
    }
    let has_result = message.get("result").is_some();
    let has_error = message.get("error").is_some();
    let Some(id) = message.get("id") else {
        inbox.violations.push(format!(
            "neither a request, a notification nor a response: {line}"
        ));
        return;
    };
    if has_result == has_error {
        inbox.violations.push(format!(
            "response must have exactly one of result/error: {line}"
        ));
        return;
    }
    if id.is_null() {
        inbox.null_id_responses.push_back(message);
        return;
    }
    let key = id.to_string();
    if !inbox.answered.insert(key.clone()) {
        inbox
            .violations
            .push(format!("second response for id {key}: {line}"));
        return;
    }
    inbox.responses.insert(key, message);
}
