//! Real headless Chromium (the shell by default, full Chromium when
//! `DEVTOOLS_MCP_TEST_BROWSER=full`) driven by the real binary against the pages of
//! `tests/fixtures/`, one module per behaviour.

pub(crate) mod browser_choice;
mod check_cli;
mod connection;
mod console;
mod demo;
mod emulation;
mod extensions;
mod file_roots;
mod file_safety;
mod flags;
mod frames;
mod http_agents;
mod http_isolation;
mod input;
mod inspect;
mod mcp_2026;
mod mcp_basics;
mod navigation;
mod network;
mod network_bodies;
mod pages;
mod perf_cli;
mod performance;
mod protocol_edges;
mod pwa;
mod reference_texts;
mod relaunch_note;
mod robustness;
mod screenshot;
mod script;
mod session_bytes;
pub(crate) mod shutdown;
mod slim_and_categories;
mod source_maps;
mod thirdparty;
mod url_spellings;
mod webmcp;
