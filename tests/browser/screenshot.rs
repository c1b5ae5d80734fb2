//! `take_screenshot` against real Chromium: the viewport, the full page and
//! one element in each format, files, an image too large to send inline, and dialogs that are
//! open or open during a capture (`resize_page` still answers then).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::support::calls::{call_async, eval, tool_result, uid_of, until_dialog, until_logged};
use crate::support::images::{image, png_size};
use crate::support::{started, Fixtures, Mcp, Response};
use serde_json::json;

/// A folder under the temp dir for this test's files, removed if it was there.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "devtools-mcp-shot-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

// ---------------------------------------------------------------- screenshots

#[test]
fn screenshots_of_viewport_page_element_and_files() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/long.html")}));
    let size = eval(&mcp, "() => [innerWidth, innerHeight, devicePixelRatio]");
    let (w, h) = (size[0].as_u64().unwrap(), size[1].as_u64().unwrap());
    the_viewport_in_each_format(&mcp, w, h);
    the_whole_page(&mcp, h);
    one_element(&mcp);
    files(&mcp, w, h);
}

/// The viewport (`w` by `h`) as PNG, JPEG and WebP.
fn the_viewport_in_each_format(mcp: &Mcp, w: u64, h: u64) {
    // The viewport, as PNG by default.
    let r = mcp.call_ok("take_screenshot", json!({}));
    assert!(
        r.text
            .starts_with("Took a screenshot of the current page's viewport."),
        "{}",
        r.text
    );
    let (mime, png) = image(&r);
    assert_eq!(mime, "image/png");
    assert_eq!(png_size(&png), (w as u32, h as u32));

    // Other formats carry their own signatures and mime types.
    let r = mcp.call_ok("take_screenshot", json!({"format": "jpeg", "quality": 40}));
    let (mime, jpeg) = image(&r);
    assert_eq!(mime, "image/jpeg");
    assert_eq!(&jpeg[..3], b"\xff\xd8\xff");
    let r = mcp.call_ok("take_screenshot", json!({"format": "webp"}));
    let (mime, webp) = image(&r);
    assert_eq!(mime, "image/webp");
    assert_eq!((&webp[..4], &webp[8..12]), (&b"RIFF"[..], &b"WEBP"[..]));
}

/// The whole page, taller than the viewport (`h`).
fn the_whole_page(mcp: &Mcp, h: u64) {
    // The whole page: as tall as the document, far taller than the viewport.
    let doc_height = eval(mcp, "() => document.documentElement.scrollHeight")
        .as_u64()
        .unwrap();
    assert!(doc_height > 3000 && doc_height > h);
    let r = mcp.call_ok("take_screenshot", json!({"fullPage": true}));
    assert!(
        r.text
            .starts_with("Took a screenshot of the full current page."),
        "{}",
        r.text
    );
    let (_, full) = image(&r);
    let (_, full_h) = png_size(&full);
    assert_eq!(full_h as u64, doc_height);
}

/// One element, and element arguments that are refused.
fn one_element(mcp: &Mcp) {
    // One element: its size, and the same pixels wherever it is on the page.
    let snap = mcp.call_ok("take_snapshot", json!({})).text;
    let (top, red, far) = (
        uid_of(&snap, "\"green top\""),
        uid_of(&snap, "\"red top\""),
        uid_of(&snap, "\"green far\""),
    );
    let r = mcp.call_ok("take_screenshot", json!({"uid": top}));
    assert!(
        r.text
            .starts_with(&format!("Took a screenshot of node with uid \"{top}\".")),
        "{}",
        r.text
    );
    let (_, top_png) = image(&r);
    assert_eq!(png_size(&top_png), (123, 45));
    let (_, far_png) = image(&mcp.call_ok("take_screenshot", json!({"uid": far})));
    assert_eq!(png_size(&far_png), (123, 45));
    assert_eq!(
        top_png, far_png,
        "the far swatch was not captured where it is"
    );
    let (_, red_png) = image(&mcp.call_ok("take_screenshot", json!({"uid": red})));
    assert_ne!(top_png, red_png);

    // Bad element arguments.
    let e = mcp.call_err("take_screenshot", json!({"uid": top, "fullPage": true}));
    assert!(
        e.text
            .contains("Providing both \"uid\" and \"fullPage\" is not allowed."),
        "{}",
        e.text
    );
    let e = mcp.call_err("take_screenshot", json!({"uid": "99_99"}));
    assert!(
        e.text.contains("Element uid \"99_99\" not found"),
        "{}",
        e.text
    );
}

