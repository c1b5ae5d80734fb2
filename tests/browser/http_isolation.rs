//! What else an agent of a `--port` server keeps to itself, over real HTTP against real
//! headless Chromium: its HTTP cache (its browser context's), its emulation (set on its own
//! pages only) and its client's roots (which judge its own file arguments only).

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::support::mcp_http::{next_request, HttpServer, Session};
use crate::support::{Fixtures, Response};

#[test]
fn each_agent_has_an_http_cache_of_its_own() {
    let fx = Fixtures::start();
    // Each copy served says which it is, so an answer tells where it came from.
    let served = Arc::new(AtomicUsize::new(0));
    let counter = served.clone();
    fx.route("/cached.txt", move |_| {
        let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
        Response::text(format!("copy {n}")).header("Cache-Control", "max-age=3600")
    });
    let url = fx.route_html("/cache.html", "<title>cache</title>");
    let server = HttpServer::start(&[], &[]);
    let a = server.session("/mcp");
    let b = server.session("/mcp");
    a.call_ok("navigate_page", json!({"url": url}));
    b.call_ok("navigate_page", json!({"url": url}));
    let load = "async () => (await fetch('/cached.txt')).text()";

    // A's second load comes from its cache: the server is asked once.
    assert_eq!(a.eval(load), json!("copy 1"));
    assert_eq!(a.eval(load), json!("copy 1"));
    assert_eq!(served.load(Ordering::SeqCst), 1);
    // B's cache is its own: nothing of A's is in it, so B is served a copy of its own, which
    // it then keeps; A keeps its own.
    assert_eq!(b.eval(load), json!("copy 2"));
    assert_eq!(b.eval(load), json!("copy 2"));
    assert_eq!(a.eval(load), json!("copy 1"));
    assert_eq!(served.load(Ordering::SeqCst), 2);
    assert_eq!(fx.requests_to("/cached.txt").len(), 2);
}

/// The position the page's geolocation gives, or the error it got.
const POSITION: &str = "() => new Promise(resolve => navigator.geolocation.getCurrentPosition(
    p => resolve([p.coords.latitude, p.coords.longitude]), e => resolve('error ' + e.code)))";

/// The same, or `"none"` when there is no answer in 3 s (as when the permission is left to a
/// prompt no one answers): for a page that must not get the position.
const POSITION_OR_NONE: &str = "() => new Promise(resolve => {
    setTimeout(() => resolve('none'), 3000);
    navigator.geolocation.getCurrentPosition(
        p => resolve([p.coords.latitude, p.coords.longitude]),
        e => resolve('error ' + e.code));
})";

/// What a page shows of its emulation: viewport, pixel ratio, user agent, color scheme,
/// whether it is online.
const SEEN: &str = "() => [innerWidth, devicePixelRatio, navigator.userAgent, \
    matchMedia('(prefers-color-scheme: dark)').matches, navigator.onLine]";

/// The headers the echo route saw on the page's fetch of `/echo?<tag>`.
fn echoed(session: &Session, fx: &Fixtures, tag: &str) -> crate::support::fixtures::Request {
    let fetch = format!("async () => (await fetch('/echo?{tag}')).status");
    assert_eq!(session.eval(&fetch), json!(200));
    let found = fx.requests_to("/echo").into_iter();
    let mut found = found.filter(|r| r.query == tag);
    found
        .next()
        .unwrap_or_else(|| panic!("no /echo?{tag} request"))
}

