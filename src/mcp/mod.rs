//! MCP over stdio and Streamable HTTP: JSON-RPC framing, sessions, the lifecycle, and dispatch
//! of `tools/call` to the tools registry. Nothing here knows the browser or any one tool.

pub(crate) mod framing;
pub(crate) mod http;
mod identity;
pub(crate) mod jsonrpc;
mod modern;
mod output;
mod roots;
mod server;
mod session;

pub(crate) use identity::PROTOCOL_VERSIONS;
pub(crate) use server::Server;
