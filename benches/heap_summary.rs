//! The heap snapshot tools on a large snapshot: `get_heapsnapshot_summary` on a snapshot of a
//! page holding ~1.9 million objects (~325 MB), time to the answer and the server's peak RSS, ours
//! against chrome-devtools-mcp (DevTools' heap snapshot worker in Node) on the same file, in
//! `HEAP_ROUNDS` interleaved rounds (a fresh server each), each round's figures and the
//! medians printed; the two answers must be identical in every round.
//!
//! The snapshot is recorded first (the release server, a blank page that builds
//! `HEAP_OBJECTS` objects, `take_heapsnapshot`), unless `HEAP_SNAPSHOT` names one.
//!
//!     cargo bench --bench heap_summary          # HEAP_OBJECTS=1870000, ~325 MB, HEAP_ROUNDS=3
//!     REFERENCE=/path/to/reference.sh cargo bench --bench heap_summary

mod common;

use std::path::{Path, PathBuf};

use common::{env_count, status_kb, summarize, Mcp};
use serde_json::json;

const REFERENCE: &str = "../shared/bench/reference.sh";

/// Objects the recorded page holds by default: a snapshot of ~325 MB, the size the
/// reference was first measured on.
const OBJECTS: usize = 1_870_000;

/// Rounds of the two side by side: the medians are what a noisy machine can vouch for.
const ROUNDS: usize = 3;

fn main() {
    let snapshot = match std::env::var("HEAP_SNAPSHOT") {
        Ok(path) => PathBuf::from(path),
        Err(_) => record(env_count("HEAP_OBJECTS", OBJECTS)),
    };
    let mb = std::fs::metadata(&snapshot).map_or(0.0, |m| m.len() as f64 / 1e6);
    println!("snapshot: {} ({mb:.0} MB)", snapshot.display());
    let named = std::env::var("REFERENCE").unwrap_or_else(|_| REFERENCE.to_owned());
    let reference = Path::new(&named).exists().then(|| named.clone());
    if reference.is_none() {
        println!("reference: not found at {named}");
    }
    let rounds = env_count("HEAP_ROUNDS", ROUNDS).max(1);
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        // Each goes first in every other round, so a machine that slows down or speeds up
        // through the run weighs on both alike.
        let run_ours = || summary(Mcp::spawn_with(&["--memoryDebugging"]), &snapshot);
        let run_theirs = || {
            let args = ["--memoryDebugging".to_owned()];
            let program = reference.as_ref()?;
            Some(summary(Mcp::spawn_program(program, &args), &snapshot))
        };
        let ((text, our_ms, our_kb), other) = if round % 2 == 1 {
            let mine = run_ours();
            (mine, run_theirs())
        } else {
            let other = run_theirs();
            (run_ours(), other)
        };
        print!(
            "round {round}: ours {our_ms:>6.0} ms {:>7.1} MB",
            mib(our_kb)
        );
        ours.push((our_ms, our_kb as f64));
        if let Some((their_text, ref_ms, ref_kb)) = other {
            assert_eq!(text, their_text, "the two summaries differ");
            print!(
                "   reference {ref_ms:>6.0} ms {:>7.1} MB   ratio: time {:.3}, peak RSS {:.3}",
                mib(ref_kb),
                our_ms / ref_ms,
                our_kb as f64 / ref_kb as f64
            );
            theirs.push((ref_ms, ref_kb as f64));
        }
        println!();
    }
    let ours = medians("ours", &ours);
    if theirs.is_empty() {
        return;
    }
    let theirs = medians("reference", &theirs);
    println!(
        "ratio of the medians (ours / reference): time {:.3}, peak RSS {:.3}; answers identical",
        ours.0 / theirs.0,
        ours.1 / theirs.1
    );
}

fn mib(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

/// Prints one side's median, least and greatest time and peak RSS; gives the medians (ms, kB).
fn medians(side: &str, runs: &[(f64, f64)]) -> (f64, f64) {
    let time = summarize(&runs.iter().map(|r| r.0).collect::<Vec<_>>());
    let peak = summarize(&runs.iter().map(|r| r.1 / 1024.0).collect::<Vec<_>>());
    println!(
        "{side:<10} median {:>6.0} ms (min {:.0}, max {:.0})   peak RSS median {:>7.1} MB (min {:.1}, max {:.1})",
        time.p50, time.min, time.max, peak.p50, peak.min, peak.max
    );
    (time.p50, peak.p50 * 1024.0)
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
