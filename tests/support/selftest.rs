//! Tests of the test harness itself (tests/support): the fixture HTTP server, the /proc helpers,
//! and the MCP client side driven against a scripted fake server (a POSIX sh script), so the
//! harness is known to work before the real server is.

use std::fs;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use crate::support::fixtures::content_type_for;
use crate::support::{http_get, http_request, procs, Fixtures, Mcp, Response, ToolResult};
use serde_json::{json, Value};

fn fixture_bytes(path: &str) -> Vec<u8> {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    fs::read(&full).unwrap_or_else(|e| panic!("cannot read {}: {e}", full.display()))
}

// ---------------------------------------------------------------- fixture server

#[test]
fn serves_files_with_their_content_type() {
    let fx = Fixtures::start();
    let cases = [
        ("pages/hello.html", "text/html; charset=utf-8"),
        ("pages/app.js", "text/javascript; charset=utf-8"),
        ("pages/style.css", "text/css; charset=utf-8"),
        ("pages/data.json", "application/json"),
        ("pages/dot.png", "image/png"),
        ("pages/logo.svg", "image/svg+xml"),
    ];
    for (path, content_type) in cases {
        let reply = http_get(&fx.url(path));
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(reply.header("content-type"), Some(content_type), "{path}");
        assert_eq!(reply.body, fixture_bytes(path), "{path}");
        assert_eq!(reply.header("connection"), Some("close"));
        assert_eq!(reply.header("cache-control"), Some("no-store"));
    }
    assert!(http_get(&fx.url("/pages/hello.html"))
        .text()
        .contains("<title>Hello fixture</title>"));
    assert_eq!(
        content_type_for(Path::new("x.unknown")),
        "application/octet-stream"
    );
}

#[test]
fn head_request_has_headers_but_no_body() {
    let fx = Fixtures::start();
    let reply = http_request("HEAD", &fx.url("/pages/hello.html"), &[], b"").expect("HEAD");
    assert_eq!(reply.status, 200);
    let len: usize = reply
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .expect("content-length");
    assert_eq!(len, fixture_bytes("pages/hello.html").len());
}

#[test]
fn missing_files_and_escapes_are_404() {
    let fx = Fixtures::start();
    for path in [
        "/pages/nope.html",
        "/pages/",
        "/",
        "/../Cargo.toml",
        "/pages/../../Cargo.toml",
        "/pages/%2e%2e/%2e%2e/Cargo.toml",
    ] {
        let reply = http_get(&fx.url(path));
        assert_eq!(reply.status, 404, "{path}: {}", reply.text());
    }
    // Every request is recorded, 404s included, with the query split off.
    http_get(&fx.url("/pages/nope.html?x=1"));
    let seen = fx.requests_to("/pages/nope.html");
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].query, "x=1");
    assert_eq!(seen[1].target, "/pages/nope.html?x=1");
}

#[test]
fn routes_answer_with_status_headers_and_body() {
    let fx = Fixtures::start();
    fx.route("/api/thing", |req| {
        Response::json(&json!({"query": req.query, "ua": req.header("user-agent")}))
            .status(201)
            .header("X-Fixture", "yes")
    });
    let reply = http_request(
        "GET",
        &fx.url("/api/thing?a=b"),
        &[("User-Agent", "selftest")],
        b"",
    )
    .expect("GET");
    assert_eq!(reply.status, 201);
    assert_eq!(reply.header("x-fixture"), Some("yes"));
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_slice(&reply.body).expect("json body");
    assert_eq!(body, json!({"query": "a=b", "ua": "selftest"}));

    // Routes win over files, can be replaced, and a `*` suffix matches a prefix (longest wins).
    fx.route_response("/pages/hello.html", Response::text("shadowed"));
    assert_eq!(http_get(&fx.url("/pages/hello.html")).text(), "shadowed");
    fx.route_response("/pages/hello.html", Response::text("replaced"));
    assert_eq!(http_get(&fx.url("/pages/hello.html")).text(), "replaced");
    fx.route_response("/p/*", Response::text("short"));
    fx.route_response("/p/deeper/*", Response::text("long"));
    assert_eq!(http_get(&fx.url("/p/x")).text(), "short");
    assert_eq!(http_get(&fx.url("/p/deeper/y")).text(), "long");

    // Redirects and explicit cache headers pass through untouched.
    fx.route_response("/go", Response::redirect("/pages/two.html"));
    let reply = http_get(&fx.url("/go"));
    assert_eq!(reply.status, 302);
    assert_eq!(reply.header("location"), Some("/pages/two.html"));
    fx.route_response(
        "/cached",
        Response::text("c").header("Cache-Control", "max-age=60"),
    );
    assert_eq!(
        http_get(&fx.url("/cached")).header("cache-control"),
        Some("max-age=60")
    );
}

