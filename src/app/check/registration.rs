//! The registration checks, run on the page's tool table as the server holds it: errors for
//! what the server left out (the shim's and the server's own reasons, word for word) and for
//! schemas that do not compile, warnings for what agents get worse than they could — no
//! description, a name MCP clients refuse or two groups share, a `required` property the
//! schema does not define, properties without a type.

use serde_json::Value;

use super::report::{Problem, Severity};
use crate::pagetools::exposed;
use crate::pagetools::table::{Flaw, Table};

/// How deep nested schemas are looked into.
const MAX_DEPTH: usize = 32;
/// Property names a message lists before it counts the rest.
const NAMES_SHOWN: usize = 8;

/// Every registration problem of the page's table.
pub(super) fn problems(table: &Table) -> Vec<Problem> {
    let mut out: Vec<Problem> = table.problems().iter().map(left_out).collect();
    for (tool, groups) in table.duplicates() {
        out.extend(duplicate(tool, groups));
    }
    for group in table.groups() {
        let name = Some(group.name.as_str());
        if blank(group.description.as_deref()) {
            let message = "the group has no description".to_owned();
            let fix = "describe what the group's tools are for, in a sentence";
            out.push(Problem::new((name, None), Severity::Warning, message, fix));
        }
        for tool in table.tools_in(group) {
            let at = (name, Some(tool.name.as_str()));
            if let Err(e) = tool.validator() {
                let message =
                    format!("its inputSchema does not compile, so every call of it fails: {e}");
                let fix = "make inputSchema a self-contained JSON Schema (no remote $ref)";
                out.push(Problem::new(at, Severity::Error, message, fix));
            }
            if blank(tool.description.as_deref()) {
                let message = "the tool has no description".to_owned();
                let fix = "say what the tool does and returns: agents choose tools by it";
                out.push(Problem::new(at, Severity::Warning, message, fix));
            }
            if !exposed::name_accepted(&tool.name) {
                let message = format!(
                    "MCP clients refuse '{}' as a tool name (--exposePageTools renames it)",
                    tool.name
                );
                let fix = "use letters, digits, _ and - only, at most 64";
                out.push(Problem::new(at, Severity::Warning, message, fix));
            }
            out.extend(schema_warnings(&tool.input_schema, at));
        }
    }
    out
}

fn blank(text: Option<&str>) -> bool {
    text.is_none_or(|t| t.trim().is_empty())
}

/// A registration the server left out: an error, in the server's words.
fn left_out(p: &crate::pagetools::table::Problem) -> Problem {
    let at = (p.group.as_deref(), p.tool.as_deref());
    Problem::new(at, Severity::Error, p.reason.clone(), fix(p.flaw))
}

fn fix(flaw: Flaw) -> &'static str {
    match flaw {
        Flaw::NotAGroup => "pass respondWith() a group object {name, description, tools}",
        Flaw::Rejected => "make the promise given to respondWith() resolve to a group",
        Flaw::Listener => "make the devtoolstooldiscovery listener not throw",
        Flaw::GroupName => "give the group a non-empty string name",
        Flaw::GroupTools => "give the group a tools array (it may be empty)",
        Flaw::NotATool => {
            "make each entry of tools an object {name, description, inputSchema, execute}"
        }
        Flaw::ToolName => "give the tool a non-empty string name",
        Flaw::Execute => "give the tool an execute(params) function",
        Flaw::Description => "make the description a string",
        Flaw::Schema => {
            "make inputSchema a JSON Schema object, e.g. {type: 'object', properties: {…}}"
        }
        Flaw::InvalidSchema => {
            "correct the inputSchema where the message says: it must be a valid JSON Schema"
        }
        Flaw::Unreadable => "make the registration plain data: its getters must not throw",
        Flaw::Limit => "stay within the limits (README, \"For page authors\")",
        Flaw::More => "fix the problems above; each one hides the registration it names",
    }
}

