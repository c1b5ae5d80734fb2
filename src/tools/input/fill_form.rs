//! `fill_form`: several form elements filled in one call, in order, each as `fill` would.

use crate::tools::args::Schema;
use std::cell::RefCell;
use std::rc::Rc;

use serde::Deserialize;
use serde_json::{json, Value};

use super::element::Element;
use super::{begin, fill, reply, watch};
use crate::browser::{pages, PageId};
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::{fail, snapshot, CallId, Ctx, Done, Tool};

pub const TOOL: Tool = Tool {
    name: "fill_form",
    description: "Fill several form elements in one call, each as fill would.",
    args: Schema {
        properties: || {
            json!({
                "elements": {
                    "type": "array",
                    "maxItems": max::ITEMS,
                    "items": {
                        "type": "object",
                        "properties": {
                            "uid": {"type": "string", "maxLength": max::UID},
                            "value": {"type": "string", "maxLength": max::TEXT},
                        },
                        "required": ["uid", "value"],
                    },
                },
                "includeSnapshot": {"type": "boolean"},
            })
        },
        required: &["elements"],
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
    elements: Vec<Item>,
    #[serde(rename = "includeSnapshot", default)]
    include_snapshot: bool,
}

#[derive(Deserialize)]
struct Item {
    uid: String,
    value: String,
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let items = a.elements;
    let include_snapshot = a.include_snapshot;
    let last_uid = items.last().map(|i| i.uid.clone());
    begin(cx, call, a.shared.page(), move |cx, page| {
        // The element being filled now, to name it when a dialog interrupts.
        let current = Rc::new(RefCell::new(String::new()));
        let now = current.clone();
        let action: watch::Action = Box::new(move |cx, done| fill_each(cx, page, items, now, done));
        watch::act(
            cx,
            page,
            true,
            action,
            Box::new(move |cx, r| match r {
                Err(e) => fail(cx, call, e),
                Ok(o) if o.dialog && !o.completed => {
                    let uid = current.borrow().clone();
                    let rest = if Some(&uid) != last_uid.as_ref() {
                        " The remaining elements were not filled out."
                    } else {
                        ""
                    };
                    let line =
                        format!("Filling out the element with uid {uid} opened a dialog.{rest}");
                    reply::reply(cx, call, page, line, o, false)
                }
                Ok(o) => {
                    let line = "Successfully filled out the form".to_owned();
                    reply::reply(cx, call, page, line, o, include_snapshot)
                }
            }),
        );
    });
}

fn fill_each(
    cx: &mut Ctx,
    page: PageId,
    mut items: Vec<Item>,
    current: Rc<RefCell<String>>,
    done: Done<()>,
) {
    if items.is_empty() {
        return done(cx, Ok(()));
    }
    let Item { uid, value } = items.remove(0);
    snapshot::resolve_elements(
        cx,
        page,
        vec![uid.clone()],
        Box::new(move |cx, r| {
            let resolved = match r.map(|mut o| o.pop()) {
                Ok(Some(o)) => o,
                Ok(None) => {
                    return done(
                        cx,
                        Err(Error::Invalid(format!(
                            "Element uid \"{uid}\" not found on page {page}."
                        ))),
                    )
                }
                Err(e) => return done(cx, Err(e)),
            };
            let session = match pages::session_of(&cx.browser.pages, page) {
                Ok(s) => s,
                Err(e) => return done(cx, Err(e)),
            };
            *current.borrow_mut() = uid.clone();
            let el = Element {
                uid,
                object_id: resolved.object_id,
                session: resolved.session,
            };
            fill::fill(
                cx,
                session,
                el,
                value,
                Box::new(move |cx, r| match r {
                    Ok(()) => fill_each(cx, page, items, current, done),
                    Err(e) => done(cx, Err(e)),
                }),
            );
        }),
    );
}
