//! `type_text`: typing text with the keyboard into the focused element, then optionally a
//! key (Enter, Tab).

use serde_json::Value;

use super::action::{said, Aim, Gesture, Input, InputCall, Target};
use super::dispatch::{self, Typing};
use super::keys::{self, KeyDef};
use super::watch::{Outcome, Progress};
use crate::browser::PageId;
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "type_text",
    description: "Type text into the focused element.",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run,
};

tool_args! {
    struct Args {
        "text" text: String = {"type": "string", "maxLength": max::TEXT},
        "submitKey" submit_key: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Key to press after, e.g. Enter"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

/// A text to type, and the key to press after it.
struct TypeText {
    /// Taken by the gesture.
    text: String,
    submit_key: Option<&'static KeyDef>,
    /// The answer's line when the text went through.
    typed: String,
    /// The characters of the text, and how many the page has taken in.
    total: usize,
    progress: Progress,
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<Args>(cx, call, args) else {
        return;
    };
    let submit_key = match args.submit_key.as_deref().map(|k| (k, keys::find(k))) {
        None => None,
        Some((_, Some(def))) => Some(def),
        Some((k, None)) => return call::fail(cx, call, format!("Unknown key: \"{k}\"")),
    };
    let text = args.text;
    let typed = match &args.submit_key {
        Some(k) => format!("Typed text \"{text} + {k}\""),
        None => format!("Typed text \"{text}\""),
    };
    let typing = TypeText {
        total: text.chars().count(),
        text,
        submit_key,
        typed,
        progress: Progress::default(),
    };
    InputCall::new(call, typing).start(cx, args.page);
}

impl Input for TypeText {
    fn aim(&self) -> Aim {
        Aim::Focus
    }

    /// The text, batch after batch (see `Typing`), then the submit key.
    fn gesture(&mut self, target: Target) -> Gesture {
        let typing = Typing::new(std::mem::take(&mut self.text), self.progress.clone());
        let submit_key = self.submit_key;
        Box::new(move |cx, done| {
            let session = target.session.clone();
            let then_submit = Box::new(move |cx: &mut Ctx, r: Result<(), Error>| match r {
                Ok(()) => match submit_key {
                    Some(def) => {
                        let events = dispatch::combo(def, &[]);
                        dispatch::sequence(cx, &target.session, events, done)
                    }
                    None => done(cx, Ok(())),
                },
                Err(e) => done(cx, Err(e)),
            });
            dispatch::typing(cx, session, typing, then_submit)
        })
    }

    fn answer(&self, outcome: &Outcome) -> (String, bool) {
        let interrupted =
            "Typing the text opened a dialog; what came after that point was not typed.";
        (said(outcome, &self.typed, interrupted), false)
    }

    /// Says how much of the text the page took in when it stopped part way.
    fn error(&self, e: Error) -> Error {
        let (typed, total) = (self.progress.get(), self.total);
        match e {
            Error::Timeout(m) if typed > 0 && typed < total as u64 => Error::Timeout(format!(
                "Only {typed} of the {total} characters were typed. {m}"
            )),
            e => e,
        }
    }

    fn progress(&self) -> Progress {
        self.progress.clone()
    }
}
