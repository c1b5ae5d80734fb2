//! The tools agents call. Each family (a file, or a folder) holds its tools: their argument
//! lists, descriptions and handlers, each multi-step call written as one flow, and the
//! per-page state the family keeps in a module of its own that `Ctx` holds. The registry
//! lists them, checks arguments against their schemas, and starts calls; the MCP layer
//! sees only what this module hands on.

pub mod args;
pub mod base64;
pub mod call;
pub mod console;
pub mod css;
pub mod ctx;
pub mod dialogs;
pub mod emulation;
mod events;
pub mod files;
pub mod input;
pub mod memory;
pub mod network;
mod numbers;
pub mod pages;
pub mod paging;
mod per_page;
pub mod performance;
pub mod policies;
pub mod registry;
pub mod response;
pub mod result;
pub mod screencast;
pub mod screenshot;
pub mod script;
pub mod slim;
pub mod snapshot;
pub mod stream;
mod text;
pub mod thirdparty;
pub mod tool;

pub use call::{error_text, fail, CallId};
pub use ctx::{Ctx, Done, Once, Outcome};
pub use registry::{all, call, check_args, find, list, offered, prelaunch};
pub use result::ToolResult;
pub use tool::Tool;
