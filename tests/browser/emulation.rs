//! `emulate` and `resize_page` against real Chromium, each effect observed
//! from the page (evaluate_script), the image bytes or the fixture server's record of what the
//! browser sent.

use std::time::{Duration, Instant};

use crate::support::calls::eval;
use crate::support::images::{image, png_size};
use crate::support::{started, Fixtures, Mcp};
use serde_json::json;

// ---------------------------------------------------------------- emulation

#[test]
fn emulation_is_seen_by_the_page_and_the_server() {
    let fx = Fixtures::start();
    fx.echo_route("/echo");
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/plain.html")}));
    everything_is_emulated(&mcp);
    screenshot_position_and_requests(&mcp, &fx);
    kept_on_another_site(&mcp, &fx);
    replaced_and_cleared(&mcp, &fx);
    another_page_is_not_affected(&mcp, &fx);
}

/// Everything emulated at once: the answer says so and the page sees it.
fn everything_is_emulated(mcp: &Mcp) {
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
        mcp,
        "() => [matchMedia('(prefers-color-scheme: dark)').matches, innerWidth, innerHeight, devicePixelRatio, navigator.userAgent, matchMedia('(prefers-reduced-motion: reduce)').matches]",
    );
    assert_eq!(seen, json!([true, 400, 300, 2, "TestAgent/1.0", true]));
}

/// The page's position, or the error it got.
const POSITION: &str = "() => new Promise(resolve => navigator.geolocation.getCurrentPosition(p => resolve([p.coords.latitude, p.coords.longitude]), e => resolve('error ' + e.code + ': ' + e.message), {timeout: 5000}))";

/// The screenshot, the position and the requests follow the emulation.
fn screenshot_position_and_requests(mcp: &Mcp, fx: &Fixtures) {
    // The screenshot follows the emulated viewport and pixel ratio.
    let (_, png) = image(&mcp.call_ok("take_screenshot", json!({})));
    assert_eq!(png_size(&png), (800, 600));

    let position = eval(mcp, POSITION);
    assert_eq!(position, json!([48.8584, 2.2945]));

    // Requests carry the user agent and the extra header.
    eval(mcp, "async () => (await fetch('/echo?one')).status");
    let req = fx.wait_for_request("/echo", Duration::from_secs(5));
    assert_eq!(req.header("user-agent"), Some("TestAgent/1.0"));
    assert_eq!(req.header("x-test-header"), Some("hello"));
}

/// A navigation to another site keeps the emulation.
fn kept_on_another_site(mcp: &Mcp, fx: &Fixtures) {
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
        mcp,
        "() => [matchMedia('(prefers-color-scheme: dark)').matches, innerWidth, devicePixelRatio, navigator.userAgent]",
    );
    assert_eq!(seen, json!([true, 400, 2, "TestAgent/1.0"]));
}

/// Later calls replace the emulation, and clear the headers and the color scheme.
fn replaced_and_cleared(mcp: &Mcp, fx: &Fixtures) {
    // A new call replaces everything but the headers.
    let r = mcp.call_ok("emulate", json!({"colorScheme": "light"}));
    assert_eq!(
        r.text,
        "Emulation configured successfully\nEmulating color scheme: light"
    );
    let seen = eval(
        mcp,
        "() => [matchMedia('(prefers-color-scheme: light)').matches, devicePixelRatio, navigator.userAgent.includes('TestAgent')]",
    );
    assert_eq!(seen, json!([true, 1, false]));
    fx.clear_requests();
    eval(mcp, "async () => (await fetch('/echo?two')).status");
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
    eval(mcp, "async () => (await fetch('/echo?three')).status");
    let req = fx.wait_for_request("/echo", Duration::from_secs(5));
    assert_eq!(req.header("x-test-header"), None);
}

/// Emulation on a new page leaves the other page as it was.
fn another_page_is_not_affected(mcp: &Mcp, fx: &Fixtures) {
    // Another page is not affected.
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/plain.html")}));
    mcp.call_ok("emulate", json!({"colorScheme": "dark"}));
    mcp.call_ok("select_page", json!({"pageId": 2}));
    let seen = eval(
        mcp,
        "() => matchMedia('(prefers-color-scheme: dark)').matches",
    );
    assert_eq!(seen, json!(false));
}

#[test]
fn the_position_is_granted_to_a_page_in_an_isolated_context_too() {
    let fx = Fixtures::start();
    let mcp = started();
    let url = fx.url("/screenshot/plain.html");
    mcp.call_ok("new_page", json!({"url": url, "isolatedContext": "geo"}));
    mcp.call_ok("emulate", json!({"geolocation": "48.8584,2.2945"}));
    // The permission goes to the page's own context, not the browser's default one.
    assert_eq!(eval(&mcp, POSITION), json!([48.8584, 2.2945]));
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

// ---------------------------------------------------------------- resize

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
