//! The harness every kind of test shares, and nothing else: a helper no test uses is deleted.
//!
//! - [`fixtures`]: a tiny HTTP/1.1 server on 127.0.0.1 that serves `tests/fixtures/` plus routes a
//!   test programs (inline pages, slow or held responses, an echo endpoint that records
//!   requests).
//! - [`http`]: HTTP/1.1 parsing and writing for that server, a minimal client, a closed port.
//! - [`mcp`]: spawns the `devtools-mcp` binary with the flags this machine needs and speaks
//!   JSON-RPC to it over stdio, failing the test if stdout ever carries anything but protocol.
//! - [`raw`]: the binary's stdin and stdout as they are, for bytes the regular client would
//!   never send (the protocol tests).
//! - [`modern`]: MCP 2026-07-28 requests (the envelope, results, subscriptions).
//! - [`procs`]: reads `/proc` to find the server's child processes, so tests can prove Chromium
//!   and its profile directory are gone after shutdown.
//! - [`slots`]: caps how many real servers (browsers) run at once, machine-wide.
//! - [`calls`]: tools called without waiting, values and uids read back, the reference's texts,
//!   error codes and the tools listed.
//! - [`fake`]: the server against a scripted browser connection ([`wire`]), without Chromium.
//! - [`reference`]: the reference's answers kept as fixtures, recorded or compared.
//! - `selftest`: the harness's own tests.
//!
//! What one group of tests shares lives here too, one module per group:
//!
//! - [`console_network`]: `browser/console.rs`, `browser/network*.rs` (lists and their ids).
//! - [`images`]: `browser/screenshot.rs`, `browser/emulation.rs` (the image of an answer, a
//!   PNG's size).
//! - [`input`]: `browser/input/` (a page and its snapshot, calls that must not stall).
//! - [`pages`]: `browser/pages.rs`, `browser/navigation.rs`, `browser/script.rs`, ... (pages,
//!   `evaluate_script`).
//! - [`thirdparty`]: `browser/thirdparty/` (pages, calls, the list's section).
//!
//! This file has the servers most tests start ([`started`], [`started_with`], [`started_in`]),
//! [`PROMPT`] and [`browser_main_process`].
//!
//! Only the standard library, serde_json and libc (signals) are used, so the harness never
//! drifts from what the tests exercise: real sockets, a real browser, the real binary. Two
//! exceptions use the crate itself: [`fake`] (the server in-process) and [`chrome_path`], which
//! picks the browser by the server's own rule so the tests and the server can never disagree on
//! it.

pub mod calls;
pub mod console_network;
pub mod fake;
pub mod fixtures;
pub mod http;
pub mod images;
pub mod input;
pub mod mcp;
pub mod mcp_http;
pub mod modern;
pub mod pages;
pub mod procs;
pub mod raw;
pub mod reference;
mod selftest;
pub mod slots;
pub mod thirdparty;
pub mod wire;

pub use fixtures::{Fixtures, Response};
pub use http::{closed_port, http_get, http_request};
pub use mcp::{chrome_path, Mcp, ToolResult};

use std::path::Path;
use std::time::Duration;

/// How soon a call that does not depend on a busy page must answer. The calls themselves take
/// milliseconds; the slack is for a shared two-core machine under load. A call that needs more
/// than this is stalling.
pub const PROMPT: Duration = Duration::from_secs(5);

/// A server (the default flags, see [`Mcp::start`]) that has answered `initialize`.
pub fn started() -> Mcp {
    started_with(&[])
}

/// [`started`] with extra flags after the default ones.
pub fn started_with(args: &[&str]) -> Mcp {
    let mcp = Mcp::start(args);
    mcp.initialize();
    mcp
}

/// A server whose temp directory is `tmp` (so "outside the temp directory" is a folder the
/// test controls), with extra flags. Not initialized yet: the caller chooses the client's
/// capabilities ([`Mcp::initialize`] or [`Mcp::initialize_with`]).
pub fn started_in(tmp: &Path, extra: &[&str]) -> Mcp {
    let tmp = tmp.to_str().expect("utf-8 path");
    Mcp::start_with_env(extra, &[("TMPDIR", tmp)])
}

/// The browser process the server launched (the one speaking over the pipe). Waits a while
/// for it: Debian's `/usr/bin/chromium*` are scripts that exec the browser, and while a
/// process execs, its command line reads empty.
pub fn browser_main_process(mcp: &Mcp) -> procs::Proc {
    let find = || {
        let all = mcp.descendants();
        let main = all
            .iter()
            .find(|p| p.ppid == mcp.pid() && p.command().contains("--remote-debugging-pipe"));
        main.cloned().ok_or(all)
    };
    let mut found = find();
    procs::wait_until(Duration::from_secs(10), || {
        found = find();
        found.is_ok()
    });
    found.unwrap_or_else(|all| panic!("no browser among the server's children: {all:?}"))
}

/// Crashes the pages of the server's browser as an out-of-memory kill would: SIGKILL to its
/// renderer processes. (`chrome://crash` is refused, as the reference refuses `chrome:` URLs.)
pub fn kill_renderers(mcp: &Mcp) {
    let all = mcp.descendants();
    let renderers: Vec<u32> = all
        .iter()
        .filter(|p| p.command().contains("--type=renderer"))
        .map(|p| p.pid)
        .collect();
    assert!(!renderers.is_empty(), "no renderer among {all:?}");
    procs::signal(&renderers, libc::SIGKILL);
    // Until the browser has reaped them it may still hand one out (its spare renderer) to
    // the next page, whose navigation would then hang: wait until they are gone.
    let gone = procs::wait_until(Duration::from_secs(20), || {
        renderers
            .iter()
            .all(|pid| procs::Proc::read(*pid).is_none())
    });
    assert!(
        gone,
        "the browser did not reap its killed renderers {renderers:?}"
    );
}

/// Whether the server's browser is the headless shell (lean browser: some things differ there).
pub fn runs_headless_shell(mcp: &Mcp) -> bool {
    browser_main_process(mcp)
        .command()
        .contains("headless-shell")
}
