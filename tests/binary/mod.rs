//! The real binary with no browser: the MCP protocol over stdio, flags refused before any
//! work, the one-shot commands' exits. What needs a browser belongs in `browser`: a server
//! started here (through `support::mcp`) that starts one fails its test.

mod bad_input;
mod browser_choice;
mod connection;
mod flags;
mod heap_answers;
mod heap_cli;
mod heap_loading;
mod http_transport;
mod mcp_2026;
pub(crate) mod mcp_basics;
pub(crate) mod protocol_edges;
mod protocol_fuzz;
mod reference_options;
mod shutdown;
mod slim_and_categories;
mod tools_list_size;
mod trace_cli;
