//! WebMCP: the tools a page registers with `document.modelContext.registerTool`, which the
//! browser reports on the page's session (the `WebMCP` domain) once it is enabled. Each
//! page's WebMCP tools live in its [`Table`](super::Table), so they go with the document
//! like its other tools. Only the main frame's registrations count, as for event-based
//! tools. Tools annotated `debugging: true` are listed and run as third-party developer
//! tools; the others through `list_webmcp_tools` / `execute_webmcp_tool`.

use std::time::Duration;

use serde_json::{json, Value};

use super::tool::PageTool;
use super::{limits, PageHost};
use crate::browser::{self, pages, waiters, Done, PageId, RawEvent};
use crate::cdp::generated::web_mcp;
use crate::error::Error;
use crate::log::log;
use crate::schema_problems;

/// The group the reference lists debugging WebMCP tools under, first.
pub(crate) const GROUP: &str = "WebMCP Tools";
pub(crate) const GROUP_DESCRIPTION: &str = "Tools exposed via WebMCP";

/// One registered WebMCP tool of the main frame.
pub(crate) struct WebTool {
    /// The browser's id of this registration (a tool registered again gets a new one).
    pub id: String,
    /// Name, description and the schema arguments are checked against (`{}` when the page
    /// gave none), with its validator.
    pub tool: PageTool,
    /// The schema as the page gave it.
    pub input_schema: Option<Value>,
    pub annotations: Option<web_mcp::Annotation>,
}

impl WebTool {
    pub(crate) fn debugging(&self) -> bool {
        self.annotations.as_ref().and_then(|a| a.debugging) == Some(true)
    }

    /// The page says the tool's output may hold content from elsewhere (user content,
    /// third parties): agents are told so.
    pub(crate) fn untrusted(&self) -> bool {
        self.annotations.as_ref().and_then(|a| a.untrusted_content) == Some(true)
    }
}

/// A page's WebMCP state.
#[derive(Default)]
pub(crate) struct WebMcp {
    /// The current document's tools, in registration order (a name registered again keeps
    /// its place, as the reference's map does).
    tools: Vec<WebTool>,
    /// `Some(false)`: the browser has no WebMCP domain (an older or differently built
    /// browser reached with --browserUrl). Kept across documents.
    pub available: Option<bool>,
    /// Registrations over the limits, as (debugging, name, reason), at most
    /// `limits::MAX_PROBLEMS`; the lists show them so an agent knows a tool is missing and why.
    left_out: Vec<(bool, String, String)>,
    /// How many more were left out beyond those.
    more_left_out: usize,
}

impl WebMcp {
    /// A new document: its tools are gone. Returns whether there were any.
    pub(crate) fn reset(&mut self) -> bool {
        let had = !self.tools.is_empty();
        self.tools.clear();
        self.left_out.clear();
        self.more_left_out = 0;
        had
    }

    pub(crate) fn tools(&self) -> impl Iterator<Item = &WebTool> {
        self.tools.iter()
    }

    pub(crate) fn debugging_tools(&self) -> impl Iterator<Item = &WebTool> {
        self.tools.iter().filter(|t| t.debugging())
    }

    pub(crate) fn plain_tools(&self) -> impl Iterator<Item = &WebTool> {
        self.tools.iter().filter(|t| !t.debugging())
    }

    /// The debugging tool `name` (these shadow event-based tools of the same name, as
    /// their group is listed first).
    pub(crate) fn debugging_tool(&self, name: &str) -> Option<&WebTool> {
        self.debugging_tools().find(|t| t.tool.name == name)
    }

    pub(crate) fn plain_tool(&self, name: &str) -> Option<&WebTool> {
        self.plain_tools().find(|t| t.tool.name == name)
    }

