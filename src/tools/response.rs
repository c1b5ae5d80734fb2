//! Building a tool's answer the way chrome-devtools-mcp lays it out: the tool's own lines,
//! then the sections it asked for (open dialog, pages, snapshot, third-party tools), as one
//! text block, plus images and (with `--experimentalStructuredContent`) `structuredContent`.

use crate::browser::{AgentId, PageId};
use serde_json::{json, Map, Value};

use crate::browser;
use crate::browser::{Flow, Host};
use crate::cdp::generated::target;
use crate::error::Error;
use crate::pagetools;
use crate::settings::Category;
use crate::tools::call;
use crate::tools::CallId;
use crate::tools::{result::text_block, ToolResult};
use crate::tools::{Ctx, Once};

/// The longest an answer waits for the page's tools to be discovered.
const DISCOVERY_DEADLINE: std::time::Duration = std::time::Duration::from_millis(1000);

#[derive(Default)]
pub(crate) struct Response {
    pub lines: Vec<String>,
    /// The page the call worked on (for the dialog and third-party sections).
    pub page: Option<PageId>,
    pub include_pages: bool,
    /// Append the page's third-party developer tools (discovered afresh first).
    pub list_tools: bool,
    /// Say so in words when the page has no third-party tools.
    pub say_no_tools: bool,
    /// Append the page's `## WebMCP tools` (with --categoryExperimentalWebmcp).
    pub list_webmcp: bool,
    pub snapshot: Option<String>,
    pub images: Vec<Value>,
    pub structured: Map<String, Value>,
}

impl Response {
    pub(crate) fn for_page(page: PageId) -> Response {
        Response {
            page: Some(page),
            ..Default::default()
        }
    }

    pub(crate) fn line(&mut self, line: impl Into<String>) -> &mut Self {
        self.lines.push(line.into());
        self
    }
}

/// Sends the answer, first discovering the page's tools when the answer lists them and
/// refreshing titles when it lists pages (a title can change after the load event, and the
/// browser tells us a moment later than the answer would go out).
pub(crate) fn finish(cx: &mut Ctx, call: CallId, mut resp: Response) {
    // As in the reference, answers list the page's tools only while their category is on.
    resp.list_tools &= cx.settings.categories.on(Category::ThirdParty);
    Answer { call, resp }.discover(cx)
}

/// An answer on its way out: what it lists made current first.
struct Answer {
    call: CallId,
    resp: Response,
}

enum Step {
    /// The page's tools were discovered, or the deadline for that passed.
    Listed,
    /// The browser's targets, for current titles.
    Titles(Result<target::GetTargetsReturns, Error>),
}

impl Flow<Ctx> for Answer {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Listed => self.refresh_titles(cx),
            Step::Titles(r) => {
                // Titles as they were, when the browser does not say.
                if let Ok(answer) = r {
                    for info in &answer.target_infos {
                        browser::pages::update_info(&mut cx.browser.pages, info);
                    }
                    cx.extension_workers.update(&answer.target_infos);
                }
                self.send(cx)
            }
        }
    }
}

impl Answer {
    /// Discovers the page's tools when the answer lists them. Listing never waits long: a
    /// page whose main thread is busy answers with the table as it stands (the shim reports
    /// changes later through its binding); an open dialog holds the page's scripts, so the
    /// table as it stands is the answer at once.
    fn discover(self, cx: &mut Ctx) {
        let page = self.resp.page.filter(|_| self.resp.list_tools);
        let open = page.and_then(|p| cx.browser.pages.get(p));
        let Some(page) = page.filter(|_| open.is_some_and(|p| p.dialog.is_none())) else {
            return self.refresh_titles(cx);
        };
        let listed: Once<()> = Once::new(self.then(|_| Step::Listed));
        let on_time = listed.clone();
        let timer = cx.after(DISCOVERY_DEADLINE, move |cx| on_time.call(cx, Ok(())));
        let discovered = move |cx: &mut Ctx, r| {
            cx.cancel_timer(timer);
            listed.call(cx, r)
        };
        pagetools::discover(cx, page, Box::new(discovered));
    }

    fn refresh_titles(self, cx: &mut Ctx) {
        if !self.resp.include_pages || cx.browser.pages.is_empty() {
            return self.send(cx);
        }
        let targets = target::GetTargetsParams::default();
        browser::send_then(cx, None, targets, self, Step::Titles);
    }

    fn send(self, cx: &mut Ctx) {
        let result = render(cx, self.call, self.resp);
        call::finish(cx, self.call, result);
    }
}

