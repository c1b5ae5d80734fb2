//! Many agents on one server over MCP's Streamable HTTP transport (`--port`), each session an
//! agent with its own browser context: what one agent opens, stores or selects, another never
//! sees or reaches, whatever page ids it sends; a slow call in one does not hold up another;
//! deleting a session ends its agent; the browser keeps no tab that no agent uses.

use std::thread;

use serde_json::json;

use std::time::Duration;

use crate::support::calls::assert_error;
use crate::support::mcp_http::{next_event, open_stream, stateless_call, HttpServer};
use crate::support::procs::{children, descendants, wait_until, Proc};
use crate::support::Fixtures;

/// How many renderer processes the server's browser runs.
fn renderers(server: &HttpServer) -> usize {
    let all = descendants(server.process.pid());
    let renderer = |p: &&Proc| p.command().contains("--type=renderer");
    all.iter().filter(renderer).count()
}

#[test]
fn two_sessions_are_two_agents_that_never_see_each_others_pages_or_cookies() {
    let fx = Fixtures::start();
    let url = fx.route_html("/who.html", "<title>who</title><p>who</p>");
    let server = HttpServer::start(&[], &[]);
    let a = server.session("/mcp");
    let b = server.session("/mcp");
    assert_ne!(a.id, b.id);

    a.call_ok("navigate_page", json!({"url": url}));
    let set = "() => { document.cookie = 'who=a; path=/'; localStorage.who = 'a'; return document.cookie }";
    let cookie = a.call_ok("evaluate_script", json!({"function": set}));
    assert!(cookie.text.contains("who=a"), "{}", cookie.text);
    let a_pages = a.page_ids();

    // B's pages are its own, in a context of its own: the same origin keeps nothing of A's.
    b.call_ok("navigate_page", json!({"url": url}));
    let b_pages = b.page_ids();
    assert!(
        b_pages.iter().all(|p| !a_pages.contains(p)),
        "{a_pages:?} {b_pages:?}"
    );
    let read = "() => JSON.stringify([document.cookie, localStorage.who ?? null])";
    let seen = b.call_ok("evaluate_script", json!({"function": read}));
    assert!(seen.text.contains(r#"[\"\",null]"#), "{}", seen.text);

    // Whatever id B sends, A's pages (and page 1, whoever's it is) are out of reach.
    for id in a_pages.iter().copied().chain([1]) {
        let selected = b.call("select_page", json!({"pageId": id}));
        assert_error(&selected, "No page found");
        let ran = b.call("evaluate_script", json!({"function": read, "pageId": id}));
        assert!(ran.is_error, "B ran code in page {id}: {}", ran.text);
        let closed = b.call("close_page", json!({"pageId": id}));
        assert!(closed.is_error, "B closed page {id}: {}", closed.text);
    }
    assert_eq!(a.page_ids(), a_pages);
    assert_eq!(b.page_ids(), b_pages);
    let still = a.call_ok("evaluate_script", json!({"function": read}));
    assert!(
        still.text.contains(r#"[\"who=a\",\"a\"]"#),
        "{}",
        still.text
    );
}

#[test]
fn a_slow_call_in_one_agent_holds_up_no_other_and_deleting_a_session_ends_its_agent() {
    let server = HttpServer::start(&[], &[]);
    let a = server.session("/mcp");
    let b = server.session("/mcp");
    a.page_ids();
    let wait = "() => new Promise(resolve => { window.release = resolve })";
    let slow = thread::scope(|s| {
        let slow = s.spawn(|| a.call("evaluate_script", json!({"function": wait})));
        // B is answered while A's call waits, and cannot end A's wait: it has no such page.
        let check = "() => typeof window.release";
        let seen = b.call_ok("evaluate_script", json!({"function": check}));
        assert!(seen.text.contains("undefined"), "{}", seen.text);
        // A's own second call ends the wait (once the first has set it up).
        let release =
            "() => { if (!window.release) return false; window.release('done'); return true }";
        wait_until(Duration::from_secs(20), || {
            a.call_ok("evaluate_script", json!({"function": release}))
                .text
                .contains("true")
        });
        slow.join().expect("slow call")
    });
    assert!(
        !slow.is_error && slow.text.contains("done"),
        "{}",
        slow.text
    );

    // Deleting A's session disposes its context: its page's renderer goes.
    let renderers = || renderers(&server);
    let before = renderers();
    // A call still in flight when its session is deleted is answered 404, not left hanging.
    let hold = "() => new Promise(resolve => { window.hold = resolve })";
    let held = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "evaluate_script", "arguments": {"function": hold}}});
    let cut = thread::scope(|s| {
        let pending = s.spawn(|| a.post(&held));
        let holding = "() => typeof window.hold";
        let started = wait_until(Duration::from_secs(20), || {
            let seen = a.call_ok("evaluate_script", json!({"function": holding}));
            seen.text.contains("function")
        });
        assert!(started, "the held call never ran");
        assert_eq!(a.delete().status, 200);
        pending.join().expect("held call")
    });
    assert_eq!(cut.status, 404, "{}", cut.text());
    assert!(
        wait_until(Duration::from_secs(20), || renderers() < before),
        "A's renderer outlived its session ({before} renderers)"
    );
    let after = a.post(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}));
    assert_eq!(after.status, 404, "{}", after.text());
    assert_eq!(a.delete().status, 404);
    // The other agent goes on.
    assert!(!b.page_ids().is_empty());
}