    /// Adds (or replaces by name) a registration. `false` when it is over the limits.
    fn add(&mut self, t: web_mcp::Tool) -> bool {
        let schema = t.input_schema.clone().unwrap_or_else(|| json!({}));
        let problem = limits::text_problem("tool", &t.name, Some(&t.description))
            .or_else(|| limits::schema_problem(&schema));
        let known = self.tools.iter().position(|w| w.tool.name == t.name);
        let debugging = t.annotations.as_ref().and_then(|a| a.debugging) == Some(true);
        self.left_out.retain(|(_, name, _)| *name != t.name);
        let problem = problem.or_else(|| {
            (known.is_none() && self.tools.len() >= limits::MAX_TOOLS).then(|| {
                format!(
                    "a page may register at most {} WebMCP tools",
                    limits::MAX_TOOLS
                )
            })
        });
        if let Some(why) = problem {
            let reason = format!("WebMCP tool \"{}\": {why}", limits::shown(&t.name));
            log!("left out {reason}");
            if self.left_out.len() < limits::MAX_PROBLEMS {
                self.left_out.push((debugging, t.name, reason));
            } else {
                self.more_left_out += 1;
            }
            return false;
        }
        let tool = WebTool {
            id: t.tool_id,
            tool: PageTool::new(t.name, Some(t.description), schema),
            input_schema: t.input_schema,
            annotations: t.annotations,
        };
        match known {
            Some(i) => self.tools[i] = tool,
            None => self.tools.push(tool),
        }
        true
    }

    /// Removes a registration: by the browser's id when it gives one (so a late removal
    /// for an earlier registration never takes a newer one of the same name), else by name.
    fn remove(&mut self, r: &web_mcp::RemovedTool) -> bool {
        self.left_out.retain(|(_, name, _)| *name != r.name);
        let before = self.tools.len();
        if r.tool_id.is_empty() {
            self.tools.retain(|t| t.tool.name != r.name);
        } else {
            self.tools.retain(|t| t.id != r.tool_id);
        }
        self.tools.len() != before
    }

    /// Why registrations were left out: the debugging ones (listed with the third-party
    /// developer tools) or the others (`list_webmcp_tools`).
    pub(crate) fn left_out(&self, debugging: bool) -> Vec<String> {
        let mut reasons: Vec<String> = (self.left_out.iter())
            .filter(|(d, _, _)| *d == debugging)
            .map(|(_, _, reason)| reason.clone())
            .collect();
        if self.more_left_out > 0 {
            reasons.push(format!(
                "{} more WebMCP registrations were left out",
                self.more_left_out
            ));
        }
        reasons
    }

    /// The reference's `## WebMCP tools` section and its structured form.
    pub(crate) fn section(&self) -> (String, Value) {
        let mut text = String::from("## WebMCP tools");
        if self.available == Some(false) {
            text.push('\n');
            text.push_str(&unavailable().to_string());
            return (text, json!([]));
        }
        let mut list = Vec::new();
        for t in self.plain_tools() {
            let undefined = || "undefined".to_owned();
            let schema = t
                .input_schema
                .as_ref()
                .map_or_else(undefined, Value::to_string);
            let annotations = t
                .annotations
                .as_ref()
                .map_or_else(undefined, |a| json!(a).to_string());
            text.push_str(&format!(
            "\nname=\"{}\", description=\"{}\", inputSchema={schema}, annotations={annotations}",
            t.tool.name,
            t.tool.description.as_deref().unwrap_or("")
        ));
            list.push(json!({
                "name": t.tool.name,
                "description": t.tool.description,
                "inputSchema": t.input_schema,
                "annotations": t.annotations,
            }));
        }
        if list.is_empty() {
            text.push_str("\nNo WebMCP tools available.");
        }
        let left_out = self.left_out(false);
        if !left_out.is_empty() {
            text.push_str("\nRegistrations that were left out:");
            for reason in left_out {
                text.push_str(&format!("\n- {reason}"));
            }
        }
        (text, Value::Array(list))
    }

