//! Issue 4 points 3 and 6: `take_screenshot`, `emulate` and `resize_page` against real
//! Chromium, each effect observed from the page (evaluate_script), the image bytes or the
//! fixture server's record of what the browser sent.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::calls::{eval, uid_of};
use common::{started, Fixtures, ToolResult};
use serde_json::json;

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::new();
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            acc |= value(*c) << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((acc >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.len() > 24, "PNG too short: {} bytes", bytes.len());
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

/// The one image of a screenshot answer: (mimeType, decoded bytes).
fn image(r: &ToolResult) -> (String, Vec<u8>) {
    let images = r.images();
    assert_eq!(images.len(), 1, "expected one image: {}", r.raw);
    let mime = images[0]["mimeType"].as_str().unwrap_or("").to_string();
    let data = images[0]["data"].as_str().unwrap_or("");
    (mime, decode_base64(data))
}

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

    // The whole page: as tall as the document, far taller than the viewport.
    let doc_height = eval(&mcp, "() => document.documentElement.scrollHeight")
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
}

// ---------------------------------------------------------------- emulation

#[test]
fn emulation_is_seen_by_the_page_and_the_server() {
    let fx = Fixtures::start();
    fx.echo_route("/echo");
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/plain.html")}));
    let r = mcp.call_ok(
        "emulate",
        json!({
            "colorScheme": "dark",
            "viewport": "400x300x2",
            "userAgent": "TestAgent/1.0",
            "extraHttpHeaders": "{\"X-Test-Header\": \"hello\"}",
            "geolocation": "48.8584,2.2945",
            "cpuThrottlingRate": 2,
            "prefersReducedMotion": "reduce",
        }),
    );
    assert!(
        r.text.starts_with("Emulation configured successfully"),
        "{}",
        r.text
    );
    for line in [
        "Emulating geolocation: latitude=48.8584, longitude=2.2945",
        "Emulating viewport: {\"deviceScaleFactor\":2,\"isMobile\":false,\"hasTouch\":false,\"isLandscape\":false,\"width\":400,\"height\":300}",
        "Emulating user agent: TestAgent/1.0",
        "Emulating CPU throttling: 2x slowdown",
        "Emulating color scheme: dark",
        "Emulating prefers-reduced-motion: reduce",
    ] {
        assert!(r.text.contains(line), "missing {line:?} in\n{}", r.text);
    }

    let seen = eval(
        &mcp,
        "() => [matchMedia('(prefers-color-scheme: dark)').matches, innerWidth, innerHeight, devicePixelRatio, navigator.userAgent, matchMedia('(prefers-reduced-motion: reduce)').matches]",
    );
    assert_eq!(seen, json!([true, 400, 300, 2, "TestAgent/1.0", true]));

    // The screenshot follows the emulated viewport and pixel ratio.
    let (_, png) = image(&mcp.call_ok("take_screenshot", json!({})));
    assert_eq!(png_size(&png), (800, 600));

    let position = eval(
        &mcp,
        "() => new Promise(resolve => navigator.geolocation.getCurrentPosition(p => resolve([p.coords.latitude, p.coords.longitude]), e => resolve('error ' + e.code + ': ' + e.message), {timeout: 5000}))",
    );
    assert_eq!(position, json!([48.8584, 2.2945]));

    // Requests carry the user agent and the extra header.
    eval(&mcp, "async () => (await fetch('/echo?one')).status");
    let req = fx.wait_for_request("/echo", Duration::from_secs(5));
    assert_eq!(req.header("user-agent"), Some("TestAgent/1.0"));
    assert_eq!(req.header("x-test-header"), Some("hello"));

    // A navigation to another site (another renderer process) keeps all of it.
    fx.clear_requests();
    let other = fx
        .url("/screenshot/long.html")
        .replace("127.0.0.1", "localhost");
    let r = mcp.call_ok("navigate_page", json!({"url": other}));
    assert!(
        r.text.contains("Emulating color scheme: dark"),
        "{}",
        r.text
    );
    let nav = fx.wait_for_request("/screenshot/long.html", Duration::from_secs(5));
    assert_eq!(nav.header("user-agent"), Some("TestAgent/1.0"));
    assert_eq!(nav.header("x-test-header"), Some("hello"));
    let seen = eval(
        &mcp,
        "() => [matchMedia('(prefers-color-scheme: dark)').matches, innerWidth, devicePixelRatio, navigator.userAgent]",
    );
    assert_eq!(seen, json!([true, 400, 2, "TestAgent/1.0"]));

    // A new call replaces everything but the headers.
    let r = mcp.call_ok("emulate", json!({"colorScheme": "light"}));
    assert_eq!(
        r.text,
        "Emulation configured successfully\nEmulating color scheme: light"
    );
    let seen = eval(
        &mcp,
        "() => [matchMedia('(prefers-color-scheme: light)').matches, devicePixelRatio, navigator.userAgent.includes('TestAgent')]",
    );
    assert_eq!(seen, json!([true, 1, false]));
    fx.clear_requests();
    eval(&mcp, "async () => (await fetch('/echo?two')).status");
    let req = fx.wait_for_request("/echo", Duration::from_secs(5));
    assert_eq!(req.header("x-test-header"), Some("hello"));
    assert!(!req.header("user-agent").unwrap_or("").contains("TestAgent"));

    // An empty string clears the headers; "auto" clears the color scheme.
    let r = mcp.call_ok(
        "emulate",
        json!({"extraHttpHeaders": "", "colorScheme": "auto"}),
    );
    assert_eq!(r.text, "Emulation configured successfully");
    fx.clear_requests();
    eval(&mcp, "async () => (await fetch('/echo?three')).status");
    let req = fx.wait_for_request("/echo", Duration::from_secs(5));
    assert_eq!(req.header("x-test-header"), None);

    // Another page is not affected.
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/plain.html")}));
    mcp.call_ok("emulate", json!({"colorScheme": "dark"}));
    mcp.call_ok("select_page", json!({"pageId": 2}));
    let seen = eval(
        &mcp,
        "() => matchMedia('(prefers-color-scheme: dark)').matches",
    );
    assert_eq!(seen, json!(false));
}

