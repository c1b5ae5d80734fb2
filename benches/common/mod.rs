//! What the benches share: percentiles, a tiny fixture web server, an MCP client that talks
//! to the release binary over stdio, and a raw CDP client over `--remote-debugging-pipe` to a
//! Chromium the bench starts itself (the floor every figure is compared with).
//!
//! Latencies are wall clock from writing a request to having read its complete answer (the
//! MCP line or the NUL-terminated CDP message), before it is parsed, so both sides of a ratio
//! are measured the same way.

#![allow(dead_code)] // each bench uses a different part of this module

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod floor;
#[allow(unused_imports)] // not every bench compares with the floor
pub use floor::Browser;

/// The release binary (`cargo bench` builds it with the bench profile, which is `release`).
pub const SERVER: &str = env!("CARGO_BIN_EXE_devtools-mcp");

/// The server binary to measure: `BENCH_SERVER` if set (to measure a frozen copy, so every
/// bench and the shared harness run the very same file), else the one cargo just built.
pub fn server() -> String {
    std::env::var("BENCH_SERVER").unwrap_or_else(|_| SERVER.to_owned())
}

/// A browser the benches measure: the server is told to pick it (`--headlessShell=…`), and
/// the floor starts the executable the server's own rule resolves that flag to.
#[derive(Clone, Debug)]
pub struct BrowserKind {
    pub label: &'static str,
    pub exe: String,
    server_flag: &'static str,
}

/// The browsers installed here, the server's default first: the headless shell, then full
/// Chromium. `BENCH_BROWSER=shell` or `=full` keeps one; with `CHROME_PATH` set both
/// resolve to that executable, so it is measured once.
pub fn browsers() -> Vec<BrowserKind> {
    let only = std::env::var("BENCH_BROWSER").unwrap_or_default();
    let mut kinds: Vec<BrowserKind> = Vec::new();
    for (label, server_flag) in [
        ("shell", "--headlessShell=true"),
        ("full", "--headlessShell=false"),
    ] {
        if !only.is_empty() && only != label {
            continue;
        }
        let Some(exe) = executable_for(server_flag) else {
            continue;
        };
        if kinds.iter().all(|k| k.exe != exe) {
            kinds.push(BrowserKind {
                label,
                exe,
                server_flag,
            });
        }
    }
    assert!(
        !kinds.is_empty(),
        "no browser to measure (BENCH_BROWSER={only:?})"
    );
    kinds
}

/// The executable the server starts with `--headless` and `flag`, by its own rule.
fn executable_for(flag: &str) -> Option<String> {
    let exe = devtools_mcp::app::browser_executable(&["--headless", flag]).ok()?;
    Some(exe.display().to_string())
}

/// The browser the server starts by default (the first of [`browsers`]).
pub fn default_browser() -> BrowserKind {
    browsers().remove(0)
}

/// Chromium switches this machine needs (root, no network); the floor browser gets exactly
/// these, and the server gets them through `--chromeArg`.
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The server's command line: the reference's flags as /work/shared/bench/reference.sh
/// passes them, so a configuration written for the reference runs unchanged.
pub fn server_args(browser: &BrowserKind) -> Vec<String> {
    let mut args = vec![
        browser.server_flag.into(),
        "--headless".into(),
        "--isolated".into(),
        "--categoryExperimentalThirdParty=true".into(),
        "--no-page-id-routing".into(),
        "--no-usage-statistics".into(),
        "--no-performance-crux".into(),
    ];
    for flag in &CHROMIUM_FLAGS[1..] {
        args.push(format!("--chromeArg={flag}"));
    }
    args
}

/// Reads a count from the environment (to shrink a run), else the default.
pub fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

// ---------------------------------------------------------------------------------------------
// Percentiles
// ---------------------------------------------------------------------------------------------

/// Summary of one series of samples (milliseconds).
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