#[test]
fn a_delayed_route_does_not_block_other_requests() {
    let fx = Fixtures::start();
    // The slow route holds its answer until the test lets it go (then still 2 s): a request
    // answered meanwhile was not queued behind it, whatever the machine's load.
    let gate = fx.held_route(
        "/slow",
        Response::text("finally").delay(Duration::from_millis(2000)),
    );
    let slow_url = fx.url("/slow");
    let slow = thread::spawn(move || {
        let reply = http_get(&slow_url);
        (reply.text(), Instant::now())
    });
    // Make sure the slow request is being served before the fast one goes out.
    fx.wait_for_request("/slow", Duration::from_secs(60));
    let fast = http_get(&fx.url("/pages/two.html"));
    assert_eq!(fast.status, 200);
    assert!(
        !slow.is_finished(),
        "the slow request ended before it was let go"
    );
    let released = Instant::now();
    gate.open();
    let (text, answered) = slow.join().expect("slow request thread");
    assert_eq!(text, "finally");
    let slow_took = answered.duration_since(released);
    assert!(slow_took >= Duration::from_millis(2000), "{slow_took:?}");
}

#[test]
fn echo_route_answers_and_records_post_bodies() {
    let fx = Fixtures::start();
    let url = fx.echo_route("/api/echo");
    let body = br#"{"hello":"world"}"#;
    let reply = http_request(
        "POST",
        &format!("{url}?n=1"),
        &[("Content-Type", "application/json")],
        body,
    )
    .expect("POST");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    let echoed: Value = serde_json::from_slice(&reply.body).expect("json");
    assert_eq!(echoed["method"], "POST");
    assert_eq!(echoed["path"], "/api/echo");
    assert_eq!(echoed["query"], "n=1");
    assert_eq!(echoed["body"], r#"{"hello":"world"}"#);
    assert_eq!(echoed["headers"]["content-type"], "application/json");

    let recorded = fx.wait_for_request("/api/echo", Duration::from_secs(1));
    assert_eq!(recorded.method, "POST");
    assert_eq!(recorded.body, body);
    assert_eq!(recorded.header("Content-Type"), Some("application/json"));

    fx.clear_requests();
    assert!(fx.requests().is_empty());
}

#[test]
fn chunked_request_bodies_are_decoded() {
    use std::io::{Read, Write};
    let fx = Fixtures::start();
    fx.echo_route("/api/echo");
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", fx.port())).expect("connect");
    stream
        .write_all(
            b"POST /api/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\
              5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n",
        )
        .expect("write");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("read");
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert_eq!(fx.requests_to("/api/echo")[0].body_text(), "hello, world");
}

#[test]
fn inline_pages_get_distinct_urls() {
    let fx = Fixtures::start();
    let a = fx.page_url_with_html("<title>A</title><p>first</p>");
    let b = fx.page_url_with_html("<title>B</title><p>second</p>");
    assert_ne!(a, b);
    assert!(a.starts_with(&fx.origin()));
    let reply = http_get(&a);
    assert_eq!(
        reply.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(reply.text(), "<title>A</title><p>first</p>");
    assert_eq!(http_get(&b).text(), "<title>B</title><p>second</p>");
    let c = fx.route_html("/named/page.html", "<p>named</p>");
    assert_eq!(c, fx.url("/named/page.html"));
    assert_eq!(http_get(&c).text(), "<p>named</p>");
}

#[test]
fn two_servers_are_two_origins() {
    let one = Fixtures::start();
    let two = Fixtures::start();
    assert_ne!(one.origin(), two.origin());
    assert_eq!(http_get(&two.url("/pages/two.html")).status, 200);
    drop(one);
    // The survivor keeps serving after the other one stopped.
    assert_eq!(http_get(&two.url("/pages/hello.html")).status, 200);
}

// ---------------------------------------------------------------- /proc helpers

#[test]
fn procs_finds_descendants_and_sees_them_die() {
    let mut child = std::process::Command::new("sh")
        .args(["-c", "sleep 300 & sleep 300 & wait"])
        .spawn()
        .expect("spawn sh");
    let pid = child.id();
    // A forked child shows `sleep` as its name a moment before exec has laid out its
    // arguments, so wait for both command lines, not just for two children.
    assert!(procs::wait_until(Duration::from_secs(5), || {
        let kids = procs::children(pid);
        kids.len() == 2 && kids.iter().all(|p| p.cmdline == ["sleep", "300"])
    }));
    let sleepers = procs::descendants(pid);
    assert!(
        sleepers.iter().all(|p| p.comm == "sleep" && p.ppid == pid),
        "{sleepers:?}"
    );
    assert_eq!(sleepers[0].cmdline, vec!["sleep", "300"]);
    let pids: Vec<u32> = sleepers.iter().map(|p| p.pid).collect();
    procs::signal(&pids, libc::SIGKILL);
    let _ = child.wait();
    assert!(procs::wait_until(Duration::from_secs(2), || {
        pids.iter().all(|p| !procs::alive(*p))
    }));
    assert!(!procs::alive(pid));
}

// ---------------------------------------------------------------- MCP client, against a fake

/// A scripted stand-in for the server: reads JSON-RPC lines and answers by method.
const FAKE_SERVER: &str = r#"
hang_on_eof=0
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  method=$(printf '%s' "$line" | sed -n 's/.*"method":"\([^"]*\)".*/\1/p')
  [ -z "$id" ] && continue
  case "$method" in
    initialize)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"fake","version":"0"}}}\n' "$id" ;;
    ping)
      printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    slow)
      held=$id ;;
    release)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"slow":true}}\n' "$held"
      printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    notify-me)
      printf '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
      printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    garbage)
      echo "this is a log line on stdout" ;;
    twice)
      printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
      printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    stderr)
      echo "a note on stderr" >&2
      printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    spawn-child)
      sleep 300 &
      printf '{"jsonrpc":"2.0","id":%s,"result":{"pid":%s}}\n' "$id" "$!" ;;
    orphan)
      pid=$( (sleep 300 >/dev/null 2>&1 & echo $!) )
      printf '{"jsonrpc":"2.0","id":%s,"result":{"pid":%s}}\n' "$id" "$pid" ;;
    hang-on-eof)
      hang_on_eof=1
      printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    tools/call)
      case "$line" in
        *'"fails"'*) err=true ;;
        *) err=false ;;
      esac
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"one"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"two"}],"structuredContent":{"k":1},"isError":%s}}\n' "$id" "$err" ;;
    *)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
  esac
