//! `devtools-mcp heap`: a snapshot's summary and two snapshots' comparison on stdout, the
//! texts the reference answered for the same files (`tests/fixtures/heap/answers.json`), and
//! `--max-growth` leak budgets: exit 1 when a class gained more objects than allowed, 2 on a
//! usage or file error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/heap")
        .join(name)
}

fn heap(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_devtools-mcp"))
        .arg("heap")
        .args(args)
        .output()
        .unwrap()
}

fn path(name: &str) -> String {
    fixture(name).to_str().unwrap().to_owned()
}

/// The reference's answer to `tool` with exactly `args` (paths under `{dir}`).
fn recorded(tool: &str, args: Value) -> String {
    let text = std::fs::read_to_string(fixture("answers.json")).unwrap();
    let answers: Vec<Value> = serde_json::from_str(&text).unwrap();
    let answer = answers
        .iter()
        .find(|a| a["tool"] == tool && a["args"] == args)
        .unwrap_or_else(|| panic!("no recorded answer to {tool} {args}"));
    answer["text"].as_str().unwrap().to_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn the_heap_command_prints_the_summary_the_tool_answers() {
    let out = heap(&[&path("before.heapsnapshot.gz")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let want = recorded(
        "get_heapsnapshot_summary",
        serde_json::json!({"filePath": "{dir}/before.heapsnapshot"}),
    );
    assert_eq!(stdout(&out).trim_end(), want.trim_end());
}

#[test]
fn compare_prints_the_comparison_and_holds_leak_budgets() {
    let (before, after) = (
        path("before.heapsnapshot.gz"),
        path("after.heapsnapshot.gz"),
    );
    let out = heap(&["--compare", &before, &after]);
    assert!(out.status.success(), "{}", stderr(&out));
    let want = recorded(
        "compare_heapsnapshots",
        serde_json::json!({"baseFilePath": "{dir}/before.heapsnapshot",
            "currentFilePath": "{dir}/after.heapsnapshot"}),
    );
    assert_eq!(stdout(&out).trim_end(), want.trim_end());

    // The leaky page gained 400 `Leak` objects and 40 detached <li> between the two.
    let budgets = [
        "--max-growth",
        "Leak=400",
        "--max-growth",
        "Detached <li>=40",
    ];
    let out = heap(&[&["--compare", &before, &after], &budgets[..]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let budgets = [
        "--max-growth",
        "Leak=400",
        "--max-growth",
        "Detached <li>=39",
    ];
    let out = heap(&[&["--compare", &before, &after], &budgets[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("budget broken: Detached <li> gained 40 objects (at most 39 allowed)"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("Leak gained"), "{}", stderr(&out));

    // The other way round the leak is freed: no class gained.
    let out = heap(&["--compare", &after, &before, "--max-growth", "Leak=0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_bad_file_or_budget_exits_2_saying_what_is_wrong() {
    let out = heap(&["/nonexistent/x.heapsnapshot"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot open /nonexistent/x.heapsnapshot"),
        "{}",
        stderr(&out)
    );
    let not_a_snapshot = path("answers.json");
    let out = heap(&[
        "--compare",
        &path("before.heapsnapshot.gz"),
        &not_a_snapshot,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(
        said.contains(&format!(
            "the heap snapshot {not_a_snapshot} could not be read"
        )),
        "{said}"
    );
    assert!(stdout(&out).is_empty());
    let before = path("before.heapsnapshot.gz");
    let out = heap(&["--compare", &before, &before, "--max-growth", "Leak"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not CLASS=N"), "{}", stderr(&out));
    let out = heap(&[&before, "--max-growth", "Leak=1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("needs --compare"), "{}", stderr(&out));
    let out = heap(&[]);
    assert_eq!(out.status.code(), Some(2));
}
