//! A `tools/call` result: content blocks, `isError`, `structuredContent`.

use serde_json::{json, Map, Value};

#[derive(Debug, Default)]
pub struct ToolResult {
    pub content: Vec<Value>,
    pub structured: Option<Map<String, Value>>,
    pub is_error: bool,
}

impl ToolResult {
    pub fn text(text: impl Into<String>) -> ToolResult {
        ToolResult {
            content: vec![json!({"type": "text", "text": text.into()})],
            ..Default::default()
        }
    }

    pub fn error(text: impl Into<String>) -> ToolResult {
        ToolResult {
            is_error: true,
            ..ToolResult::text(text)
        }
    }

    pub fn into_json(self) -> Value {
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