#[test]
fn one_agents_emulation_never_reaches_another_agents_pages() {
    let fx = Fixtures::start();
    fx.echo_route("/echo");
    let url = fx.route_html("/emulated.html", "<title>emulated</title>");
    let server = HttpServer::start(&[], &[]);
    let a = server.session("/mcp");
    let b = server.session("/mcp");
    a.call_ok("navigate_page", json!({"url": url}));
    b.call_ok("navigate_page", json!({"url": url}));
    let plain = b.eval(SEEN);

    let set = a.call_ok(
        "emulate",
        json!({"viewport": "400x300x2", "userAgent": "AgentA/1.0", "colorScheme": "dark",
            "extraHttpHeaders": "{\"X-Agent\": \"a\"}", "geolocation": "48.8584,2.2945",
            "cpuThrottlingRate": 2}),
    );
    assert!(
        set.text.contains("Emulating CPU throttling: 2x"),
        "{}",
        set.text
    );
    // A's page sees all of it, its position too (the permission granted in A's context).
    assert_eq!(a.eval(SEEN), json!([400, 2, "AgentA/1.0", true, true]));
    assert_eq!(a.eval(POSITION), json!([48.8584, 2.2945]));
    let sent = echoed(&a, &fx, "a");
    assert_eq!(sent.header("user-agent"), Some("AgentA/1.0"));
    assert_eq!(sent.header("x-agent"), Some("a"));

    // B's page, and a page B opens now, see none of it, nor do B's answers say so.
    let fresh = fx.route_html("/fresh.html", "<title>fresh</title>");
    for opened in [false, true] {
        if opened {
            b.call_ok("new_page", json!({"url": fresh}));
        }
        let seen = b.call_ok("evaluate_script", json!({"function": SEEN}));
        assert!(!seen.text.contains("Emulating"), "{}", seen.text);
        assert_eq!(crate::support::calls::returned_value(&seen.text), plain);
        assert_ne!(b.eval(POSITION_OR_NONE), json!([48.8584, 2.2945]));
        let sent = echoed(&b, &fx, if opened { "b2" } else { "b1" });
        assert_ne!(sent.header("user-agent"), Some("AgentA/1.0"));
        assert_eq!(sent.header("x-agent"), None);
    }

    // Network conditions: A's page offline, B's online and fetching.
    let offline = a.call_ok("emulate", json!({"networkConditions": "Offline"}));
    assert!(offline
        .text
        .contains("Emulating network conditions: Offline"));
    let online = "() => navigator.onLine";
    assert_eq!(a.eval(online), json!(false));
    let failed = "async () => fetch('/echo?a2').then(() => 'fetched', () => 'failed')";
    assert_eq!(a.eval(failed), json!("failed"));
    for page in b.page_ids() {
        b.call_ok("select_page", json!({"pageId": page}));
        assert_eq!(b.eval(online), json!(true));
        echoed(&b, &fx, &format!("b-online-{page}"));
    }
}

/// A scratch folder under the test's temp directory, removed at the end.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn screenshot(session: &Session, path: &Path) -> crate::support::ToolResult {
    let path = path.to_str().expect("utf-8 path");
    session.call("take_screenshot", json!({"filePath": path}))
}

fn assert_written(session: &Session, path: &Path) {
    let shot = screenshot(session, path);
    assert!(!shot.is_error, "{}", shot.text);
    assert!(path.is_file(), "{} not written", path.display());
}

fn assert_refused(session: &Session, path: &Path) {
    let shot = screenshot(session, path);
    assert!(shot.is_error, "{} written: {}", path.display(), shot.text);
    assert!(
        shot.text
            .contains("is not within any of the configured workspace roots"),
        "{}",
        shot.text
    );
    assert!(!path.exists(), "{} written", path.display());
}

#[test]
fn each_agents_roots_govern_its_own_file_arguments_only() {
    let scratch =
        Scratch(std::env::temp_dir().join(format!("dtmcp-http-roots-{}", std::process::id())));
    let (tmp, a_root, b_root) = (
        scratch.0.join("tmp"),
        scratch.0.join("a"),
        scratch.0.join("b"),
    );
    for d in [&tmp, &a_root, &b_root] {
        fs::create_dir_all(d).expect("scratch folder");
    }
    let fx = Fixtures::start();
    let url = fx.route_html("/files.html", "<title>files</title><p>files</p>");
    let tmp_text = tmp.to_str().expect("utf-8 path");
    let server = HttpServer::start(&[], &[("TMPDIR", tmp_text)]);
    let (a, mut a_stream) = server.session_with_roots("/mcp", &[&a_root]);
    let (b, _b_stream) = server.session_with_roots("/mcp", &[&b_root]);
    // A client without roots: the temp directory only.
    let c = server.session("/mcp");
    for s in [&a, &b, &c] {
        s.call_ok("navigate_page", json!({"url": url}));
    }

    assert_written(&a, &a_root.join("a.png"));
    assert_refused(&a, &b_root.join("a.png"));
    assert_written(&b, &b_root.join("b.png"));
    assert_refused(&b, &a_root.join("b.png"));
    assert_refused(&c, &a_root.join("c.png"));
    assert_refused(&c, &b_root.join("c.png"));
    assert_written(&c, &tmp.join("c.png"));

    // A's client changes its roots to B's folder: A's calls follow; B's are as they were.
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    assert_eq!(a.post(&changed).status, 202);
    let ask = next_request(&mut a_stream, "roots/list");
    let roots: Value = json!([{"uri": format!("file://{}", b_root.display())}]);
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": roots}});
    assert_eq!(a.post(&answer).status, 202);
    assert_refused(&a, &a_root.join("a2.png"));
    assert_written(&a, &b_root.join("a2.png"));
    assert_written(&b, &b_root.join("b2.png"));
    assert_refused(&b, &a_root.join("b2.png"));
}
