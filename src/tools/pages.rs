//! Pages: list, open, select, close, navigate, and wait for text.

use crate::tools::args::Schema;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::args::{self, max, Shared};
use super::response::{finish, Response};
use super::{call, fail, Tool};
use crate::browser::{self, navigation, pages, waiters, PageId};
use crate::cdp::generated::{page as cdp_page, target};
use crate::error::Error;
use crate::pagetools::PageHost;
use crate::settings::Category;
use crate::tools::CallId;
use crate::tools::Ctx;

/// How long a navigation may take unless the call says otherwise (as the reference).
pub const NAVIGATION_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `wait_for` waits unless the call says otherwise (as the reference).
pub const WAIT_TIMEOUT: Duration = Duration::from_secs(5);

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "list_pages",
        description: "List the open pages (tabs) and their ids. Page tools act on the selected page unless given a pageId.",
        args: Schema {
            properties: || json!({}),
            required: &[],
        },
        read_only: true,
        page_scoped: false,
        category: Category::Navigation,
        run: list_pages,
    },
    Tool {
        name: "select_page",
        description: "Select a page: later page tools act on it by default.",
        args: Schema {
            properties: || {
            json!({
                "pageId": {"type": "number", "minimum": 0, "maximum": max::ID},
                "bringToFront": {"type": "boolean", "description": "Also focus it"},
            })
        },
            required: &["pageId"],
        },
        read_only: true,
        page_scoped: false,
        category: Category::Navigation,
        run: select_page,
    },
    Tool {
        name: "close_page",
        description: "Close a page by id (the last page stays open); returns the remaining pages.",
        args: Schema {
            properties: || {
            json!({"pageId": {"type": "number", "minimum": 0, "maximum": max::ID}})
        },
            required: &["pageId"],
        },
        read_only: false,
        page_scoped: false,
        category: Category::Navigation,
        run: close_page,
    },
    Tool {
        name: "new_page",
        description: "Open a URL in a new tab and select it; returns the pages.",
        args: Schema {
            properties: || {
            json!({
                "url": {"type": "string", "maxLength": max::URL},
                "background": {"type": "boolean", "description": "Don't bring it to the front"},
                "isolatedContext": {"type": "string", "maxLength": max::NAME, "description": "Named browser context; cookies and storage are shared only within it"},
                "timeout": timeout_schema(),
            })
        },
            required: &["url"],
        },
        read_only: false,
        page_scoped: false,
        category: Category::Navigation,
        run: new_page,
    },
    Tool {
        name: "navigate_page",
        description: "Load a URL in the page, or go back, forward or reload; says how it went.",
        args: Schema {
            properties: || {
            json!({
                "type": {"type": "string", "enum": ["url", "back", "forward", "reload"], "description": "Default: url"},
                "url": {"type": "string", "maxLength": max::URL},
                "ignoreCache": {"type": "boolean", "description": "On reload"},
                "handleBeforeUnload": {"type": "string", "enum": ["accept", "dismiss"], "description": "Default: accept"},
                "initScript": {"type": "string", "maxLength": max::SCRIPT, "description": "JS run before the new document's scripts"},
                "timeout": timeout_schema(),
            })
        },
            required: &[],
        },
        read_only: false,
        page_scoped: true,
        category: Category::Navigation,
        run: navigate_page,
    },
    Tool {
        name: "wait_for",
        description: "Wait until any of the texts appears on the page; returns a snapshot.",
        args: Schema {
            properties: || {
            json!({
                "text": {"type": "array", "items": {"type": "string", "maxLength": max::TEXT}, "minItems": 1, "maxItems": max::ITEMS},
                "timeout": timeout_schema(),
            })
        },
            required: &["text"],
        },
        read_only: true,
        page_scoped: true,
        category: Category::Navigation,
        run: wait_for,
    },
];

fn timeout_schema() -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": max::TIMEOUT_MS, "description": "ms (0: default)"})
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

