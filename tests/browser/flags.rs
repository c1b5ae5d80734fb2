//! The reference's newer flags against the real binary and real headless
//! Chromium: URL patterns, JavaScript and file navigations turned off, header redaction,
//! screenshot defaults and bounds, page-id routing, a proxy and certificate errors.
//! (`--wsHeaders` is in `connection.rs`, beside the other connections; URL patterns refused
//! at start and `--config` are in `binary/flags.rs`.)

use std::time::Duration;

use crate::support::calls::tool;
use crate::support::console_network::{reqid, until};
use crate::support::images::{image, png_size};
use crate::support::{started_with, Fixtures};
use serde_json::json;

/// An error answer that says `message`.
fn assert_refused(r: &crate::support::ToolResult, message: &str) {
    assert!(r.is_error, "expected an error: {}", r.text);
    assert!(r.text.contains(message), "{}", r.text);
}

// ---------------------------------------------------------------- URL patterns

#[test]
fn blocked_url_patterns_refuse_navigations_and_requests() {
    let fx = Fixtures::start();
    fx.route_response(
        "/blocked/data.txt",
        crate::support::Response::text("secret"),
    );
    let page = fx.page_url_with_html(
        "<title>t</title><script>fetch('/blocked/data.txt').then(() => document.title = 'got', \
         () => document.title = 'refused')</script>",
    );
    // `:*`: as in URLPattern, a pattern without a port matches only the scheme's default port.
    let mcp = started_with(&["--blockedUrlPattern=*://*:*/blocked/*"]);
    mcp.call_ok("new_page", json!({"url": page}));
    // The page's own request is refused by the browser: it never reaches the server.
    until(&mcp, "list_pages", json!({}), |t| t.contains("refused ("));
    assert!(fx.requests_to("/blocked/data.txt").is_empty());

    // Throttling set with `emulate` goes after the rules: they still refuse.
    mcp.call_ok("emulate", json!({"networkConditions": "Fast 4G"}));
    let again = fx.page_url_with_html(
        "<title>t</title><script>fetch('/blocked/data.txt').then(() => document.title = 'got again', \
         () => document.title = 'refused again')</script>",
    );
    mcp.call_ok("navigate_page", json!({"url": again}));
    until(&mcp, "list_pages", json!({}), |t| {
        t.contains("refused again (")
    });
    assert!(fx.requests_to("/blocked/data.txt").is_empty());

    let blocked = fx.url("/blocked/data.txt");
    let r = mcp.call("navigate_page", json!({"url": blocked}));
    assert!(
        r.text.contains(&format!(
            "Unable to navigate in the selected page: Navigation to {blocked} is blocked by blocklist/allowlist rules."
        )),
        "{}",
        r.text
    );
    let r = mcp.call_err("new_page", json!({"url": blocked}));
    assert_refused(
        &r,
        &format!("Navigation to {blocked} is blocked by blocklist/allowlist rules"),
    );
    assert!(fx.requests_to("/blocked/data.txt").is_empty());
}

#[test]
fn allowed_url_patterns_refuse_everything_else() {
    let fx = Fixtures::start();
    let other = Fixtures::start();
    other.route_response(
        "/data.txt",
        crate::support::Response::text("x").header("Access-Control-Allow-Origin", "*"),
    );
    let page = fx.page_url_with_html(&format!(
        "<title>t</title><script>fetch('{}').then(() => document.title = 'got', \
         () => document.title = 'refused')</script>",
        other.url("/data.txt")
    ));
    let allowed = format!("--allowedUrlPattern={}/*", fx.origin());
    let mcp = started_with(&[&allowed]);
    mcp.call_ok("new_page", json!({"url": page}));
    until(&mcp, "list_pages", json!({}), |t| t.contains("refused ("));
    assert!(other.requests_to("/data.txt").is_empty());
    let r = mcp.call_err("new_page", json!({"url": other.url("/data.txt")}));
    assert_refused(&r, "is blocked by blocklist/allowlist rules");
}

