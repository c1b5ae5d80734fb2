//! `hover`: moving the mouse over an element.

use serde_json::Value;

use super::action::{said, Aim, Gesture, Input, InputCall, Target};
use super::dispatch;
use super::reach;
use super::watch::Outcome;
use crate::browser::PageId;
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "hover",
    description: "Move the mouse over an element, by uid.",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run,
};

tool_args! {
    struct Args {
        "uid" uid: String = {"type": "string", "maxLength": max::UID},
        "includeSnapshot" include_snapshot: Option<bool> = {"type": "boolean"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<Args>(cx, call, args) else {
        return;
    };
    let page = args.page;
    InputCall::new(call, args).start(cx, page);
}

impl Input for Args {
    fn aim(&self) -> Aim {
        Aim::Elements(vec![self.uid.clone()])
    }

    /// The mouse reaches the element's centre (see `reach`) and moves there once more: for
    /// an element of the page itself, that move is the hover.
    fn gesture(&mut self, target: Target) -> Gesture {
        Box::new(move |cx, done| {
            let Some(el) = target.elements.into_iter().next() else {
                return done(cx, Err(Error::Invalid("No element to hover.".into())));
            };
            let session = target.session.clone();
            let reached: Done<(f64, f64)> = Box::new(move |cx, r| match r {
                Ok((x, y)) => {
                    let moved = vec![dispatch::move_to(x, y)];
                    dispatch::sequence(cx, &target.session, moved, done)
                }
                Err(e) => done(cx, Err(e)),
            });
            reach::reach(cx, session, el, reached);
        })
    }

    fn answer(&self, outcome: &Outcome) -> (String, bool) {
        let line = said(
            outcome,
            "Successfully hovered over the element",
            "The element was hovered and it opened a dialog.",
        );
        (line, self.include_snapshot == Some(true))
    }
}
