//! Pages: list, open, select, close, navigate, and wait for text. Opening a page is a
//! [`NewPage`] and navigating one a [`NavigatePage`]: their `next` tells each call's story.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::args::{self, max, tool_args};
use super::call::{self, CallId};
use super::ctx::Ctx;
use super::response::{finish, Response};
use super::tool::Tool;
use super::{dialogs, policies, snapshot};
use crate::browser::{self, navigation, pages, waiters, Flow, PageId};
use crate::cdp::generated::{page as cdp_page, target};
use crate::error::Error;
use crate::settings::Category;

/// How long `wait_for` waits unless the call says otherwise (as the reference).
const WAIT_TIMEOUT: Duration = Duration::from_secs(5);

pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "list_pages",
        description: "List the open pages (tabs) and their ids. Page tools act on the selected page unless given a pageId.",
        args: args::schema::<ListPagesArgs>(),
        read_only: true,
        category: Category::Navigation,
        run: list_pages,
    },
    Tool {
        name: "select_page",
        description: "Select a page: later page tools act on it by default.",
        args: args::schema::<SelectPageArgs>(),
        read_only: true,
        category: Category::Navigation,
        run: select_page,
    },
    Tool {
        name: "close_page",
        description: "Close a page by id (the last page stays open); returns the remaining pages.",
        args: args::schema::<ClosePageArgs>(),
        read_only: false,
        category: Category::Navigation,
        run: close_page,
    },
    Tool {
        name: "new_page",
        description: "Open a URL in a new tab and select it; returns the pages.",
        args: args::schema::<NewPageArgs>(),
        read_only: false,
        category: Category::Navigation,
        run: new_page,
    },
    Tool {
        name: "navigate_page",
        description: "Load a URL in the page, or go back, forward or reload; says how it went.",
        args: args::schema::<NavigatePageArgs>(),
        read_only: false,
        category: Category::Navigation,
        run: navigate_page,
    },
    Tool {
        name: "wait_for",
        description: "Wait until any of the texts appears on the page; returns a snapshot.",
        args: args::schema::<WaitForArgs>(),
        read_only: true,
        category: Category::Navigation,
        run: wait_for,
    },
];

/// The `timeout` of the tools that navigate or wait.
fn timeout_schema() -> Value {
    serde_json::json!({"type": "integer", "minimum": 0, "maximum": max::TIMEOUT_MS, "description": "ms (0: default)"})
}

/// The schema of a `pageId` that names the page to act on (not the default one).
fn page_to_act_on() -> Value {
    serde_json::json!({"type": "number", "minimum": 0, "maximum": max::ID})
}

fn pages_response(page: PageId) -> Response {
    Response {
        include_pages: true,
        list_tools: true,
        list_webmcp: true,
        ..Response::for_page(page)
    }
}

/// Just the pages. Without a page's third-party tools: finding those runs code in the page,
/// and the list must answer even while the selected page is busy (as the reference's does,
/// its list_pages shows no tools either).
fn pages_only() -> Response {
    Response {
        include_pages: true,
        ..Default::default()
    }
}

tool_args! {
    struct ListPagesArgs {}
}

fn list_pages(cx: &mut Ctx, call: CallId, args: Value) {
    if call::args::<ListPagesArgs>(cx, call, args).is_none() {
        return;
    }
    call::on_page(cx, call, None, move |cx, _| finish(cx, call, pages_only()));
}

tool_args! {
    struct SelectPageArgs {
        "pageId" page: PageId = (page_to_act_on()),
        "bringToFront" bring_to_front: Option<bool> = {"type": "boolean", "description": "Also focus it"},
    }
}

fn select_page(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<SelectPageArgs>(cx, call, args) else {
        return;
    };
    let bring_to_front = args.bring_to_front.unwrap_or(false);
    call::on_page(cx, call, Some(args.page), move |cx, page| {
        let agent = call::agent(cx, call);
        let changed = cx.browser.pages.selected(agent) != Some(page);
        cx.browser.pages.select(agent, page);
        if changed && cx.settings.expose_page_tools {
            cx.agent_tools_changed(agent);
        }
        if bring_to_front {
            if let Ok(session) = pages::session_of(&cx.browser.pages, page) {
                browser::fire(cx, Some(&session), cdp_page::BringToFrontParams {});
            }
        }
        finish(cx, call, pages_response(page))
    });
}

