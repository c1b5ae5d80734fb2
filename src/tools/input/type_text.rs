//! `type_text`: typing text with the keyboard into the focused element, then optionally a
//! key (Enter, Tab).

use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{begin, dispatch, keyboard_session, keys, reply, said, watch};
use crate::browser::PageId;
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::{fail, CallId, Ctx, Tool};

pub const TOOL: Tool = Tool {
    name: "type_text",
    description: "Type text into the focused element.",
    args: Schema {
        properties: || {
            json!({
                "text": {"type": "string", "maxLength": max::TEXT},
                "submitKey": {"type": "string", "maxLength": max::NAME, "description": "Key to press after, e.g. Enter"},
            })
        },
        required: &["text"],
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
    text: String,
    #[serde(rename = "submitKey")]
    submit_key: Option<String>,
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let (text, submit) = (a.text, a.submit_key);
    let submit_key = match submit.as_deref().map(|k| (k, keys::find(k))) {
        None => None,
        Some((_, Some(def))) => Some(def),
        Some((k, None)) => return fail(cx, call, format!("Unknown key: \"{k}\"")),
    };
    begin(cx, call, a.shared.page(), move |cx, page| {
        keyboard_session(cx, call, page, move |cx, session| {
            let typed = match &submit {
                Some(k) => format!("Typed text \"{text} + {k}\""),
                None => format!("Typed text \"{text}\""),
            };
            let total = text.chars().count();
            let progress = watch::Progress::default();
            let typing = dispatch::Typing::new(text, progress.clone());
            let action: watch::Action = Box::new(move |cx, done| {
                let s = session.clone();
                let then_submit = Box::new(move |cx: &mut Ctx, r: Result<(), Error>| match r {
                    Ok(()) => match submit_key {
                        Some(def) => dispatch::sequence(cx, &s, dispatch::combo(def, &[]), done),
                        None => done(cx, Ok(())),
                    },
                    Err(e) => done(cx, Err(e)),
                });
                dispatch::typing(cx, session, typing, then_submit)
            });
            act(cx, call, page, action, (progress, total), typed);
        });
    });
}

/// Types, waits for what the typing started, and answers; an error says how much of the
/// text the page took in before it stopped.
fn act(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    action: watch::Action,
    (progress, total): (watch::Progress, usize),
    typed: String,
) {
    let interrupted = "Typing the text opened a dialog; what came after that point was not typed.";
    let count = progress.clone();
    watch::act_with_progress(
        cx,
        page,
        true,
        action,
        progress,
        Box::new(move |cx, r| match r {
            Err(e) => fail(cx, call, partly(e, count.get(), total)),
            Ok(o) => {
                let line = said(&o, typed, interrupted.to_owned());
                reply::reply(cx, call, page, line, o, false)
            }
        }),
    );
}

/// `e`, saying how much was typed when the page stopped taking in the text part way.
fn partly(e: Error, typed: u64, total: usize) -> Error {
    match e {
        Error::Timeout(m) if typed > 0 && typed < total as u64 => Error::Timeout(format!(
            "Only {typed} of the {total} characters were typed. {m}"
        )),
        e => e,
    }
}
