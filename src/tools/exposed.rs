//! `--exposePageTools`: each third-party tool of the selected page is also listed as an MCP
//! tool of its own, with its own input schema, so agents can call it directly. The names are
//! derived from group and tool (`<group>__<tool>`, reduced to the characters MCP clients
//! accept, at most 64, made unique), and clients hear `notifications/tools/list_changed`
//! whenever the set changes.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::thirdparty::run_tool;
use super::{call as calls, CallId, Ctx};
use crate::browser::{pages, Host};

const MAX_NAME: usize = 64;

/// An MCP tool name for a page tool: letters, digits, `_` and `-` only.
fn sanitize(group: &str, tool: &str) -> String {
    let raw = format!("{group}__{tool}");
    let mut out: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.truncate(MAX_NAME);
    out
}

/// (MCP name, group, tool name, description, schema) for each tool of the selected page.
fn entries(cx: &Ctx) -> Vec<(String, String, String, Option<String>, Value)> {
    if !cx.settings.expose_page_tools {
        return Vec::new();
    }
    let Some(table) = cx.browser.pages.selected.and_then(|id| cx.tables.get(id)) else {
        return Vec::new();
    };
    let builtin: HashSet<&str> = crate::tools::all().map(|t| t.name).collect();
    let mut used: HashSet<String> = HashSet::new();
    let mut seen_tools: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for tool in table.tools() {
        // The first registration of a name is the one that runs; later ones are not callable.
        if !seen_tools.insert(&tool.name) {
            continue;
        }
        let group = &table.group_of(tool).name;
        let base = sanitize(group, &tool.name);
        let mut name = base.clone();
        let mut n = 2;
        while builtin.contains(name.as_str()) || used.contains(&name) {
            let suffix = format!("_{n}");
            let mut b = base.clone();
            b.truncate(MAX_NAME - suffix.len());
            name = b + &suffix;
            n += 1;
        }
        used.insert(name.clone());
        out.push((
            name,
            group.clone(),
            tool.name.clone(),
            tool.description.clone(),
            tool.input_schema.clone(),
        ));
    }
    out
}

pub fn list(cx: &Ctx) -> Vec<Value> {
    entries(cx)
        .into_iter()
        .map(|(name, group, tool, description, mut schema)| {
            // MCP requires an object schema at the top.
            if schema.get("type").is_none() {
                schema["type"] = json!("object");
            }
            json!({
                "name": name,
                "title": format!("{group}: {tool}"),
                "description": format!(
                    "Page tool \"{tool}\" of group \"{group}\" on the selected page. {}",
                    description.unwrap_or_default()
                ),
                "inputSchema": schema,
                "annotations": {"readOnlyHint": false, "openWorldHint": true},
            })
        })
        .collect()
}

/// Starts a call of an exposed page tool. `None` when `name` is not one.
pub fn call(cx: &mut Ctx, name: &str, args: Value) -> Option<CallId> {
    let (_, _, tool, _, _) = entries(cx).into_iter().find(|e| e.0 == name)?;
    let page = cx.browser.pages.selected?;
    let id = calls::start(cx, "page tool");
    let timeout = cx.settings.tool_timeout;
    cx.run_as(Some(id), |cx| {
        let message = format!(
            "Tool {tool} timed out after {} ms without settling.",
            timeout.as_millis()
        );
        calls::limit(cx, id, timeout, message);
        pages::with_page(
            cx,
            Some(page),
            Box::new(move |cx, r| match r {
                Ok(page) => run_tool(cx, id, page, tool, args, None),
                Err(e) => calls::fail(cx, id, e),
            }),
        );
    });
    Some(id)
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
}