tool_args! {
    struct ClosePageArgs {
        "pageId" page: PageId = (page_to_act_on()),
    }
}

const LAST_PAGE: &str = "The last open page cannot be closed. It is fine to keep it open.";

fn close_page(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<ClosePageArgs>(cx, call, args) else {
        return;
    };
    call::on_page(cx, call, Some(args.page), move |cx, page| {
        close(cx, call, page)
    });
}

/// Closes the page unless it is the agent's last, and answers with the pages left once its
/// target is gone from the list.
fn close(cx: &mut Ctx, call: CallId, page: PageId) {
    let agent = call::agent(cx, call);
    if cx.browser.pages.of(agent).count() <= 1 {
        let mut resp = pages_only();
        resp.line(LAST_PAGE);
        return finish(cx, call, resp);
    }
    let Some(target_id) = cx.browser.pages.get(page).map(|p| p.target_id.clone()) else {
        return call::fail(cx, call, pages::no_such_page(page));
    };
    let was_selected = cx.browser.pages.selected(agent) == Some(page);
    let closing = target_id.clone();
    let closed = move |cx: &mut Ctx, r: Result<target::DetachedFromTargetEvent, Error>| {
        if let Err(e) = r {
            return call::fail(cx, call, e);
        }
        let mut resp = pages_only();
        if let (true, Some(now)) = (was_selected, cx.browser.pages.selected(agent)) {
            resp.line(format!(
                "Note: the previously selected page was closed. Page {now} is now selected."
            ));
        }
        finish(cx, call, resp)
    };
    waiters::wait(
        cx,
        "",
        move |e: &target::DetachedFromTargetEvent| e.target_id.as_deref() == Some(closing.as_str()),
        navigation::DEFAULT_TIMEOUT,
        format!(
            "Page {page} did not close within {} s.",
            navigation::DEFAULT_TIMEOUT.as_secs()
        ),
        Box::new(closed),
    );
    // A refused close ends the call; the wait for the detach goes with it.
    let close = target::CloseTargetParams { target_id };
    browser::send(cx, None, close, move |cx, r| {
        if let Err(e) = r {
            call::fail(cx, call, e);
        }
    });
}

tool_args! {
    struct NewPageArgs {
        "url" url: String = {"type": "string", "maxLength": max::URL},
        "background" background: Option<bool> = {"type": "boolean", "description": "Don't bring it to the front"},
        "isolatedContext" isolated_context: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Named browser context; cookies and storage are shared only within it"},
        "timeout" timeout: Option<f64> = (timeout_schema()),
    }
}

fn new_page(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<NewPageArgs>(cx, call, args) else {
        return;
    };
    if let Some(refusal) = policies::refused_url(&cx.settings, &args.url) {
        return call::fail(cx, call, refusal);
    }
    let new_page = NewPage {
        call,
        url: args.url,
        background: args.background.unwrap_or(false),
        isolated_context: args.isolated_context,
        timeout: args::timeout_or(args.timeout, navigation::DEFAULT_TIMEOUT),
        page: PageId::NONE,
    };
    browser::ready(cx, new_page.then(NewPageStep::Ready));
}

/// `new_page`: a new tab, in an isolated context if one is named, loaded with the URL and
/// selected; the answer lists the pages and the new page's tools.
struct NewPage {
    call: CallId,
    url: String,
    /// Open the tab without bringing it to the front.
    background: bool,
    /// The name of the browser context to open it in (the default context when `None`).
    isolated_context: Option<String>,
    timeout: Duration,
    /// The new page, once open.
    page: PageId,
}

enum NewPageStep {
    /// The browser is up (started if it was not).
    Ready(Result<(), Error>),
    /// The tab is open, on about:blank.
    Opened(Result<PageId, Error>),
    /// The page loaded the URL.
    Loaded(Result<(), Error>),
}

impl Flow<Ctx> for NewPage {
    type Step = NewPageStep;

    fn next(self, cx: &mut Ctx, step: NewPageStep) {
        match step {
            NewPageStep::Ready(Ok(())) => self.open(cx),
            NewPageStep::Opened(Ok(page)) => self.load(cx, page),
            // The answer discovers the page's tools first (briefly) to list them.
            NewPageStep::Loaded(Ok(())) => finish(cx, self.call, pages_response(self.page)),
            NewPageStep::Ready(Err(e))
            | NewPageStep::Opened(Err(e))
            | NewPageStep::Loaded(Err(e)) => call::fail(cx, self.call, e),
        }
    }
}

