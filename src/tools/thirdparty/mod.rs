//! The tools a page exposes about itself: `list_3p_developer_tools` and
//! `execute_3p_developer_tool` (here), the exposed page tools of `--exposePageTools`
//! ([`exposed`]), and the WebMCP category's tools ([`webmcp`]). Running one is a
//! [`run::PageToolRun`]; a WebMCP tool's run is an [`invocation::Invocation`].

pub(crate) mod exposed;
mod invocation;
mod run;
pub(crate) mod webmcp;

use serde_json::Value;

use super::args::{self, max, tool_args};
use super::call::{self, CallId};
use super::ctx::Ctx;
use super::response::{self, Response};
use super::tool::Tool;
use crate::browser::PageId;
use crate::settings::Category;
use run::{How, PageToolRun};

pub(crate) const TOOLS: &[Tool] = &[
    Tool {
        name: "list_3p_developer_tools",
        description: "List the tools the page itself exposes (devtoolstooldiscovery) with their schemas; run one with execute_3p_developer_tool.",
        args: args::schema::<args::PageOnly>(),
        read_only: true,
        category: Category::ThirdParty,
        run: list_tools,
    },
    Tool {
        name: "execute_3p_developer_tool",
        description: "Run one of the page's own tools (see list_3p_developer_tools); returns its result.",
        args: args::schema::<ExecuteArgs>(),
        read_only: false,
        category: Category::ThirdParty,
        run: execute_tool,
    },
];

fn list_tools(cx: &mut Ctx, call: CallId, args: Value) {
    response::answer_page(cx, call, args, |page| Response {
        list_tools: true,
        say_no_tools: true,
        ..Response::for_page(page)
    })
}

tool_args! {
    struct ExecuteArgs {
        "toolName" tool_name: String = {"type": "string", "maxLength": max::NAME},
        /// The tool's parameters as JSON text.
        "params" params: Option<String> = {"type": "string", "maxLength": max::PARAMS, "description": "JSON object text; elements as {\"uid\": …}"},
        "filePath" file_path: Option<String> = {"type": "string", "maxLength": max::PATH, "description": "Save the whole result here"},
        "timeout" timeout: Option<f64> = {"type": "integer", "minimum": 0, "maximum": max::TIMEOUT_MS, "description": "ms (default: --toolTimeout)"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn execute_tool(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<ExecuteArgs>(cx, call, args) else {
        return;
    };
    let params = match args::json_object(args.params.as_deref(), "params") {
        Ok(p) => Value::Object(p),
        Err(e) => return call::fail(cx, call, e),
    };
    let timeout = args::timeout_or(args.timeout, cx.settings.tool_timeout);
    run::time_limit(cx, call, &args.tool_name, timeout);
    PageToolRun::new(call, How::Execute, args.tool_name, params)
        .saving_to(args.file_path)
        .start(cx, args.page);
}
