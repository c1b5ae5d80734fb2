//! The heap snapshot tools on a large snapshot: `get_heapsnapshot_summary` on a snapshot of a
//! page holding ~1.9 million objects (~325 MB), time to the answer and the server's peak RSS, ours
//! against chrome-devtools-mcp (DevTools' heap snapshot worker in Node) on the same file, one
//! run each; the two answers must be identical before any figure is printed.
//!
//! The snapshot is recorded first (the release server, a blank page that builds
//! `HEAP_OBJECTS` objects, `take_heapsnapshot`), unless `HEAP_SNAPSHOT` names one.
//!
//!     cargo bench --bench heap_summary          # HEAP_OBJECTS=1870000, ~325 MB
//!     REFERENCE=/path/to/reference.sh cargo bench --bench heap_summary

mod common;

use std::path::{Path, PathBuf};

use common::{env_count, status_kb, Mcp};
use serde_json::json;

const REFERENCE: &str = "../shared/bench/reference.sh";

/// Objects the recorded page holds by default: a snapshot of ~325 MB, the size the
/// reference was first measured on.
const OBJECTS: usize = 1_870_000;

fn main() {
    let snapshot = match std::env::var("HEAP_SNAPSHOT") {
        Ok(path) => PathBuf::from(path),
        Err(_) => record(env_count("HEAP_OBJECTS", OBJECTS)),
    };
    let mb = std::fs::metadata(&snapshot).map_or(0.0, |m| m.len() as f64 / 1e6);
    println!("snapshot: {} ({mb:.0} MB)", snapshot.display());
    let (ours, our_ms, our_kb) = summary(Mcp::spawn_with(&["--memoryDebugging"]), &snapshot);
    println!(
        "ours:      {our_ms:>8.0} ms   peak RSS {:>7.1} MB",
        our_kb as f64 / 1024.0
    );
    let reference = std::env::var("REFERENCE").unwrap_or_else(|_| REFERENCE.to_owned());
    if !Path::new(&reference).exists() {
        println!("reference: not found at {reference}");
        return;
    }
    let theirs = Mcp::spawn_program(&reference, &["--memoryDebugging".to_owned()]);
    let (text, ref_ms, ref_kb) = summary(theirs, &snapshot);
    println!(
        "reference: {ref_ms:>8.0} ms   peak RSS {:>7.1} MB",
        ref_kb as f64 / 1024.0
    );
    assert_eq!(ours, text, "the two summaries differ");
    println!(
        "ratio (ours / reference): time {:.3}, peak RSS {:.3}; answers identical",
        our_ms / ref_ms,
        our_kb as f64 / ref_kb as f64
    );
}

/// A snapshot of a blank page holding `objects` small objects, in the temp directory.
fn record(objects: usize) -> PathBuf {
    let path = std::env::temp_dir().join(format!("heap-bench-{objects}.heapsnapshot"));
    if path.exists() {
        return path;
    }
    // A large page takes its time to build and to write out on a busy machine.
    let mut mcp = Mcp::spawn_with(&["--toolTimeout=600000"]);
    mcp.initialize();
    let build = format!(
        "() => {{ window.kept = []; for (let i = 0; i < {objects}; i++) kept.push({{i, next: null}}); return kept.length; }}"
    );
    mcp.call_ok("evaluate_script", json!({"function": build}));
    // Written aside and renamed once whole, so an interrupted recording is never reused.
    let partial = path.with_extension("partial.heapsnapshot");
    mcp.call_ok("take_heapsnapshot", json!({"filePath": partial}));
    mcp.close();
    if let Err(e) = std::fs::rename(&partial, &path) {
        panic!("{}: {e}", path.display());
    }
    path
}

/// The summary's text, the time to it (ms) and the server's peak RSS (kB) after it.
fn summary(mut mcp: Mcp, snapshot: &Path) -> (String, f64, u64) {
    mcp.initialize();
    let answer = mcp.call_ok("get_heapsnapshot_summary", json!({"filePath": snapshot}));
    let peak = status_kb(mcp.pid(), "VmHWM").unwrap_or(0);
    mcp.close();
    (answer.text(), answer.latency.as_secs_f64() * 1e3, peak)
}
