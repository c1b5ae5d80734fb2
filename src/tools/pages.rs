//! Pages: list, open, select, close, navigate, and wait for text.

use std::time::Duration;

use serde_json::{json, Value};

use super::response::{finish, Response};
use super::{fail, page_arg, Tool};
use crate::browser::{self, navigation, pages};
use crate::cdp::generated::target;
use crate::pagetools::PageHost;
use crate::tools::CallId;
use crate::tools::Ctx;

/// How long a navigation may take unless the call says otherwise (as the reference).
pub const NAVIGATION_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `wait_for` waits unless the call says otherwise (as the reference).
pub const WAIT_TIMEOUT: Duration = Duration::from_secs(5);

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "list_pages",
        description: "List the pages (tabs) open in the browser, with their ids; the selected page is the one page tools work on by default.",
        properties: || json!({}),
        required: &[],
        read_only: true,
        page_scoped: false,
        run: list_pages,
    },
    Tool {
        name: "select_page",
        description: "Make a page the one that later tool calls work on by default.",
        properties: || {
            json!({
                "pageId": {"type": "number", "description": "The id of the page to select (see list_pages)."},
                "bringToFront": {"type": "boolean", "description": "Also focus the page and bring it to the top."},
            })
        },
        required: &["pageId"],
        read_only: true,
        page_scoped: false,
        run: select_page,
    },
    Tool {
        name: "close_page",
        description: "Close a page by its id. The last open page stays open.",
        properties: || {
            json!({"pageId": {"type": "number", "description": "The id of the page to close (see list_pages)."}})
        },
        required: &["pageId"],
        read_only: false,
        page_scoped: false,
        run: close_page,
    },
    Tool {
        name: "new_page",
        description: "Open a new tab, load a URL in it and select it.",
        properties: || {
            json!({
                "url": {"type": "string", "description": "The URL to load in the new page."},
                "background": {"type": "boolean", "description": "Open the page without bringing it to the front (default false)."},
                "timeout": timeout_schema(),
            })
        },
        required: &["url"],
        read_only: false,
        page_scoped: false,
        run: new_page,
    },
    Tool {
        name: "navigate_page",
        description: "Load a URL in the page, or go back, forward, or reload.",
        properties: || {
            json!({
                "type": {"type": "string", "enum": ["url", "back", "forward", "reload"], "description": "Load a URL (default when url is given), go back or forward in history, or reload."},
                "url": {"type": "string", "description": "The URL to load (type=url only)."},
                "ignoreCache": {"type": "boolean", "description": "Bypass the cache when reloading."},
                "handleBeforeUnload": {"type": "string", "enum": ["accept", "dismiss"], "description": "What to do with a beforeunload dialog this navigation raises (default accept)."},
                "initScript": {"type": "string", "description": "JavaScript to run in the next document before any of its own scripts."},
                "timeout": timeout_schema(),
            })
        },
        required: &[],
        read_only: false,
        page_scoped: true,
        run: navigate_page,
    },
    Tool {
        name: "wait_for",
        description: "Wait until any of the given texts appears on the page.",
        properties: || {
            json!({
                "text": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "Texts to wait for; the wait ends when any one appears."},
                "timeout": timeout_schema(),
            })
        },
        required: &["text"],
        read_only: true,
        page_scoped: true,
        run: wait_for,
    },
];

pub fn timeout_schema() -> Value {
    json!({"type": "integer", "description": "Maximum wait in milliseconds; 0 or absent means the default."})
}

/// The `timeout` argument, when positive.
pub fn timeout_arg(args: &Value, default: Duration) -> Duration {
    match args["timeout"].as_i64() {
        Some(ms) if ms > 0 => Duration::from_millis(ms as u64),
        _ => default,
    }
}

