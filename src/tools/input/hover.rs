//! `hover`: moving the mouse over an element.

use super::action::{self, said, Aim, Arguments, Gesture, Input, Target};
use super::dispatch;
use super::reach;
use super::watch::Outcome;
use crate::browser::PageId;
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::ctx::Done;
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "hover",
    description: "Move the mouse over an element, by uid.",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run: action::run::<Args>,
};

tool_args! {
    struct Args {
        "uid" uid: String = {"type": "string", "maxLength": max::UID},
        "includeSnapshot" include_snapshot: Option<bool> = {"type": "boolean"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

impl Arguments for Args {
    fn page(&self) -> Option<PageId> {
        self.page
    }
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
