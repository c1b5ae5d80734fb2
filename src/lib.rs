//! devtools-mcp: an MCP server that drives Chromium over the Chrome DevTools Protocol and
//! runs the developer tools that pages expose. See ARCHITECTURE.md.
//!
//! The modules are layers, each using only those below it:
//! `cdp` ← `browser` ← `pagetools` ← `tools` ← `mcp` ← `app`. `error`, `headers`, `heap`, `log`,
//! `numbers`, `paging`, `schema_problems`, `settings`, `timers` and `trace` are building
//! blocks that every layer may use.
//!
//! What is public is what the binary, the tests and the benches use: the program and the
//! server stepped in-process ([`app`]), the protocol and its connections ([`cdp`]), how a
//! browser is found and launched ([`browser`]), the trace analyser ([`trace`]), and the
//! scripts the server runs in pages ([`page_scripts`]), which the benches time against the
//! raw protocol. Everything else is the crate's own.

// Private by default: an item outside the public modules is `pub(crate)` at most, so that
// what is `pub` is what the crate exposes.
#![warn(unreachable_pub)]

pub mod app;
pub mod browser;
pub mod cdp;
mod error;
mod headers;
mod heap;
mod log;
mod mcp;
mod numbers;
mod pagetools;
mod paging;
mod schema_problems;
mod settings;
mod sourcemap;
mod timers;
mod tools;
pub mod trace;

/// The JavaScript the server runs in pages, as the text it sends.
pub mod page_scripts {
    pub use crate::pagetools::run_expression;
    pub use crate::pagetools::shim;
    pub use crate::tools::page_function;
}
