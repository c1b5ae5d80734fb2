//! The per-target table of a page's third-party developer tools.
//!
//! One table per page target, reset whenever the target commits a new document. Its groups
//! and tools live in flat vectors used as an arena: a reset clears them without giving the
//! memory back, so a page that navigates often does not churn the allocator, and tools refer
//! to their group by index. Registrations over the limits (see `limits`) are left out with
//! a reason; each tool's argument validator is compiled when the tool first runs, and kept
//! beside it (shared with tools of the same schema text).

use serde_json::{json, Value};

use super::limits::{self, shown};
pub(crate) use super::ran::Ran;
pub(crate) use super::tool::PageTool;

pub(crate) struct Group {
    pub name: String,
    pub description: Option<String>,
    /// The group's tools: `tools[first..first + count]`.
    first: usize,
    count: usize,
}

/// A registration that was left out: where, what is wrong, and why (the reason names the
/// group and tool too).
pub(crate) struct Problem {
    /// The group's name; `None` when the group itself is unnamed or unknown.
    pub group: Option<String>,
    /// The tool's name; `None` for a problem of the group (or of a tool without a name).
    pub tool: Option<String>,
    pub flaw: Flaw,
    pub reason: String,
}

/// What is wrong with a registration that was left out, in the terms a page author's fix
/// follows from (the shim's `kind`, and the server's own checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flaw {
    /// `respondWith()` was given something that is not a group.
    NotAGroup,
    /// A group promise given to `respondWith()` was rejected.
    Rejected,
    /// A discovery listener threw.
    Listener,
    /// A group without a name.
    GroupName,
    /// A group without a tools array.
    GroupTools,
    /// An entry of a tools array that is not an object.
    NotATool,
    /// A tool without a name.
    ToolName,
    /// A tool without an execute function.
    Execute,
    /// A description that is not a string.
    Description,
    /// An inputSchema that is not an object JSON can carry.
    Schema,
    /// An inputSchema that is not a valid JSON Schema.
    InvalidSchema,
    /// Reading a property of the registration threw.
    Unreadable,
    /// Over one of the limits (`limits`).
    Limit,
    /// Past the number of problems listed one by one.
    More,
}

impl Flaw {
    /// The shim's `kind` of an error entry.
    fn of(kind: &str) -> Flaw {
        match kind {
            "not-a-group" => Flaw::NotAGroup,
            "rejected" => Flaw::Rejected,
            "listener" => Flaw::Listener,
            "group-name" => Flaw::GroupName,
            "group-tools" => Flaw::GroupTools,
            "not-a-tool" => Flaw::NotATool,
            "tool-name" => Flaw::ToolName,
            "execute" => Flaw::Execute,
            "description" => Flaw::Description,
            "schema" => Flaw::Schema,
            _ => Flaw::Unreadable,
        }
    }
}

#[derive(Default)]
pub(crate) struct Table {
    groups: Vec<Group>,
    tools: Vec<PageTool>,
    problems: Vec<Problem>,
    /// Tool names registered in more than one group, with the groups (first one wins).
    duplicates: Vec<(String, Vec<String>)>,
    /// The groups as last reported, to tell a real change from a repeat.
    last_groups: Value,
    /// How many of `problems` came from compiling schemas here (the rest the shim reported).
    compiled_problems: usize,
    /// How many refused registrations the shim reported (before they were capped).
    shim_errors: usize,
    /// Group promises that had not settled when the report was made (they follow by notify).
    pub pending: u64,
    /// What the page said about the last run of one of its tools.
    pub last_run: Option<Ran>,
    /// A report arrived for the current document.
    pub discovered: bool,
    /// The shim's seq of the report installed last (per document; equal seqs, equal tables).
    pub seq: Option<u64>,
    /// A tool call just failed because the page navigated: the document is being replaced,
    /// so the next call waits for the new one to load before discovering.
    pub navigating: bool,
    /// The list section as last rendered; cleared whenever the content changes (a list of
    /// an unchanged page is then a copy, not a rebuild).
    rendered: std::cell::OnceCell<(Option<String>, Option<Value>)>,
    /// The target's secrets and the context it trusts; kept across documents.
    pub guard: super::guard::Guard,
    /// The page's WebMCP registrations (its tools go with the document, like the rest).
    pub webmcp: super::webmcp::WebMcp,
}

