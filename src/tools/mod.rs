//! The tools agents call. Each family (a file, or a folder) holds its tools: their argument
//! lists, descriptions and handlers, each multi-step call written as one flow, and the
//! per-page state the family keeps in a module of its own that `Ctx` holds. The registry
//! lists them, checks arguments against their schemas, and starts calls; the MCP layer
//! sees only what this module hands on.

pub(crate) mod agents;
pub(crate) mod args;
pub(crate) mod base64;
pub(crate) mod call;
pub(crate) mod console;
pub(crate) mod css;
pub(crate) mod ctx;
pub(crate) mod dialogs;
pub(crate) mod emulation;
mod events;
pub(crate) mod extension_workers;
pub(crate) mod extensions;
pub(crate) mod files;
pub(crate) mod heap;
pub(crate) mod input;
pub(crate) mod memory;
pub(crate) mod network;
pub(crate) mod pages;
mod per_page;
pub(crate) mod performance;
pub(crate) mod policies;
pub(crate) mod pwa;
pub(crate) mod registry;
pub(crate) mod response;
pub(crate) mod result;
pub(crate) mod screencast;
pub(crate) mod screenshot;
pub(crate) mod script;
pub(crate) mod slim;
pub(crate) mod snapshot;
pub(crate) mod stream;
mod text;
pub(crate) mod thirdparty;
pub(crate) mod tool;

pub(crate) use call::CallId;
pub(crate) use ctx::{Ctx, Done, Once, Outcome};
pub(crate) use registry::{call, list, prelaunch};
pub(crate) use result::ToolResult;
pub use script::page_function;
