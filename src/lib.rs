//! devtools-mcp: an MCP server on stdio that drives Chromium over the Chrome DevTools
//! Protocol and runs the developer tools that pages expose. See ARCHITECTURE.md.
//!
//! The modules are layers, each using only those below it:
//! `cdp` ← `browser` ← `pagetools` ← `tools` ← `mcp` ← `app`. `error`, `headers`, `log`,
//! `schema_problems`, `settings` and `timers` are plain building blocks that every layer may use.

pub mod app;
pub mod browser;
pub mod cdp;
pub mod error;
pub mod headers;
pub mod log;
pub mod mcp;
pub mod pagetools;
pub mod schema_problems;
pub mod settings;
pub mod timers;
pub mod tools;
pub mod trace;
