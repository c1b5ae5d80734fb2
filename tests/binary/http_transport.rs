//! MCP's Streamable HTTP transport (`--port`) with no browser: sessions and their ids, JSON or
//! event-stream answers, the GET stream, DELETE, the stateless 2026-07-28 requests, and every
//! refusal — wrong session, wrong Host or Origin, no token, wrong path or method, and hostile
//! bytes — after each of which the server still serves.

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::json;

use crate::support::mcp_http::{
    message, next_event, open_stream, raw_exchange, stateless, HttpServer, ACCEPT_BOTH,
};
use crate::support::modern::{with_envelope, VERSION};
use crate::support::Mcp;

fn tools_list() -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        .to_string()
        .into_bytes()
}

/// The server still opens sessions and answers in them.
fn still_serves(server: &HttpServer) {
    let session = server.session("/mcp");
    let tools = session.request("tools/list", json!({}));
    assert!(tools["result"]["tools"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
}

#[test]
fn a_session_lives_from_initialize_to_delete_and_answers_as_the_client_accepts() {
    let server = HttpServer::start(&[], &[]);
    // No session yet: only initialize may come.
    let early = server.request("POST", "/mcp", &ACCEPT_BOTH, &tools_list());
    assert_eq!(early.status, 400, "{}", early.text());

    let session = server.session("/mcp");
    assert_eq!(session.id.len(), 32);
    assert!(session.id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_ne!(server.session("/mcp").id, session.id);

    // An event stream for a client that accepts only that; JSON for one that accepts JSON.
    let headers = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session.id.as_str()),
    ];
    let streamed = server.request("POST", "/mcp", &headers, &tools_list());
    assert_eq!(streamed.header("content-type"), Some("text/event-stream"));
    assert!(message(&streamed)["result"]["tools"].is_array());
    let headers = [
        ("Accept", "application/json"),
        ("Mcp-Session-Id", session.id.as_str()),
    ];
    let plain = server.request("POST", "/mcp", &headers, &tools_list());
    assert_eq!(plain.header("content-type"), Some("application/json"));

    // A version header the session does not speak is refused.
    let headers = [
        ("Mcp-Session-Id", session.id.as_str()),
        ("MCP-Protocol-Version", "1999-01-01"),
    ];
    assert_eq!(
        server
            .request("POST", "/mcp", &headers, &tools_list())
            .status,
        400
    );
    // Unknown ids, and ids of another path's agent, are not found.
    let headers = [("Mcp-Session-Id", "0123456789abcdef0123456789abcdef")];
    assert_eq!(
        server
            .request("POST", "/mcp", &headers, &tools_list())
            .status,
        404
    );
    let headers = [("Mcp-Session-Id", session.id.as_str())];
    assert_eq!(
        server
            .request("POST", "/mcp/other", &headers, &tools_list())
            .status,
        404
    );
    assert_eq!(server.request("PUT", "/mcp", &headers, b"{}").status, 405);

    assert_eq!(session.delete().status, 200);
    assert_eq!(
        session
            .post(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
            .status,
        404
    );
    assert_eq!(session.delete().status, 404);
    still_serves(&server);
}

#[test]
fn the_get_stream_carries_what_the_server_asks_and_ends_with_the_session() {
    let server = HttpServer::start(&[], &[]);
    // A client with roots is asked for them, on its GET stream once it opens one.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
        "clientInfo": {"name": "t", "version": "0"}}});
    let reply = server.request("POST", "/mcp", &ACCEPT_BOTH, init.to_string().as_bytes());
    let id = reply
        .header("mcp-session-id")
        .expect("session id")
        .to_owned();
    let headers = [
        ("Mcp-Session-Id", id.as_str()),
        ("Accept", "application/json, text/event-stream"),
    ];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(
        server
            .request("POST", "/mcp", &headers, note.as_bytes())
            .status,
        202
    );

    let mut stream = open_stream(&server, &id);
    let asked = next_event(&mut stream).expect("roots/list on the stream");
    assert_eq!(asked["method"], "roots/list");
    // A second stream for the same session is refused.
    let headers = [
        ("Mcp-Session-Id", id.as_str()),
        ("Accept", "text/event-stream"),
    ];
    assert_eq!(server.request("GET", "/mcp", &headers, b"").status, 409);
    // The client answers; then ends the session, and its stream ends.
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": []}}).to_string();
    let headers = [
        ("Mcp-Session-Id", id.as_str()),
        ("Accept", "application/json"),
    ];
    assert_eq!(
        server
            .request("POST", "/mcp", &headers, answer.as_bytes())
            .status,
        202
    );
    assert_eq!(server.request("DELETE", "/mcp", &headers, b"").status, 200);
    assert_eq!(next_event(&mut stream), None);
}

