//! `type_text`: typing text with the keyboard into the focused element, then optionally a
//! key (Enter, Tab).

use serde::Deserialize;
use serde_json::{json, Value};

use super::{act_and_reply, begin, dispatch, keys, session, watch};
use crate::tools::args::{self, max, Shared};
use crate::tools::{fail, CallId, Ctx, Tool};

pub const TOOL: Tool = Tool {
    name: "type_text",
    description: "Type text with the keyboard into the element that has focus.",
    properties: || {
        json!({
            "text": {"type": "string", "maxLength": max::TEXT, "description": "The text to type."},
            "submitKey": {"type": "string", "maxLength": max::NAME, "description": "A key to press after the text, e.g. \"Enter\" or \"Tab\"."},
        })
    },
    required: &["text"],
    read_only: false,
    page_scoped: true,
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
    let Some(a) = args::for_call::<Args>(cx, call, args) else {
        return;
    };
    let (text, submit) = (a.text, a.submit_key);
    let submit_key = match submit.as_deref().map(|k| (k, keys::find(k))) {
        None => None,
        Some((_, Some(def))) => Some(def),
        Some((k, None)) => return fail(cx, call, format!("Unknown key: \"{k}\"")),
    };
    begin(cx, call, a.shared.page(), move |cx, page| {
        let Some(session) = session(cx, call, page) else {
            return;
        };
        let mut chunks = dispatch::typing(&text);
        if let Some(def) = submit_key {
            chunks.push(dispatch::combo(def, &[]));
        }
        let action: watch::Action =
            Box::new(move |cx, done| dispatch::chunks(cx, session, chunks, done));
        let typed = match &submit {
            Some(k) => format!("Typed text \"{text} + {k}\""),
            None => format!("Typed text \"{text}\""),
        };
        let interrupted =
            "Typing the text opened a dialog; what came after that point was not typed.";
        act_and_reply(
            cx,
            call,
            page,
            action,
            (typed, interrupted.to_owned()),
            false,
        );
    });
}
