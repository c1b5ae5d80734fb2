//! `fill_form`: several form elements filled in one call, in order, each as `fill` would.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Deserialize;
use serde_json::Value;

use super::action::{Aim, Gesture, Input, InputCall, Target};
use super::element::{self, Element};
use super::fill;
use super::watch::Outcome;
use crate::browser::{pages, Flow, PageId};
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "fill_form",
    description: "Fill several form elements in one call, each as fill would.",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run,
};

tool_args! {
    struct Args {
        "elements" elements: Vec<Item> = {
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
        "includeSnapshot" include_snapshot: Option<bool> = {"type": "boolean"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

#[derive(Deserialize)]
struct Item {
    uid: String,
    value: String,
}

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<Args>(cx, call, args) else {
        return;
    };
    let page = args.page;
    let form = Form {
        last_uid: args.elements.last().map(|i| i.uid.clone()),
        items: args.elements,
        include_snapshot: args.include_snapshot == Some(true),
        current: Rc::default(),
    };
    InputCall::new(call, form).start(cx, page);
}

/// The call's part of filling the form: the items, and which one is being filled, to name
/// it when a dialog interrupts.
struct Form {
    items: Vec<Item>,
    last_uid: Option<String>,
    include_snapshot: bool,
    current: Rc<RefCell<String>>,
}

impl Input for Form {
    /// Each element is resolved just before it is filled: filling one may change the
    /// others.
    fn aim(&self) -> Aim {
        Aim::Page
    }

    fn gesture(&mut self, target: Target) -> Gesture {
        let items = std::mem::take(&mut self.items).into_iter();
        let current = self.current.clone();
        Box::new(move |cx, done| {
            let filling = Filling {
                page: target.page,
                items,
                item: None,
                current,
                done,
            };
            filling.fill_next(cx)
        })
    }

    fn answer(&self, outcome: &Outcome) -> (String, bool) {
        if outcome.dialog && !outcome.completed {
            let uid = self.current.borrow().clone();
            let rest = if Some(&uid) != self.last_uid.as_ref() {
                " The remaining elements were not filled out."
            } else {
                ""
            };
            let line = format!("Filling out the element with uid {uid} opened a dialog.{rest}");
            return (line, false);
        }
        let line = "Successfully filled out the form".to_owned();
        (line, self.include_snapshot)
    }
}

/// The elements filled one after the other.
struct Filling {
    page: PageId,
    items: std::vec::IntoIter<Item>,
    /// The item whose element is being resolved now.
    item: Option<Item>,
    /// The uid of the element being filled now.
    current: Rc<RefCell<String>>,
    done: Done<()>,
}

enum Step {
    /// The next element, resolved from its uid.
    Resolved(Result<Vec<Element>, Error>),
    /// It was filled.
    Filled(Result<(), Error>),
}

impl Flow<Ctx> for Filling {
    type Step = Step;

    fn next(mut self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Resolved(Ok(mut elements)) => match (elements.pop(), self.item.take()) {
                (Some(el), Some(item)) => self.fill(cx, el, item.value),
                (_, item) => {
                    let uid = item.map(|i| i.uid).unwrap_or_default();
                    let page = self.page;
                    let e =
                        Error::Invalid(format!("Element uid \"{uid}\" not found on page {page}."));
                    (self.done)(cx, Err(e))
                }
            },
            Step::Filled(Ok(())) => self.fill_next(cx),
            Step::Resolved(Err(e)) | Step::Filled(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

impl Filling {
    fn fill_next(mut self, cx: &mut Ctx) {
        let Some(item) = self.items.next() else {
            return (self.done)(cx, Ok(()));
        };
        let (page, uid) = (self.page, item.uid.clone());
        self.item = Some(item);
        element::resolve(cx, page, vec![uid], self.then(Step::Resolved));
    }

    fn fill(self, cx: &mut Ctx, el: Element, value: String) {
        let session = match pages::session_of(&cx.browser.pages, self.page) {
            Ok(s) => s,
            Err(e) => return (self.done)(cx, Err(e)),
        };
        *self.current.borrow_mut() = el.uid.clone();
        fill::fill(cx, session, el, value, self.then(Step::Filled));
    }
}
