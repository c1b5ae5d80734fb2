//! (being written)

use super::Tool;

pub const TOOLS: &[Tool] = &[];

/// Per-page console record.
#[derive(Default)]
pub struct Log {}

pub fn attach(_app: &mut crate::app::App, _session: &str) {}

pub fn on_event(_app: &mut crate::app::App, _session: &str, _method: &str, _params: &serde_json::Value) {}
