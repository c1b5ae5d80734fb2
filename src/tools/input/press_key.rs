//! `press_key`: a key or a key combination (`Control+Shift+R`) on the focused element.

use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{act_and_reply, begin, dispatch, keyboard_session, keys, watch};
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::{fail, CallId, Ctx, Tool};

pub const TOOL: Tool = Tool {
    name: "press_key",
    description:
        "Press a key or combination on the focused element, e.g. \"Enter\", \"Control+A\".",
    args: Schema {
        properties: || {
            json!({
                "key": {"type": "string", "maxLength": max::NAME},
                "includeSnapshot": {"type": "boolean"},
            })
        },
        required: &["key"],
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
    key: String,
    #[serde(rename = "includeSnapshot", default)]
    include_snapshot: bool,
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let combo = a.key;
    let (key, modifiers) = match keys::parse_combo(&combo) {
        Ok(k) => k,
        Err(e) => return fail(cx, call, e),
    };
    begin(cx, call, a.shared.page(), move |cx, page| {
        keyboard_session(cx, call, page, move |cx, session| {
            let action: watch::Action = Box::new(move |cx, done| {
                dispatch::sequence(cx, &session, dispatch::combo(key, &modifiers), done)
            });
            let texts = (
                format!("Successfully pressed key: {combo}"),
                format!("The key {combo} was pressed and it opened a dialog."),
            );
            act_and_reply(cx, call, page, action, texts, a.include_snapshot);
        });
    });
}
