//! `click_at`: a real mouse click (or double click) at a point of the viewport.

use super::action::{self, said, Aim, Arguments, Gesture, Input, Target};
use super::dispatch;
use super::watch::Outcome;
use crate::browser::PageId;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "click_at",
    description: "Click at a point of the viewport, in CSS pixels.",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run: action::run::<Args>,
};

tool_args! {
    struct Args {
        "x" x: f64 = {"type": "number", "minimum": -max::COORD, "maximum": max::COORD},
        "y" y: f64 = {"type": "number", "minimum": -max::COORD, "maximum": max::COORD},
        "dblClick" double: Option<bool> = {"type": "boolean"},
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
        Aim::Page
    }

    /// The click's events at the point, through the page's session.
    fn gesture(&mut self, target: Target) -> Gesture {
        let events = dispatch::click(self.x, self.y, self.double == Some(true));
        Box::new(move |cx, done| dispatch::sequence(cx, &target.session, events, done))
    }

    fn answer(&self, outcome: &Outcome) -> (String, bool) {
        let line = if self.double == Some(true) {
            said(
                outcome,
                "Successfully double clicked at the coordinates",
                "The coordinates were double clicked and it opened a dialog.",
            )
        } else {
            said(
                outcome,
                "Successfully clicked at the coordinates",
                "The coordinates were clicked and it opened a dialog.",
            )
        };
        (line, self.include_snapshot == Some(true))
    }
}
