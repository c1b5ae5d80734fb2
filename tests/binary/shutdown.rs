//! Shutdown before any browser ran: on EOF of stdin the server exits at once (with a browser
//! to take down, in `browser/shutdown.rs`).

use std::time::Instant;

use crate::browser::shutdown::SHUTDOWN_LIMIT;
use crate::support::started;

#[test]
fn eof_before_any_browser_exits_at_once() {
    let mcp = started();
    let closed = Instant::now();
    let status = mcp.close_stdin_and_wait(SHUTDOWN_LIMIT);
    assert!(status.success(), "{status:?}");
    assert!(closed.elapsed() < SHUTDOWN_LIMIT);
}
