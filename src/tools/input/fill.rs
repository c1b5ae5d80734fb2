//! Filling one form element with a value, the way each kind of element takes one: text is
//! typed with key events (after clearing what no longer fits), a `<select>` gets the option
//! whose text (or value) matches, a checkbox, radio or switch is clicked when its state must
//! change ("true"/"false"), and other inputs (date, colour, range) are set directly with the
//! `input` and `change` events a user's edit would fire.

use serde_json::{json, Value};

use super::dispatch;
use super::element::{self, failed, Element};
use crate::browser;
use crate::tools::{Ctx, Done};

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

/// Fills `element` with `value` and runs `done` once the page took it in.
pub fn fill(cx: &mut Ctx, session: String, el: Element, value: String, done: Done<()>) {
    let s = session.clone();
    // Scrolling it into view first also proves it is displayed.
    element::aim(
        cx,
        &session,
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
    browser::send_raw(
        cx,
        Some(&session),
        "Runtime.callFunctionOn",
        json!({
            "functionDeclaration": PREPARE,
            "objectId": el.object_id,
            "arguments": [{"value": value}, {"value": TYPING_LIMIT}],
            "returnByValue": true,
        }),
        Box::new(move |cx, r| {
            let v = match r {
                Ok(v) => v,
                Err(e) => return done(cx, Err(failed(&el.uid, e))),
            };
            if let Some(ex) = v.get("exceptionDetails") {
                let msg = crate::tools::script::exception_message(ex);
                return done(cx, Err(failed(&el.uid, msg)));
            }
            let plan = &v["result"]["value"];
            match plan["kind"].as_str() {
                Some("done") => done(cx, Ok(())),
                Some("type") => {
                    let text = plan["text"].as_str().unwrap_or("");
                    dispatch::chunks(cx, s, dispatch::typing(text), done)
                }
                Some("click") => super::click_element(cx, s, el, false, done),
                Some("error") => {
                    let msg = plan["message"]
                        .as_str()
                        .unwrap_or("Element cannot be filled out.");
                    done(cx, Err(failed(&el.uid, msg)))
                }
                _ => done(cx, Err(failed(&el.uid, unexpected(plan)))),
            }
        }),
    );
}

fn unexpected(v: &Value) -> String {
    format!("The page gave an unexpected answer: {v}")
}
