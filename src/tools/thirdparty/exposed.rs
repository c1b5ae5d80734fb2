//! `--exposePageTools`: the selected page's third-party tools listed and called as MCP
//! tools of their own (names and schemas: `pagetools::exposed`). Clients hear
//! `notifications/tools/list_changed` whenever the set changes.

use serde_json::Value;

use super::run::{self, How, PageToolRun};
use crate::browser::{AgentId, Host};
use crate::pagetools::{exposed, Table};
use crate::settings::Category;
use crate::tools::call::{self as calls, CallId};
use crate::tools::ctx::Ctx;

/// The agent's selected page's table, when its tools are exposed.
fn table(cx: &Ctx, agent: AgentId) -> Option<&Table> {
    // Page tools are third-party tools: their category hides them too, as does --slim.
    let s = &cx.settings;
    if !s.expose_page_tools || s.slim || !s.categories.on(Category::ThirdParty) {
        return None;
    }
    cx.browser
        .pages
        .selected(agent)
        .and_then(|id| cx.tables.get(id))
}

/// The exposed tools as `tools/list` shows them; `reserved` tells the names the server's own
/// tools take.
pub(crate) fn list(cx: &Ctx, agent: AgentId, reserved: &dyn Fn(&str) -> bool) -> Vec<Value> {
    table(cx, agent).map_or_else(Vec::new, |t| exposed::list(t, reserved))
}

/// Starts a call of an exposed page tool. `None` when `name` is not one.
pub(crate) fn call(
    cx: &mut Ctx,
    agent: AgentId,
    name: &str,
    args: Value,
    reserved: &dyn Fn(&str) -> bool,
) -> Option<CallId> {
    // The MCP name gives the tool's name; the run looks the tool up by it once the page is
    // at hand (the table may change while the call waits for the browser).
    let (tool, webmcp) = exposed::tool_named(table(cx, agent)?, reserved, name)?;
    let page = cx.browser.pages.selected(agent)?;
    let id = calls::start(cx, agent, "page tool");
    let timeout = cx.settings.tool_timeout;
    cx.run_as(Some(id), |cx| {
        run::time_limit(cx, id, &tool, timeout);
        PageToolRun::new(id, How::Exposed { webmcp }, tool, args).start(cx, Some(page));
    });
    Some(id)
}
