//! `click_at`: a real mouse click (or double click) at a point of the viewport.

use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{act_and_reply, begin, dispatch, session, watch};
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::{CallId, Ctx, Tool};

pub const TOOL: Tool = Tool {
    name: "click_at",
    description: "Click at a point of the viewport, in CSS pixels.",
    args: Schema {
        properties: || {
            json!({
                "x": {"type": "number", "minimum": -max::COORD, "maximum": max::COORD},
                "y": {"type": "number", "minimum": -max::COORD, "maximum": max::COORD},
                "dblClick": {"type": "boolean"},
                "includeSnapshot": {"type": "boolean"},
            })
        },
        required: &["x", "y"],
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
    x: f64,
    y: f64,
    #[serde(rename = "dblClick", default)]
    double: bool,
    #[serde(rename = "includeSnapshot", default)]
    include_snapshot: bool,
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let (x, y, double) = (a.x, a.y, a.double);
    let texts = if double {
        (
            "Successfully double clicked at the coordinates",
            "The coordinates were double clicked and it opened a dialog.",
        )
    } else {
        (
            "Successfully clicked at the coordinates",
            "The coordinates were clicked and it opened a dialog.",
        )
    };
    begin(cx, call, a.shared.page(), move |cx, page| {
        let Some(session) = session(cx, call, page) else {
            return;
        };
        let action: watch::Action = Box::new(move |cx, done| {
            dispatch::sequence(cx, &session, dispatch::click(x, y, double), done)
        });
        let texts = (texts.0.to_owned(), texts.1.to_owned());
        act_and_reply(cx, call, page, action, texts, a.include_snapshot);
    });
}
