//! `fill`: filling one form element with a value, the way each kind of element takes one: text is
//! typed with key events (after clearing what no longer fits), a `<select>` gets the option
//! whose text (or value) matches, a checkbox, radio or switch is clicked when its state must
//! change ("true"/"false"), and other inputs (date, colour, range) are set directly with the
//! `input` and `change` events a user's edit would fire.

use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::element::{self, argument, failed, Element};
use super::{act_and_reply, begin, click, dispatch, elements, watch};
use crate::browser;
use crate::cdp::generated::runtime;
use crate::pagetools::page_code;
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::{fail, CallId, Ctx, Done, Tool};

pub const TOOL: Tool = Tool {
    name: "fill",
    description: "Set a form element's value: types text, picks a <select> option, or sets a checkbox (\"true\"/\"false\").",
    args: Schema {
        properties: || {
        json!({
            "uid": {"type": "string", "maxLength": max::UID},
            "value": {"type": "string", "maxLength": max::TEXT},
            "includeSnapshot": {"type": "boolean"},
        })
    },
        required: &["uid", "value"],
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
    value: String,
    #[serde(rename = "includeSnapshot", default)]
    include_snapshot: bool,
}

/// Values this long are inserted at once rather than typed key by key.
const TYPING_LIMIT: usize = 100;

/// Runs in the page on the element (`this`) and does what needs no real input; answers
/// what is left to do: `{kind: 'done' | 'type' | 'click' | 'error', text?, message?}`.
const PREPARE: &str = r#"function(value, typingLimit) {
  const el = this;
  if (!(el instanceof Element)) return {kind: 'error', message: 'Element cannot be filled out.'};
  const fire = () => {
    el.dispatchEvent(new Event('input', {bubbles: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
  };
  if (el instanceof HTMLSelectElement) {
    if (el.disabled) return {kind: 'error', message: 'The element is disabled.'};
    const options = Array.from(el.options);
    const option = options.find(o => o.label === value || o.text.trim() === value.trim())
      || options.find(o => o.value === value);
    if (!option) return {kind: 'error', message: `Could not find option with text "${value}"`};
    if (option.disabled) return {kind: 'error', message: `The option "${value}" is disabled.`};
    el.focus();
    if (el.multiple || !option.selected) {
      if (!el.multiple) for (const o of options) o.selected = false;
      option.selected = true;
      fire();
    }
    return {kind: 'done'};
  }
  const role = el.getAttribute('role');
  const checkable = (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio'))
    || role === 'checkbox' || role === 'radio' || role === 'switch';
  if (checkable) {
    if (value !== 'true' && value !== 'false') {
      return {kind: 'error', message: `Checkboxes, radio boxes and toggles require "true" or "false" value, but ${value} was used`};
    }
    const mixed = el.indeterminate || el.getAttribute('aria-checked') === 'mixed';
    const checked = el.checked === true || el.getAttribute('aria-checked') === 'true';
    return {kind: (mixed || checked !== (value === 'true')) ? 'click' : 'done'};
  }
  const typeable = el instanceof HTMLTextAreaElement
    || (el instanceof HTMLInputElement && ['text', 'url', 'tel', 'search', 'password', 'number', 'email'].includes(el.type));
  const editable = !typeable && el.isContentEditable;
  if (!typeable && !editable && !(el instanceof HTMLInputElement)) {
    return {kind: 'error', message: 'Element cannot be filled out.'};
  }
  if (el.matches(':disabled')) return {kind: 'error', message: 'The element is disabled.'};
  if (el.readOnly) return {kind: 'error', message: 'The element is read-only.'};
  el.focus();
  const current = editable ? el.innerText : el.value;
  if (current === value) return {kind: 'done'};
  if (!typeable && !editable || value.length >= typingLimit) {
    if (editable) el.innerText = value; else el.value = value;
    fire();
    return {kind: 'done'};
  }
  let text = value;
  if (current && value.startsWith(current)) {
    text = value.slice(current.length);
  } else if (editable) {
    el.innerText = '';
  } else {
    el.value = '';
  }
  // Typing goes where the caret is: put it at the end.
  if (editable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    range.collapse(false);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  } else {
    try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) {}
  }
  return {kind: 'type', text};
}"#;

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let (uid, value) = (a.uid, a.value);
    begin(cx, call, a.shared.page(), move |cx, page| {
        elements(cx, call, page, vec![uid], move |cx, session, els| {
            let Some(el) = els.into_iter().next() else {
                return fail(cx, call, "No element to fill.");
            };
            let action: watch::Action =
                Box::new(move |cx, done| fill(cx, session, el, value, done));
            let texts = (
                "Successfully filled out the element".to_owned(),
                "The element was filled out and it opened a dialog.".to_owned(),
            );
            act_and_reply(cx, call, page, action, texts, a.include_snapshot);
        });
    });
}

/// Fills `element` with `value` and runs `done` once the page took it in.
pub(super) fn fill(cx: &mut Ctx, session: String, el: Element, value: String, done: Done<()>) {
    let s = session.clone();
    // Scrolling it into view first also proves it is displayed.
    element::aim(
        cx,
        &el.clone(),
        false,
        Box::new(move |cx, r| {
            if let Err(e) = r {
                return done(cx, Err(e));
            }
            prepare(cx, s, el, value, done);
        }),
    );
}

fn prepare(cx: &mut Ctx, session: String, el: Element, value: String, done: Done<()>) {
    let s = session.clone();
    browser::frames::focused(cx, &el.session, &el.object_id);
    let params = runtime::CallFunctionOnParams {
        function_declaration: PREPARE.to_owned(),
        object_id: Some(el.object_id.clone()),
        arguments: Some(vec![argument(json!(value)), argument(json!(TYPING_LIMIT))]),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(&el.session.clone()), params, move |cx, r| {
        let answer = match r {
            Ok(a) => a,
            Err(e) => return done(cx, Err(failed(&el.uid, e))),
        };
        if let Some(ex) = &answer.exception_details {
            let msg = page_code::exception_message(ex);
            return done(cx, Err(failed(&el.uid, msg)));
        }
        let plan = answer.result.value.unwrap_or_default();
        match plan["kind"].as_str() {
            Some("done") => done(cx, Ok(())),
            Some("type") => {
                let text = plan["text"].as_str().unwrap_or("").to_owned();
                let typing = dispatch::Typing::new(text, Default::default());
                dispatch::typing(cx, el.session.clone(), typing, done)
            }
            Some("click") => click::click_element(cx, s, el, false, done),
            Some("error") => {
                let msg = plan["message"]
                    .as_str()
                    .unwrap_or("Element cannot be filled out.");
                done(cx, Err(failed(&el.uid, msg)))
            }
            _ => done(cx, Err(failed(&el.uid, unexpected(&plan)))),
        }
    });
}

fn unexpected(v: &Value) -> String {
    format!("The page gave an unexpected answer: {v}")
}
