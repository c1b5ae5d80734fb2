//! `handle_dialog`: accepting or dismissing the JavaScript dialog open on the page.

use serde_json::Value;

use crate::browser::{self, pages, Flow, PageId};
use crate::cdp::generated::page::{HandleJavaScriptDialogParams, HandleJavaScriptDialogReturns};
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::response::{self, Response};
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "handle_dialog",
    description:
        "Accept or dismiss the open JavaScript dialog (alert, confirm, prompt, beforeunload).",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run,
};

tool_args! {
    struct Args {
        "action" action: String = {"type": "string", "enum": ["accept", "dismiss"]},
        "promptText" prompt_text: Option<String> = {"type": "string", "maxLength": max::TEXT},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<Args>(cx, call, args) else {
        return;
    };
    let accept = args.action == "accept";
    let handle = HandleDialog {
        call,
        accept,
        prompt_text: args.prompt_text.filter(|_| accept),
        page: PageId::NONE,
    };
    call::page(cx, call, args.page, handle.then(Step::Page));
}

/// Answering the page's open dialog.
struct HandleDialog {
    call: CallId,
    accept: bool,
    /// A prompt's answer (only when accepting).
    prompt_text: Option<String>,
    page: PageId,
}

enum Step {
    /// The page whose dialog it is.
    Page(Result<PageId, Error>),
    /// The browser answered the dialog (an error: it was answered some other way already).
    Handled(Result<HandleJavaScriptDialogReturns, Error>),
}

impl Flow<Ctx> for HandleDialog {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Page(Ok(page)) => self.handle(cx, page),
            Step::Page(Err(e)) => call::fail(cx, self.call, e),
            Step::Handled(r) => {
                // Already answered some other way: it is gone all the same.
                if let Err(e) = r {
                    crate::log::log!("handle_dialog: {e}");
                }
                self.reply(cx)
            }
        }
    }
}

impl HandleDialog {
    fn handle(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        let Some(p) = cx.browser.pages.get(page) else {
            return call::fail(cx, self.call, pages::no_such_page(page));
        };
        if p.dialog.is_none() {
            return call::fail(cx, self.call, "No open dialog found");
        }
        let session = p.session.clone();
        let params = HandleJavaScriptDialogParams {
            accept: self.accept,
            prompt_text: self.prompt_text.take(),
        };
        browser::send(cx, Some(&session), params, self.then(Step::Handled));
    }

    /// The dialog is gone; the answer lists the pages.
    fn reply(self, cx: &mut Ctx) {
        if let Some(p) = cx.browser.pages.get_mut(self.page) {
            p.dialog = None;
        }
        let mut resp = Response::for_page(self.page);
        resp.line(if self.accept {
            "Successfully accepted the dialog"
        } else {
            "Successfully dismissed the dialog"
        });
        resp.include_pages = true;
        response::finish(cx, self.call, resp);
    }
}
