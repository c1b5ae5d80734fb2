//! What the console and network tests (`console.rs`, `network.rs`, `network_bodies.rs`) share:
//! waiting for a list to get there and reading ids out of it.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Mcp, ToolResult};

/// Calls `tool` until its text satisfies `done` (the page logs and loads asynchronously).
pub fn until(mcp: &Mcp, tool: &str, args: Value, done: impl Fn(&str) -> bool) -> ToolResult {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = mcp.call_ok(tool, args.clone());
        if done(&r.text) {
            return r;
        }
        if Instant::now() > deadline {
            panic!("{tool} {args} never got there; last answer:\n{}", r.text);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The lines of a text.
pub fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// The msgid of the first listed message whose line contains `needle`.
pub fn msgid(list: &str, needle: &str) -> u64 {
    let line = list
        .lines()
        .find(|l| l.starts_with("msgid=") && l.contains(needle))
        .unwrap_or_else(|| panic!("no message with {needle:?} in:\n{list}"));
    line["msgid=".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("bad line {line}"))
}

/// The reqid of the first listed request whose line contains `needle`.
pub fn reqid(list: &str, needle: &str) -> u64 {
    let line = list
        .lines()
        .find(|l| l.starts_with("reqid=") && l.contains(needle))
        .unwrap_or_else(|| panic!("no request with {needle:?} in:\n{list}"));
    line["reqid=".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("bad line {line}"))
}