#[test]
fn stateless_requests_need_no_session_and_must_agree_with_their_headers() {
    let server = HttpServer::start(&[], &[]);
    let discovered = stateless(&server, "/mcp", "server/discover", json!({}));
    assert_eq!(discovered.status, 200, "{}", discovered.text());
    assert!(discovered.header("mcp-session-id").is_none());
    assert!(
        message(&discovered)["result"]["supportedVersions"].is_array(),
        "{}",
        discovered.text()
    );
    let listed = stateless(&server, "/mcp/ci-1", "tools/list", json!({}));
    assert_eq!(message(&listed)["result"]["resultType"], "complete");

    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": with_envelope(json!({}))});
    let headers = [
        ("MCP-Protocol-Version", VERSION),
        ("Mcp-Method", "tools/call"),
    ];
    let mismatch = server.request("POST", "/mcp", &headers, body.to_string().as_bytes());
    assert_eq!(mismatch.status, 400, "{}", mismatch.text());
    assert_eq!(message(&mismatch)["error"]["code"], -32020);
    // Without the envelope: refused for lacking it.
    let bare = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}});
    let headers = [
        ("MCP-Protocol-Version", VERSION),
        ("Mcp-Method", "tools/list"),
    ];
    assert_eq!(
        server
            .request("POST", "/mcp", &headers, bare.to_string().as_bytes())
            .status,
        400
    );

    // subscriptions/listen is a stream: acknowledged at once.
    let mut stream = TcpStream::connect(&server.addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let body = json!({"jsonrpc": "2.0", "id": 6, "method": "subscriptions/listen",
        "params": with_envelope(json!({"notifications": {"toolsListChanged": true}}))})
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMCP-Protocol-Version: {VERSION}\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n",
        server.addr,
        body.len()
    );
    stream
        .write_all(format!("{head}{body}").as_bytes())
        .expect("listen");
    let mut reader = BufReader::new(stream);
    let ack = next_event(&mut reader).expect("acknowledged");
    assert_eq!(ack["method"], crate::support::modern::ACKNOWLEDGED, "{ack}");
    still_serves(&server);
}

#[test]
fn only_loopback_hosts_and_origins_get_in_and_the_token_is_required_when_set() {
    let server = HttpServer::start(&[], &[]);
    let init = |headers: &[(&str, &str)]| {
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        let mut all = ACCEPT_BOTH.to_vec();
        all.extend_from_slice(headers);
        server
            .request("POST", "/mcp", &all, body.to_string().as_bytes())
            .status
    };
    assert_eq!(init(&[("Origin", "https://evil.example")]), 403);
    assert_eq!(init(&[("Origin", "http://localhost:5173")]), 200);
    let rebound = "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 2\r\n\r\n{}";
    assert!(raw_exchange(&server.addr, rebound.as_bytes()).starts_with("HTTP/1.1 403"));
    assert_eq!(server.request("GET", "/", &[], b"").status, 404);
    assert_eq!(
        server
            .request("POST", "/mcp/no%20such", &ACCEPT_BOTH, &tools_list())
            .status,
        404
    );
    assert_eq!(
        server
            .request("POST", "/mcpx", &ACCEPT_BOTH, &tools_list())
            .status,
        404
    );

    let guarded = HttpServer::start(&[], &[("DEVTOOLS_MCP_TOKEN", "s3cret-token")]);
    let status = |auth: Option<&str>| {
        let mut headers = ACCEPT_BOTH.to_vec();
        headers.extend(auth.map(|a| ("Authorization", a)));
        guarded
            .request("POST", "/mcp", &headers, &tools_list())
            .status
    };
    assert_eq!(status(None), 401);
    assert_eq!(status(Some("Bearer s3cret-tokeN")), 401);
    assert_eq!(
        status(Some("Bearer s3cret-token")),
        400,
        "the token lets it in (then: no session)"
    );

    // Listening beyond loopback without a token: refused at start, saying why.
    let open = Mcp::start_raw(&["--port", "0", "--host", "0.0.0.0"]);
    let exit = open.wait_exit(Duration::from_secs(10)).expect("exits");
    assert_eq!(exit.code(), Some(2));
    assert!(
        open.stderr_log().contains("DEVTOOLS_MCP_TOKEN"),
        "{}",
        open.stderr_log()
    );
}

