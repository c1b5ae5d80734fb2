//! Many agents on one server over MCP's Streamable HTTP transport (`--port`), each session an
//! agent with its own browser context: what one agent opens, stores or selects, another never
//! sees or reaches, whatever page ids it sends; a slow call in one does not hold up another;
//! deleting a session ends its agent.

use std::thread;

use serde_json::json;

use crate::support::calls::assert_error;
use crate::support::mcp_http::{HttpServer, Session};
use crate::support::Fixtures;

/// The page ids a `list_pages` answer shows.
fn page_ids(session: &Session) -> Vec<u64> {
    let listed = session.call_ok("list_pages", json!({}));
    let pages = &listed.structured.expect("structuredContent")["pages"];
    let ids = pages.as_array().expect("pages").iter();
    ids.map(|p| p["id"].as_u64().expect("id")).collect()
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
    let a_pages = page_ids(&a);

    // B's pages are its own, in a context of its own: the same origin keeps nothing of A's.
    b.call_ok("navigate_page", json!({"url": url}));
    let b_pages = page_ids(&b);
    assert!(
        b_pages.iter().all(|p| !a_pages.contains(p)),
        "{a_pages:?} {b_pages:?}"
    );
    let read = "() => JSON.stringify([document.cookie, localStorage.who ?? null])";
    let seen = b.call_ok("evaluate_script", json!({"function": read}));
    assert!(seen.text.contains(r#"[\"\",null]"#), "{}", seen.text);

    // Whatever id B sends, A's pages (and the browser's first tab, no agent's) are out of reach.
    for id in a_pages.iter().copied().chain([1]) {
        let selected = b.call("select_page", json!({"pageId": id}));
        assert_error(&selected, "No page found");
        let ran = b.call("evaluate_script", json!({"function": read, "pageId": id}));
        assert!(ran.is_error, "B ran code in page {id}: {}", ran.text);
        let closed = b.call("close_page", json!({"pageId": id}));
        assert!(closed.is_error, "B closed page {id}: {}", closed.text);
    }
    assert_eq!(page_ids(&a), a_pages);
    assert_eq!(page_ids(&b), b_pages);
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
    page_ids(&a);
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
        crate::support::procs::wait_until(std::time::Duration::from_secs(20), || {
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

    assert_eq!(a.delete().status, 200);
    let after = a.post(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}));
    assert_eq!(after.status, 404, "{}", after.text());
    assert_eq!(a.delete().status, 404);
    // The other agent goes on.
    assert!(!page_ids(&b).is_empty());
}