impl NewPage {
    fn open(mut self, cx: &mut Ctx) {
        let (background, context) = (self.background, self.isolated_context.take());
        let agent = call::agent(cx, self.call);
        let opened = self.then(NewPageStep::Opened);
        browser::open_isolated(cx, agent, background, context, opened);
    }

    /// Selects the new page and loads the URL in it.
    fn load(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        let agent = call::agent(cx, self.call);
        cx.browser.pages.select(agent, page);
        let (url, timeout) = (std::mem::take(&mut self.url), self.timeout);
        navigation::goto(cx, page, url, timeout, self.then(NewPageStep::Loaded));
    }
}

/// What `navigate_page` does.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum NavigationKind {
    Url,
    Back,
    Forward,
    Reload,
}

tool_args! {
    struct NavigatePageArgs {
        "type" kind: Option<NavigationKind> = {"type": "string", "enum": ["url", "back", "forward", "reload"], "description": "Default: url"},
        "url" url: Option<String> = {"type": "string", "maxLength": max::URL},
        "ignoreCache" ignore_cache: Option<bool> = {"type": "boolean", "description": "On reload"},
        /// Taken as the reference takes it: a navigation the protocol starts runs no
        /// beforeunload handler, so there is never a dialog to answer.
        #[allow(dead_code)]
        "handleBeforeUnload" handle_before_unload: Option<String> = {"type": "string", "enum": ["accept", "dismiss"], "description": "Default: accept"},
        "initScript" init_script: Option<String> = {"type": "string", "maxLength": max::SCRIPT, "description": "JS run before the new document's scripts"},
        "timeout" timeout: Option<f64> = (timeout_schema()),
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn navigate_page(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<NavigatePageArgs>(cx, call, args) else {
        return;
    };
    let kind = match (args.kind, &args.url) {
        (Some(kind), _) => kind,
        (None, Some(_)) => NavigationKind::Url,
        (None, None) => return call::fail(cx, call, "Either URL or a type is required."),
    };
    let refused = (args.url.as_deref()).and_then(|url| policies::refused_url(&cx.settings, url));
    if let Some(refusal) = refused {
        return call::fail(cx, call, refusal);
    }
    let navigation = NavigatePage {
        call,
        kind,
        url: args.url,
        ignore_cache: args.ignore_cache.unwrap_or(false),
        init_script: args.init_script,
        script_id: None,
        timeout: args::timeout_or(args.timeout, navigation::DEFAULT_TIMEOUT),
        page: PageId::NONE,
    };
    call::page(cx, call, args.page, navigation.then(NavigateStep::Page));
}

/// `navigate_page`: an initScript installed for the next document if one is given, the
/// navigation and its load, and an answer that says how it went (a failed navigation is not
/// the call's error).
struct NavigatePage {
    call: CallId,
    kind: NavigationKind,
    url: Option<String>,
    /// Reload bypassing the cache.
    ignore_cache: bool,
    /// The script to run before the new document's scripts.
    init_script: Option<String>,
    /// Its identifier once installed, to remove it when the navigation is over.
    script_id: Option<String>,
    timeout: Duration,
    /// The page navigated, once found.
    page: PageId,
}

enum NavigateStep {
    /// The page the call works on (the browser started, a page opened if there was none).
    Page(Result<PageId, Error>),
    /// The initScript is installed for the next document.
    ScriptAdded(Result<cdp_page::AddScriptToEvaluateOnNewDocumentReturns, Error>),
    /// The navigation is over, with its load, or failed.
    Navigated(Result<(), Error>),
}

impl Flow<Ctx> for NavigatePage {
    type Step = NavigateStep;

    fn next(mut self, cx: &mut Ctx, step: NavigateStep) {
        match step {
            NavigateStep::Page(Ok(page)) => self.prepare(cx, page),
            NavigateStep::ScriptAdded(Ok(added)) => {
                self.script_id = Some(added.identifier).filter(|id| !id.is_empty());
                self.navigate(cx)
            }
            NavigateStep::Navigated(r) => self.reply(cx, r),
            NavigateStep::Page(Err(e)) | NavigateStep::ScriptAdded(Err(e)) => {
                call::fail(cx, self.call, e)
            }
        }
    }
}

impl NavigatePage {
    /// Checks that a URL navigation has its URL, and installs the initScript first if there
    /// is one.
    fn prepare(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        if self.kind == NavigationKind::Url && self.url.is_none() {
            let needed = "A URL is required for navigation of type=url.";
            return call::fail(cx, self.call, needed);
        }
        let Some(source) = self.init_script.take() else {
            return self.navigate(cx);
        };
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return call::fail(cx, self.call, e),
        };
        let params = cdp_page::AddScriptToEvaluateOnNewDocumentParams {
            source,
            ..Default::default()
        };
        browser::send(
            cx,
            Some(&session),
            params,
            self.then(NavigateStep::ScriptAdded),
        );
    }

    fn navigate(self, cx: &mut Ctx) {
        let (page, kind, timeout) = (self.page, self.kind, self.timeout);
        let (url, ignore_cache) = (self.url.clone().unwrap_or_default(), self.ignore_cache);
        let done = self.then(NavigateStep::Navigated);
        match kind {
            NavigationKind::Url => navigation::goto(cx, page, url, timeout, done),
            NavigationKind::Back => navigation::history(cx, page, -1, timeout, done),
            NavigationKind::Forward => navigation::history(cx, page, 1, timeout, done),
            NavigationKind::Reload => navigation::reload(cx, page, ignore_cache, timeout, done),
        }
    }

    /// Removes the initScript (it was for this navigation only) and says how it went.
    fn reply(self, cx: &mut Ctx, r: Result<(), Error>) {
        let page = self.page;
        if let (Some(identifier), Ok(session)) =
            (self.script_id, pages::session_of(&cx.browser.pages, page))
        {
            let remove = cdp_page::RemoveScriptToEvaluateOnNewDocumentParams { identifier };
            browser::fire(cx, Some(&session), remove);
        }
        let mut resp = pages_response(page);
        resp.line(navigated_line(cx, page, self.kind, self.url, r));
        finish(cx, self.call, resp);
    }
}

/// What the navigation did, in the reference's words.
fn navigated_line(
    cx: &Ctx,
    page: PageId,
    kind: NavigationKind,
    url: Option<String>,
    r: Result<(), Error>,
) -> String {
    let current = cx
        .browser
        .pages
        .get(page)
        .map(|p| p.url.clone())
        .unwrap_or_default();
    // The error becomes part of a sentence that ends with its own period.
    let r = r.map_err(|e| e.to_string().trim_end_matches('.').to_owned());
    match (kind, r) {
        (NavigationKind::Url, Ok(())) => {
            format!("Successfully navigated to {}.", url.unwrap_or_default())
        }
        (NavigationKind::Url, Err(e)) => format!("Unable to navigate in the selected page: {e}."),
        (NavigationKind::Back, Ok(())) => format!("Successfully navigated back to {current}."),
        (NavigationKind::Back, Err(e)) => {
            format!("Unable to navigate back in the selected page: {e}.")
        }
        (NavigationKind::Forward, Ok(())) => {
            format!("Successfully navigated forward to {current}.")
        }
        (NavigationKind::Forward, Err(e)) => {
            format!("Unable to navigate forward in the selected page: {e}.")
        }
        (NavigationKind::Reload, Ok(())) => "Successfully reloaded the page.".to_owned(),
        (NavigationKind::Reload, Err(e)) => format!("Unable to reload the selected page: {e}."),
    }
}

tool_args! {
    struct WaitForArgs {
        "text" text: Vec<String> = {"type": "array", "items": {"type": "string", "maxLength": max::TEXT}, "minItems": 1, "maxItems": max::ITEMS},
        "timeout" timeout: Option<f64> = (timeout_schema()),
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn wait_for(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<WaitForArgs>(cx, call, args) else {
        return;
    };
    let timeout = args::timeout_or(args.timeout, WAIT_TIMEOUT);
    let texts = args.text;
    call::on_live_page(cx, call, args.page, move |cx, page| {
        if dialogs::refuse(cx, call, page) {
            return;
        }
        snapshot::wait_for_text(cx, call, page, texts, timeout);
    });
}
