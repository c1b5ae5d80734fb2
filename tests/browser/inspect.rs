//! `take_heapsnapshot` and `screencast_start` / `screencast_stop` against
//! real Chromium: what lands in the files, the reference's answers, and the refusals.

use std::path::PathBuf;
use std::process::Command;

use crate::support::calls::eval;
use crate::support::{started, started_in, Fixtures};
use serde_json::{json, Value};

/// A folder under the temp dir for this test's files, emptied first.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "devtools-mcp-inspect-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_heap_snapshot_is_written_whole_and_names_the_page_objects() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/inspect/heap.html")}));
    let dir = scratch_dir("heap");
    // The extension becomes .heapsnapshot, as in the reference; missing folders are made.
    let asked = dir.join("sub/page.json");
    let r = mcp.call_ok("take_heapsnapshot", json!({"filePath": asked}));
    let written = dir.join("sub/page.heapsnapshot");
    assert!(
        r.text
            .starts_with(&format!("Heap snapshot saved to {}", written.display())),
        "{}",
        r.text
    );
    // The file is one JSON document in V8's snapshot format, with the page's class in it.
    let text = std::fs::read_to_string(&written).unwrap();
    let snapshot: Value = serde_json::from_str(&text).expect("the snapshot is whole JSON");
    let meta = &snapshot["snapshot"]["meta"];
    assert!(meta["node_fields"].is_array(), "{meta}");
    let strings = snapshot["strings"].as_array().unwrap();
    assert!(strings.iter().any(|s| s == "LeakyThing"));
    let node_count = snapshot["snapshot"]["node_count"].as_u64().unwrap();
    assert!(node_count > 500, "{node_count}");

    // The page keeps working, and a second snapshot can be taken.
    assert_eq!(eval(&mcp, "() => kept.length"), json!(500));
    mcp.call_ok(
        "take_heapsnapshot",
        json!({"filePath": dir.join("again.heapsnapshot")}),
    );
    assert!(dir.join("again.heapsnapshot").metadata().unwrap().len() > 1000);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_heap_snapshot_needs_a_path_inside_the_roots() {
    let fx = Fixtures::start();
    let tmp = scratch_dir("heap-roots");
    std::fs::create_dir_all(&tmp).unwrap();
    let mcp = started_in(&tmp, &[]);
    mcp.initialize();
    mcp.call_ok("new_page", json!({"url": fx.url("/inspect/heap.html")}));
    let r = mcp.call_err("take_heapsnapshot", json!({}));
    assert!(r.text.contains("filePath"), "{}", r.text);
    let r = mcp.call_err(
        "take_heapsnapshot",
        json!({"filePath": "/proc/self/x.heapsnapshot"}),
    );
    assert!(r.text.contains("Access denied"), "{}", r.text);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A leak budget as a pipeline holds one: the server snapshots the leaky page before and
/// after it grows twice, and `devtools-mcp heap --compare` with budgets on what it leaks
/// exits 1 naming each broken one; the same steps on the page with its fix (`?fixed`: what
/// `grow()` made is let go) exit 0.
#[test]
fn a_leak_budget_fails_on_the_leaky_page_and_passes_once_it_is_fixed() {
    let fx = Fixtures::start();
    let dir = scratch_dir("leak-budget");
    let budgets = |page: &str, name: &str| {
        let mcp = started();
        mcp.call_ok(
            "new_page",
            json!({"url": fx.url(&format!("/heap/pages/{page}"))}),
        );
        let before = dir.join(format!("{name}-before.heapsnapshot"));
        let after = dir.join(format!("{name}-after.heapsnapshot"));
        mcp.call_ok("take_heapsnapshot", json!({"filePath": before}));
        eval(
            &mcp,
            "() => { grow(); grow(); return window.leaks.length; }",
        );
        mcp.call_ok("take_heapsnapshot", json!({"filePath": after}));
        let out = Command::new(env!("CARGO_BIN_EXE_devtools-mcp"))
            .arg("heap")
            .arg("--compare")
            .args([&before, &after])
            .args(["--max-growth", "Leak=0", "--max-growth", "Detached <li>=0"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), stderr)
    };

    let (code, stderr) = budgets("leaky.html", "leaky");
    assert_eq!(code, Some(1), "{stderr}");
    // Two growths of 200 `Leak` objects each, and of four detached lists of five items.
    assert!(
        stderr.contains("budget broken: Leak gained 400 objects (at most 0 allowed)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("budget broken: Detached <li> gained 40 objects (at most 0 allowed)"),
        "{stderr}"
    );

    let (code, stderr) = budgets("leaky.html?fixed", "fixed");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("budget broken"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_screencast_records_an_mp4_until_stopped() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/inspect/moving.html")}));
    let dir = scratch_dir("cast");
    std::fs::create_dir_all(&dir).unwrap();

    let r = mcp.call_ok("screencast_stop", json!({}));
    assert_eq!(
        r.text.lines().next(),
        Some("Error: no active screencast recording to stop.")
    );

    let asked = dir.join("movie.webm");
    let saved = dir.join("movie.mp4");
    let r = mcp.call_ok("screencast_start", json!({"filePath": asked}));
    assert_eq!(
        r.text.lines().next().unwrap(),
        format!(
            "Screencast recording started. The recording will be saved to {}. Use screencast_stop to stop recording.",
            saved.display()
        )
    );
    let r = mcp.call_ok("screencast_start", json!({}));
    assert_eq!(
        r.text.lines().next(),
        Some("Error: a screencast recording is already in progress. Use screencast_stop to stop it before starting a new one.")
    );
    // Frames for a while: the page animates, so the recording grows with each one.
    eval(&mcp, "() => new Promise(r => { let n = 0; (function f() { if (++n > 30) r(n); else requestAnimationFrame(f); })(); })");
    let r = mcp.call_ok("screencast_stop", json!({}));
    assert_eq!(
        r.text.lines().next().unwrap(),
        format!(
            "The screencast recording has been stopped and saved to {}.",
            saved.display()
        )
    );
    let bytes = std::fs::read(&saved).unwrap();
    // An ISO media file starts with its `ftyp` box.
    assert!(bytes.len() > 1000, "{} bytes", bytes.len());
    assert_eq!(&bytes[4..8], b"ftyp");

    // Stopped means stopped; a new recording may start, into a temporary file by default.
    let r = mcp.call_ok("screencast_stop", json!({}));
    assert_eq!(
        r.text.lines().next(),
        Some("Error: no active screencast recording to stop.")
    );
    let r = mcp.call_ok("screencast_start", json!({}));
    assert!(r.text.contains("screencast.mp4"), "{}", r.text);
    mcp.call_ok("screencast_stop", json!({}));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------- CSS styles

/// The reference's answers (see tests/fixtures/inspect/reference/README.md): for each
/// `=== text "…" args {…}` header, the text that follows.
fn reference_answers(file: &str) -> Vec<(String, Value, String)> {
    let path = format!(
        "{}/tests/fixtures/inspect/reference/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<(String, Value, String)> = Vec::new();
    for line in text.lines() {
        if let Some(header) = line.strip_prefix("=== text ") {
            let (quoted, args) = header.split_once(" args ").unwrap();
            let element: String = serde_json::from_str(quoted).unwrap();
            out.push((element, serde_json::from_str(args).unwrap(), String::new()));
        } else if let Some((_, _, answer)) = out.last_mut() {
            if !answer.is_empty() {
                answer.push('\n');
            }
            answer.push_str(line);
        }
    }
    out
}

/// Asks for every case of a reference file on its page and compares the text exactly.
fn styles_match_the_reference(page: &str, file: &str) {
    let fx = Fixtures::start_in(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inspect"),
    );
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url(&format!("/{page}"))}));
    let snapshot = mcp.call_ok("take_snapshot", json!({})).text;
    let cases = reference_answers(file);
    assert!(!cases.is_empty());
    for (element, args, want) in cases {
        let uid = crate::support::calls::uid_of(&snapshot, &format!("\"{element}\""));
        let mut args = args;
        args["uid"] = json!(uid);
        let r = mcp.call_ok("get_css_styles", args.clone());
        assert_eq!(r.text.trim_end(), want.trim_end(), "{element:?} {args}");
    }
}

#[test]
fn css_styles_match_the_reference_rules_inheritance_and_pseudo_elements() {
    styles_match_the_reference("styles.html", "styles.txt");
}

#[test]
fn css_styles_match_the_reference_layers_supports_and_browser_rules() {
    styles_match_the_reference("styles2.html", "styles2.txt");
}

/// `@keyframes`, `@position-try` (inactive) and `@property` after the element's rules, and
/// the element an `@container` rule queried.
#[test]
fn css_styles_match_the_reference_at_rules() {
    styles_match_the_reference("styles3.html", "styles3.txt");
}

#[test]
fn css_styles_need_a_snapshot_and_a_known_uid() {
    let fx = Fixtures::start_in(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inspect"),
    );
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/styles.html")}));
    let r = mcp.call_err("get_css_styles", json!({"uid": "1_2"}));
    assert!(
        r.text
            .contains("No snapshot found for page 2. Use take_snapshot to capture one."),
        "{}",
        r.text
    );
    mcp.call_ok("take_snapshot", json!({}));
    let r = mcp.call_err("get_css_styles", json!({"uid": "9_99"}));
    assert!(
        r.text.contains("Element uid \"9_99\" not found on page 2."),
        "{}",
        r.text
    );
    // A uid from before the page changed no longer names an element.
    eval(
        &mcp,
        "() => { document.body.innerHTML = '<p>new</p>'; return 1; }",
    );
    let r = mcp.call_err("get_css_styles", json!({"uid": "1_2"}));
    assert!(
        r.text
            .contains("was detached or no longer exists on the page"),
        "{}",
        r.text
    );
}
