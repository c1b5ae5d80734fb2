//! `devtools-mcp trace FILE`: the summary and insights of a recorded trace on stdout, as the
//! analyser (`offline/trace_fixtures.rs`) computes them, and the command's exits.

use std::fs;

use crate::offline::trace_fixtures::dir;
use devtools_mcp::trace;

#[test]
fn the_trace_command_prints_the_summary_and_insights() {
    let exe = env!("CARGO_BIN_EXE_devtools-mcp");
    let file = dir().join("interaction.json.gz");
    let out = std::process::Command::new(exe)
        .arg("trace")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("## Summary of Performance trace findings:\n"),
        "{text}"
    );
    assert!(
        text.contains("  - INP: 455 ms, event: (eventKey: s-1680, ts: 10244725262)\n"),
        "{text}"
    );
    let out = std::process::Command::new(exe)
        .args(["trace", "--insight", "INPBreakdown"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let theirs =
        fs::read_to_string(dir().join("interaction.insight.NO_NAVIGATION.INPBreakdown.txt"))
            .unwrap();
    assert_eq!(text.trim_end(), theirs.trim_end());
    // TBT after the summary, for a navigation (Lighthouse's definition): of the three busy
    // loops the first ends before FCP (809 ms), the second straddles it (181 ms after it),
    // the third runs 125 ms: 131 + 75 = 205 ms; the trace ends before 5 quiet seconds.
    let out = std::process::Command::new(exe)
        .arg("trace")
        .arg(dir().join("long-tasks.json.gz"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.ends_with("\n\nTBT (NAVIGATION_0): 205 ms, long tasks on the main thread from FCP to the end of the trace (no 5 s without long tasks after FCP)\n"), "{text}");
    let file = fs::File::open(dir().join("long-tasks.json.gz")).unwrap();
    let report = trace::analyse_reader(file).unwrap();
    let tbt = trace::total_blocking_time(&report, &report.sets[0]).unwrap();
    assert!((tbt.total - 205_370.0).abs() < 1.0, "{tbt:?}");
    assert!(!tbt.interactive);
    // A file that is not a trace fails with a message and status 1.
    let out = std::process::Command::new(exe)
        .args(["trace"])
        .arg(dir().join("README.md"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!out.stderr.is_empty());
}

/// A reader that stopped reading (`| head`) ends the command quietly with the status of a
/// closed pipe, never a panic.
#[test]
fn the_trace_command_ends_quietly_when_its_reader_is_gone() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_devtools-mcp"))
        .arg("trace")
        .arg(dir().join("interaction.json.gz"))
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}
