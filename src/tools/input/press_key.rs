//! `press_key`: a key or a key combination (`Control+Shift+R`) on the focused element.

use serde_json::Value;

use super::action::{said, Aim, Gesture, Input, InputCall, Target};
use super::dispatch;
use super::keys::{self, KeyDef};
use super::watch::Outcome;
use crate::browser::PageId;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "press_key",
    description:
        "Press a key or combination on the focused element, e.g. \"Enter\", \"Control+A\".",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run,
};

tool_args! {
    struct Args {
        "key" key: String = {"type": "string", "maxLength": max::NAME},
        "includeSnapshot" include_snapshot: Option<bool> = {"type": "boolean"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

/// A key combination, read before anything is sent.
struct PressKey {
    combo: String,
    key: &'static KeyDef,
    modifiers: Vec<&'static KeyDef>,
    include_snapshot: bool,
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<Args>(cx, call, args) else {
        return;
    };
    let (key, modifiers) = match keys::parse_combo(&args.key) {
        Ok(k) => k,
        Err(e) => return call::fail(cx, call, e),
    };
    let press = PressKey {
        combo: args.key,
        key,
        modifiers,
        include_snapshot: args.include_snapshot == Some(true),
    };
    InputCall::new(call, press).start(cx, args.page);
}

impl Input for PressKey {
    fn aim(&self) -> Aim {
        Aim::Focus
    }

    fn gesture(&mut self, target: Target) -> Gesture {
        let events = dispatch::combo(self.key, &self.modifiers);
        Box::new(move |cx, done| dispatch::sequence(cx, &target.session, events, done))
    }

    fn answer(&self, outcome: &Outcome) -> (String, bool) {
        let combo = &self.combo;
        let line = said(
            outcome,
            &format!("Successfully pressed key: {combo}"),
            &format!("The key {combo} was pressed and it opened a dialog."),
        );
        (line, self.include_snapshot)
    }
}