fn list_pages(cx: &mut Ctx, call: CallId, _args: Value) {
    call::on_page(cx, call, None, move |cx, _| finish(cx, call, pages_only()));
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SelectPageArgs {
    #[serde(flatten)]
    shared: Shared,
    #[serde(default)]
    bring_to_front: bool,
}

fn select_page(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<SelectPageArgs>(cx, call, args) else {
        return;
    };
    let id = args.shared.page().unwrap_or(PageId::NONE);
    call::on_page(cx, call, Some(id), move |cx, page| {
        let changed = cx.browser.pages.selected != Some(page);
        cx.browser.pages.selected = Some(page);
        if changed && cx.settings.expose_page_tools {
            cx.tools_changed();
        }
        if args.bring_to_front {
            if let Ok(session) = pages::session_of(&cx.browser.pages, page) {
                browser::fire(cx, Some(&session), cdp_page::BringToFrontParams {});
            }
        }
        finish(cx, call, pages_response(page))
    });
}

const LAST_PAGE: &str = "The last open page cannot be closed. It is fine to keep it open.";

fn close_page(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<args::OnlyShared>(cx, call, args) else {
        return;
    };
    let id = args.shared.page().unwrap_or(PageId::NONE);
    call::on_page(cx, call, Some(id), move |cx, page| {
        if cx.browser.pages.iter().count() <= 1 {
            let mut resp = pages_only();
            resp.line(LAST_PAGE);
            return finish(cx, call, resp);
        }
        let Some(target_id) = cx.browser.pages.get(page).map(|p| p.target_id.clone()) else {
            return fail(cx, call, pages::no_such_page(page));
        };
        let was_selected = cx.browser.pages.selected == Some(page);
        // Wait for the target to be gone from our list, so the answer lists the rest.
        let closing = target_id.clone();
        waiters::wait(
            cx,
            "",
            move |e: &target::DetachedFromTargetEvent| {
                e.target_id.as_deref() == Some(closing.as_str())
            },
            NAVIGATION_TIMEOUT,
            format!("Page {page} did not close within 10 s."),
            Box::new(move |cx, r| match r {
                Err(e) => fail(cx, call, e),
                Ok(_) => {
                    let mut resp = pages_only();
                    if let (true, Some(now)) = (was_selected, cx.browser.pages.selected) {
                        resp.line(format!(
                            "Note: the previously selected page was closed. Page {now} is now selected."
                        ));
                    }
                    finish(cx, call, resp)
                }
            }),
        );
        let close = target::CloseTargetParams { target_id };
        browser::send(cx, None, close, move |cx, r| {
            if let Err(e) = r {
                fail(cx, call, e);
            }
        });
    });
}

#[derive(Deserialize)]
struct NewPageArgs {
    #[serde(flatten)]
    shared: Shared,
    url: String,
    #[serde(default)]
    background: bool,
    #[serde(rename = "isolatedContext")]
    isolated_context: Option<String>,
}

fn new_page(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<NewPageArgs>(cx, call, args) else {
        return;
    };
    let extensions = cx.settings.categories.on(Category::Extensions);
    if let Some(refusal) =
        super::policies::refused_navigation(&args.url, &cx.settings.policies, extensions)
    {
        return fail(cx, call, refusal);
    }
    let timeout = args.shared.timeout_or(NAVIGATION_TIMEOUT);
    let (url, background, isolated) = (args.url, args.background, args.isolated_context);
    browser::ready(
        cx,
        Box::new(move |cx, r| {
            if let Err(e) = r {
                return fail(cx, call, e);
            }
            browser::open_isolated(
                cx,
                background,
                isolated,
                Box::new(move |cx, r| {
                    let page = match r {
                        Ok(p) => p,
                        Err(e) => return fail(cx, call, e),
                    };
                    cx.browser.pages.selected = Some(page);
                    navigation::goto(
                        cx,
                        page,
                        url,
                        timeout,
                        Box::new(move |cx, r| match r {
                            Ok(()) => finish(cx, call, pages_response(page)),
                            Err(e) => fail(cx, call, e),
                        }),
                    );
                }),
            );
        }),
    );
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NavigatePageArgs {
    #[serde(flatten)]
    shared: Shared,
    r#type: Option<NavigationKind>,
    url: Option<String>,
    #[serde(default)]
    ignore_cache: bool,
    init_script: Option<String>,
}

/// A navigation to make: what, where to, and the initScript to remove afterwards.
struct Navigation {
    kind: NavigationKind,
    url: Option<String>,
    ignore_cache: bool,
    init_script: Option<String>,
}

fn navigate_page(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<NavigatePageArgs>(cx, call, args) else {
        return;
    };
    let kind = match (args.r#type, &args.url) {
        (Some(t), _) => t,
        (None, Some(_)) => NavigationKind::Url,
        (None, None) => return fail(cx, call, "Either URL or a type is required."),
    };
    let (p, extensions) = (
        &cx.settings.policies,
        cx.settings.categories.on(Category::Extensions),
    );
    if let Some(refusal) =
        (args.url.as_deref()).and_then(|u| super::policies::refused_navigation(u, p, extensions))
    {
        return fail(cx, call, refusal);
    }
    let timeout = args.shared.timeout_or(NAVIGATION_TIMEOUT);
    let mut nav = Navigation {
        kind,
        url: args.url,
        ignore_cache: args.ignore_cache,
        init_script: None,
    };
    let init_script = args.init_script;
    call::on_page(cx, call, args.shared.page(), move |cx, page| {
        if nav.kind == NavigationKind::Url && nav.url.is_none() {
            return fail(cx, call, "A URL is required for navigation of type=url.");
        }
        match init_script {
            Some(source) => add_init_script(cx, call, page, source, move |cx, id| {
                nav.init_script = id;
                navigate(cx, call, page, nav, timeout)
            }),
            None => navigate(cx, call, page, nav, timeout),
        }
    });
}

/// Installs `source` for the next document, then runs `then` with its identifier, so the
/// script can be removed once the navigation is over.
fn add_init_script(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    source: String,
    then: impl FnOnce(&mut Ctx, Option<String>) + 'static,
) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    let params = cdp_page::AddScriptToEvaluateOnNewDocumentParams {
        source,
        ..Default::default()
    };
    browser::send(cx, Some(&session), params, move |cx, r| match r {
        Err(e) => fail(cx, call, e),
        Ok(added) => then(cx, Some(added.identifier).filter(|id| !id.is_empty())),
    });
}

fn navigate(cx: &mut Ctx, call: CallId, page: PageId, nav: Navigation, timeout: Duration) {
    let Navigation {
        kind,
        url,
        ignore_cache,
        init_script,
    } = nav;
    let target = url.clone().unwrap_or_default();
    let done = Box::new(move |cx: &mut Ctx, r: crate::error::Result<()>| {
        if let (Some(identifier), Ok(session)) =
            (init_script, pages::session_of(&cx.browser.pages, page))
        {
            let remove = cdp_page::RemoveScriptToEvaluateOnNewDocumentParams { identifier };
            browser::fire(cx, Some(&session), remove);
        }
        let mut resp = pages_response(page);
        resp.line(navigated_line(cx, page, kind, url, r));
        finish(cx, call, resp);
    });
    match kind {
        NavigationKind::Url => navigation::goto(cx, page, target, timeout, done),
        NavigationKind::Back => navigation::history(cx, page, -1, timeout, done),
        NavigationKind::Forward => navigation::history(cx, page, 1, timeout, done),
        NavigationKind::Reload => navigation::reload(cx, page, ignore_cache, timeout, done),
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

#[derive(Deserialize)]
struct WaitForArgs {
    #[serde(flatten)]
    shared: Shared,
    text: Vec<String>,
}

fn wait_for(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<WaitForArgs>(cx, call, args) else {
        return;
    };
    let timeout = args.shared.timeout_or(WAIT_TIMEOUT);
    let texts = args.text;
    call::on_live_page(cx, call, args.shared.page(), move |cx, page| {
        if super::dialogs::refuse(cx, call, page) {
            return;
        }
        super::snapshot::wait_for_text(cx, call, page, texts, timeout);
    });
}
