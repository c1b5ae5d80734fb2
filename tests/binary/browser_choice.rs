//! Which browser the server starts: a window and the headless shell are refused together
//! before any browser (the builds it starts, and `--prelaunch`, are in
//! `browser/browser_choice.rs`).

use crate::browser::browser_choice::START;
use crate::support::raw::{exchange, session};
use crate::support::{procs, Mcp};
use serde_json::json;

#[test]
fn a_window_and_the_shell_do_not_go_together() {
    let mcp = Mcp::start_raw(&["--headless=false", "--headlessShell"]);
    assert!(
        procs::wait_until(START, || !procs::alive(mcp.pid())),
        "the server kept running"
    );
    let log = mcp.stderr_log();
    assert!(log.contains("--headlessShell runs only headless"), "{log}");
}

/// `--channel` starts Google Chrome of that channel: here a stand-in `google-chrome-beta` on a
/// PATH of the test's own (no Chrome is installed under `/opt/google` on the machines the
/// tests run on), which notes that it was started and exits; the call then fails as a browser
/// that does not start fails. (A raw exchange, not the harness: the harness counts the
/// stand-in as a browser, which tests of this kind must not start.) Without the stand-in, the call names where Chrome was looked for.
#[test]
fn a_channel_starts_that_channels_chrome_found_on_path() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("devtools-mcp-channel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("started");
    let stand_in = dir.join("google-chrome-beta");
    let script = format!("#!/bin/sh\necho \"$0\" > '{}'\nexit 1\n", marker.display());
    std::fs::write(&stand_in, script).unwrap();
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    if std::path::Path::new("/opt/google/chrome-beta/chrome").exists() {
        return println!("Chrome Beta is installed here: the stand-in would not be chosen");
    }
    let path = dir.to_str().unwrap();
    let env = [("PATH", path), ("CHROME_PATH", "")];
    let list_pages = session(&[("tools/call", json!({"name": "list_pages", "arguments": {}}))]);
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (answers, said) = exchange(
        &args(&["--channel", "beta", "--headless"]),
        &env,
        &list_pages,
    );
    let answer = &answers.last().expect("answers")["result"];
    assert_eq!(answer["isError"], true, "{said}");
    let started = std::fs::read_to_string(&marker).unwrap_or_default();
    assert_eq!(started.trim(), stand_in.to_str().unwrap(), "{said}");

    std::fs::remove_file(&stand_in).unwrap();
    let (answers, said) = exchange(&args(&["--channel=beta"]), &env, &list_pages);
    let text = answers.last().expect("answers")["result"]["content"][0]["text"].to_string();
    assert!(
        text.contains("Could not find Google Chrome executable for channel 'beta' at:"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