/// Linear interpolation between order statistics, as mcp_bench.py computes them.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = (sorted.len() - 1) as f64 * p / 100.0;
    let low = rank.floor() as usize;
    let high = (low + 1).min(sorted.len() - 1);
    sorted[low] + (sorted[high] - sorted[low]) * (rank - low as f64)
}

pub fn summarize(samples: &[f64]) -> Summary {
    if samples.is_empty() {
        return Summary::default();
    }
    let mut s = samples.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    Summary {
        n: s.len(),
        min: s[0],
        p50: percentile(&s, 50.0),
        p90: percentile(&s, 90.0),
        p99: percentile(&s, 99.0),
        max: s[s.len() - 1],
    }
}

pub fn print_header() {
    println!(
        "{:<58} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "series (ms)", "n", "min", "p50", "p90", "p99", "max"
    );
}

pub fn print_row(name: &str, samples: &[f64]) -> Summary {
    let s = summarize(samples);
    println!(
        "{:<58} {:>5} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
        name, s.n, s.min, s.p50, s.p90, s.p99, s.max
    );
    s
}

/// `ours / floor` for p50 and p99, with the target when there is one.
pub fn print_ratio(name: &str, ours: &Summary, floor: &Summary, target: Option<f64>) {
    let target = target
        .map(|t| format!("   (target p50 ≤ {t}×)"))
        .unwrap_or_default();
    println!(
        "  ratio {name}: p50 {:.2}×  p99 {:.2}×  (ours − floor at p50: {:+.3} ms){target}",
        ours.p50 / floor.p50,
        ours.p99 / floor.p99,
        ours.p50 - floor.p50
    );
}

// ---------------------------------------------------------------------------------------------
// Fixture pages over HTTP on 127.0.0.1
// ---------------------------------------------------------------------------------------------

/// Rows of the ~1 MB result (as in mcp_bench.py: 10,000 rows of ~110 bytes of JSON).
pub const BIG_ROWS: usize = 10_000;

/// A page with a tool group. The same functions are also on `window.benchTools`, so the floor
/// can do the same work with one raw `Runtime.evaluate`.
pub fn tools_page() -> String {
    format!(
        r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Bench tools</title>
<link rel="icon" href="data:,"></head>
<body><h1>Bench tools</h1><button id="the-button">Click me</button>
<script>
(() => {{
  const object = (properties, required = []) => ({{type: 'object', properties, required}});
  const tools = [
    {{name: 'add', description: 'Returns {{sum: a + b}}',
      inputSchema: object({{a: {{type: 'number'}}, b: {{type: 'number'}}}}, ['a', 'b']),
      execute: ({{a, b}}) => ({{sum: a + b}})}},
    {{name: 'big', description: 'Returns an array of {rows} rows (~1 MB of JSON)',
      inputSchema: object({{}}),
      execute: () => Array.from({{length: {rows}}}, (_, i) => ({{i, s: 'x'.repeat(90)}}))}},
  ];
  window.benchTools = Object.fromEntries(tools.map(t => [t.name, t.execute]));
  window.addEventListener('devtoolstooldiscovery', (event) => {{
    event.respondWith({{name: 'bench', description: 'Bench fixture tools', tools}});
  }});
}})();
</script></body></html>
"#,
        rows = BIG_ROWS
    )
}

/// Serves fixed pages on 127.0.0.1 from a background thread, one short-lived thread per
/// connection (`Connection: close`), for as long as the process lives.
pub struct Fixtures {
    pub port: u16,
}

impl Fixtures {
    pub fn start(pages: &[(&str, String)]) -> Fixtures {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("local addr").port();
        let pages: Arc<HashMap<String, String>> = Arc::new(
            pages
                .iter()
                .map(|(path, body)| (path.to_string(), body.clone()))
                .collect(),
        );
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let pages = pages.clone();
                thread::spawn(move || serve(stream, &pages));
            }
        });
        Fixtures { port }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