// ---------------------------------------------------------------- what JavaScript and files may do

#[test]
fn javascript_evaluation_and_file_navigations_off() {
    let mcp = started_with(&["--no-javascript-evaluation", "--fileNavigations=false"]);
    let tools = mcp.list_tools();
    assert!(tool(&tools, "evaluate_script").is_none());
    let navigate = tool(&tools, "navigate_page").expect("navigate_page");
    assert!(navigate["inputSchema"]["properties"]
        .get("initScript")
        .is_none());
    let r = mcp.request(
        "tools/call",
        json!({"name": "evaluate_script", "arguments": {"function": "() => 1"}}),
    );
    assert_eq!(
        r["error"]["message"], "Tool evaluate_script disabled",
        "{r}"
    );

    for (url, words) in [
        (
            "javascript:alert(1)",
            "Navigating to javascript: URLs is not allowed when JavaScript evaluation is disabled.",
        ),
        (
            "data:text/html,<p>x",
            "Navigating to data: URLs is not allowed when JavaScript evaluation is disabled.",
        ),
        (
            "file:///etc/hostname",
            "Navigating to file: URLs is not allowed when --file-navigations is disabled.",
        ),
        (
            "view-source:file:///etc/hostname",
            "Navigating to file: URLs is not allowed when --file-navigations is disabled.",
        ),
    ] {
        assert_refused(&mcp.call_err("new_page", json!({"url": url})), words);
        assert_refused(&mcp.call_err("navigate_page", json!({"url": url})), words);
    }
    let r = mcp.call_err(
        "navigate_page",
        json!({"type": "reload", "initScript": "1"}),
    );
    assert!(r.text.contains("'initScript' was unexpected"), "{}", r.text);
}

// ---------------------------------------------------------------- network headers

#[test]
fn network_headers_are_redacted() {
    let fx = Fixtures::start();
    let echo = fx.echo_route("/api/echo");
    let page = fx.page_url_with_html(&format!(
        "<script>fetch('{echo}', {{headers: {{'X-Secret': 's3cret', 'Content-Language': 'de'}}}})</script>"
    ));
    let mcp = started_with(&["--redactNetworkHeaders"]);
    mcp.call_ok("new_page", json!({"url": page}));
    let list = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("/api/echo") && t.contains("[200]")
    });
    let r = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(&list.text, "/api/echo")}),
    );
    assert!(r.text.contains("\n- x-secret:<redacted>\n"), "{}", r.text);
    assert!(r.text.contains("\n- content-language:de\n"), "{}", r.text);
    assert!(!r.text.contains("s3cret"), "{}", r.text);
}

// ---------------------------------------------------------------- screenshots

#[test]
fn screenshot_defaults_and_bounds() {
    let fx = Fixtures::start();
    let mcp = started_with(&[
        "--screenshotFormat=jpeg",
        "--screenshotMaxWidth=200",
        "--viewport=800x600",
    ]);
    mcp.call_ok("new_page", json!({"url": fx.url("/screenshot/long.html")}));
    // The format the flag names, when the call names none.
    let (mime, jpeg) = image(&mcp.call_ok("take_screenshot", json!({})));
    assert_eq!(mime, "image/jpeg");
    assert_eq!(&jpeg[..3], b"\xff\xd8\xff");
    // Scaled down to the bound, keeping the viewport's aspect ratio.
    let size = crate::support::calls::eval(&mcp, "() => [innerWidth, innerHeight]");
    let (w, h) = (size[0].as_f64().unwrap(), size[1].as_f64().unwrap());
    let (_, png) = image(&mcp.call_ok("take_screenshot", json!({"format": "png"})));
    let (pw, ph) = png_size(&png);
    assert_eq!(pw, 200, "viewport {w}x{h}");
    assert!(
        (f64::from(ph) - h * 200.0 / w).abs() <= 1.0,
        "{pw}x{ph} of {w}x{h}"
    );
    // The whole page too: no wider than the bound.
    let (_, full) = image(&mcp.call_ok(
        "take_screenshot",
        json!({"format": "png", "fullPage": true}),
    ));
    assert!(png_size(&full).0 <= 200, "{:?}", png_size(&full));
}