    /// The reference's "WebMCP Tools" group of `list_3p_developer_tools`: its lines and
    /// structured form, `None` without debugging tools.
    pub(crate) fn group_section(&self) -> Option<(Vec<String>, Value)> {
        let mut lines = vec![
            format!("{GROUP}: {GROUP_DESCRIPTION}"),
            "Available tools:".into(),
        ];
        let mut tools = Vec::new();
        for t in self.debugging_tools() {
            let schema = &t.tool.input_schema;
            lines.push(format!(
                "name=\"{}\", description=\"{}\", inputSchema={schema}",
                t.tool.name,
                t.tool.description.as_deref().unwrap_or("")
            ));
            tools.push(json!({"name": t.tool.name, "description": t.tool.description, "inputSchema": schema}));
        }
        if tools.is_empty() {
            return None;
        }
        let structured = json!({"name": GROUP, "description": GROUP_DESCRIPTION, "tools": tools});
        Some((lines, structured))
    }
}

/// A new page session: turn the domain on (the browser then reports the tools registered
/// so far). A browser without it answers with an error: WebMCP is unavailable there.
pub(crate) fn attach<H: PageHost>(cx: &mut H, page: PageId, session: &str) {
    let enable = web_mcp::EnableParams {};
    browser::send(cx, Some(session), enable, move |cx, r| {
        let available = r.is_ok();
        if let Err(e) = r {
            log!("WebMCP is not available on page {page}: {e}");
        }
        cx.tables().entry(page).webmcp.available = Some(available);
    });
}

/// The domain's events: registrations come and go.
pub(crate) fn on_event<H: PageHost>(cx: &mut H, page: PageId, event: &RawEvent) {
    let changed = if let Some(e) = event.decode::<web_mcp::ToolsAddedEvent>() {
        let Some(main_frame) = main_frame(cx, page) else {
            return;
        };
        let table = cx.tables().entry(page);
        let mut changed = false;
        // Main frame only, like event-based tools: an iframe's tools are not the page's.
        for t in e.tools.into_iter().filter(|t| t.frame_id == main_frame) {
            changed |= table.webmcp.add(t);
        }
        changed
    } else if let Some(e) = event.decode::<web_mcp::ToolsRemovedEvent>() {
        let Some(main_frame) = main_frame(cx, page) else {
            return;
        };
        let table = cx.tables().entry(page);
        let mut changed = false;
        for r in e.tools.iter().filter(|r| r.frame_id == main_frame) {
            changed |= table.webmcp.remove(r);
        }
        changed
    } else {
        return;
    };
    // The listing may change even when the tools did not (a registration left out).
    cx.tables().entry(page).content_changed();
    if changed {
        cx.tools_changed(page);
    }
}

fn main_frame<H: PageHost>(cx: &mut H, page: PageId) -> Option<String> {
    cx.browser().pages.get(page).map(|p| p.target_id.clone())
}

/// The page's main frame committed a new document (or crashed): invocations still waiting
/// for an answer fail now, as a page tool's run does when its document goes.
pub(crate) fn document_changed<H: PageHost>(cx: &mut H, page: PageId) {
    let Some(p) = cx.browser().pages.get(page) else {
        return;
    };
    if p.crashed {
        return; // the crash fails them, in its own words
    }
    let session = p.session.clone();
    let gone = "The page navigated away (or reloaded) before the tool finished.";
    waiters::fail_event::<H, web_mcp::ToolRespondedEvent>(
        cx,
        &session,
        Error::PageGone(gone.into()),
    );
}

/// Checks `input` against the tool's inputSchema, worded as for event-based tools.
pub(crate) fn check(tool: &WebTool, input: &Value) -> Result<(), Error> {
    let name = &tool.tool.name;
    let validator = tool.tool.validator().map_err(|e| {
        Error::Invalid(format!(
            "Tool {name} cannot be run: its inputSchema is not a valid JSON Schema: {e}"
        ))
    })?;
    let problems = schema_problems::bounded(validator.iter_errors(input), |path, message| {
        format!("data{path} {message}")
    });
    if problems.is_empty() {
        return Ok(());
    }
    Err(Error::Invalid(format!(
        "Invalid parameters for tool {name}: {}",
        problems.join(", ")
    )))
}