done
if [ "$hang_on_eof" = 1 ]; then sleep 300; fi
"#;

fn fake() -> Mcp {
    Mcp::spawn_program("sh", &["-c", FAKE_SERVER], &[])
}

#[test]
fn client_matches_responses_by_id_even_out_of_order() {
    let mcp = fake();
    let init = mcp.initialize();
    assert_eq!(init["protocolVersion"], "2025-06-18");
    // The fake holds slow's answer until "release": ping's answer comes first.
    let slow = mcp.request_async("slow", json!({}));
    let ping = mcp.request("ping", Value::Null);
    assert_eq!(ping["result"], json!({}));
    mcp.request_ok("release", json!({}));
    let slow = mcp.wait_response(slow);
    assert_eq!(slow["result"]["slow"], true);
    let unknown = mcp.request("nope", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    mcp.assert_stdout_clean();
}

#[test]
fn client_records_notifications() {
    let mcp = fake();
    mcp.initialize();
    assert!(mcp
        .poll_notification(
            "notifications/tools/list_changed",
            Duration::from_millis(100)
        )
        .is_none());
    mcp.request_ok("notify-me", json!({}));
    let note = mcp.wait_notification("notifications/tools/list_changed", Duration::from_secs(5));
    assert_eq!(note["method"], "notifications/tools/list_changed");
    // Consumed: not handed out twice, but still in the history.
    assert!(mcp
        .poll_notification(
            "notifications/tools/list_changed",
            Duration::from_millis(50)
        )
        .is_none());
    assert_eq!(
        mcp.notification_history("notifications/tools/list_changed")
            .len(),
        1
    );
    mcp.request_ok("notify-me", json!({}));
    mcp.request_ok("ping", json!({}));
    assert_eq!(
        mcp.drain_notifications("notifications/tools/list_changed")
            .len(),
        1
    );
}

#[test]
fn client_builds_tool_results() {
    let mcp = fake();
    mcp.initialize();
    let ok = mcp.call_ok("anything", json!({"x": 1}));
    assert!(!ok.is_error);
    assert_eq!(ok.text, "one\ntwo");
    assert_eq!(ok.content.len(), 3);
    assert_eq!(ok.images().len(), 1);
    assert_eq!(ok.structured, Some(json!({"k": 1})));
    let err = mcp.call_err("fails", json!({}));
    assert!(err.is_error);
    let parsed = ToolResult::from_result(&json!({"content": []}));
    assert!(!parsed.is_error);
    assert_eq!(parsed.text, "");
}

#[test]
#[should_panic(expected = "was expected to fail")]
fn call_err_panics_on_success() {
    let mcp = fake();
    mcp.call_err("anything", json!({}));
}

#[test]
#[should_panic(expected = "non-protocol output")]
fn a_log_line_on_stdout_fails_the_test() {
    let mcp = fake();
    mcp.request_async("garbage", json!({}));
    mcp.request("ping", json!({}));
}

#[test]
#[should_panic(expected = "second response for id")]
fn a_duplicate_response_fails_the_test() {
    let mcp = fake();
    mcp.request("twice", json!({}));
    mcp.request("ping", json!({}));
}

#[test]
#[should_panic(expected = "no response to request")]
fn a_missing_response_times_out_with_a_clear_message() {
    let mcp = fake();
    let id = mcp.request_async("slow", json!({}));
    mcp.wait_response_timeout(id, Duration::from_millis(100));
}

#[test]
fn stderr_goes_to_a_log_file_removed_on_success() {
    let mcp = fake();
    mcp.request_ok("stderr", json!({}));
    assert!(procs::wait_until(Duration::from_secs(2), || mcp
        .stderr_log()
        .contains("a note on stderr")));
    let path = mcp.stderr_path().to_path_buf();
    assert!(path.exists());
    drop(mcp);
    assert!(!path.exists());
}

#[test]
fn eof_on_stdin_ends_the_fake_and_stdout_closes() {
    let mcp = fake();
    mcp.request_ok("ping", json!({}));
    let status = mcp.close_stdin_and_wait(Duration::from_secs(5));
    assert!(status.success());
    assert!(mcp.wait_stdout_closed(Duration::from_secs(5)));
    assert!(mcp.stdout_line_count() >= 1);
}

#[test]
fn drop_kills_a_server_that_ignores_eof_and_its_children() {
    let mcp = fake();
    let spawned = mcp.request_ok("spawn-child", json!({}));
    let child_pid = spawned["pid"].as_u64().expect("pid") as u32;
    mcp.request_ok("hang-on-eof", json!({}));
    let server = mcp.pid();
    assert!(mcp.descendants().iter().any(|p| p.pid == child_pid));
    drop(mcp);
    assert!(!procs::alive(server));
    assert!(procs::wait_until(Duration::from_secs(2), || !procs::alive(
        child_pid
    )));
}

#[test]
fn tagged_processes_include_orphans_and_drop_kills_them() {
    let mcp = fake();
    let orphan = mcp.request_ok("orphan", json!({}))["pid"]
        .as_u64()
        .expect("pid") as u32;
    // Re-parented away from the server, yet found by the inherited tag.
    assert!(procs::wait_until(Duration::from_secs(2), || {
        procs::Proc::read(orphan).is_some_and(|p| p.ppid != mcp.pid())
    }));
    assert!(!mcp.descendants().iter().any(|p| p.pid == orphan));
    assert!(mcp.tagged_processes().iter().any(|p| p.pid == orphan));
    drop(mcp);
    assert!(procs::wait_until(Duration::from_secs(2), || !procs::alive(
        orphan
    )));
}

#[test]
fn sigterm_reaches_the_server() {
    let mcp = fake();
    mcp.request_ok("ping", json!({}));
    mcp.terminate();
    let status = mcp
        .wait_exit(Duration::from_secs(5))
        .expect("exit after SIGTERM");
    assert!(!status.success());
}

#[test]
fn a_thread_reuses_its_server_slot() {
    let first = crate::support::slots::acquire();
    let second = crate::support::slots::acquire();
    assert!(std::sync::Arc::ptr_eq(&first, &second));
}