#[test]
fn hostile_bytes_get_a_status_and_the_server_keeps_serving() {
    let server = HttpServer::start(&[], &[]);
    let addr = server.addr.as_str();
    let cases: [(&[u8], &str); 5] = [
        (b"\x16\x03\x01\x02\x00garbage\r\n\r\n", "400"),
        (
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: nope\r\n\r\n",
            "400",
        ),
        (
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 999999999\r\n\r\n",
            "413",
        ),
        (
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "411",
        ),
        (
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\n{]}[x",
            "400",
        ),
    ];
    for (bytes, status) in cases {
        let answer = raw_exchange(addr, bytes);
        let first = answer.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("HTTP/1.1 {status}")),
            "{first} for {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    let mut huge = b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 64 * 1024));
    assert!(raw_exchange(addr, &huge).starts_with("HTTP/1.1 431"));
    let many_headers: String = (0..100).map(|i| format!("X-{i}: v\r\n")).collect();
    let many = format!("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{many_headers}\r\n");
    assert!(raw_exchange(addr, many.as_bytes()).starts_with("HTTP/1.1 431"));

    // More connections than the server takes: the extra ones are refused, and once they go
    // the server serves again.
    let held: Vec<TcpStream> = (0..140)
        .filter_map(|_| TcpStream::connect(addr).ok())
        .collect();
    let refused = raw_exchange(addr, b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    drop(held);
    let serves = crate::support::procs::wait_until(Duration::from_secs(10), || {
        raw_exchange(addr, b"GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .starts_with("HTTP/1.1 404")
    });
    assert!(serves);
    still_serves(&server);
}

#[test]
fn agents_and_sessions_are_bounded_with_a_clear_refusal() {
    let server = HttpServer::start(&[], &[]);
    // Each session on /mcp is an agent (a browser context): at most 32 at once.
    let sessions: Vec<_> = (0..32).map(|_| server.session("/mcp")).collect();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let full = server.request("POST", "/mcp", &ACCEPT_BOTH, init.to_string().as_bytes());
    assert_eq!(full.status, 503, "{}", full.text());
    assert!(message(&full)["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("too many agents")));
    // One ends: there is room for one more agent, here a named one.
    assert_eq!(sessions[0].delete().status, 200);
    // Sessions of one named agent count against the sessions' bound (64).
    let mut named = Vec::new();
    loop {
        let reply = server.request(
            "POST",
            "/mcp/shared",
            &ACCEPT_BOTH,
            init.to_string().as_bytes(),
        );
        if reply.status != 200 {
            assert_eq!(reply.status, 503, "{}", reply.text());
            assert!(
                reply.text().contains("too many sessions"),
                "{}",
                reply.text()
            );
            break;
        }
        named.push(reply);
        assert!(named.len() <= 64, "more than 64 sessions at once");
    }
    assert_eq!(named.len() + 31, 64);
    let first = named[0].header("mcp-session-id").expect("session id");
    let headers = [("Mcp-Session-Id", first)];
    assert_eq!(
        server
            .request("DELETE", "/mcp/shared", &headers, b"")
            .status,
        200
    );
    let again = server.request(
        "POST",
        "/mcp/shared",
        &ACCEPT_BOTH,
        init.to_string().as_bytes(),
    );
    assert_eq!(again.status, 200, "{}", again.text());
}
