//! (being written)

use super::Tool;

pub const TOOLS: &[Tool] = &[];