/// Invokes WebMCP tool `name` with `input` in `page`'s main frame; `done` gets the
/// invocation's id, under which [`response`] waits for its answer.
pub(crate) fn invoke<H: PageHost>(
    cx: &mut H,
    page: PageId,
    name: String,
    input: Value,
    done: Done<H, String>,
) {
    if cx.tables_ref().get(page).and_then(|t| t.webmcp.available) == Some(false) {
        return done(cx, Err(unavailable()));
    }
    let Some(p) = cx.browser().pages.get(page) else {
        return done(cx, Err(pages::no_such_page(page)));
    };
    let (session, frame_id) = (p.session.clone(), p.target_id.clone());
    let request = web_mcp::InvokeToolParams {
        frame_id,
        tool_name: name,
        input,
    };
    browser::send(cx, Some(&session), request, move |cx, r| {
        done(cx, r.map(|answer| answer.invocation_id))
    });
}

/// Waits (at most `timeout`) for the answer to invocation `id` of tool `name` on `session`.
/// The browser answers the invoke command before it sends the invocation's events, so the
/// wait can start once the id is known.
pub(crate) fn response<H: PageHost>(
    cx: &mut H,
    session: &str,
    id: String,
    name: &str,
    timeout: Duration,
    done: Done<H, web_mcp::ToolRespondedEvent>,
) {
    let message = format!("Tool {name} did not answer.");
    let mine = move |e: &web_mcp::ToolRespondedEvent| e.invocation_id == id;
    waiters::wait(cx, session, mine, timeout, message, done);
}

/// What WebMCP answers say in a browser without the domain.
pub(crate) fn unavailable() -> Error {
    Error::Invalid(
        "WebMCP is not available in this browser (it needs Chromium with --enable-features=WebMCP)."
            .into(),
    )
}

/// The error text of an invocation that did not complete, as the reference words it: the
/// exception's description, else its value, else the browser's error text.
pub(crate) fn failure_text(e: &web_mcp::ToolRespondedEvent) -> Option<String> {
    if let Some(x) = &e.exception {
        if let Some(d) = &x.description {
            return Some(d.clone());
        }
        match &x.value {
            Some(Value::String(s)) => return Some(s.clone()),
            Some(v) => return Some(v.to_string()),
            None => {}
        }
    }
    e.error_text.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(id: &str, name: &str, debugging: bool) -> web_mcp::Tool {
        web_mcp::Tool {
            tool_id: id.into(),
            name: name.into(),
            description: format!("{name} does it"),
            input_schema: Some(
                json!({"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]}),
            ),
            annotations: Some(web_mcp::Annotation {
                debugging: Some(debugging),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn tools_are_split_replaced_by_name_and_removed_by_id() {
        let mut w = WebMcp::default();
        assert!(w.group_section().is_none());
        assert!(w.add(tool("1", "d", true)));
        assert!(w.add(tool("2", "p", false)));
        assert!(w.add(tool("3", "d2", true)));
        assert_eq!(w.debugging_tools().count(), 2);
        assert!(w.plain_tool("p").is_some() && w.plain_tool("d").is_none());
        // Registered again: same place, new id; a removal of the old id changes nothing.
        assert!(w.add(tool("4", "d", true)));
        let old = web_mcp::RemovedTool {
            tool_id: "1".into(),
            name: "d".into(),
            ..Default::default()
        };
        assert!(!w.remove(&old));
        let (lines, structured) = w.group_section().unwrap();
        assert_eq!(lines[0], "WebMCP Tools: Tools exposed via WebMCP");
        assert!(lines[2].starts_with(
            "name=\"d\", description=\"d does it\", inputSchema={\"type\":\"object\""
        ));
        assert_eq!(structured["tools"][1]["name"], "d2");
        let new = web_mcp::RemovedTool {
            tool_id: "4".into(),
            name: "d".into(),
            ..Default::default()
        };
        assert!(w.remove(&new));
        assert!(w.debugging_tool("d").is_none());
        assert!(w.reset());
        assert!(!w.reset());
    }

    #[test]
    fn arguments_are_checked_against_the_schema() {
        let mut w = WebMcp::default();
        w.add(tool("1", "d", true));
        let t = w.debugging_tool("d").unwrap();
        assert!(check(t, &json!({"a": 1})).is_ok());
        let e = check(t, &json!({})).unwrap_err().to_string();
        assert!(e.starts_with("Invalid parameters for tool d: "), "{e}");
    }
}
