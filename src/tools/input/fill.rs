//! `fill`: filling one form element with a value, the way each kind of element takes one: text is
//! typed with key events (after clearing what no longer fits), a `<select>` gets the option
//! whose text (or value) matches, a checkbox, radio or switch is clicked when its state must
//! change ("true"/"false"), and other inputs (date, colour, range) are set directly with the
//! `input` and `change` events a user's edit would fire.

use serde_json::{json, Value};

use super::action::{self, said, Aim, Arguments, Gesture, Input, Target};
use super::click;
use super::dispatch;
use super::element::{self, argument, failed, Element};
use super::watch::Outcome;
use crate::browser::{self, Flow, PageId};
use crate::cdp::generated::runtime;
use crate::error::Error;
use crate::pagetools::page_code;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "fill",
    description: "Set a form element's value: types text, picks a <select> option, or sets a checkbox (\"true\"/\"false\").",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run: action::run::<Args>,
};

tool_args! {
    struct Args {
        "uid" uid: String = {"type": "string", "maxLength": max::UID},
        "value" value: String = {"type": "string", "maxLength": max::TEXT},
        "includeSnapshot" include_snapshot: Option<bool> = {"type": "boolean"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
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

impl Arguments for Args {
    fn page(&self) -> Option<PageId> {
        self.page
    }
}

impl Input for Args {
    fn aim(&self) -> Aim {
        Aim::Elements(vec![self.uid.clone()])
    }

    fn gesture(&mut self, target: Target) -> Gesture {
        let value = std::mem::take(&mut self.value);
        Box::new(move |cx, done| {
            let Some(el) = target.elements.into_iter().next() else {
                return done(cx, Err(Error::Invalid("No element to fill.".into())));
            };
            fill(cx, target.session, el, value, done)
        })
    }

    fn answer(&self, outcome: &Outcome) -> (String, bool) {
        let line = said(
            outcome,
            "Successfully filled out the element",
            "The element was filled out and it opened a dialog.",
        );
        (line, self.include_snapshot == Some(true))
    }
}

/// Fills `el` with `value` (clicks go through the page's `session`) and runs `done` once
/// the page took it in.
pub(super) fn fill(cx: &mut Ctx, session: String, el: Element, value: String, done: Done<()>) {
    let target = el.clone();
    let fill = Fill {
        session,
        el,
        value,
        done,
    };
    // Scrolling it into view first also proves it is displayed.
    element::aim(cx, &target, false, fill.then(Step::Shown));
}

/// Filling one element.
struct Fill {
    /// The page's session, which a click goes through.
    session: String,
    el: Element,
    value: String,
    done: Done<()>,
}

enum Step {
    /// The element was scrolled into view: it is displayed.
    Shown(Result<(f64, f64), Error>),
    /// The page did what needs no real input, and says what is left (see [`PREPARE`]);
    /// an exception it threw is an error.
    Prepared(Result<Value, Error>),
}

impl Flow<Ctx> for Fill {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        let uid = self.el.uid.clone();
        match step {
            Step::Shown(Ok(_)) => self.prepare(cx),
            Step::Prepared(Ok(plan)) => self.finish(cx, plan),
            Step::Shown(Err(e)) => (self.done)(cx, Err(e)),
            Step::Prepared(Err(e)) => (self.done)(cx, Err(failed(&uid, e))),
        }
    }
}

impl Fill {
    fn prepare(self, cx: &mut Ctx) {
        browser::frames::focused(cx, &self.el.session, &self.el.object_id);
        let params = runtime::CallFunctionOnParams {
            function_declaration: PREPARE.to_owned(),
            object_id: Some(self.el.object_id.clone()),
            arguments: Some(vec![
                argument(json!(self.value)),
                argument(json!(TYPING_LIMIT)),
            ]),
            return_by_value: Some(true),
            ..Default::default()
        };
        let frame = self.el.session.clone();
        browser::send(
            cx,
            Some(&frame),
            params,
            self.then(|r| Step::Prepared(r.and_then(plan))),
        );
    }

    /// Does what the page left to do: type the rest of the text into the element's own
    /// session (where it has the focus), or click it.
    fn finish(self, cx: &mut Ctx, plan: Value) {
        let Fill {
            session, el, done, ..
        } = self;
        match plan["kind"].as_str() {
            Some("done") => done(cx, Ok(())),
            Some("type") => {
                let text = plan["text"].as_str().unwrap_or("").to_owned();
                let typing = dispatch::Typing::new(text, Default::default());
                let session = el.session.clone();
                // In an out-of-process iframe, the keys wait until the page knows where
                // the focus went (see `until_focus_in_frame`).
                match browser::frames::page_of_frame(cx, &session) {
                    Some(page) => {
                        let typed =
                            move |cx: &mut Ctx, _| dispatch::typing(cx, session, typing, done);
                        browser::frames::until_focus_in_frame(cx, page, Box::new(typed))
                    }
                    None => dispatch::typing(cx, session, typing, done),
                }
            }
            Some("click") => click::click_element(cx, session, el, false, done),
            Some("error") => {
                let msg = plan["message"]
                    .as_str()
                    .unwrap_or("Element cannot be filled out.");
                done(cx, Err(failed(&el.uid, msg)))
            }
            _ => done(cx, Err(failed(&el.uid, unexpected(&plan)))),
        }
    }
}

/// What the page said is left to do, or the exception it threw.
fn plan(answer: runtime::CallFunctionOnReturns) -> Result<Value, Error> {
    match &answer.exception_details {
        Some(ex) => Err(Error::Page(page_code::exception_message(ex))),
        None => Ok(answer.result.value.unwrap_or_default()),
    }
}

fn unexpected(v: &Value) -> String {
    format!("The page gave an unexpected answer: {v}")
}
