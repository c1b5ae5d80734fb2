//! File paths stay inside the client's roots, the `--workspace` (`--filesystemRoot`) folders
//! and the temp directory, as in chrome-devtools-mcp 1.11 (the reference), against the real
//! binary and real headless Chromium.
//!
//! Pages come from `tests/fixtures/pages_script/`; the helpers are in `support/pages.rs`.

use std::fs;
use std::time::Duration;

use crate::support::calls::{assert_no_response, call_async, error_text, tool_result};
use crate::support::{started_in, Mcp, ToolResult, PROMPT};
use serde_json::json;

// ---------------------------------------------------------------- file paths

fn save(mcp: &Mcp, path: &std::path::Path) -> ToolResult {
    mcp.call(
        "evaluate_script",
        json!({"function": "() => 42", "filePath": path.to_str().expect("utf-8 path")}),
    )
}

fn denied(path: &std::path::Path) -> String {
    let canonical = fs::canonicalize(path.parent().expect("a folder"))
        .expect("folder exists")
        .join(path.file_name().expect("a name"));
    error_text(&format!(
        "Access denied: path {} (canonical: {}) is not within any of the configured workspace roots.",
        path.display(),
        canonical.display()
    ))
}

#[test]
fn files_are_written_only_inside_the_roots() {
    let base = std::env::temp_dir().join(format!("dtmcp-roots-{}", std::process::id()));
    let (tmp, outside, elsewhere) = (
        base.join("tmp"),
        base.join("outside"),
        base.join("elsewhere"),
    );
    for d in [&tmp, &outside, &elsewhere] {
        fs::create_dir_all(d).expect("scratch folder");
    }

    // No client roots, no flags: the temp directory only, as the reference does.
    let mcp = started_in(&tmp, &[]);
    mcp.initialize();
    let r = save(&mcp, &outside.join("a.json"));
    assert_eq!(r.text, denied(&outside.join("a.json")));
    assert!(r.is_error && !outside.join("a.json").exists());
    let r = save(&mcp, &tmp.join("a.json"));
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(
        fs::read_to_string(tmp.join("a.json")).expect("written"),
        "42"
    );
    // Files a launched browser would read (uploads) too.
    fs::write(outside.join("up.txt"), "x").expect("scratch file");
    let r = mcp.call(
        "upload_file",
        json!({"uid": "1_1", "filePaths": [outside.join("up.txt").to_str().unwrap()]}),
    );
    assert_eq!(r.text, denied(&outside.join("up.txt")));
    drop(mcp);

    // --allowUnrestrictedPaths: anywhere. --workspace (--filesystemRoot): that folder too.
    let mcp = started_in(&tmp, &["--allowUnrestrictedPaths"]);
    mcp.initialize();
    assert!(!save(&mcp, &outside.join("b.json")).is_error);
    drop(mcp);
    let outside_text = outside.to_str().expect("utf-8 path");
    let mcp = started_in(&tmp, &["--workspace", outside_text]);
    mcp.initialize();
    assert!(!save(&mcp, &outside.join("c.json")).is_error);
    assert_eq!(
        save(&mcp, &elsewhere.join("c.json")).text,
        denied(&elsewhere.join("c.json"))
    );
    drop(mcp);

    // A client with roots: asked at once; a call made before the answer waits for it.
    let mcp = started_in(&tmp, &[]);
    mcp.initialize_with("2025-06-18", json!({"roots": {"listChanged": true}}));
    let ask = mcp.wait_notification("roots/list", PROMPT);
    let call = call_async(
        &mcp,
        "evaluate_script",
        json!({"function": "() => 42", "filePath": outside.join("d.json").to_str().unwrap()}),
    );
    assert_no_response(&mcp, call, Duration::from_millis(300));
    let uri = format!("file://{}", outside_text.replace(' ', "%20"));
    mcp.respond(
        &ask["id"],
        json!({"roots": [{"uri": uri, "name": "outside"}]}),
    );
    let r = tool_result(&mcp.wait_response(call));
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(
        save(&mcp, &elsewhere.join("d.json")).text,
        denied(&elsewhere.join("d.json"))
    );
    // The roots changed: asked again; now only the temp directory is left.
    mcp.notify("notifications/roots/list_changed", serde_json::Value::Null);
    let ask = mcp.wait_notification("roots/list", PROMPT);
    mcp.respond(&ask["id"], json!({"roots": []}));
    assert_eq!(
        save(&mcp, &outside.join("e.json")).text,
        denied(&outside.join("e.json"))
    );
    assert!(!save(&mcp, &tmp.join("e.json")).is_error);
    let _ = fs::remove_dir_all(&base);
}
