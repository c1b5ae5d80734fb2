//! `handle_dialog`: accepting or dismissing the JavaScript dialog open on the page.

use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::browser::{self, pages};
use crate::cdp::generated::page::HandleJavaScriptDialogParams;
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::response::{finish, Response};
use crate::tools::{call, fail, CallId, Ctx, Tool};

pub const TOOL: Tool = Tool {
    name: "handle_dialog",
    description:
        "Accept or dismiss the open JavaScript dialog (alert, confirm, prompt, beforeunload).",
    args: Schema {
        properties: || {
            json!({
                "action": {"type": "string", "enum": ["accept", "dismiss"]},
                "promptText": {"type": "string", "maxLength": max::TEXT},
            })
        },
        required: &["action"],
    },
    read_only: false,
    page_scoped: true,
    category: Category::Input,
    run,
};

#[derive(Deserialize)]
struct Args {
    #[serde(flatten)]
    shared: Shared,
    action: String,
    #[serde(rename = "promptText")]
    prompt_text: Option<String>,
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let accept = a.action == "accept";
    let prompt_text = a.prompt_text.filter(|_| accept);
    call::on_page(cx, call, a.shared.page(), move |cx, page| {
        let Some(p) = cx.browser.pages.get(page) else {
            return fail(cx, call, pages::no_such_page(page));
        };
        if p.dialog.is_none() {
            return fail(cx, call, "No open dialog found");
        }
        let session = p.session.clone();
        let params = HandleJavaScriptDialogParams {
            accept,
            prompt_text,
        };
        browser::send(cx, Some(&session), params, move |cx, r| {
            // Already answered some other way: it is gone all the same.
            if let Err(e) = r {
                crate::log::log!("handle_dialog: {e}");
            }
            if let Some(p) = cx.browser.pages.get_mut(page) {
                p.dialog = None;
            }
            let mut resp = Response::for_page(page);
            resp.line(if accept {
                "Successfully accepted the dialog"
            } else {
                "Successfully dismissed the dialog"
            });
            resp.include_pages = true;
            finish(cx, call, resp);
        });
    });
}
