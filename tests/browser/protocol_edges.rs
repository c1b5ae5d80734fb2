//! Protocol edges that need a browser: a cancellation matches the id of the call it cancels
//! by its exact value, against the real binary on its bare stdio (the edges that need none are
//! in `binary/protocol_edges.rs`).

use std::time::Duration;

use crate::binary::protocol_edges::PROMPT;
use crate::support::raw::{id_text, next, Raw};

/// `notifications/cancelled` finds the call whose id has the same JSON value, however large
/// or however written, and no other.
#[test]
fn cancellation_matches_ids_by_their_exact_value() {
    let mut args = vec!["--headless", "--isolated"];
    args.extend_from_slice(crate::support::mcp::browser_choice());
    args.extend_from_slice(crate::support::mcp::BROWSER_FLAGS);
    let mut server = Raw::spawn_exactly(&args);
    let answers = server.lines();
    let call = |id: &str, function: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":\
             {{\"name\":\"evaluate_script\",\"arguments\":{{\"function\":\"{function}\"}}}}}}\n"
        )
    };
    let cancel = |id: &str| {
        format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id}}}}}\n")
    };
    let slow = "() => new Promise(r => setTimeout(() => r(1), 1500))";
    server.write(call("18446744073709551616", slow).as_bytes());
    // The same as a float, not the same as a number: this cancels nothing.
    server.write(cancel("18446744073709551617").as_bytes());
    server.write(call("1e2", "() => new Promise(() => {})").as_bytes());
    // The same value written otherwise: this cancels the call above.
    server.write(cancel("100.0").as_bytes());

    let mut seen = Vec::new();
    while !seen.iter().any(|id| id == "18446744073709551616") {
        let line = next(&answers, Duration::from_secs(30)).expect("the uncancelled call answers");
        seen.push(id_text(&line).unwrap_or_default());
    }
    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"method\":\"ping\"}\n");
    while !seen.iter().any(|id| id == "\"after\"") {
        let line = next(&answers, PROMPT).expect("the ping answers");
        seen.push(id_text(&line).unwrap_or_default());
    }
    assert!(
        !seen.iter().any(|id| id == "1e2"),
        "the cancelled call answered: {seen:?}"
    );
}
