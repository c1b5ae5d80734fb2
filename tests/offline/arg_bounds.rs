//! Every argument of every built-in tool is bounded in its schema, so the schema check that
//! runs before any work refuses an oversized value (a string's `maxLength`, an array's
//! `maxItems`, a number's `minimum`/`maximum`). A new unbounded argument fails here.

use devtools_mcp::tools;
use serde_json::Value;

/// The unbounded places under `schema`, named by their path from the tool.
fn unbounded(path: &str, schema: &Value, out: &mut Vec<String>) {
    let has = |k: &str| schema.get(k).is_some();
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    for t in &types {
        let ok = match *t {
            "string" => has("maxLength") || has("enum") || has("const"),
            "array" => has("maxItems"),
            "number" | "integer" => {
                (has("minimum") || has("exclusiveMinimum"))
                    && (has("maximum") || has("exclusiveMaximum"))
                    || has("enum")
            }
            _ => true,
        };
        if !ok {
            out.push(format!("{path} ({t})"));
        }
    }
    if let Some(props) = schema["properties"].as_object() {
        for (name, p) in props {
            unbounded(&format!("{path}.{name}"), p, out);
        }
    }
    if let Some(items) = schema.get("items") {
        unbounded(&format!("{path}[]"), items, out);
    }
    if let Some(extra) = schema.get("additionalProperties").filter(|v| v.is_object()) {
        unbounded(&format!("{path}.*"), extra, out);
    }
}

#[test]
fn every_argument_of_every_tool_is_bounded() {
    let mut out = Vec::new();
    for tool in tools::all() {
        unbounded(tool.name, &tool.input_schema(), &mut out);
    }
    assert!(out.is_empty(), "unbounded arguments:\n{}", out.join("\n"));
}