/// A tool name two registrations use: only the first one's runs.
fn duplicate(tool: &str, groups: &[String]) -> Vec<Problem> {
    let Some((first, later)) = groups.split_first() else {
        return Vec::new();
    };
    later
        .iter()
        .map(|group| {
            let message = if group == first {
                format!(
                    "'{tool}' is registered twice in this group; agents can call only the first"
                )
            } else {
                format!("group '{first}' registers '{tool}' too, and its tool is the one that runs")
            };
            let fix = "give each tool a name no other tool of the page uses";
            Problem::new((Some(group), Some(tool)), Severity::Warning, message, fix)
        })
        .collect()
}

/// `required` names that `properties` does not define, and properties without a type, at
/// every level of the schema.
fn schema_warnings(schema: &Value, at: (Option<&str>, Option<&str>)) -> Vec<Problem> {
    let mut undefined = Vec::new();
    let mut untyped = Vec::new();
    walk(schema, "", 0, &mut undefined, &mut untyped);
    let mut out = Vec::new();
    if !undefined.is_empty() {
        let message = format!(
            "required names properties that are not defined: {}",
            listed(&undefined)
        );
        let fix = "define each required property under properties, or drop it from required";
        out.push(Problem::new(at, Severity::Warning, message, fix));
    }
    if !untyped.is_empty() {
        let message = format!("properties without a type: {}", listed(&untyped));
        let fix = "give each property a type (or an enum), so agents know what to pass";
        out.push(Problem::new(at, Severity::Warning, message, fix));
    }
    out
}

fn walk(
    schema: &Value,
    path: &str,
    depth: usize,
    undefined: &mut Vec<String>,
    untyped: &mut Vec<String>,
) {
    if depth > MAX_DEPTH || schema["x-mcp-type"] == "HTMLElement" {
        return;
    }
    let properties = schema["properties"].as_object();
    for name in (schema["required"].as_array().into_iter().flatten()).filter_map(Value::as_str) {
        if !properties.is_some_and(|p| p.contains_key(name)) {
            undefined.push(join(path, name));
        }
    }
    for (name, property) in properties.into_iter().flatten() {
        let here = join(path, name);
        if !typed(property) {
            untyped.push(here.clone());
        }
        walk(property, &here, depth + 1, undefined, untyped);
    }
    match &schema["items"] {
        Value::Object(_) => walk(
            &schema["items"],
            &format!("{path}[]"),
            depth + 1,
            undefined,
            untyped,
        ),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{path}[{i}]"), depth + 1, undefined, untyped);
            }
        }
        _ => {}
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for option in schema[key].as_array().into_iter().flatten() {
            walk(option, path, depth + 1, undefined, untyped);
        }
    }
}

/// Whether a property says what it takes: a type, or something that implies one.
fn typed(property: &Value) -> bool {
    let says = [
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "x-mcp-type",
    ];
    says.iter().any(|k| property.get(k).is_some())
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

fn listed(names: &[String]) -> String {
    let quoted = names.iter().take(NAMES_SHOWN).map(|n| format!("'{n}'"));
    let shown = quoted.collect::<Vec<_>>().join(", ");
    match names.len().checked_sub(NAMES_SHOWN) {
        Some(more) if more > 0 => format!("{shown} and {more} more"),
        _ => shown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn undefined_required_and_untyped_properties_are_named_at_every_level() {
        let schema = json!({"type": "object", "required": ["sku", "qty"], "properties": {
            "sku": {"type": "string"},
            "note": {"description": "free text"},
            "mode": {"enum": ["a"]},
            "el": {"x-mcp-type": "HTMLElement", "properties": {"uid": {}}},
            "config": {"type": "object", "required": ["level"], "properties": {"depth": {}}},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {}}}}
        }});
        let found = schema_warnings(&schema, (Some("G"), Some("t")));
        assert_eq!(found.len(), 2);
        assert_eq!(
            found[0].message,
            "required names properties that are not defined: 'qty', 'config.level'"
        );
        assert_eq!(
            found[1].message,
            "properties without a type: 'note', 'config.depth', 'list[].x'"
        );
        assert!(found.iter().all(|p| p.severity == Severity::Warning));
    }

    #[test]
    fn a_shadowed_tool_is_named_in_its_own_group() {
        let found = duplicate("get", &["A".into(), "B".into(), "A".into()]);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].group.as_deref(), Some("B"));
        assert!(found[0].message.contains("group 'A' registers 'get' too"));
        assert!(found[1].message.contains("registered twice in this group"));
    }
}