#[test]
fn network_conditions_and_bad_arguments() {
    let fx = Fixtures::start();
    fx.echo_route("/echo");
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/plain.html")}));
    let fetch = format!(
        "() => fetch('{}').then(r => 'ok ' + r.status, e => 'failed')",
        fx.url("/echo")
    );

    let r = mcp.call_ok("emulate", json!({"networkConditions": "Offline"}));
    assert_eq!(
        r.text,
        "Emulation configured successfully\nEmulating network conditions: Offline\nDefault navigation timeout set to 10000 ms"
    );
    assert_eq!(eval(&mcp, &fetch), json!("failed"));
    assert_eq!(eval(&mcp, "() => navigator.onLine"), json!(false));

    let r = mcp.call_ok(
        "emulate",
        json!({"networkConditions": "Slow 3G", "cpuThrottlingRate": 1.5}),
    );
    assert!(
        r.text.contains(
            "Emulating network conditions: Slow 3G\nDefault navigation timeout set to 150000 ms"
        ),
        "{}",
        r.text
    );
    // Slow 3G adds two seconds of latency to every request.
    let started = Instant::now();
    assert_eq!(eval(&mcp, &fetch), json!("ok 200"));
    assert!(started.elapsed() >= Duration::from_millis(1900));

    let r = mcp.call_ok("emulate", json!({}));
    assert_eq!(r.text, "Emulation configured successfully");
    let started = Instant::now();
    assert_eq!(eval(&mcp, &fetch), json!("ok 200"));
    assert!(started.elapsed() < Duration::from_millis(1900));

    for (args, message) in [
        (
            json!({"viewport": "abc"}),
            "Invalid viewport width \"NaN\". Expected format '<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]' with a positive width.",
        ),
        (
            json!({"viewport": "800"}),
            "Invalid viewport height \"undefined\". Expected format '<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]' with a positive height.",
        ),
        (
            json!({"geolocation": "91,0"}),
            "Invalid latitude \"91\". Latitude must be a number between -90 and 90.",
        ),
        (
            json!({"geolocation": "1,200"}),
            "Invalid longitude \"200\". Longitude must be a number between -180 and 180.",
        ),
        (
            json!({"extraHttpHeaders": "[1]"}),
            "Invalid JSON for headers: Headers must be a JSON object",
        ),
        (
            json!({"extraHttpHeaders": "{\"a\": 1}"}),
            "Expected value of header \"a\" to be String, but \"number\" is found.",
        ),
    ] {
        let e = mcp.call_err("emulate", args.clone());
        assert!(e.text.contains(message), "{args}: {}", e.text);
    }
    let e = mcp.call_err("emulate", json!({"cpuThrottlingRate": 30}));
    assert!(e.text.contains("cpuThrottlingRate"), "{}", e.text);
    let e = mcp.call_err("emulate", json!({"networkConditions": "Dial-up"}));
    assert!(e.text.contains("networkConditions"), "{}", e.text);
}

