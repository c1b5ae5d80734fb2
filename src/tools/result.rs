//! A `tools/call` result: content blocks, `isError`, `structuredContent`.

use serde_json::{Map, Value};

#[derive(Debug, Default)]
pub(crate) struct ToolResult {
    pub content: Vec<Value>,
    pub structured: Option<Map<String, Value>>,
    pub is_error: bool,
}

/// A text content block, moving the text in (`json!` would copy it).
pub(crate) fn text_block(text: String) -> Value {
    let mut block = Map::with_capacity(2);
    block.insert("type".into(), "text".into());
    block.insert("text".into(), Value::String(text));
    Value::Object(block)
}

impl ToolResult {
    pub(crate) fn text(text: impl Into<String>) -> ToolResult {
        ToolResult {
            content: vec![text_block(text.into())],
            ..Default::default()
        }
    }

    pub(crate) fn error(text: impl Into<String>) -> ToolResult {
        ToolResult {
            is_error: true,
            ..ToolResult::text(text)
        }
    }

    pub(crate) fn into_json(self) -> Value {
        let mut out = Map::new();
        out.insert("content".into(), Value::Array(self.content));
        if let Some(s) = self.structured {
            out.insert("structuredContent".into(), Value::Object(s));
        }
        if self.is_error {
            out.insert("isError".into(), Value::Bool(true));
        }
        Value::Object(out)
    }
}
