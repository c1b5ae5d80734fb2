//! `hover`: moving the mouse over an element.

use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{act_and_reply, begin, dispatch, element, elements, reach, watch};
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::{fail, CallId, Ctx, Done, Tool};

pub const TOOL: Tool = Tool {
    name: "hover",
    description: "Move the mouse over an element, by uid.",
    args: Schema {
        properties: || {
            json!({
                "uid": {"type": "string", "maxLength": max::UID},
                "includeSnapshot": {"type": "boolean"},
            })
        },
        required: &["uid"],
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
    uid: String,
    #[serde(rename = "includeSnapshot", default)]
    include_snapshot: bool,
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let uid = a.uid;
    begin(cx, call, a.shared.page(), move |cx, page| {
        elements(cx, call, page, vec![uid], move |cx, session, els| {
            let Some(el) = els.into_iter().next() else {
                return fail(cx, call, "No element to hover.");
            };
            let action: watch::Action = Box::new(move |cx, done| {
                let s = session.clone();
                let target = el.clone();
                element::aim(
                    cx,
                    &el,
                    true,
                    Box::new(move |cx, r| match r {
                        Ok((x, y)) => {
                            let page = s.clone();
                            let then_move: Done<()> = Box::new(move |cx, r| match r {
                                Ok(()) => dispatch::sequence(
                                    cx,
                                    &page,
                                    vec![dispatch::move_to(x, y)],
                                    done,
                                ),
                                Err(e) => done(cx, Err(e)),
                            });
                            reach::reach(cx, s, target, (x, y), then_move)
                        }
                        Err(e) => done(cx, Err(e)),
                    }),
                );
            });
            let texts = (
                "Successfully hovered over the element".to_owned(),
                "The element was hovered and it opened a dialog.".to_owned(),
            );
            act_and_reply(cx, call, page, action, texts, a.include_snapshot);
        });
    });
}