#[test]
fn the_browser_keeps_no_tab_that_no_agent_uses_and_serves_on_with_none() {
    let server = HttpServer::start(&[], &[]);
    let a = server.session("/mcp");
    assert_eq!(a.page_ids().len(), 1);
    let browser = |server: &HttpServer| {
        let children = children(server.process.pid());
        children.iter().map(|p| p.pid).collect::<Vec<_>>()
    };
    let started = browser(&server);
    assert_eq!(started.len(), 1, "{started:?}");
    // With A's context gone, no page is left: no renderer either (a blank first tab in the
    // default context, which no agent of a --port server uses, would keep one).
    assert_eq!(a.delete().status, 200);
    let none = wait_until(Duration::from_secs(20), || renderers(&server) == 0);
    assert!(none, "{} renderers with no agent", renderers(&server));
    // The same browser, with no tab at all, serves the next agent.
    let b = server.session("/mcp");
    assert_eq!(b.page_ids().len(), 1);
    assert_eq!(browser(&server), started);
}

#[test]
fn a_named_agent_keeps_its_pages_across_stateless_requests_and_ends_when_idle() {
    let fx = Fixtures::start();
    let url = fx.route_html("/named.html", "<title>named</title>");
    let server = HttpServer::start(&["--agentIdleTimeout", "2"], &[]);
    let set = "() => { document.cookie = 'agent=ci; path=/'; return document.cookie }";
    let read = "() => document.cookie";

    stateless_call(&server, "/mcp/ci", "navigate_page", json!({"url": url}));
    let cookie = stateless_call(
        &server,
        "/mcp/ci",
        "evaluate_script",
        json!({"function": set}),
    );
    assert!(cookie.text.contains("agent=ci"), "{}", cookie.text);
    // The next stateless request to the name is the same agent: its page, its cookie.
    let again = stateless_call(
        &server,
        "/mcp/ci",
        "evaluate_script",
        json!({"function": read}),
    );
    assert!(again.text.contains("agent=ci"), "{}", again.text);
    // A handshake session on the name joins the same agent; another name is another agent.
    let joined = server.session("/mcp/ci");
    let seen = joined.call_ok("evaluate_script", json!({"function": read}));
    assert!(seen.text.contains("agent=ci"), "{}", seen.text);
    let other = stateless_call(&server, "/mcp/other", "navigate_page", json!({"url": url}));
    assert!(!other.is_error, "{}", other.text);
    let theirs = stateless_call(
        &server,
        "/mcp/other",
        "evaluate_script",
        json!({"function": read}),
    );
    assert!(!theirs.text.contains("agent=ci"), "{}", theirs.text);

    // Left alone, the agent ends (and its session with it); the name then starts afresh.
    let ended = wait_until(Duration::from_secs(30), || {
        server
            .process
            .stderr_log()
            .matches("idle for 2s: ending it")
            .count()
            >= 2
    });
    assert!(ended, "{}", server.process.stderr_log());
    let gone = joined.post(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    assert_eq!(gone.status, 404);
    let fresh = stateless_call(&server, "/mcp/ci", "navigate_page", json!({"url": url}));
    assert!(!fresh.is_error, "{}", fresh.text);
    let after = stateless_call(
        &server,
        "/mcp/ci",
        "evaluate_script",
        json!({"function": read}),
    );
    assert!(!after.text.contains("agent=ci"), "{}", after.text);
}

#[test]
fn a_page_tool_change_is_announced_on_its_own_agents_get_stream_only() {
    let fx = Fixtures::start();
    let late = crate::support::thirdparty::page_url(&fx, "late.html");
    let server = HttpServer::start(&[], &[]);
    let a = server.session("/mcp");
    let b = server.session("/mcp");
    let mut a_stream = open_stream(&server, &a.id);
    let mut b_stream = open_stream(&server, &b.id);
    b.page_ids();

    // A's page registers tools after load: A hears of it on its GET stream.
    a.call_ok("navigate_page", json!({"url": late}));
    let note = next_event(&mut a_stream).expect("a notice on A's stream");
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    // B, whose pages did not change, hears nothing (its stream stays quiet until it ends).
    let quiet = b_stream
        .get_ref()
        .set_read_timeout(Some(Duration::from_millis(2500)));
    quiet.expect("read timeout");
    assert_eq!(next_event(&mut b_stream), None);
}

#[test]
fn another_agents_uids_message_and_request_ids_reach_nothing() {
    let fx = Fixtures::start();
    fx.route_response(
        "/data.json",
        crate::support::Response::json(&json!({"secret": 1})),
    );
    let html = "<title>own</title><button onclick=\"window.clicked = true\">Press</button>\
        <script>console.log('secret-log'); fetch('/data.json')</script>";
    let url = fx.route_html("/own.html", html);
    let server = HttpServer::start(&[], &[]);
    let a = server.session("/mcp");
    let b = server.session("/mcp");
    a.call_ok("navigate_page", json!({"url": url}));
    let elsewhere = fx.route_html("/elsewhere.html", "<title>elsewhere</title>");
    b.call_ok("navigate_page", json!({"url": elsewhere}));

    let snapshot = a.call_ok("take_snapshot", json!({})).text;
    let button = crate::support::calls::uid(&snapshot, "button", "Press");
    let logged = a.call_ok("list_console_messages", json!({})).text;
    let msgid = crate::support::console_network::msgid(&logged, "secret-log");
    let requested = a.call_ok("list_network_requests", json!({})).text;
    let reqid = crate::support::console_network::reqid(&requested, "data.json");

    // The ids work for A...
    let own = a.call_ok("get_console_message", json!({"msgid": msgid}));
    assert!(own.text.contains("secret-log"), "{}", own.text);
    let own = a.call_ok("get_network_request", json!({"reqid": reqid}));
    assert!(own.text.contains("data.json"), "{}", own.text);
    // ...and B, sending them, reaches nothing of A's; A's page is untouched.
    let clicked = b.call("click", json!({"uid": button}));
    assert!(clicked.is_error, "B clicked with A's uid: {}", clicked.text);
    let message = b.call("get_console_message", json!({"msgid": msgid}));
    assert!(
        message.is_error || !message.text.contains("secret-log"),
        "{}",
        message.text
    );
    let request = b.call("get_network_request", json!({"reqid": reqid}));
    assert!(!request.text.contains("data.json"), "{}", request.text);
    let own_log = b.call_ok("list_console_messages", json!({})).text;
    assert!(!own_log.contains("secret-log"), "{own_log}");
    let untouched = "() => window.clicked === true";
    let seen = a.call_ok("evaluate_script", json!({"function": untouched}));
    assert!(seen.text.contains("false"), "{}", seen.text);
}

#[test]
fn a_named_agents_listen_stream_hears_of_its_tool_changes() {
    use std::io::Write;
    let fx = Fixtures::start();
    let late = crate::support::thirdparty::page_url(&fx, "late.html");
    let server = HttpServer::start(&[], &[]);
    // subscriptions/listen on /mcp/ci: a stream for as long as the request lasts.
    let mut stream = std::net::TcpStream::connect(&server.addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let params = json!({"notifications": {"toolsListChanged": true}});
    let body = json!({"jsonrpc": "2.0", "id": 6, "method": "subscriptions/listen",
        "params": crate::support::modern::with_envelope(params)})
    .to_string();
    let head = format!(
        "POST /mcp/ci HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\
         MCP-Protocol-Version: {}\r\nMcp-Method: subscriptions/listen\r\n\
         Content-Length: {}\r\n\r\n",
        server.addr,
        crate::support::modern::VERSION,
        body.len()
    );
    stream
        .write_all(format!("{head}{body}").as_bytes())
        .expect("listen");
    let mut reader = std::io::BufReader::new(stream);
    let ack = next_event(&mut reader).expect("acknowledged");
    assert_eq!(ack["method"], crate::support::modern::ACKNOWLEDGED, "{ack}");

    // Another agent's page tools change: not this stream's business. By the time that agent
    // lists its late tool, a notice routed here would have been written already.
    let has_late = |path: &str| {
        let listed = stateless_call(&server, path, "list_3p_developer_tools", json!({}));
        listed.text.contains("late_tool")
    };
    stateless_call(&server, "/mcp/other", "navigate_page", json!({"url": late}));
    assert!(wait_until(Duration::from_secs(20), || has_late(
        "/mcp/other"
    )));
    let quiet = reader
        .get_ref()
        .set_read_timeout(Some(Duration::from_secs(1)));
    quiet.expect("read timeout");
    assert_eq!(
        next_event(&mut reader),
        None,
        "another agent's change reached this stream"
    );
    // The agent's own page's change is announced.
    let loud = reader
        .get_ref()
        .set_read_timeout(Some(Duration::from_secs(20)));
    loud.expect("read timeout");
    stateless_call(&server, "/mcp/ci", "navigate_page", json!({"url": late}));
    let note = next_event(&mut reader).expect("a notice on the listen stream");
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert!(wait_until(Duration::from_secs(20), || has_late("/mcp/ci")));
}
