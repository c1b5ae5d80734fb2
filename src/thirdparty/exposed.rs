//! `--exposePageTools`: each tool of the selected page listed as an MCP tool of its own.
//! Filled in below; until then nothing is exposed.

use serde_json::Value;

use crate::app::App;

pub fn list(_app: &App) -> Vec<Value> {
    Vec::new()
}

pub fn call(_app: &mut App, _rpc_id: &Value, _name: &str, _args: &Value) -> bool {
    false
}