fn pages_response(page: u32) -> Response {
    Response {
        include_pages: true,
        list_tools: true,
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
    pages::with_page(
        cx,
        None,
        Box::new(move |cx, r| match r {
            Ok(_) => finish(cx, call, pages_only()),
            Err(e) => fail(cx, call, e),
        }),
    );
}

fn select_page(cx: &mut Ctx, call: CallId, args: Value) {
    let id = page_arg(&args).unwrap_or(0);
    let bring_to_front = args["bringToFront"].as_bool().unwrap_or(false);
    pages::with_page(
        cx,
        Some(id),
        Box::new(move |cx, r| match r {
            Err(e) => fail(cx, call, e),
            Ok(page) => {
                let changed = cx.browser.pages.selected != Some(page);
                cx.browser.pages.selected = Some(page);
                if changed && cx.settings.expose_page_tools {
                    cx.tools_changed();
                }
                if bring_to_front {
                    if let Ok(session) = pages::session_of(&cx.browser.pages, page) {
                        browser::fire_raw(cx, Some(&session), "Page.bringToFront", json!({}));
                    }
                }
                finish(cx, call, pages_response(page))
            }
        }),
    );
}

const LAST_PAGE: &str = "The last open page cannot be closed. It is fine to keep it open.";

fn close_page(cx: &mut Ctx, call: CallId, args: Value) {
    let id = page_arg(&args).unwrap_or(0);
    pages::with_page(
        cx,
        Some(id),
        Box::new(move |cx, r| {
            let page = match r {
                Ok(p) => p,
                Err(e) => return fail(cx, call, e),
            };
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
            browser::waiters::wait_raw(
                cx,
                "",
                "Target.detachedFromTarget",
                move |e: &Value| e["targetId"].as_str() == Some(target_id.as_str()),
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
            let tid = cx.browser.pages.get(page).map(|p| p.target_id.clone());
            browser::send(
                cx,
                None,
                target::CloseTargetParams {
                    target_id: tid.unwrap_or_default(),
                },
                move |cx, r| {
                    if let Err(e) = r {
                        fail(cx, call, e);
                    }
                },
            );
        }),
    );
}

fn new_page(cx: &mut Ctx, call: CallId, args: Value) {
    let url = args["url"].as_str().unwrap_or("").to_owned();
    let background = args["background"].as_bool().unwrap_or(false);
    let timeout = timeout_arg(&args, NAVIGATION_TIMEOUT);
    browser::ready(
        cx,
        Box::new(move |cx, r| {
            if let Err(e) = r {
                return fail(cx, call, e);
            }
            pages::open(
                cx,
                background,
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

fn navigate_page(cx: &mut Ctx, call: CallId, args: Value) {
    let url = args["url"].as_str().map(str::to_owned);
    let kind = match (args["type"].as_str(), &url) {
        (Some(t), _) => t.to_owned(),
        (None, Some(_)) => "url".to_owned(),
        (None, None) => return fail(cx, call, "Either URL or a type is required."),
    };
    let ignore_cache = args["ignoreCache"].as_bool().unwrap_or(false);
    let init_script = args["initScript"].as_str().map(str::to_owned);
    let timeout = timeout_arg(&args, NAVIGATION_TIMEOUT);
    super::call::on_page(cx, call, page_arg(&args), move |cx, page| {
        if kind == "url" && url.is_none() {
            return fail(cx, call, "A URL is required for navigation of type=url.");
        }
        match init_script {
            Some(source) => add_init_script(cx, call, page, source, move |cx, id| {
                navigate(cx, call, page, (kind, url, ignore_cache, id), timeout)
            }),
            None => navigate(cx, call, page, (kind, url, ignore_cache, None), timeout),
        }
    });
}

/// Installs `source` for the next document, then runs `then` with its identifier, so the
/// script can be removed once the navigation is over.
fn add_init_script(
    cx: &mut Ctx,
    call: CallId,
    page: u32,
    source: String,
    then: impl FnOnce(&mut Ctx, Option<String>) + 'static,
) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    browser::send_raw(
        cx,
        Some(&session),
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": source}),
        Box::new(move |cx, r| match r {
            Err(e) => fail(cx, call, e),
            Ok(v) => then(cx, v["identifier"].as_str().map(str::to_owned)),
        }),
    );
}

/// What to do: the type, the URL, ignoreCache, and the initScript to remove afterwards.
type Navigation = (String, Option<String>, bool, Option<String>);

fn navigate(cx: &mut Ctx, call: CallId, page: u32, nav: Navigation, timeout: Duration) {
    let (kind, url, ignore_cache, init_script) = nav;
    let (kind2, url2) = (kind.clone(), url.clone());
    let done = Box::new(move |cx: &mut Ctx, r: crate::error::Result<()>| {
        if let (Some(id), Ok(session)) = (init_script, pages::session_of(&cx.browser.pages, page)) {
            browser::fire_raw(
                cx,
                Some(&session),
                "Page.removeScriptToEvaluateOnNewDocument",
                json!({"identifier": id}),
            );
        }
        let current = cx
            .browser
            .pages
            .get(page)
            .map(|p| p.url.clone())
            .unwrap_or_default();
        // The error becomes part of a sentence that ends with its own period.
        let r = r.map_err(|e| e.to_string().trim_end_matches('.').to_owned());
        let line = match (kind.as_str(), r) {
            ("url", Ok(())) => format!("Successfully navigated to {}.", url.unwrap_or_default()),
            ("url", Err(e)) => format!("Unable to navigate in the selected page: {e}."),
            ("back", Ok(())) => format!("Successfully navigated back to {current}."),
            ("back", Err(e)) => format!("Unable to navigate back in the selected page: {e}."),
            ("forward", Ok(())) => format!("Successfully navigated forward to {current}."),
            ("forward", Err(e)) => {
                format!("Unable to navigate forward in the selected page: {e}.")
            }
            (_, Ok(())) => "Successfully reloaded the page.".to_owned(),
            (_, Err(e)) => format!("Unable to reload the selected page: {e}."),
        };
        let mut resp = pages_response(page);
        resp.line(line);
        finish(cx, call, resp);
    });
    match kind2.as_str() {
        "url" => navigation::goto(cx, page, url2.unwrap_or_default(), timeout, done),
        "back" => navigation::history(cx, page, -1, timeout, done),
        "forward" => navigation::history(cx, page, 1, timeout, done),
        _ => navigation::reload(cx, page, ignore_cache, timeout, done),
    }
}

fn wait_for(cx: &mut Ctx, call: CallId, args: Value) {
    let texts: Vec<String> = args["text"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let timeout = timeout_arg(&args, WAIT_TIMEOUT);
    pages::with_page(
        cx,
        page_arg(&args),
        Box::new(move |cx, r| {
            let page = match r.and_then(|p| pages::not_crashed(&cx.browser.pages, p).map(|_| p)) {
                Ok(p) => p,
                Err(e) => return fail(cx, call, e),
            };
            if super::refuse_if_dialog(cx, call, page) {
                return;
            }
            super::snapshot::wait_for_text(cx, call, page, texts, timeout);
        }),
    );
}
