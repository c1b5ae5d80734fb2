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
//! This file spawns the server, sends, and has the MCP conveniences; [`inbox`] is the reader
//! thread, [`receive`] the waits, [`lifetime`] exit, signals and cleanup, [`tool_result`] the
//! parsed `tools/call` answer.
//!
//! ```ignore
//! let mcp = Mcp::start(&[]);
//! mcp.initialize();
//! let page = mcp.call_ok("new_page", json!({"url": fx.url("/pages/hello.html")}));
//! assert!(page.text.contains("hello.html"));
//! let err = mcp.call_err("evaluate_script", json!({"function": "() => { throw new Error('boom') }"}));
//! assert!(err.text.contains("boom"));
//! ```

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

use super::{procs, slots};

mod inbox;
mod lifetime;
mod receive;
mod tool_result;

pub use tool_result::ToolResult;

use inbox::{lock, read_stdout, Inbox, Shared};

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

/// Which browser the tests run, as server flags: none (the server's own choice: the headless
/// shell when installed, else full Chromium), or from `DEVTOOLS_MCP_TEST_BROWSER`: `full` for
/// full Chromium, `shell` to insist on the shell. `CHROME_PATH` still names a binary outright.
pub fn browser_choice() -> &'static [&'static str] {
    match std::env::var("DEVTOOLS_MCP_TEST_BROWSER").as_deref() {
        Ok("full") => &["--headlessShell=false"],
        Ok("shell") => &["--headlessShell=true"],
        Ok("") | Err(_) => &[],
        Ok(other) => panic!("DEVTOOLS_MCP_TEST_BROWSER={other}: expected full or shell"),
    }
}

/// The browser executable the server picks with the tests' flags, by the server's own rule
/// (for tests that start a browser themselves).
pub fn chrome_path() -> String {
    let mut args = vec!["--headless"];
    args.extend(browser_choice());
    let exe = devtools_mcp::app::browser_executable(&args).unwrap_or_else(|e| panic!("{e}"));
    exe.display().to_string()
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
    /// Spawn the server with the flags this machine needs — `--headless --isolated`,
    /// [`browser_choice`] and [`BROWSER_FLAGS`] — followed by
    /// `extra_args`. Nothing is sent yet; call [`Mcp::initialize`] next.
    pub fn start(extra_args: &[&str]) -> Mcp {
        Mcp::start_with_env(extra_args, &[])
    }

    /// [`Mcp::start`] with extra environment variables, as [`Mcp::spawn`] takes them.
    pub fn start_with_env(extra_args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut args: Vec<&str> = vec!["--headless", "--isolated"];
        args.extend_from_slice(browser_choice());
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
}