/// Screenshots written to files; a viewport is `w` by `h`.
fn files(mcp: &Mcp, w: u64, h: u64) {
    // filePath: written there, with the extension of the format, and no image inline.
    let dir = scratch_dir("files");
    let asked = dir.join("sub/shot.png");
    let r = mcp.call_ok(
        "take_screenshot",
        json!({"filePath": asked.to_str().unwrap(), "format": "jpeg"}),
    );
    let written = dir.join("sub/shot.jpeg");
    assert!(r.images().is_empty(), "{}", r.raw);
    assert!(
        r.text.ends_with(&format!(
            "Saved screenshot to {}.",
            written.canonicalize().unwrap().display()
        )),
        "{}",
        r.text
    );
    let bytes = std::fs::read(&written).unwrap();
    assert_eq!(&bytes[..3], b"\xff\xd8\xff");
    let r = mcp.call_ok(
        "take_screenshot",
        json!({"filePath": dir.join("plain").to_str().unwrap()}),
    );
    assert!(r.text.contains("plain.png."), "{}", r.text);
    assert_eq!(
        png_size(&std::fs::read(dir.join("plain.png")).unwrap()),
        (w as u32, h as u32)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_huge_screenshot_goes_to_a_file() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/noise.html")}));
    let r = mcp.call_ok("take_screenshot", json!({"fullPage": true}));
    assert!(
        r.images().is_empty(),
        "image sent inline: {} bytes",
        r.raw.to_string().len()
    );
    let path = r
        .text
        .lines()
        .find_map(|l| l.strip_prefix("Saved screenshot to "))
        .and_then(|p| p.strip_suffix('.'))
        .unwrap_or_else(|| panic!("no saved path in {}", r.text));
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.len() >= 2_000_000, "{} bytes", bytes.len());
    let (pw, ph) = png_size(&bytes);
    assert!(pw >= 1000 && ph >= 1400, "{pw}x{ph}");
    if let Some(dir) = std::path::Path::new(path).parent() {
        let _ = std::fs::remove_dir_all(dir);
    }

    // The limit is 2,000,000 bytes: noise 1000 px wide makes about 2,970 bytes a row, so a
    // 655 px viewport is just under it (sent inline) and a 720 px one just over (a file).
    mcp.call_ok("resize_page", json!({"width": 1000, "height": 655}));
    let (_, under) = image(&mcp.call_ok("take_screenshot", json!({})));
    let n = under.len();
    assert!(
        (1_800_000..2_000_000).contains(&n),
        "{n} bytes: not just under"
    );
    mcp.call_ok("resize_page", json!({"width": 1000, "height": 720}));
    let r = mcp.call_ok("take_screenshot", json!({}));
    assert!(r.images().is_empty(), "{}", r.text);
    let path = r
        .text
        .lines()
        .find_map(|l| l.strip_prefix("Saved screenshot to "))
        .and_then(|p| p.strip_suffix('.'))
        .unwrap_or_else(|| panic!("no saved path in {}", r.text));
    let n = std::fs::read(path).unwrap().len();
    assert!(
        (2_000_000..2_200_000).contains(&n),
        "{n} bytes: not just over"
    );
    if let Some(dir) = std::path::Path::new(path).parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

// ---------------------------------------------------------------- dialogs

#[test]
fn an_open_dialog_gets_a_prompt_answer() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/plain.html")}));
    // The alert opens after the script's call is over, so it stays open.
    eval(
        &mcp,
        "() => { setTimeout(() => alert('still here'), 200); return 1 }",
    );
    until_dialog(&mcp, "alert: still here");

    let started = Instant::now();
    let e = mcp.call_err("take_screenshot", json!({}));
    assert!(
        e.text.contains("A dialog is open (alert: still here)."),
        "{}",
        e.text
    );
    let e = mcp.call_err("emulate", json!({"colorScheme": "dark"}));
    assert!(
        e.text.contains("A dialog is open (alert: still here)."),
        "{}",
        e.text
    );
    assert!(started.elapsed() < Duration::from_secs(10));

    // Resizing needs nothing from the page, so it works, and says a dialog is open.
    let r = mcp.call_ok("resize_page", json!({"width": 600, "height": 400}));
    assert!(
        r.text.contains("# Open dialog\nalert: still here."),
        "{}",
        r.text
    );
    assert!(r.text.contains("## Pages"), "{}", r.text);
    assert!(started.elapsed() < Duration::from_secs(15));

    mcp.call_ok("handle_dialog", json!({"action": "accept"}));
    assert_eq!(
        eval(&mcp, "() => [innerWidth, innerHeight]"),
        json!([600, 400])
    );
    let (_, png) = image(&mcp.call_ok("take_screenshot", json!({})));
    assert_eq!(png_size(&png), (600, 400));
}

#[test]
fn a_dialog_opening_during_a_capture_ends_it_at_once() {
    let fx = Fixtures::start();
    fx.route_response("/gate", Response::text("closed"));
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/noise.html")}));
    // The page's main thread stays busy (it cannot paint, so no capture can finish) until the
    // test opens the gate; the alert follows in the same task, before any frame. So the
    // capture is surely under way when the dialog opens.
    eval(
        &mcp,
        "() => { setTimeout(() => {
            console.log('holding the main thread');
            const gate = () => {
                const x = new XMLHttpRequest();
                x.open('GET', '/gate', false);
                x.send();
                return x.responseText;
            };
            while (gate() !== 'open') {}
            alert('mid capture');
        }, 0); return 1 }",
    );
    until_logged(&mcp, None, "holding the main thread");
    let dir = scratch_dir("mid");
    let began = Instant::now();
    let shot = call_async(
        &mcp,
        "take_screenshot",
        json!({"fullPage": true, "filePath": dir.join("shot").to_str().unwrap()}),
    );
    // The server takes requests in order: once `ping` is answered, the capture has started.
    mcp.request_ok("ping", json!({}));
    fx.route_response("/gate", Response::text("open"));
    let r = tool_result(&mcp.wait_response_timeout(shot, Duration::from_secs(20)));
    assert!(r.is_error, "{}", r.text);
    assert!(
        r.text
            .ends_with("Error: A dialog is open (alert: mid capture)."),
        "{}",
        r.text
    );
    // A hang would last until the capture's own time limit (30 s).
    assert!(
        began.elapsed() < Duration::from_secs(15),
        "took {:?}",
        began.elapsed()
    );
    let written = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    assert_eq!(written, 0, "a file was written for the refused capture");
    // Once the dialog is closed, the same capture works.
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));
    let saved = mcp.call_ok(
        "take_screenshot",
        json!({"fullPage": true, "filePath": dir.join("shot").to_str().unwrap()}),
    );
    assert!(
        saved.text.contains("Saved screenshot to "),
        "{}",
        saved.text
    );
    let _ = std::fs::remove_dir_all(dir);
}