impl Table {
    /// Forgets everything (a new document). Returns whether there was anything to forget.
    pub(crate) fn reset(&mut self) -> bool {
        let had = !self.groups.is_empty() || !self.problems.is_empty();
        let had = self.webmcp.reset() || had;
        self.groups.clear();
        self.tools.clear();
        self.problems.clear();
        self.duplicates.clear();
        self.last_groups = Value::Null;
        self.compiled_problems = 0;
        self.pending = 0;
        self.last_run = None;
        self.discovered = false;
        self.navigating = false;
        self.seq = None;
        self.rendered = Default::default();
        had
    }

    /// The document is on its way out (a call saw it navigate): rediscover once the next
    /// one has loaded. The old table keeps its content until the new document commits.
    pub(crate) fn mark_navigating(&mut self) {
        self.discovered = false;
        self.navigating = true;
    }

    pub(crate) fn tools(&self) -> impl Iterator<Item = &PageTool> {
        self.tools.iter()
    }

    /// The groups as registered, each with [`Table::tools_in`].
    pub(crate) fn groups(&self) -> &[Group] {
        &self.groups
    }

    pub(crate) fn tools_in(&self, group: &Group) -> &[PageTool] {
        &self.tools[group.first..group.first + group.count]
    }

    /// The registrations that were left out.
    pub(crate) fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Tool names registered more than once, with the groups that did (the first one's runs).
    pub(crate) fn duplicates(&self) -> &[(String, Vec<String>)] {
        &self.duplicates
    }

    pub(crate) fn group_of(&self, tool: &PageTool) -> &Group {
        &self.groups[tool.group]
    }

    /// The event-based tool that runs for `name`: the first registered one.
    pub(crate) fn find(&self, name: &str) -> Option<&PageTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Something listed changed outside a report (WebMCP registrations): render afresh.
    pub(crate) fn content_changed(&mut self) {
        self.rendered = Default::default();
    }

    /// A discovery found the table unchanged (the shim answered with our seq).
    pub(crate) fn confirm(&mut self) {
        self.navigating = false;
        self.discovered = true;
    }

    /// Installs the shim's report (see the shim's contract, REPORT). Returns whether anything changed.
    pub(crate) fn replace(&mut self, report: &Value) -> bool {
        let groups = &report["groups"];
        self.navigating = false;
        self.seq = report["seq"].as_u64();
        self.pending = report["pending"].as_u64().unwrap_or(0);
        let errors = report["errors"].as_array().map_or(&[][..], Vec::as_slice);
        let unchanged =
            self.discovered && *groups == self.last_groups && errors.len() == self.shim_errors;
        self.discovered = true;
        if unchanged {
            return false;
        }
        self.rendered = Default::default();
        self.groups.clear();
        self.tools.clear();
        self.problems.clear();
        self.duplicates.clear();
        self.compiled_problems = 0;
        self.shim_errors = errors.len();
        for e in errors.iter().take(limits::MAX_PROBLEMS) {
            let reason = e["reason"].as_str().unwrap_or("invalid registration");
            let name = |key: &str| e[key].as_str().map(shown);
            let flaw = Flaw::of(e["kind"].as_str().unwrap_or(""));
            self.problems.push(Problem::new(
                name("group"),
                name("tool"),
                flaw,
                limits::cut(reason),
            ));
        }
        if errors.len() > limits::MAX_PROBLEMS {
            let more = errors.len() - limits::MAX_PROBLEMS;
            let reason = format!("{more} more registrations were left out");
            self.problems
                .push(Problem::new(None, None, Flaw::More, reason));
        }
        let shim_problems = self.problems.len();
        let all = groups.as_array().map_or(&[][..], Vec::as_slice);
        for g in all.iter().take(limits::MAX_GROUPS) {
            self.add_group(g);
        }
        if all.len() > limits::MAX_GROUPS {
            let reason = format!(
                "{} groups after the first {} were left out: a page may register at most {} groups",
                all.len() - limits::MAX_GROUPS,
                limits::MAX_GROUPS,
                limits::MAX_GROUPS
            );
            self.problems
                .push(Problem::new(None, None, Flaw::Limit, reason));
        }
        self.compiled_problems = self.problems.len() - shim_problems;
        for d in report["duplicates"].as_array().into_iter().flatten() {
            let groups = d["groups"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|g| g.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(tool) = d["tool"].as_str() {
                self.duplicates.push((tool.to_owned(), groups));
            }
        }
        self.last_groups = groups.clone();
        true
    }

    /// One group of a report, its tools within the limits.
    fn add_group(&mut self, g: &Value) {
        let Some(name) = g["name"].as_str() else {
            return;
        };
        let description = g["description"].as_str();
        if let Some(why) = limits::text_problem("group", name, description) {
            let reason = format!("group '{}': {why}", shown(name));
            let group = Some(shown(name));
            self.problems
                .push(Problem::new(group, None, Flaw::Limit, reason));
            return;
        }
        let first = self.tools.len();
        let index = self.groups.len();
        let tools = g["tools"].as_array().map_or(&[][..], Vec::as_slice);
        for t in tools.iter().take(limits::MAX_TOOLS) {
            let Some(tool_name) = t["name"].as_str() else {
                continue;
            };
            let mut schema = t["inputSchema"].clone();
            show_elements_as_uids(&mut schema);
            let tool_description = t["description"].as_str();
            let problem = limits::text_problem("tool", tool_name, tool_description)
                .map(|why| (Flaw::Limit, why))
                .or_else(|| {
                    let refused = limits::schema_refusal(&schema)?;
                    let flaw = if refused.over_limit {
                        Flaw::Limit
                    } else {
                        Flaw::InvalidSchema
                    };
                    Some((flaw, refused.reason))
                });
            if let Some((flaw, why)) = problem {
                let tool = shown(tool_name);
                let reason = format!("tool '{tool}' in group '{name}': {}", one_line(&why));
                let group = Some(name.to_owned());
                self.problems
                    .push(Problem::new(group, Some(tool), flaw, reason));
                continue;
            }
            let description = tool_description.map(str::to_owned);
            let mut tool = PageTool::new(tool_name.to_owned(), description, schema);
            tool.group = index;
            self.tools.push(tool);
        }
        if tools.len() > limits::MAX_TOOLS {
            let reason = format!(
                "group '{name}': {} tools after the first {} were left out: a group may hold at most {} tools",
                tools.len() - limits::MAX_TOOLS,
                limits::MAX_TOOLS,
                limits::MAX_TOOLS
            );
            let group = Some(name.to_owned());
            self.problems
                .push(Problem::new(group, None, Flaw::Limit, reason));
        }
        self.groups.push(Group {
            name: name.to_owned(),
            description: description.map(str::to_owned),
            first,
            count: self.tools.len() - first,
        });
    }

    /// The `## Third-party developer tools` section and its structured form. `None` text when
    /// there is nothing to say (and `say_none` is false).
    pub(crate) fn render(&self, say_none: bool) -> (Option<String>, Option<Value>) {
        match self.rendered.get_or_init(|| self.build_section()) {
            (None, _) if say_none => (
                Some("## Third-party developer tools\nThis page exposes no third-party developer tools.".into()),
                Some(json!([])),
            ),
            section => section.clone(),
        }
    }

    fn build_section(&self) -> (Option<String>, Option<Value>) {
        let mut lines: Vec<String> = Vec::new();
        let mut structured = Vec::new();
        // WebMCP's debugging tools come first, as the reference lists them.
        if let Some((group_lines, group)) = self.webmcp.group_section() {
            lines.push("## Third-party developer tools".into());
            lines.extend(group_lines);
            structured.push(group);
        }
        for g in &self.groups {
            if lines.is_empty() {
                lines.push("## Third-party developer tools".into());
            }
            // A group without a description prints its name alone (never "undefined").
            match &g.description {
                Some(d) => lines.push(format!("{}: {d}", g.name)),
                None => lines.push(g.name.clone()),
            }
            lines.push("Available tools:".into());
            let mut tools_json = Vec::new();
            for t in &self.tools[g.first..g.first + g.count] {
                let schema = serde_json::to_string(&t.input_schema).unwrap_or_default();
                lines.push(format!(
                    "name=\"{}\", description=\"{}\", inputSchema={schema}",
                    t.name,
                    t.description.as_deref().unwrap_or("")
                ));
                tools_json.push(json!({
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": t.input_schema,
                }));
            }
            structured.push(json!({
                "name": g.name,
                "description": g.description,
                "tools": tools_json,
            }));
        }
        for (tool, groups) in &self.duplicates {
            lines.push(format!(
                "Note: the tool name \"{tool}\" is registered by several groups ({}); the first, {}, is the one that runs.",
                groups.join(", "),
                groups.first().map(String::as_str).unwrap_or("?")
            ));
        }
        let webmcp_left_out = self.webmcp.left_out(true);
        if !self.problems.is_empty() || !webmcp_left_out.is_empty() {
            if lines.is_empty() {
                lines.push("## Third-party developer tools".into());
            }
            lines.push("Registrations that were left out:".into());
            // Each reason names the group and tool it is about (the shim words them so).
            let reasons = self.problems.iter().map(|p| &p.reason);
            for reason in reasons.chain(&webmcp_left_out) {
                lines.push(format!("- {reason}"));
            }
        }
        if lines.is_empty() {
            return (None, None);
        }
        (Some(lines.join("\n")), Some(Value::Array(structured)))
    }
}

impl Problem {
    fn new(group: Option<String>, tool: Option<String>, flaw: Flaw, reason: String) -> Problem {
        Problem {
            group,
            tool,
            flaw,
            reason,
        }
    }
}

/// A message on one line, so each left-out registration is one line of the list.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Properties marked `"x-mcp-type": "HTMLElement"` take `{uid}` from agents: the schema
/// they see (and that arguments are checked against) says so.
pub(crate) fn show_elements_as_uids(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if map.get("x-mcp-type").and_then(Value::as_str) == Some("HTMLElement") {
        map.insert("properties".into(), json!({"uid": {"type": "string"}}));
        map.insert("required".into(), json!(["uid"]));
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for v in props.values_mut() {
            show_elements_as_uids(v);
        }
    }
    match map.get_mut("items") {
        Some(Value::Array(items)) => items.iter_mut().for_each(show_elements_as_uids),
        Some(items) => show_elements_as_uids(items),
        None => {}
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(list)) = map.get_mut(key) {
            list.iter_mut().for_each(show_elements_as_uids);
        }
    }
}

/// Where in `params` an element is expected and given as `{uid}`: (path, uid) pairs, the
/// path as the shim takes it (property names and array indices).
pub(crate) fn element_places(schema: &Value, params: &Value) -> Vec<(Vec<Value>, String)> {
    let mut out = Vec::new();
    walk(schema, params, &mut Vec::new(), &mut out);
    out
}

fn walk(schema: &Value, value: &Value, path: &mut Vec<Value>, out: &mut Vec<(Vec<Value>, String)>) {
    if schema["x-mcp-type"] == "HTMLElement" {
        if let Some(uid) = value["uid"].as_str() {
            if value.as_object().is_some_and(|o| o.len() == 1) {
                out.push((path.clone(), uid.to_owned()));
            }
        }
        return;
    }
    match value {
        Value::Object(obj) => {
            for (k, v) in obj {
                if let Some(s) = schema["properties"].get(k) {
                    path.push(json!(k));
                    walk(s, v, path, out);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let s = match &schema["items"] {
                    Value::Array(list) => list.get(i).unwrap_or(&Value::Null),
                    other => other,
                };
                path.push(json!(i));
                walk(s, v, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(groups: Value) -> Value {
        json!({"seq": 1, "groups": groups, "errors": [], "duplicates": []})
    }

    #[test]
    fn first_registered_wins_and_both_are_listed() {
        let mut t = Table::default();
        let changed = t.replace(&report(json!([
            {"name": "A", "description": "first", "tools": [{"name": "x", "description": "ax", "inputSchema": {"type": "object"}}]},
            {"name": "B", "description": null, "tools": [{"name": "x", "description": "bx", "inputSchema": {"type": "object"}}]},
        ])));
        assert!(changed);
        assert_eq!(
            t.find("x").map(|tool| t.group_of(tool).name.as_str()),
            Some("A")
        );
        let (text, _) = t.render(false);
        let text = text.unwrap();
        assert!(text.contains("A: first\nAvailable tools:\nname=\"x\", description=\"ax\""));
        assert!(text.contains("\nB\nAvailable tools:\nname=\"x\", description=\"bx\""));
        assert!(!text.contains("undefined"));
    }

    #[test]
    fn a_schema_that_does_not_compile_is_left_out_with_a_reason() {
        let mut t = Table::default();
        t.replace(&report(json!([{"name": "G", "tools": [
            {"name": "bad", "inputSchema": {"type": "no-such-type"}},
            {"name": "good", "inputSchema": {"type": "object"}},
        ]}])));
        assert!(t.find("bad").is_none());
        assert!(t.find("good").is_some());
        let (text, _) = t.render(false);
        assert!(text
            .unwrap()
            .contains("- tool 'bad' in group 'G': its inputSchema is not a valid JSON Schema"));
    }

    #[test]
    fn refused_registrations_are_listed_up_to_a_bound() {
        let mut t = Table::default();
        let long = "x".repeat(10_000);
        let errors: Vec<Value> = (0..1000)
            .map(|i| json!({"reason": format!("group {i}: {long}")}))
            .collect();
        let r = json!({"seq": 1, "groups": [], "errors": errors, "duplicates": []});
        assert!(t.replace(&r));
        assert!(!t.replace(&r), "the same report again is no change");
        let text = t.render(false).0.unwrap_or_default();
        let listed = text.lines().filter(|l| l.starts_with("- group ")).count();
        assert_eq!(listed, limits::MAX_PROBLEMS, "{text}");
        assert!(text
            .lines()
            .all(|l| l.chars().count() <= limits::MAX_REASON + 8));
        let more = 1000 - limits::MAX_PROBLEMS;
        assert!(text.contains(&format!("{more} more registrations were left out")));
    }

    #[test]
    fn repeats_are_not_changes_and_reset_empties() {
        let mut t = Table::default();
        let r = report(json!([{"name": "G", "tools": [{"name": "a", "inputSchema": {}}]}]));
        assert!(t.replace(&r));
        assert!(!t.replace(&r));
        assert!(t.reset());
        assert!(t.tools().next().is_none());
        assert_eq!(
            t.render(true).0.unwrap().lines().nth(1),
            Some("This page exposes no third-party developer tools.")
        );
        assert_eq!(t.render(false).0, None);
    }

    #[test]
    fn html_elements_become_uids_and_are_found_in_params() {
        let mut schema = json!({"type": "object", "properties": {
            "el": {"type": "object", "x-mcp-type": "HTMLElement"},
            "list": {"type": "array", "items": {"x-mcp-type": "HTMLElement"}},
            "n": {"type": "number"}
        }});
        show_elements_as_uids(&mut schema);
        assert_eq!(schema["properties"]["el"]["required"], json!(["uid"]));
        let params = json!({"el": {"uid": "1_2"}, "list": [{"uid": "1_3"}], "n": 4});
        let places = element_places(&schema, &params);
        assert_eq!(places.len(), 2);
        assert!(places.contains(&(vec![json!("el")], "1_2".to_string())));
        assert!(places.contains(&(vec![json!("list"), json!(0)], "1_3".to_string())));
    }
}
