//! Arguments for a tool, made from its inputSchema as agents see it: the required properties
//! only, each with a value the schema says it takes — its `const`, first `enum` value,
//! `default` or first of its `examples`, else the simplest value of its type within its
//! bounds. An element (`"x-mcp-type": "HTMLElement"`, shown to agents as `{uid}`) gets the uid
//! the caller gives. The result is checked against the tool's own validator by the caller: a
//! schema this cannot satisfy (a `pattern`, say) is reported, not guessed at.

use serde_json::{json, Map, Value};

/// How deep nested schemas are followed (deeper required values are `null`).
const MAX_DEPTH: usize = 32;
/// The most items an array is given for its `minItems`.
const MAX_ITEMS: u64 = 16;

/// Arguments for a tool whose inputSchema is `schema`; `uid` stands for any element.
pub(super) fn for_schema(schema: &Value, uid: &str) -> Value {
    match value(schema, uid, 0) {
        object @ Value::Object(_) => object,
        _ => json!({}),
    }
}

/// Whether any element is asked for (the caller then finds one to give).
pub(super) fn wants_element(schema: &Value) -> bool {
    let mut found = false;
    visit_required(schema, 0, &mut |s| {
        found |= s["x-mcp-type"] == "HTMLElement";
    });
    found
}

fn visit_required(schema: &Value, depth: usize, f: &mut dyn FnMut(&Value)) {
    if depth > MAX_DEPTH {
        return;
    }
    f(schema);
    for name in required(schema) {
        visit_required(&schema["properties"][name], depth + 1, f);
    }
    if let Some(first) = schema["anyOf"].get(0).or_else(|| schema["oneOf"].get(0)) {
        visit_required(first, depth + 1, f);
    }
    if min_items(schema) > 0 {
        visit_required(item_schema(schema, 0), depth + 1, f);
    }
}

fn value(schema: &Value, uid: &str, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if schema["x-mcp-type"] == "HTMLElement" {
        return json!({"uid": uid});
    }
    let given = (schema.get("const").cloned())
        .or_else(|| schema["enum"].get(0).cloned())
        .or_else(|| schema.get("default").cloned())
        .or_else(|| schema["examples"].get(0).cloned());
    if let Some(v) = given {
        return v;
    }
    if let Some(first) = schema["anyOf"].get(0).or_else(|| schema["oneOf"].get(0)) {
        return value(first, uid, depth + 1);
    }
    match type_of(schema) {
        "object" => object(schema, uid, depth),
        "array" => {
            let n = min_items(schema).min(MAX_ITEMS);
            (0..n)
                .map(|i| value(item_schema(schema, i as usize), uid, depth + 1))
                .collect()
        }
        "integer" => number(schema, true),
        "number" => number(schema, false),
        "boolean" => Value::Bool(false),
        "null" => Value::Null,
        _ => string(schema),
    }
}

/// The schema's type: the first of a list that is not `null`; `object` for a schema with
/// properties and no type; `string` when nothing says.
fn type_of(schema: &Value) -> &str {
    let listed = match &schema["type"] {
        Value::String(t) => Some(t.as_str()),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .or(types.first().and_then(Value::as_str)),
        _ => None,
    };
    match listed {
        Some(t) => t,
        None if schema.get("properties").is_some() || schema.get("required").is_some() => "object",
        None => "string",
    }
}

fn required(schema: &Value) -> impl Iterator<Item = &str> {
    (schema["required"].as_array().into_iter().flatten()).filter_map(Value::as_str)
}

fn object(schema: &Value, uid: &str, depth: usize) -> Value {
    let mut out = Map::new();
    let all_of = schema["allOf"].as_array().into_iter().flatten();
    for part in std::iter::once(schema).chain(all_of) {
        for name in required(part) {
            if out.contains_key(name) {
                continue;
            }
            let property = (part["properties"].get(name))
                .or_else(|| schema["properties"].get(name))
                .unwrap_or(&Value::Null);
            out.insert(name.to_owned(), value(property, uid, depth + 1));
        }
    }
    Value::Object(out)
}

fn min_items(schema: &Value) -> u64 {
    schema["minItems"].as_u64().unwrap_or(0)
}

/// The schema of item `i` of an array: its `prefixItems` (or tuple `items`) entry, else `items`.
fn item_schema(schema: &Value, i: usize) -> &Value {
    let tuple = schema["prefixItems"]
        .as_array()
        .or(schema["items"].as_array());
    match tuple {
        Some(list) => list.get(i).unwrap_or(&Value::Null),
        None => &schema["items"],
    }
}