fn render(cx: &mut Ctx, call: CallId, mut resp: Response) -> ToolResult {
    let mut out: Vec<String> = Vec::new();
    let mut structured = std::mem::take(&mut resp.structured);
    // Said once, in the first answer after the browser was lost, whichever tool gives it.
    if call::take_restarted(cx, call) {
        structured.insert("reconnected".into(), json!(true));
        out.push(call::restart_note(resp.include_pages).into());
    }
    let with_structured = cx.settings.structured_content;
    if !resp.lines.is_empty() {
        // The text is in the content already; a large one is not copied a second time.
        let text_len: usize = resp.lines.iter().map(String::len).sum();
        if with_structured && text_len <= 64 * 1024 {
            structured.insert("message".into(), json!(resp.lines.join("\n")));
        }
        out.append(&mut resp.lines);
    }
    if let Some(id) = resp.page.filter(|id| cx.browser.pages.get(*id).is_some()) {
        let none = super::emulation::State::default();
        let emulation = cx.emulation.get(id).unwrap_or(&none);
        out.extend(super::emulation::lines(emulation));
        super::emulation::structured(emulation, &mut structured);
    }
    if let Some(page) = resp.page.and_then(|id| cx.browser.pages.get(id)) {
        if let Some(d) = &page.dialog {
            out.push(super::dialogs::section(d));
            structured.insert(
                "dialog".into(),
                json!({"type": d.kind, "message": d.message, "defaultValue": d.default_prompt}),
            );
        }
    }
    if resp.include_pages {
        let (text, list) = pages_section(cx, call::agent(cx, call));
        out.push(text);
        structured.insert("pages".into(), Value::Array(list));
        // As the reference: with the extension tools on, their workers follow the pages.
        if cx.settings.categories.on(Category::Extensions) {
            let (text, list) = cx.extension_workers.section();
            out.extend(text);
            structured.insert("extensionServiceWorkers".into(), list);
        }
    }
    if let Some(snapshot) = resp.snapshot.take() {
        out.push(snapshot);
    }
    if resp.list_tools {
        if let Some(id) = resp.page.filter(|id| cx.browser.pages.get(*id).is_some()) {
            let (text, groups) = cx.tables.entry(id).render(resp.say_no_tools);
            if let Some(text) = text {
                out.push(text);
            }
            if let Some(groups) = groups {
                structured.insert("thirdPartyDeveloperTools".into(), groups);
            }
        }
    }
    if resp.list_webmcp && cx.settings.categories.on(crate::settings::Category::Webmcp) {
        if let Some(id) = resp.page.filter(|id| cx.browser.pages.get(*id).is_some()) {
            let (text, tools) = match cx.tables.get(id) {
                Some(table) => table.webmcp.section(),
                None => (
                    "## WebMCP tools\nNo WebMCP tools available.".to_owned(),
                    json!([]),
                ),
            };
            out.push(text);
            structured.insert("webmcpTools".into(), tools);
        }
    }
    let mut content = vec![text_block(join_lines(out))];
    content.append(&mut resp.images);
    ToolResult {
        content,
        // As the reference: only with --experimentalStructuredContent, which no tool's output
        // schema requires (none declares one).
        structured: with_structured.then_some(structured),
        is_error: false,
    }
}

/// The parts joined by newlines, reusing the first part's allocation (it can be a
/// megabyte-sized tool result).
fn join_lines(parts: Vec<String>) -> String {
    let mut parts = parts.into_iter();
    let mut text = parts.next().unwrap_or_default();
    for part in parts {
        text.push('\n');
        text.push_str(&part);
    }
    text
}

/// `## Pages` with one line per page of the agent: `<id>: <title> (<url>)`, the selected one
/// marked.
fn pages_section(cx: &Ctx, agent: AgentId) -> (String, Vec<Value>) {
    let pages = &cx.browser.pages;
    let mut text = String::from("## Pages");
    let mut list = Vec::new();
    let selected_page = pages.selected(agent);
    for p in pages.of(agent) {
        let selected = selected_page == Some(p.id);
        let title = truncate_title(display_title(&p.title, &p.url));
        let label = if title.is_empty() {
            p.url.clone()
        } else {
            format!("{title} ({})", p.url)
        };
        let context = pages.context_name(p);
        text.push_str(&format!(
            "\n{}: {label}{}{}",
            p.id,
            if selected { " [selected]" } else { "" },
            context
                .map(|c| format!(" isolatedContext={c}"))
                .unwrap_or_default()
        ));
        let mut entry = json!({"id": p.id, "url": p.url, "title": title, "selected": selected});
        if let Some(c) = context {
            entry["isolatedContext"] = json!(c);
        }
        list.push(entry);
    }
    (text, list)
}

/// Chromium titles an untitled page with its URL; that is no title.
fn display_title<'a>(title: &'a str, url: &str) -> &'a str {
    let without_scheme = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url);
    if title == url || title == without_scheme || Some(title) == without_scheme.strip_suffix('/') {
        ""
    } else {
        title
    }
}

fn truncate_title(title: &str) -> String {
    // JavaScript string length counts UTF-16 units; so do we, to cut where the reference cuts.
    const MAX: usize = 50;
    let units: Vec<u16> = title.encode_utf16().collect();
    if units.len() <= MAX {
        title.to_owned()
    } else {
        format!("{}...", String::from_utf16_lossy(&units[..MAX - 3]))
    }
}

/// Answers the call with `lines` (and a snapshot section) on `page`, followed by what
/// happened to dialogs its page code opened.
pub(crate) fn reply_lines(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    lines: Vec<String>,
    snapshot: Option<String>,
) {
    let mut resp = Response::for_page(page);
    resp.lines = lines;
    resp.snapshot = snapshot;
    for note in call::take_dialog_notes(cx, call) {
        resp.line(note);
    }
    finish(cx, call, resp);
}

/// Runs a tool that takes only `pageId` ([`PageOnly`](super::args::PageOnly)) and answers with what `make` puts in
/// its page's response.
pub(crate) fn answer_page(cx: &mut Ctx, call: CallId, args: Value, make: fn(PageId) -> Response) {
    let Some(args) = call::args::<super::args::PageOnly>(cx, call, args) else {
        return;
    };
    call::on_page(cx, call, args.page, move |cx, page| {
        finish(cx, call, make(page))
    });
}