fn serve(mut stream: TcpStream, pages: &HashMap<String, String>) {
    let mut request = Vec::new();
    let mut chunk = [0u8; 4096];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&chunk[..n]),
        }
    }
    let text = String::from_utf8_lossy(&request);
    let path = text.split_whitespace().nth(1).unwrap_or("/");
    let (status, body) = match pages.get(path) {
        Some(body) => ("200 OK", body.as_str()),
        None => ("404 Not Found", "not found"),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

// ---------------------------------------------------------------------------------------------
// /proc
// ---------------------------------------------------------------------------------------------

/// A field of /proc/<pid>/status in kB (VmHWM, VmRSS, …).
pub fn status_kb(pid: u32, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find(|l| l.starts_with(key) && l[key.len()..].starts_with(':'))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

/// A field of /proc/<pid>/smaps_rollup in kB: `Pss` (the proportional set size: shared
/// pages split among their users, so a tree's sum counts each page once), `Pss_Anon`, …
pub fn smaps_kb(pid: u32, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    text.lines()
        .find(|l| l.starts_with(key) && l[key.len()..].starts_with(':'))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

/// A browser tree's footprint, summed over its processes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Footprint {
    /// PSS in kB.
    pub pss: u64,
    /// The anonymous part of the PSS in kB: the tree's own memory. The rest is mostly the
    /// browser's binary and libraries, whose share depends on how many other processes on the
    /// machine map the same files (other browsers of the same build lower it).
    pub anon: u64,
    pub processes: usize,
}

pub fn tree_pss(pids: &[u32]) -> Footprint {
    let mut footprint = Footprint::default();
    for pid in pids {
        if let Some(pss) = smaps_kb(*pid, "Pss") {
            footprint.pss += pss;
            footprint.anon += smaps_kb(*pid, "Pss_Anon").unwrap_or(0);
            footprint.processes += 1;
        }
    }
    footprint
}

/// Every process below `pid` (the browser and its helpers), by each process's parent in
/// /proc (a child started by another thread of its parent counts too).
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(p) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
        let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
        if let Some(ppid) = after_name
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.parse().ok())
        {
            parents.push((p, ppid));
        }
    }
    let mut all = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for (child, _) in parents.iter().filter(|(_, parent)| *parent == p) {
            all.push(*child);
            todo.push(*child);
        }
    }
    all
}

