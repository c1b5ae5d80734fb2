//! The WebMCP category's tools (behind --categoryExperimentalWebmcp): `list_webmcp_tools` and
//! `execute_webmcp_tool` for the page's plain WebMCP tools. The debugging ones run as page
//! tools (`execute_3p_developer_tool`); both kinds run as an [`Invocation`].

use serde_json::Value;

use super::invocation::{Answer, Invocation};
use super::run;
use crate::browser::{pages, PageId};
use crate::error::Error;
use crate::pagetools::webmcp;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::dialogs;
use crate::tools::response::{self, Response};
use crate::tools::tool::Tool;

pub(crate) const TOOLS: &[Tool] = &[
    Tool {
        name: "list_webmcp_tools",
        description: "List the page's WebMCP tools (debugging ones are in list_3p_developer_tools): names, descriptions, input schemas, annotations.",
        args: args::schema::<args::PageOnly>(),
        category: Category::Webmcp,
        read_only: true,
        run: list_tools,
    },
    Tool {
        name: "execute_webmcp_tool",
        description: "Run one of the page's WebMCP tools (see list_webmcp_tools). Returns its status, output and error as JSON.",
        args: args::schema::<ExecuteArgs>(),
        category: Category::Webmcp,
        read_only: false,
        run: execute_tool,
    },
];

fn list_tools(cx: &mut Ctx, call: CallId, args: Value) {
    response::answer_page(cx, call, args, |page| Response {
        list_webmcp: true,
        ..Response::for_page(page)
    })
}

tool_args! {
    struct ExecuteArgs {
        "toolName" tool_name: String = {"type": "string", "maxLength": max::NAME, "description": "The name of the WebMCP tool to run."},
        /// The tool's input as JSON text.
        "input" input: Option<String> = {"type": "string", "maxLength": max::PARAMS, "description": "The tool's input as a JSON object, stringified."},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn execute_tool(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<ExecuteArgs>(cx, call, args) else {
        return;
    };
    let input = match args::json_object(args.input.as_deref(), "input") {
        Ok(m) => Value::Object(m),
        Err(e) => return call::fail(cx, call, e),
    };
    let tool = args.tool_name;
    run::time_limit(cx, call, &tool, cx.settings.tool_timeout);
    call::on_live_page(cx, call, args.page, move |cx, page| {
        // As for page tools: the browser would hold the invocation until the dialog closes.
        if dialogs::refuse(cx, call, page) {
            return;
        }
        let table = cx.tables.get(page);
        if table.is_some_and(|t| t.webmcp.available == Some(false)) {
            return call::fail(cx, call, webmcp::unavailable());
        }
        if table.and_then(|t| t.webmcp.plain_tool(&tool)).is_none() {
            return call::fail(cx, call, Error::Invalid(format!("Tool {tool} not found")));
        }
        let Some(session) = cx.browser.pages.get(page).map(|p| p.session.clone()) else {
            return call::fail(cx, call, pages::no_such_page(page));
        };
        let answer = Answer::Report;
        Invocation {
            call,
            page,
            session,
            tool,
            answer,
        }
        .start(cx, input);
    });
}
