//! Shared harness for the integration tests.
//!
//! Every test binary pulls this in with `mod common;` and uses the parts it needs:
//!
//! - [`fixtures`]: a tiny HTTP/1.1 server on 127.0.0.1 that serves `tests/fixtures/` plus routes a
//!   test programs (inline pages, slow responses, an echo endpoint that records requests).
//! - [`mcp`]: spawns the `devtools-mcp` binary with the flags this machine needs and speaks
//!   JSON-RPC to it over stdio, failing the test if stdout ever carries anything but protocol.
//! - [`procs`]: reads `/proc` to find the server's child processes, so tests can prove Chromium
//!   and its profile directory are gone after shutdown.
//! - [`slots`]: caps how many real servers (browsers) run at once, machine-wide.
//!
//! Only the standard library and serde_json are used, so the harness never drifts from what the
//! tests exercise: real sockets, a real browser, the real binary.

// Each test binary uses a different subset of the harness; the rest would warn as dead code.
#![allow(dead_code, unused_imports)]

pub mod calls;
pub mod fixtures;
pub mod mcp;
pub mod procs;
pub mod slots;

pub use fixtures::{http_get, http_request, Fixtures, HttpReply, Request, Response};
pub use mcp::{chrome_path, Mcp, ToolResult, DEFAULT_TIMEOUT};