/// The number nearest zero within the bounds, a multiple of `multipleOf` where one is asked.
fn number(schema: &Value, integer: bool) -> Value {
    let step = schema["multipleOf"].as_f64().filter(|s| *s > 0.0);
    let unit = step.unwrap_or(if integer { 1.0 } else { 0.5 });
    let low = match (
        schema["minimum"].as_f64(),
        schema["exclusiveMinimum"].as_f64(),
    ) {
        (_, Some(x)) => Some(((x / unit).floor() + 1.0) * unit),
        (Some(m), None) => Some((m / unit).ceil() * unit),
        (None, None) => None,
    };
    let high = match (
        schema["maximum"].as_f64(),
        schema["exclusiveMaximum"].as_f64(),
    ) {
        (_, Some(x)) => Some(((x / unit).ceil() - 1.0) * unit),
        (Some(m), None) => Some((m / unit).floor() * unit),
        (None, None) => None,
    };
    let n = match (low, high) {
        (Some(l), _) if l > 0.0 => l,
        (_, Some(h)) if h < 0.0 => h,
        _ => 0.0,
    };
    if integer || n.fract() == 0.0 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

/// A string of the schema's `format`, else `minLength` letters (one when nothing says).
fn string(schema: &Value) -> Value {
    let formatted = match schema["format"].as_str() {
        Some("email") => Some("someone@example.com"),
        Some("uri" | "url" | "iri") => Some("https://example.com/"),
        Some("uri-reference" | "iri-reference") => Some("/"),
        Some("hostname") => Some("example.com"),
        Some("ipv4") => Some("127.0.0.1"),
        Some("ipv6") => Some("::1"),
        Some("date") => Some("2025-01-01"),
        Some("date-time") => Some("2025-01-01T00:00:00Z"),
        Some("time") => Some("00:00:00Z"),
        Some("uuid") => Some("00000000-0000-4000-8000-000000000000"),
        _ => None,
    };
    if let Some(s) = formatted {
        return json!(s);
    }
    let min = schema["minLength"].as_u64().unwrap_or(1).min(1024);
    let max = schema["maxLength"].as_u64().unwrap_or(u64::MAX);
    json!("a".repeat(min.min(max) as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_required_properties_with_values_the_schema_takes() {
        let schema = json!({"type": "object", "required": ["sku", "qty", "mode", "when", "tags", "opts", "el"],
        "properties": {
            "sku": {"type": "string", "minLength": 3},
            "qty": {"type": "integer", "minimum": 1, "maximum": 9},
            "mode": {"enum": ["fast", "slow"]},
            "when": {"type": "string", "format": "date"},
            "tags": {"type": "array", "minItems": 2, "items": {"type": "number", "exclusiveMinimum": 0}},
            "opts": {"type": "object", "required": ["on"], "properties": {"on": {"type": "boolean"}, "off": {}}},
            "el": {"x-mcp-type": "HTMLElement", "properties": {"uid": {"type": "string"}}},
            "note": {"type": "string"}
        }});
        assert_eq!(
            for_schema(&schema, "1_2"),
            json!({"sku": "aaa", "qty": 1, "mode": "fast", "when": "2025-01-01",
                   "tags": [0.5, 0.5], "opts": {"on": false}, "el": {"uid": "1_2"}})
        );
        assert!(wants_element(&schema));
        assert!(!wants_element(
            &json!({"properties": {"el": {"x-mcp-type": "HTMLElement"}}})
        ));
    }

    #[test]
    fn bounds_defaults_and_odd_schemas() {
        let n = |s: Value| number(&s, s["type"] == "integer");
        assert_eq!(n(json!({"type": "integer", "maximum": -3})), json!(-3));
        assert_eq!(
            n(json!({"type": "integer", "exclusiveMinimum": 4})),
            json!(5)
        );
        assert_eq!(
            n(json!({"type": "number", "minimum": 1.2, "multipleOf": 0.5})),
            json!(1.5)
        );
        let schema = json!({"required": ["a", "b", "c"], "properties": {
            "a": {"type": ["null", "integer"], "default": 7},
            "b": {"anyOf": [{"type": "boolean"}, {"type": "string"}]}}});
        assert_eq!(
            for_schema(&schema, "u"),
            json!({"a": 7, "b": false, "c": "a"})
        );
        assert_eq!(for_schema(&json!({"type": "string"}), "u"), json!({}));
        let deep = (0..100).fold(
            json!({"type": "string"}),
            |inner, _| json!({"type": "object", "required": ["x"], "properties": {"x": inner}}),
        );
        assert!(for_schema(&deep, "u").is_object());
    }
}
