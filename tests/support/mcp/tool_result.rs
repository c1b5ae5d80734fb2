//! [`ToolResult`]: what a `tools/call` answered, taken apart for assertions.

use serde_json::Value;

/// The outcome of a `tools/call` that got a result (not a JSON-RPC error).
#[derive(Clone, Debug)]
pub struct ToolResult {
    /// `result.isError` (false when absent).
    pub is_error: bool,
    /// The `text` of every text content item, joined with "\n".
    pub text: String,
    /// `result.content` as sent.
    pub content: Vec<Value>,
    /// `result.structuredContent`, if any.
    pub structured: Option<Value>,
    /// The whole `result` object.
    pub raw: Value,
}

impl ToolResult {
    /// Build from a `tools/call` result object.
    pub fn from_result(result: &Value) -> ToolResult {
        let content = result
            .get("content")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let text = content
            .iter()
            .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|c| c.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        ToolResult {
            is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
            text,
            content,
            structured: result.get("structuredContent").cloned(),
            raw: result.clone(),
        }
    }

    /// The content items of type `image`.
    pub fn images(&self) -> Vec<&Value> {
        self.content
            .iter()
            .filter(|c| c.get("type").and_then(Value::as_str) == Some("image"))
            .collect()
    }
}
