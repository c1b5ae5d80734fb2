//! MCP over stdio: JSON-RPC framing, the lifecycle, and dispatch of `tools/call` to the tools
//! registry. Nothing here knows the browser or any one tool.

pub mod framing;
pub mod identity;
pub mod jsonrpc;
pub mod modern;
pub mod output;
pub mod roots;
pub mod server;

pub use identity::PROTOCOL_VERSIONS;
pub use server::Server;