#[test]
fn mobile_viewport_with_touch_reloads_into_a_touch_page() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/plain.html")}));
    eval(&mcp, "() => { window.marker = 1; return 1 }");
    let r = mcp.call_ok(
        "emulate",
        json!({"viewport": "390x844x3,mobile,touch,landscape"}),
    );
    assert!(
        r.text.contains("Emulating viewport: {\"deviceScaleFactor\":3,\"isMobile\":true,\"hasTouch\":true,\"isLandscape\":true,\"width\":390,\"height\":844}"),
        "{}",
        r.text
    );
    let seen = eval(
        &mcp,
        "() => [window.marker === undefined, 'ontouchstart' in window, navigator.maxTouchPoints > 0, devicePixelRatio, screen.orientation.type]",
    );
    assert_eq!(seen, json!([true, true, true, 3, "landscape-primary"]));
}

// ---------------------------------------------------------------- resize and dialogs

#[test]
fn resize_page_sets_the_page_size() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/plain.html")}));
    let r = mcp.call_ok("resize_page", json!({"width": 700, "height": 500}));
    assert!(r.text.starts_with("## Pages"), "{}", r.text);
    assert_eq!(
        eval(&mcp, "() => [innerWidth, innerHeight]"),
        json!([700, 500])
    );
    let (_, png) = image(&mcp.call_ok("take_screenshot", json!({})));
    assert_eq!(png_size(&png), (700, 500));
    mcp.call_ok("resize_page", json!({"width": 1024, "height": 640}));
    assert_eq!(
        eval(&mcp, "() => [innerWidth, innerHeight]"),
        json!([1024, 640])
    );
    let e = mcp.call_err("resize_page", json!({"width": 0, "height": 100}));
    assert!(e.text.contains("width"), "{}", e.text);
}

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
    std::thread::sleep(Duration::from_millis(800));

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
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/noise.html")}));
    // Whether the alert comes before, during or after the capture, the call answers promptly:
    // with the image, or with an error that names the dialog. Never a hang.
    for delay in [0, 20, 60, 150] {
        eval(
            &mcp,
            &format!("() => {{ setTimeout(() => alert('mid {delay}'), {delay}); return 1 }}"),
        );
        let started = Instant::now();
        let r = mcp.call_timeout(
            "take_screenshot",
            json!({"fullPage": true, "filePath": scratch_dir("mid").join("shot").to_str().unwrap()}),
            Duration::from_secs(20),
        );
        // A hang would last until the capture's own time limit (30 s).
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "took {:?}",
            started.elapsed()
        );
        eprintln!(
            "alert after {delay} ms: {} in {:?}",
            if r.is_error { "refused" } else { "captured" },
            started.elapsed()
        );
        if r.is_error {
            assert!(
                r.text
                    .contains(&format!("A dialog is open (alert: mid {delay}).")),
                "{}",
                r.text
            );
        }
        // Wait for the alert if it is still to come, then close it.
        std::thread::sleep(Duration::from_millis(300));
        mcp.call_ok("handle_dialog", json!({"action": "accept"}));
    }
    let _ = std::fs::remove_dir_all(scratch_dir("mid"));
}
