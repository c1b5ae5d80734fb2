//! `--exposePageTools`: each third-party tool of a page is also offered as an MCP tool of
//! its own, with its own input schema, so agents can call it directly. The names are
//! derived from group and tool (`<group>__<tool>`, reduced to the characters MCP clients
//! accept, at most 64, made unique against each other and against the server's own tools).

use std::collections::HashSet;

use serde_json::{json, Value};

use super::table::Table;
use super::tool::PageTool;
use super::webmcp;

const MAX_NAME: usize = 64;

/// A page tool under its MCP name.
pub(crate) struct Exposed<'a> {
    pub name: String,
    pub group: &'a str,
    pub tool: &'a PageTool,
    /// A WebMCP registration (run through the WebMCP domain, not the shim).
    pub webmcp: bool,
    /// The page marks the tool's output as untrusted content.
    untrusted: bool,
}

/// Whether MCP clients take `c` in a tool name: letters, digits, `_` and `-`.
fn accepted(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Whether MCP clients take `name` as a tool name as it is (else it is exposed renamed).
pub(crate) fn name_accepted(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME && name.chars().all(accepted)
}

/// An MCP tool name for a page tool: letters, digits, `_` and `-` only.
fn sanitize(group: &str, tool: &str) -> String {
    let mut out: String = format!("{group}__{tool}")
        .chars()
        .map(|c| if accepted(c) { c } else { '_' })
        .collect();
    out.truncate(MAX_NAME);
    out
}

/// The table's callable tools under their MCP names; `reserved` says which names the
/// server's own tools take.
pub(crate) fn entries<'a>(table: &'a Table, reserved: &dyn Fn(&str) -> bool) -> Vec<Exposed<'a>> {
    let mut used: HashSet<String> = HashSet::new();
    let mut seen_tools: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    // WebMCP's tools first, as their group is listed first (and shadows a same-named
    // event-based tool).
    let web = table
        .webmcp
        .tools()
        .map(|w| (w.tool.name.as_str(), true, w.untrusted()));
    let event = table.tools().map(|t| (t.name.as_str(), false, false));
    for (name, is_webmcp, untrusted) in web.chain(event).collect::<Vec<_>>() {
        // The first registration of a name is the one that runs; later ones are not callable.
        if !seen_tools.insert(name) {
            continue;
        }
        let (group, tool) = if is_webmcp {
            match table.webmcp.tools().find(|w| w.tool.name == name) {
                Some(w) => (webmcp::GROUP, &w.tool),
                None => continue,
            }
        } else {
            match table.find(name) {
                Some(t) => (table.group_of(t).name.as_str(), t),
                None => continue,
            }
        };
        let base = sanitize(group, &tool.name);
        let mut name = base.clone();
        let mut n = 2;
        while reserved(&name) || used.contains(&name) {
            let suffix = format!("_{n}");
            let mut b = base.clone();
            b.truncate(MAX_NAME - suffix.len());
            name = b + &suffix;
            n += 1;
        }
        used.insert(name.clone());
        out.push(Exposed {
            name,
            group,
            tool,
            webmcp: is_webmcp,
            untrusted,
        });
    }
    out
}

/// The page tool an MCP name stands for, and whether it is a WebMCP one.
pub(crate) fn tool_named(
    table: &Table,
    reserved: &dyn Fn(&str) -> bool,
    name: &str,
) -> Option<(String, bool)> {
    entries(table, reserved)
        .into_iter()
        .find(|e| e.name == name)
        .map(|e| (e.tool.name.clone(), e.webmcp))
}

/// The table's tools as `tools/list` shows them.
pub(crate) fn list(table: &Table, reserved: &dyn Fn(&str) -> bool) -> Vec<Value> {
    entries(table, reserved)
        .iter()
        .map(Exposed::to_json)
        .collect()
}

impl Exposed<'_> {
    fn to_json(&self) -> Value {
        let (group, tool) = (self.group, &self.tool.name);
        let mut schema = self.tool.input_schema.clone();
        // MCP requires an object schema at the top.
        if schema.get("type").is_none() {
            schema["type"] = json!("object");
        }
        // The page wrote the description: agents are told whose words they read.
        let untrusted = if self.untrusted {
            " The page marks its output as untrusted content."
        } else {
            ""
        };
        json!({
            "name": self.name,
            "title": format!("{group}: {tool}"),
            "description": format!(
                "Page tool \"{tool}\" of group \"{group}\" on the selected page.{untrusted} Description supplied by the page: {}",
                self.tool.description.as_deref().unwrap_or_default()
            ),
            "inputSchema": schema,
            "annotations": {"readOnlyHint": false, "openWorldHint": true},
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_mcp_safe() {
        assert_eq!(
            sanitize("Angular", "angular:di_graph"),
            "Angular__angular_di_graph"
        );
        assert_eq!(sanitize("Prebid.js DevTools", "x"), "Prebid_js_DevTools__x");
        assert_eq!(sanitize(&"g".repeat(80), "t").len(), MAX_NAME);
    }

    #[test]
    fn names_are_unique_and_avoid_reserved_ones() {
        let mut t = Table::default();
        t.replace(&json!({"seq": 1, "errors": [], "duplicates": [], "groups": [
            {"name": "g", "tools": [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]},
            {"name": "g.", "tools": [{"name": "a", "inputSchema": {}}]},
            {"name": "h", "tools": [{"name": "b", "inputSchema": {}}]},
        ]}));
        let reserved = |n: &str| n == "h__b";
        let names: Vec<String> = entries(&t, &reserved).into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["g__a", "h__b_2"]);
        assert_eq!(
            tool_named(&t, &reserved, "h__b_2"),
            Some(("b".to_string(), false))
        );
        assert_eq!(list(&t, &reserved)[0]["inputSchema"]["type"], "object");
    }
}
