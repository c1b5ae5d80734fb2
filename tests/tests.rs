//! The integration tests: one test binary, a module per kind of test. A test's kind is the
//! first part of its name, so `cargo test --test tests -- fake::` runs one kind.
//!
//! - [`browser`]: the real binary (or the one-shot commands) driving real headless Chromium
//!   against local pages. The only kind that needs a browser; `.ci/test` runs it a second time
//!   on full Chromium. A server the harness starts in any other kind fails its test if it
//!   starts a browser.
//! - [`fake`]: the server in-process over the scripted browser connection (`support::wire`):
//!   dispatch, timing and the browser's side of a page played exactly, in milliseconds.
//! - [`binary`]: the real binary with no browser: the protocol over stdio, flags refused at
//!   start, shutdown before any browser, the `trace` command.
//! - [`offline`]: no process at all: the architecture's rules on the source, the generated
//!   bindings, schema bounds, framing properties, the trace analyser on recorded traces.
//! - [`support`]: the harness every kind shares (and its own tests, `support::selftest`).

mod binary;
mod browser;
mod fake;
mod offline;
mod support;
