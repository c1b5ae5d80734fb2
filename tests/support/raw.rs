//! A bare client for the protocol tests: the server's stdin and stdout as they are, so a test
//! can write bytes the regular client would never send and read (or not read) every line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Duration;

/// A browser path that does not exist: these tests never need one, and a tool that asks for
/// it fails at once.
pub const NO_BROWSER: &str = "/nonexistent/devtools-mcp-test-browser";

pub struct Raw {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
}

impl Raw {
    pub fn spawn(extra: &[&str]) -> Raw {
        let mut args = vec!["--headless", "--isolated", "--executablePath", NO_BROWSER];
        args.extend_from_slice(extra);
        Raw::spawn_exactly(&args)
    }

    /// The server with exactly these flags.
    pub fn spawn_exactly(args: &[&str]) -> Raw {
        let program = std::env::var("DEVTOOLS_MCP_TEST_SERVER")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_devtools-mcp").to_string());
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        Raw {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
        }
    }

    pub fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("the server reads");
        stdin.flush().expect("flush");
    }

    /// Lines from stdout, read on a thread, as they come.
    pub fn lines(&mut self) -> Receiver<String> {
        let stdout = self.stdout.take().expect("stdout not taken yet");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        rx
    }

    /// The server's resident memory, in kB.
    pub fn rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the server runs");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }
}

impl Raw {
    /// The server's user and system CPU time so far, in clock ticks.
    pub fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))
            .expect("the server runs");
        // After the command name's closing parenthesis, utime and stime are fields 12 and 13.
        let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
        let fields: Vec<&str> = after.split_whitespace().collect();
        let n = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        n(11) + n(12)
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        self.stdin.take();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The next line within `timeout`, or `None`.
pub fn next(rx: &Receiver<String>, timeout: Duration) -> Option<String> {
    rx.recv_timeout(timeout).ok()
}

/// The `id` member's text exactly as the server wrote it (`null` included).
pub fn id_text(line: &str) -> Option<String> {
    use serde_json::value::RawValue;
    let members: std::collections::BTreeMap<String, Box<RawValue>> =
        serde_json::from_str(line).ok()?;
    members.get("id").map(|id| id.get().to_owned())
}

/// What the server started with exactly `args` (and `env`: `(name, value)`, an empty value
/// removes the variable) answered to `requests`, all written at once: every line it wrote that
/// parses, once each request is answered (or it exited) and its stdin closed, and its exit and
/// stderr. Blocking, bounded by the server's own time limits.
pub fn exchange(
    args: &[String],
    env: &[(&str, &str)],
    requests: &[serde_json::Value],
) -> (Vec<serde_json::Value>, String) {
    let lines: Vec<String> = requests.iter().map(|r| r.to_string()).collect();
    let expected = requests.iter().filter(|r| r.get("id").is_some()).count();
    exchange_env(args, env, &lines, expected)
}

/// [`exchange`] of lines as written, until `expected` answers have come.
pub fn exchange_lines(
    args: &[String],
    lines: &[String],
    expected: usize,
) -> (Vec<serde_json::Value>, String) {
    exchange_env(args, &[], lines, expected)
}

fn exchange_env(
    args: &[String],
    env: &[(&str, &str)],
    lines: &[String],
    expected: usize,
) -> (Vec<serde_json::Value>, String) {
    use std::io::Read;
    let mut command = Command::new(env!("CARGO_BIN_EXE_devtools-mcp"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        if value.is_empty() {
            command.env_remove(name);
        } else {
            command.env(name, value);
        }
    }
    let mut child = command.spawn().expect("the server starts");
    let mut stdin = child.stdin.take();
    if let Some(stdin) = &mut stdin {
        for line in lines {
            // A server that refused its flags has gone: what it said is on stderr.
            let _ = writeln!(stdin, "{line}");
        }
    }
    let stderr = child.stderr.take();
    let err_reader = thread::spawn(move || {
        let mut err = String::new();
        if let Some(mut s) = stderr {
            let _ = s.read_to_string(&mut err);
        }
        err
    });
    let (mut answers, mut out) = (Vec::new(), String::new());
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    for line in stdout.lines().map_while(Result::ok) {
        out.push_str(&line);
        out.push('\n');
        if let Ok(answer) = serde_json::from_str::<serde_json::Value>(&line) {
            answers.push(answer);
        }
        let answered = answers
            .iter()
            .filter(|a| a.get("id").is_some() && a.get("method").is_none())
            .count();
        if answered >= expected {
            // Every request is answered: the end of input ends the server.
            stdin = None;
        }
    }
    drop(stdin);
    let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    (answers, format!("{status}; stdout: {out}; stderr: {err}"))
}

/// `initialize` and `notifications/initialized`, then `more` (ids from 2).
pub fn session(more: &[(&str, serde_json::Value)]) -> Vec<serde_json::Value> {
    let mut requests = vec![
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for (id, (method, params)) in (2..).zip(more) {
        requests.push(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
    }
    requests
}
