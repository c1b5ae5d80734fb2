//! `click`: a real mouse click (or double click) at an element's centre. An `<option>` of a
//! native select is chosen instead, as a user would end up with it chosen.

use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::element::{self, Element};
use super::{act_and_reply, begin, dispatch, elements, reach, watch};
use crate::browser::{self, PageId};
use crate::cdp::generated::runtime;
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::{fail, CallId, Ctx, Done, Tool};

pub const TOOL: Tool = Tool {
    name: "click",
    description: "Click an element by uid (from take_snapshot).",
    args: Schema {
        properties: || {
            json!({
                "uid": {"type": "string", "maxLength": max::UID},
                "dblClick": {"type": "boolean"},
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
    #[serde(rename = "dblClick", default)]
    double: bool,
    #[serde(rename = "includeSnapshot", default)]
    include_snapshot: bool,
}

/// Chooses a `<select>`'s option the way a user would end up with it chosen (a native
/// option list cannot be clicked by events). Answers false for anything else.
const CHOOSE_OPTION: &str = r#"function() {
  if (!(this instanceof HTMLOptionElement)) return false;
  const select = this.closest('select');
  if (!select || select.multiple || select.disabled || this.disabled) return false;
  if (this.parentElement instanceof HTMLOptGroupElement && this.parentElement.disabled) return false;
  select.value = this.value;
  select.dispatchEvent(new Event('input', {bubbles: true}));
  select.dispatchEvent(new Event('change', {bubbles: true}));
  return true;
}"#;

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let (uid, double) = (a.uid, a.double);
    let texts = if double {
        (
            "Successfully double clicked on the element",
            "The element was double clicked and it opened a dialog.",
        )
    } else {
        (
            "Successfully clicked on the element",
            "The element was clicked and it opened a dialog.",
        )
    };
    begin(cx, call, a.shared.page(), move |cx, page| {
        let option = !double && role_of(cx, page, &uid) == "option";
        elements(cx, call, page, vec![uid], move |cx, session, els| {
            let Some(el) = els.into_iter().next() else {
                return fail(cx, call, "No element to click.");
            };
            let action: watch::Action = Box::new(move |cx, done| {
                if option {
                    choose_option_or_click(cx, session, el, done)
                } else {
                    click_element(cx, session, el, double, done)
                }
            });
            let texts = (texts.0.to_owned(), texts.1.to_owned());
            act_and_reply(cx, call, page, action, texts, a.include_snapshot);
        });
    });
}

/// The accessibility role the latest snapshot gives a uid.
fn role_of(cx: &Ctx, page: PageId, uid: &str) -> String {
    cx.snapshots
        .latest(page)
        .and_then(|s| s.resolve(uid).ok())
        .map(|e| e.role.to_owned())
        .unwrap_or_default()
}

/// A real click (or double click) at the element's centre.
pub(super) fn click_element(
    cx: &mut Ctx,
    session: String,
    el: Element,
    double: bool,
    done: Done<()>,
) {
    let s = session.clone();
    // Key events that follow go where this click puts the focus.
    browser::frames::focused(cx, &el.session, &el.object_id);
    let target = el.clone();
    element::aim(
        cx,
        &el,
        true,
        Box::new(move |cx, r| match r {
            Ok((x, y)) => {
                let page = s.clone();
                let then_click: Done<()> = Box::new(move |cx, r| match r {
                    Ok(()) => dispatch::sequence(cx, &page, dispatch::click(x, y, double), done),
                    Err(e) => done(cx, Err(e)),
                });
                reach::reach(cx, s, target, (x, y), then_click)
            }
            Err(e) => done(cx, Err(e)),
        }),
    );
}

fn choose_option_or_click(cx: &mut Ctx, session: String, el: Element, done: Done<()>) {
    let s = session.clone();
    let params = runtime::CallFunctionOnParams {
        function_declaration: CHOOSE_OPTION.to_owned(),
        object_id: Some(el.object_id.clone()),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(
        cx,
        Some(&el.session.clone()),
        params,
        move |cx, r| match r {
            Ok(r) if r.result.value == Some(Value::Bool(true)) => done(cx, Ok(())),
            _ => click_element(cx, s, el, false, done),
        },
    );
}
