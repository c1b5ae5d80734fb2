//! The reference's newer flags that the real binary settles before any browser: URL patterns
//! it cannot enforce stop it, and `--config` files (what the flags do to pages is in
//! `browser/flags.rs`).

use std::time::Duration;

use crate::support::calls::tool;
use crate::support::{started_with, Mcp};
use serde_json::json;

#[test]
fn unenforceable_patterns_stop_the_server() {
    for (flag, words) in [
        (
            "--blockedUrlPattern=*://127.0.0.*/*",
            "partial IPv4 wildcard",
        ),
        ("--allowedUrlPattern=*://h/:id", "named group"),
        ("--blockedUrlPattern=*://h/(a|b)", "regexp group"),
    ] {
        let mcp = Mcp::start_raw(&[flag]);
        let status = mcp.wait_exit(Duration::from_secs(10));
        assert!(status.is_some_and(|s| !s.success()), "{flag}: {status:?}");
        assert!(
            mcp.stderr_log().contains(words),
            "{flag}: {}",
            mcp.stderr_log()
        );
    }
}

#[test]
fn config_files() {
    let dir = std::env::temp_dir().join(format!("devtools-mcp-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.json");
    std::fs::write(
        &good,
        r#"{"pageIdRouting": true, "screenshotFormat": "webp", "usageStatistics": false}"#,
    )
    .unwrap();
    let flag = format!("--config={}", good.display());
    // The file's settings apply; the command line wins over them.
    let mcp = started_with(&[&flag, "--screenshotFormat=png"]);
    let tools = mcp.list_tools();
    let shot = tool(&tools, "take_screenshot").expect("take_screenshot");
    assert_eq!(shot["inputSchema"]["required"], json!(["pageId"]));
    assert_eq!(
        shot["inputSchema"]["properties"]["format"]["default"],
        "png"
    );
    drop(mcp);

    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"headless": true, "bogusKey": 1, "otherBogus": "x"}"#,
    )
    .unwrap();
    let flag = format!("--config={}", bad.display());
    let mcp = Mcp::start_raw(&[&flag]);
    let status = mcp.wait_exit(Duration::from_secs(10));
    assert!(status.is_some_and(|s| !s.success()), "{status:?}");
    assert!(
        mcp.stderr_log()
            .contains("Invalid JSON config file: Unknown arguments: bogusKey, otherBogus"),
        "{}",
        mcp.stderr_log()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
