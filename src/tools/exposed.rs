//! `--exposePageTools`: the selected page's third-party tools listed and called as MCP
//! tools of their own (names and schemas: `pagetools::exposed`). Clients hear
//! `notifications/tools/list_changed` whenever the set changes.

use serde_json::Value;

use super::thirdparty::run_tool;
use super::{call as calls, webmcp, CallId, Ctx};
use crate::browser::Host;
use crate::pagetools::{exposed, Table};
use crate::settings::Category;

/// A name one of the server's own tools takes.
fn reserved(name: &str) -> bool {
    super::find(name).is_some()
}

/// The selected page's table, when its tools are exposed.
fn table(cx: &Ctx) -> Option<&Table> {
    // Page tools are third-party tools: their category hides them too, as does --slim.
    let s = &cx.settings;
    if !s.expose_page_tools || s.slim || !s.categories.on(Category::ThirdParty) {
        return None;
    }
    cx.browser.pages.selected.and_then(|id| cx.tables.get(id))
}

pub fn list(cx: &Ctx) -> Vec<Value> {
    table(cx).map_or_else(Vec::new, |t| exposed::list(t, &reserved))
}

/// Starts a call of an exposed page tool. `None` when `name` is not one.
pub fn call(cx: &mut Ctx, name: &str, args: Value) -> Option<CallId> {
    // The MCP name gives the tool's name; the run looks the tool up by it once the page is
    // at hand (the table may change while the call waits for the browser).
    let (tool, is_webmcp) = exposed::tool_named(table(cx)?, &reserved, name)?;
    let page = cx.browser.pages.selected?;
    let id = calls::start(cx, "page tool");
    let timeout = cx.settings.tool_timeout;
    cx.run_as(Some(id), |cx| {
        let message = format!(
            "Tool {tool} timed out after {} ms without settling.",
            timeout.as_millis()
        );
        calls::limit(cx, id, timeout, message);
        calls::on_page(cx, id, Some(page), move |cx, page| {
            if is_webmcp {
                webmcp::run_page_tool(cx, id, page, tool, args, None, webmcp::As::Exposed)
            } else {
                run_tool(cx, id, page, tool, args, None)
            }
        });
    });
    Some(id)
}
