//! (being written)

use super::Tool;

pub const TOOLS: &[Tool] = &[];

/// What is emulated on a page (kept across navigations, shown in answers).
#[derive(Default)]
pub struct State {}
