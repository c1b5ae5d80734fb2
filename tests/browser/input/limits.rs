//! Arguments at and over their bounds, against real Chromium: a long text is typed whole with
//! bounded server memory, and values the schemas refuse (text over the limit, coordinates no
//! page can have, a window larger than Chromium draws, a megabyte of junk) are refused before
//! any work, with short errors, leaving the page usable. That a refusal does no work is shown
//! against a scripted browser (nothing is sent to it) in `fake/input_limits.rs`, not by a
//! stopwatch a loaded machine can stop.

use std::time::{Duration, Instant};

use crate::support::calls::eval;
use crate::support::{started, started_with, Fixtures, Mcp};
use serde_json::{json, Value};

const TEXTAREA: &str = "<textarea id=t autofocus></textarea>\
<button id=b style='position:fixed;left:0;top:0;width:100px;height:100px' \
onclick='this.textContent = \"clicked \" + (+this.dataset.n || 0); this.dataset.n = (+this.dataset.n || 0) + 1'>B</button>";

fn open(mcp: &Mcp, fx: &Fixtures) {
    mcp.call_ok(
        "navigate_page",
        json!({"url": fx.page_url_with_html(TEXTAREA)}),
    );
    focus(mcp);
}

fn focus(mcp: &Mcp) {
    eval(
        mcp,
        "() => { document.getElementById('t').focus(); return true; }",
    );
}

/// The server's peak resident memory so far, in kB.
fn peak_rss_kb(mcp: &Mcp) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", mcp.pid())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_long_text_is_typed_whole_with_bounded_memory() {
    let fx = Fixtures::start();
    // What is proven is that all of it arrives, not how fast (the benches measure that): the
    // call may take as long as the client waits, well past the default 25 s a loaded machine
    // can take.
    let mcp = started_with(&["--toolTimeout=120000"]);
    open(&mcp, &fx);
    let text: String = "abc déf ".repeat(25_000);
    let before = peak_rss_kb(&mcp);
    let started = Instant::now();
    let r = mcp.call_timeout("type_text", json!({"text": text}), Duration::from_secs(120));
    let took = started.elapsed();
    assert!(!r.is_error, "{}", &r.text[..r.text.len().min(500)]);
    let grew = peak_rss_kb(&mcp).saturating_sub(before);
    let typed = eval(&mcp, "() => document.getElementById('t').value");
    assert_eq!(
        typed.as_str().map(str::len),
        Some(text.len()),
        "took {took:?}"
    );
    assert_eq!(typed, json!(text));
    // The old way held about 3.4 kB per character: 680 MB for these 200 000.
    assert!(grew < 64 * 1024, "the server grew by {grew} kB");
    let n = text.chars().count();
    eprintln!("typed {n} characters in {took:?}; the server's peak grew by {grew} kB");
}

/// The text of a call refused by its schema, checked to be short.
fn refused(mcp: &Mcp, tool: &str, args: Value) -> String {
    let r = mcp.call_err(tool, args);
    assert!(
        r.text.contains("Input validation error"),
        "{}",
        &r.text[..r.text.len().min(500)]
    );
    assert!(r.text.len() < 2000, "{} chars", r.text.len());
    r.text
}

#[test]
fn text_over_the_limit_is_refused_before_typing() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx);
    let text = "a".repeat((1 << 20) + 1);
    let said = refused(&mcp, "type_text", json!({"text": text}));
    assert!(said.contains("is longer than 1048576 characters"), "{said}");
    let typed = eval(&mcp, "() => document.getElementById('t').value");
    assert_eq!(typed, json!(""));
}

#[test]
fn click_at_far_away_is_refused_and_input_still_works() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--experimentalVision"]);
    open(&mcp, &fx);
    let said = refused(&mcp, "click_at", json!({"x": 1e39, "y": 10}));
    assert!(said.contains("is greater than the maximum of"), "{said}");
    refused(&mcp, "click_at", json!({"x": 10, "y": -1e39}));
    mcp.call_ok("click_at", json!({"x": 50, "y": 50}));
    let b = eval(&mcp, "() => document.getElementById('b').textContent");
    assert_eq!(b, json!("clicked 0"));
    focus(&mcp);
    mcp.call_ok("type_text", json!({"text": "still"}));
    let typed = eval(&mcp, "() => document.getElementById('t').value");
    assert_eq!(typed, json!("still"));
}

#[test]
fn resize_page_over_the_largest_size_is_refused() {
    let mcp = started();
    let said = refused(
        &mcp,
        "resize_page",
        json!({"width": 100_000, "height": 600}),
    );
    assert!(
        said.contains("is greater than the maximum of 16384"),
        "{said}"
    );
    refused(&mcp, "resize_page", json!({"width": 800, "height": 16_385}));
    // Each side fits, but no screenshot of a page this large would finish.
    let r = mcp.call_err("resize_page", json!({"width": 16_384, "height": 16_384}));
    assert!(
        r.text.contains("16384x16384 CSS pixels is too large"),
        "{}",
        r.text
    );
    mcp.call_ok("resize_page", json!({"width": 800, "height": 600}));
    let size = eval(&mcp, "() => [innerWidth, innerHeight]");
    assert_eq!(size, json!([800, 600]));
    let shot = mcp.call_ok("take_screenshot", json!({}));
    assert!(shot.content.iter().any(|c| c["type"] == "image"));
}

#[test]
fn a_megabyte_argument_gives_a_short_error() {
    let mcp = started();
    let huge = "x".repeat(1_100_000);
    let said = refused(
        &mcp,
        "list_console_messages",
        json!({"serviceWorkerId": huge}),
    );
    assert!(said.contains(&format!("\"{}…", "x".repeat(99))), "{said}");
    let types = vec![huge.as_str(); 1];
    refused(&mcp, "list_console_messages", json!({"types": types}));
    let many = vec!["nope"; 100_000];
    refused(&mcp, "list_console_messages", json!({"types": many}));
    mcp.call_ok("list_console_messages", json!({}));
}

#[test]
fn a_page_that_stops_taking_keys_is_told_apart() {
    let fx = Fixtures::start();
    let mcp = started();
    // From the 100th key on, the page's key handler never returns.
    let html = "<input id=t autofocus><script>let n = 0; \
        t.onkeydown = () => { if (++n >= 100) for (;;) {} };</script>";
    mcp.call_ok("navigate_page", json!({"url": fx.page_url_with_html(html)}));
    let r = mcp.call_err("type_text", json!({"text": "x".repeat(5000)}));
    // Whole batches the page took in are counted: 63 of the first 99 keys.
    assert!(
        r.text.contains("Only 63 of the 5000 characters were typed. The page did not take in the input within 10 s"),
        "{}",
        r.text
    );
}
