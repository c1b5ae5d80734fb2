//! The answer to an input action: its own line, then what it caused (a navigation, opened
//! pages), then a fresh snapshot when asked for.

use serde_json::{json, Value};

use super::watch::Outcome;
use crate::browser::{pages, PageId};
use crate::tools::ctx::Ctx;
use crate::tools::response::Response;

/// The answer to an action: its own line, then what it caused (a navigation, opened pages).
pub(super) fn response(cx: &Ctx, page: PageId, line: String, outcome: Outcome) -> Response {
    let mut resp = Response::for_page(page);
    resp.line(line);
    if let Some(url) = outcome.navigated_to {
        resp.line(format!("Page navigated to {url}."));
        resp.structured.insert("navigatedToUrl".into(), json!(url));
    }
    opened_pages(cx, &mut resp, &outcome.opened);
    resp
}

/// Whether the page cannot give a snapshot for the answer: it is gone, or a dialog blocks
/// it.
pub(super) fn blocked(cx: &Ctx, page: PageId) -> bool {
    cx.browser
        .pages
        .get(page)
        .is_none_or(|p| p.dialog.is_some())
}

/// The section listing the pages (tabs, popups) the action opened, if any.
fn opened_pages(cx: &Ctx, resp: &mut Response, targets: &[String]) {
    let opened: Vec<&pages::Page> = targets
        .iter()
        .filter_map(|t| cx.browser.pages.by_target(t))
        .collect();
    if opened.is_empty() {
        return;
    }
    resp.line("## Opened pages");
    let mut list = Vec::new();
    for p in opened {
        let title = page_title(&p.title, &p.url);
        let label = if title.is_empty() {
            p.url.clone()
        } else {
            format!("{title} ({})", p.url)
        };
        resp.line(format!("{}: {label}", p.id));
        let selected = cx.browser.pages.selected(p.agent) == Some(p.id);
        list.push(json!({"id": p.id, "url": p.url, "title": title, "selected": selected}));
    }
    resp.structured
        .insert("openedPages".into(), Value::Array(list));
}

/// A page's title as the pages list shows it: none when it only repeats the URL, cut at 50
/// UTF-16 units.
fn page_title(title: &str, url: &str) -> String {
    let bare = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url);
    if title == url || title == bare || Some(title) == bare.strip_suffix('/') {
        return String::new();
    }
    let units: Vec<u16> = title.encode_utf16().collect();
    if units.len() <= 50 {
        title.to_owned()
    } else {
        format!("{}...", String::from_utf16_lossy(&units[..47]))
    }
}
