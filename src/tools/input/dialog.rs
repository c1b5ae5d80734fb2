//! `handle_dialog`: accepting or dismissing the JavaScript dialog open on the page.

use serde_json::{json, Value};

use crate::browser::{self, pages};
use crate::tools::response::{finish, Response};
use crate::tools::CallId;
use crate::tools::Ctx;
use crate::tools::{fail, page_arg};

pub(super) fn handle_dialog(cx: &mut Ctx, call: CallId, args: Value) {
    let accept = args["action"] == "accept";
    let prompt_text = args["promptText"].as_str().map(str::to_owned);
    crate::tools::call::on_page(cx, call, page_arg(&args), move |cx, page| {
        let Some(p) = cx.browser.pages.get(page) else {
            return fail(cx, call, pages::no_such_page(page));
        };
        if p.dialog.is_none() {
            return fail(cx, call, "No open dialog found");
        }
        let session = p.session.clone();
        let mut params = json!({"accept": accept});
        if let (true, Some(text)) = (accept, prompt_text) {
            params["promptText"] = json!(text);
        }
        browser::send_raw(
            cx,
            Some(&session),
            "Page.handleJavaScriptDialog",
            params,
            Box::new(move |cx, r| {
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
            }),
        );
    });
}
