//! `click`: a real mouse click (or double click) at an element's centre. An `<option>` of a
//! native select is chosen instead, as a user would end up with it chosen.

use serde_json::Value;

use super::action::{self, said, Aim, Arguments, Gesture, Input, Target};
use super::dispatch;
use super::element::Element;
use super::reach;
use super::watch::Outcome;
use crate::browser::{self, Flow, PageId};
use crate::cdp::generated::runtime;
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "click",
    description: "Click an element by uid (from take_snapshot).",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run: action::run::<Args>,
};

tool_args! {
    struct Args {
        "uid" uid: String = {"type": "string", "maxLength": max::UID},
        "dblClick" double: Option<bool> = {"type": "boolean"},
        "includeSnapshot" include_snapshot: Option<bool> = {"type": "boolean"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

impl Arguments for Args {
    fn page(&self) -> Option<PageId> {
        self.page
    }
}

impl Input for Args {
    fn aim(&self) -> Aim {
        Aim::Elements(vec![self.uid.clone()])
    }

    /// An `<option>` is chosen (a double click clicks it all the same); anything else is
    /// clicked.
    fn gesture(&mut self, target: Target) -> Gesture {
        let double = self.double == Some(true);
        Box::new(move |cx, done| {
            let Some(el) = target.elements.into_iter().next() else {
                return done(cx, Err(Error::Invalid("No element to click.".into())));
            };
            let click = Click::new(target.session, el, double, done);
            if !double && click.el.role == "option" {
                click.choose_option(cx)
            } else {
                click.aim(cx)
            }
        })
    }

    fn answer(&self, outcome: &Outcome) -> (String, bool) {
        let line = if self.double == Some(true) {
            said(
                outcome,
                "Successfully double clicked on the element",
                "The element was double clicked and it opened a dialog.",
            )
        } else {
            said(
                outcome,
                "Successfully clicked on the element",
                "The element was clicked and it opened a dialog.",
            )
        };
        (line, self.include_snapshot == Some(true))
    }
}

/// A real click (or double click) at `el`'s centre, through the page's `session`; `done`
/// once the page took in the release.
pub(super) fn click_element(
    cx: &mut Ctx,
    session: String,
    el: Element,
    double: bool,
    done: Done<()>,
) {
    Click::new(session, el, double, done).aim(cx);
}

/// Clicking an element: its centre aimed at and reached, then pressed and released there.
struct Click {
    /// The page's session, which pointer events go through.
    session: String,
    el: Element,
    double: bool,
    done: Done<()>,
}

enum Step {
    /// Whether the page chose the `<option>` (false: it is not one a choice can take).
    Chosen(bool),
    /// The mouse is over the element's centre (see `reach`), at this point of the page.
    Reached(Result<(f64, f64), Error>),
}

impl Flow<Ctx> for Click {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Chosen(true) => (self.done)(cx, Ok(())),
            // Not an option a choice can take (disabled, in a list box): clicked instead.
            Step::Chosen(false) => self.aim(cx),
            Step::Reached(Ok((x, y))) => {
                let events = dispatch::click(x, y, self.double);
                dispatch::sequence(cx, &self.session, events, self.done)
            }
            Step::Reached(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
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

/// Whether the page answered that it chose the option.
fn chosen(r: Result<runtime::CallFunctionOnReturns, Error>) -> Step {
    Step::Chosen(matches!(r, Ok(a) if a.result.value == Some(Value::Bool(true))))
}

impl Click {
    fn new(session: String, el: Element, double: bool, done: Done<()>) -> Click {
        Click {
            session,
            el,
            double,
            done,
        }
    }

    fn choose_option(self, cx: &mut Ctx) {
        let params = runtime::CallFunctionOnParams {
            function_declaration: CHOOSE_OPTION.to_owned(),
            object_id: Some(self.el.object_id.clone()),
            return_by_value: Some(true),
            ..Default::default()
        };
        let frame = self.el.session.clone();
        browser::send(cx, Some(&frame), params, self.then(chosen));
    }

    fn aim(self, cx: &mut Ctx) {
        // Key events that follow go where this click puts the focus.
        browser::frames::focused(cx, &self.el.session, &self.el.object_id);
        let (session, el) = (self.session.clone(), self.el.clone());
        reach::reach(cx, session, el, self.then(Step::Reached));
    }
}