/// Direct children of a process.
pub fn children(pid: u32) -> Vec<u32> {
    let path = format!("/proc/{pid}/task/{pid}/children");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The MCP server over stdio
// ---------------------------------------------------------------------------------------------

pub struct Mcp {
    pub child: Child,
    stdin: Option<ChildStdin>,
    out: BufReader<ChildStdout>,
    next_id: u64,
    pub stderr_path: PathBuf,
    /// When spawn() was called.
    pub spawned: Instant,
}

/// One answer: the parsed message, the latency and the size of its line.
pub struct Answer {
    pub message: Value,
    pub latency: Duration,
    pub bytes: usize,
    /// When the complete line had been read.
    pub arrived: Instant,
}

impl Answer {
    /// The text content of a tool result, joined with newlines.
    pub fn text(&self) -> String {
        self.message["result"]["content"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(|x| x["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_else(|| self.message["error"].to_string())
    }

    pub fn is_error(&self) -> bool {
        self.message.get("error").is_some() || self.message["result"]["isError"] == true
    }
}

static STDERR_COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Mcp {
    /// The server on its default browser.
    pub fn spawn() -> Mcp {
        Mcp::spawn_on(&default_browser(), &[])
    }

    /// The server on its default browser, with `extra` flags after [`server_args`].
    pub fn spawn_with(extra: &[&str]) -> Mcp {
        Mcp::spawn_on(&default_browser(), extra)
    }

    /// The server on `browser`, with `extra` flags after [`server_args`].
    pub fn spawn_on(browser: &BrowserKind, extra: &[&str]) -> Mcp {
        let mut args = server_args(browser);
        args.extend(extra.iter().map(|a| a.to_string()));
        Mcp::spawn_program(&server(), &args)
    }

    /// Any MCP server program with exactly `args` (the reference, to compare with).
    pub fn spawn_program(program: &str, args: &[String]) -> Mcp {
        let n = STDERR_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let stderr_path =
            std::env::temp_dir().join(format!("devtools-mcp-bench-{}-{n}.log", std::process::id()));
        let stderr = File::create(&stderr_path).expect("create the server's stderr log");
        let spawned = Instant::now();
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn the release binary");
        let stdin = child.stdin.take();
        let out = BufReader::with_capacity(1 << 20, child.stdout.take().expect("stdout"));
        Mcp {
            child,
            stdin,
            out,
            next_id: 0,
            stderr_path,
            spawned,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn write(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).expect("serialize");
        line.push(b'\n');
        let stdin = self.stdin.as_mut().expect("stdin open");
        if let Err(e) = stdin.write_all(&line) {
            self.die(&format!("writing to the server failed: {e}"));
        }
    }

    /// Sends a request and reads lines until its answer; notifications are skipped.
    pub fn request(&mut self, method: &str, params: Value) -> Answer {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut line = serde_json::to_vec(&message).expect("serialize");
        line.push(b'\n');
        let mut buf = Vec::with_capacity(256);
        let sent = Instant::now();
        if let Err(e) = self.stdin.as_mut().expect("stdin open").write_all(&line) {
            self.die(&format!("writing to the server failed: {e}"));
        }
        loop {
            buf.clear();
            match self.out.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => self.die(&format!("the server closed stdout during {method}")),
                Ok(_) => {}
            }
            let arrived = Instant::now();
            let Ok(reply) = serde_json::from_slice::<Value>(&buf) else {
                continue;
            };
            if reply["id"] == id && reply.get("method").is_none() {
                return Answer {
                    message: reply,
                    latency: arrived - sent,
                    bytes: buf.len(),
                    arrived,
                };
            }
        }
    }

    pub fn notify(&mut self, method: &str) {
        self.write(&json!({"jsonrpc": "2.0", "method": method}));
    }

    pub fn initialize(&mut self) -> Answer {
        let answer = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "devtools-mcp-bench", "version": "1"},
            }),
        );
        self.notify("notifications/initialized");
        answer
    }

    pub fn call(&mut self, tool: &str, arguments: Value) -> Answer {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// A tool call that must succeed (a bench measures nothing useful after a failure).
    pub fn call_ok(&mut self, tool: &str, arguments: Value) -> Answer {
        let answer = self.call(tool, arguments);
        if answer.is_error() {
            let text = answer.text();
            self.die(&format!("{tool} failed: {text}"));
        }
        answer
    }

    /// Closes stdin (the stdio shutdown signal) and waits for the exit; returns how long it
    /// took. Kills the server after 10 s.
    pub fn close(mut self) -> Duration {
        let started = Instant::now();
        drop(self.stdin.take());
        let deadline = started + Duration::from_secs(10);
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_micros(200)),
                _ => {
                    eprintln!("the server did not exit within 10 s of stdin closing; killing it");
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break;
                }
            }
        }
        let took = started.elapsed();
        let _ = std::fs::remove_file(&self.stderr_path);
        took
    }

    fn die(&mut self, why: &str) -> ! {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let log = std::fs::read_to_string(&self.stderr_path).unwrap_or_default();
        let tail: String = log
            .chars()
            .rev()
            .take(4000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        panic!("{why}\n--- server stderr (tail) ---\n{tail}");
    }
}

/// CPU time a process (all its threads) has used so far, in ms, from the scheduler's
/// nanosecond counters (/proc/<pid>/task/*/schedstat; the tick-based counters of
/// /proc/<pid>/stat are too coarse for sub-millisecond calls).
pub fn cpu_ms(pid: u32) -> f64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0.0;
    };
    let mut ns = 0u64;
    for task in tasks.flatten() {
        let text = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        ns += text
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
    }
    ns as f64 / 1e6
}