// ---------------------------------------------------------------- page-id routing

#[test]
fn page_id_routing_requires_page_ids() {
    let mcp = started_with(&["--pageIdRouting"]);
    let tools = mcp.list_tools();
    let snapshot = tool(&tools, "take_snapshot").expect("take_snapshot");
    assert_eq!(snapshot["inputSchema"]["required"], json!(["pageId"]));
    let pages = tool(&tools, "list_pages").expect("list_pages");
    assert!(pages["inputSchema"].get("required").is_none());
    let r = mcp.call_err("take_snapshot", json!({}));
    assert!(
        r.text.contains("\"pageId\" is a required property"),
        "{}",
        r.text
    );
    mcp.call_ok("list_pages", json!({}));
    mcp.call_ok("take_snapshot", json!({"pageId": 1}));
}

// ---------------------------------------------------------------- proxy

#[test]
fn the_browser_goes_through_the_proxy() {
    let proxy = Fixtures::start();
    // A proxy is asked for the absolute URL.
    proxy.route_response(
        "http://proxied.test/*",
        crate::support::Response::html("<title>Via proxy</title>"),
    );
    let flag = format!("--proxyServer=127.0.0.1:{}", proxy.port());
    let mcp = started_with(&[&flag]);
    let r = mcp.call_ok("new_page", json!({"url": "http://proxied.test/page.html"}));
    assert!(
        r.text.contains("Via proxy (http://proxied.test/page.html)"),
        "{}",
        r.text
    );
    assert_eq!(proxy.requests_to("http://proxied.test/page.html").len(), 1);
}

// ---------------------------------------------------------------- certificates

/// `openssl s_server` with a fresh self-signed certificate, on 127.0.0.1. Killed on drop.
struct SelfSignedServer {
    child: std::process::Child,
    port: u16,
    dir: std::path::PathBuf,
}

impl SelfSignedServer {
    fn start() -> SelfSignedServer {
        use std::process::{Command, Stdio};
        let dir =
            std::env::temp_dir().join(format!("devtools-mcp-tls-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (key, cert) = (dir.join("key.pem"), dir.join("cert.pem"));
        let made = Command::new("openssl")
            .args([
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=127.0.0.1",
            ])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run openssl");
        assert!(made.success(), "openssl req failed");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let child = Command::new("openssl")
            .args(["s_server", "-quiet", "-www", "-accept"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("-cert")
            .arg(&cert)
            .arg("-key")
            .arg(&key)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run openssl s_server");
        let listening = crate::support::procs::wait_until(Duration::from_secs(10), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(listening, "openssl s_server did not listen on {port}");
        SelfSignedServer { child, port, dir }
    }
}

impl Drop for SelfSignedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn insecure_certificates_are_accepted_only_when_asked() {
    let tls = SelfSignedServer::start();
    let url = format!("https://127.0.0.1:{}/", tls.port);
    let mcp = started_with(&[]);
    let r = mcp.call_err("new_page", json!({"url": url}));
    assert!(r.text.contains("ERR_CERT"), "{}", r.text);
    drop(mcp);
    let mcp = started_with(&["--acceptInsecureCerts"]);
    let r = mcp.call_ok("new_page", json!({"url": url}));
    assert!(r.text.contains(&format!("{url} [selected]")), "{}", r.text);
    // The server's own page, not an interstitial.
    let served =
        crate::support::calls::eval(&mcp, "() => document.body.innerText.includes('s_server')");
    assert_eq!(served, json!(true));
}
