//! The input tools: clicking, hovering, dragging, filling forms, pressing keys, typing,
//! uploading files, and answering JavaScript dialogs. Every action is real input (CDP
//! `Input.*` events aimed at the element's box), is followed by a short bounded wait for the
//! navigation or DOM change it caused, and never waits behind a dialog it opened.

mod dialog;
mod dispatch;
mod drag;
mod element;
mod fill;
mod keys;
mod upload;
mod watch;

use serde_json::{json, Value};

use super::response::{finish, Response};
use super::{fail, page_arg, Tool};
use crate::browser::{self, pages};
use crate::error::Error;
use crate::tools::call;
use crate::tools::snapshot::model as snap;
use crate::tools::CallId;
use crate::tools::{Ctx, Done};
use element::Element;
use watch::Outcome;

const UID: &str = "The uid of an element, from the latest take_snapshot of the page.";
const INCLUDE_SNAPSHOT: &str =
    "Also return a fresh snapshot of the page after the action (default false).";

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "click",
        description: "Click an element (a real mouse click at its centre, after scrolling it into view).",
        properties: || {
            json!({
                "uid": {"type": "string", "description": UID},
                "dblClick": {"type": "boolean", "description": "Double-click instead (default false)."},
                "includeSnapshot": {"type": "boolean", "description": INCLUDE_SNAPSHOT},
            })
        },
        required: &["uid"],
        read_only: false,
        page_scoped: true,
        run: click,
    },
    Tool {
        name: "click_at",
        description: "Click at a point of the page's viewport, in CSS pixels.",
        properties: || {
            json!({
                "x": {"type": "number", "description": "Distance from the viewport's left edge."},
                "y": {"type": "number", "description": "Distance from the viewport's top edge."},
                "dblClick": {"type": "boolean", "description": "Double-click instead (default false)."},
                "includeSnapshot": {"type": "boolean", "description": INCLUDE_SNAPSHOT},
            })
        },
        required: &["x", "y"],
        read_only: false,
        page_scoped: true,
        run: click_at,
    },
    Tool {
        name: "drag",
        description: "Drag one element and drop it onto another, with the mouse.",
        properties: || {
            json!({
                "from_uid": {"type": "string", "description": "The uid of the element to pick up."},
                "to_uid": {"type": "string", "description": "The uid of the element to drop it on."},
                "includeSnapshot": {"type": "boolean", "description": INCLUDE_SNAPSHOT},
            })
        },
        required: &["from_uid", "to_uid"],
        read_only: false,
        page_scoped: true,
        run: drag,
    },
    Tool {
        name: "fill",
        description: "Give a form element a value: types into text inputs, text areas and editable content, picks the matching option of a <select>, and sets checkboxes, radios and switches (\"true\" or \"false\").",
        properties: || {
            json!({
                "uid": {"type": "string", "description": UID},
                "value": {"type": "string", "description": "The value: text to enter, the option's text (or value) for a select, \"true\" or \"false\" for a checkbox, radio or switch."},
                "includeSnapshot": {"type": "boolean", "description": INCLUDE_SNAPSHOT},
            })
        },
        required: &["uid", "value"],
        read_only: false,
        page_scoped: true,
        run: fill_tool,
    },
    Tool {
        name: "fill_form",
        description: "Fill several form elements in one call, in order (text inputs, selects, checkboxes, radios). Faster and cheaper than one fill or click per field.",
        properties: || {
            json!({
                "elements": {
                    "type": "array",
                    "description": "The elements to fill, in order.",
                    "items": {
                        "type": "object",
                        "description": "One element and its value.",
                        "properties": {
                            "uid": {"type": "string", "description": "The element's uid from the latest snapshot."},
                            "value": {"type": "string", "description": "Its value, as for fill (\"true\"/\"false\" for checkboxes and radios)."},
                        },
                        "required": ["uid", "value"],
                    },
                },
                "includeSnapshot": {"type": "boolean", "description": INCLUDE_SNAPSHOT},
            })
        },
        required: &["elements"],
        read_only: false,
        page_scoped: true,
        run: fill_form,
    },
    Tool {
        name: "handle_dialog",
        description: "Answer the JavaScript dialog (alert, confirm, prompt, beforeunload) that is open on the page.",
        properties: || {
            json!({
                "action": {"type": "string", "enum": ["accept", "dismiss"], "description": "Accept (OK) or dismiss (Cancel) the dialog."},
                "promptText": {"type": "string", "description": "For a prompt: the text to answer with."},
            })
        },
        required: &["action"],
        read_only: false,
        page_scoped: true,
        run: dialog::handle_dialog,
    },
    Tool {
        name: "hover",
        description: "Move the mouse over an element (after scrolling it into view).",
        properties: || {
            json!({
                "uid": {"type": "string", "description": UID},
                "includeSnapshot": {"type": "boolean", "description": INCLUDE_SNAPSHOT},
            })
        },
        required: &["uid"],
        read_only: false,
        page_scoped: true,
        run: hover,
    },
    Tool {
        name: "press_key",
        description: "Press a key or a key combination on the focused element, e.g. for shortcuts or keys fill cannot send.",
        properties: || {
            json!({
                "key": {"type": "string", "description": "A key name or combination joined by \"+\": \"Enter\", \"Tab\", \"ArrowDown\", \"Control+A\", \"Control+Shift+R\", \"Control++\". Modifiers: Control, Shift, Alt, Meta."},
                "includeSnapshot": {"type": "boolean", "description": INCLUDE_SNAPSHOT},
            })
        },
        required: &["key"],
        read_only: false,
        page_scoped: true,
        run: press_key,
    },
    Tool {
        name: "type_text",
        description: "Type text with the keyboard into the element that has focus.",
        properties: || {
            json!({
                "text": {"type": "string", "description": "The text to type."},
                "submitKey": {"type": "string", "description": "A key to press after the text, e.g. \"Enter\" or \"Tab\"."},
            })
        },
        required: &["text"],
        read_only: false,
        page_scoped: true,
        run: type_text,
    },
    Tool {
        name: "upload_file",
        description: "Upload files through a file input, or through an element whose click opens a file chooser.",
        properties: || {
            json!({
                "uid": {"type": "string", "description": "The uid of an <input type=file>, or of an element that opens a file chooser when clicked."},
                "filePaths": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "Paths of the files to upload, on the machine the browser runs on."},
                "includeSnapshot": {"type": "boolean", "description": INCLUDE_SNAPSHOT},
            })
        },
        required: &["uid", "filePaths"],
        read_only: false,
        page_scoped: true,
        run: upload::upload_file,
    },
];

// ------------------------------------------------------------------ common steps

/// Gets the call's page and refuses to act while a dialog blocks it (the page would not take
/// the input anyway).
fn begin(cx: &mut Ctx, call: CallId, args: &Value, then: impl FnOnce(&mut Ctx, u32) + 'static) {
    call::limit_by_default(cx, call, |ms| {
        format!("The input action did not finish within {ms} ms.")
    });
    pages::with_page(
        cx,
        page_arg(args),
        Box::new(move |cx, r| {
            let page = match r {
                Ok(p) => p,
                Err(e) => return fail(cx, call, e),
            };
            if super::refuse_if_dialog(cx, call, page) {
                return;
            }
            then(cx, page)
        }),
    );
}

/// Resolves uids of the page's latest snapshot to elements, or fails the call.
fn elements(
    cx: &mut Ctx,
    call: CallId,
    page: u32,
    uids: Vec<String>,
    then: impl FnOnce(&mut Ctx, String, Vec<Element>) + 'static,
) {
    let wanted = uids.clone();
    super::snapshot::resolve_uids(
        cx,
        page,
        uids,
        Box::new(move |cx, r| {
            let objects = match r {
                Ok(o) => o,
                Err(e) => return fail(cx, call, e),
            };
            let session = match pages::session_of(&cx.browser.pages, page) {
                Ok(s) => s,
                Err(e) => return fail(cx, call, e),
            };
            let els = wanted
                .into_iter()
                .zip(objects)
                .map(|(uid, object_id)| Element { uid, object_id })
                .collect();
            then(cx, session, els)
        }),
    );
}

/// The accessibility role the latest snapshot gives a uid.
fn role_of(cx: &Ctx, page: u32, uid: &str) -> String {
    cx.snapshots
        .latest(page)
        .and_then(|s| s.resolve(uid).ok())
        .map(|e| e.role.to_owned())
        .unwrap_or_default()
}

/// Answers an action: its own line, then what it caused (a navigation, opened pages), then a
/// fresh snapshot when asked for and the page can give one (not while a dialog blocks it).
fn reply(
    cx: &mut Ctx,
    call: CallId,
    page: u32,
    line: String,
    outcome: Outcome,
    include_snapshot: bool,
) {
    let mut resp = Response::for_page(page);
    resp.line(line);
    if let Some(url) = outcome.navigated_to {
        resp.line(format!("Page navigated to {url}."));
        resp.structured.insert("navigatedToUrl".into(), json!(url));
    }
    let opened: Vec<&pages::Page> = outcome
        .opened
        .iter()
        .filter_map(|t| cx.browser.pages.by_target(t))
        .collect();
    if !opened.is_empty() {
        resp.line("## Opened pages");
        let mut list = Vec::new();
        for p in opened {
            let title = page_title(&p.title, &p.url);
            let label = if title.is_empty() {
                p.url.clone()
            } else {
                format!("{title} ({})", p.url)
            };
            resp.line(format!("{}: {label}", p.id));
            let selected = cx.browser.pages.selected == Some(p.id);
            list.push(json!({"id": p.id, "url": p.url, "title": title, "selected": selected}));
        }
        resp.structured
            .insert("openedPages".into(), Value::Array(list));
    }
    let blocked = cx
        .browser
        .pages
        .get(page)
        .is_none_or(|p| p.dialog.is_some());
    if !include_snapshot || blocked {
        return finish(cx, call, resp);
    }
    super::snapshot::capture(
        cx,
        page,
        false,
        Box::new(move |cx, r| {
            if let Err(e) = r {
                return fail(cx, call, e);
            }
            if let Some(s) = cx.snapshots.latest(page) {
                resp.snapshot = Some(snap::format_section(s));
            }
            finish(cx, call, resp);
        }),
    );
}

/// A page's title as the pages list shows it: none when it only repeats the URL, cut at 50
/// UTF-16 units.
fn page_title(title: &str, url: &str) -> String {
    let bare = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url);
    if title == url || title == bare || Some(title) == bare.strip_suffix('/') {
        return String::new();
    }
    let units: Vec<u16> = title.encode_utf16().collect();
    if units.len() <= 50 {
        title.to_owned()
    } else {
        format!("{}...", String::from_utf16_lossy(&units[..47]))
    }
}

/// The line for an action: `done` when its events went through, `interrupted` when a dialog
/// opened before they did.
/// Runs an element action, waits for what it started, and answers with `texts`: what to
/// say when it completed, and when a dialog it opened interrupted it.
fn act_and_reply(
    cx: &mut Ctx,
    call: CallId,
    page: u32,
    action: watch::Action,
    texts: (&'static str, &'static str),
    include_snapshot: bool,
) {
    watch::act(
        cx,
        page,
        true,
        action,
        Box::new(move |cx, r| match r {
            Err(e) => fail(cx, call, e),
            Ok(o) => {
                let line = said(&o, texts.0, texts.1);
                reply(cx, call, page, line, o, include_snapshot)
            }
        }),
    );
}

fn said(outcome: &Outcome, done: &str, interrupted: &str) -> String {
    if outcome.dialog && !outcome.completed {
        interrupted.to_owned()
    } else {
        done.to_owned()
    }
}

fn str_arg(args: &Value, name: &str) -> String {
    args[name].as_str().unwrap_or_default().to_owned()
}

// ------------------------------------------------------------------ click, hover, drag

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

fn click(cx: &mut Ctx, call: CallId, args: Value) {
    let uid = str_arg(&args, "uid");
    let double = args["dblClick"].as_bool().unwrap_or(false);
    let include_snapshot = args["includeSnapshot"].as_bool().unwrap_or(false);
    begin(cx, call, &args, move |cx, page| {
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
            watch::act(
                cx,
                page,
                true,
                action,
                Box::new(move |cx, r| match r {
                    Err(e) => fail(cx, call, e),
                    Ok(o) => {
                        let line = if double {
                            said(
                                &o,
                                "Successfully double clicked on the element",
                                "The element was double clicked and it opened a dialog.",
                            )
                        } else {
                            said(
                                &o,
                                "Successfully clicked on the element",
                                "The element was clicked and it opened a dialog.",
                            )
                        };
                        reply(cx, call, page, line, o, include_snapshot)
                    }
                }),
            );
        });
    });
}

/// A real click (or double click) at the element's centre.
fn click_element(cx: &mut Ctx, session: String, el: Element, double: bool, done: Done<()>) {
    let s = session.clone();
    element::aim(
        cx,
        &session,
        &el,
        true,
        Box::new(move |cx, r| match r {
            Ok((x, y)) => dispatch::sequence(cx, &s, dispatch::click(x, y, double), done),
            Err(e) => done(cx, Err(e)),
        }),
    );
}

fn choose_option_or_click(cx: &mut Ctx, session: String, el: Element, done: Done<()>) {
    let s = session.clone();
    let object = el.object_id.clone();
    browser::send_raw(
        cx,
        Some(&session),
        "Runtime.callFunctionOn",
        json!({"functionDeclaration": CHOOSE_OPTION, "objectId": object, "returnByValue": true}),
        Box::new(move |cx, r| match r {
            Ok(v) if v["result"]["value"] == true => done(cx, Ok(())),
            _ => click_element(cx, s, el, false, done),
        }),
    );
}

fn click_at(cx: &mut Ctx, call: CallId, args: Value) {
    let x = args["x"].as_f64().unwrap_or(0.0);
    let y = args["y"].as_f64().unwrap_or(0.0);
    let double = args["dblClick"].as_bool().unwrap_or(false);
    let include_snapshot = args["includeSnapshot"].as_bool().unwrap_or(false);
    begin(cx, call, &args, move |cx, page| {
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return fail(cx, call, e),
        };
        let action: watch::Action = Box::new(move |cx, done| {
            dispatch::sequence(cx, &session, dispatch::click(x, y, double), done)
        });
        watch::act(
            cx,
            page,
            true,
            action,
            Box::new(move |cx, r| match r {
                Err(e) => fail(cx, call, e),
                Ok(o) => {
                    let line = if double {
                        said(
                            &o,
                            "Successfully double clicked at the coordinates",
                            "The coordinates were double clicked and it opened a dialog.",
                        )
                    } else {
                        said(
                            &o,
                            "Successfully clicked at the coordinates",
                            "The coordinates were clicked and it opened a dialog.",
                        )
                    };
                    reply(cx, call, page, line, o, include_snapshot)
                }
            }),
        );
    });
}

fn hover(cx: &mut Ctx, call: CallId, args: Value) {
    let uid = str_arg(&args, "uid");
    let include_snapshot = args["includeSnapshot"].as_bool().unwrap_or(false);
    begin(cx, call, &args, move |cx, page| {
        elements(cx, call, page, vec![uid], move |cx, session, els| {
            let Some(el) = els.into_iter().next() else {
                return fail(cx, call, "No element to hover.");
            };
            let action: watch::Action = Box::new(move |cx, done| {
                let s = session.clone();
                element::aim(
                    cx,
                    &session,
                    &el,
                    true,
                    Box::new(move |cx, r| match r {
                        Ok((x, y)) => {
                            dispatch::sequence(cx, &s, vec![dispatch::move_to(x, y)], done)
                        }
                        Err(e) => done(cx, Err(e)),
                    }),
                );
            });
            act_and_reply(
                cx,
                call,
                page,
                action,
                (
                    "Successfully hovered over the element",
                    "The element was hovered and it opened a dialog.",
                ),
                include_snapshot,
            );
        });
    });
}

fn drag(cx: &mut Ctx, call: CallId, args: Value) {
    let from = str_arg(&args, "from_uid");
    let to = str_arg(&args, "to_uid");
    let include_snapshot = args["includeSnapshot"].as_bool().unwrap_or(false);
    begin(cx, call, &args, move |cx, page| {
        elements(cx, call, page, vec![from, to], move |cx, session, els| {
            let mut els = els.into_iter();
            let (Some(source), Some(target)) = (els.next(), els.next()) else {
                return fail(cx, call, "drag needs two elements.");
            };
            let action: watch::Action =
                Box::new(move |cx, done| drag::drag(cx, session, source, target, done));
            act_and_reply(
                cx,
                call,
                page,
                action,
                (
                    "Successfully dragged an element",
                    "The element was dragged and it opened a dialog.",
                ),
                include_snapshot,
            );
        });
    });
}

// ------------------------------------------------------------------ fill, fill_form

fn fill_tool(cx: &mut Ctx, call: CallId, args: Value) {
    let uid = str_arg(&args, "uid");
    let value = str_arg(&args, "value");
    let include_snapshot = args["includeSnapshot"].as_bool().unwrap_or(false);
    begin(cx, call, &args, move |cx, page| {
        elements(cx, call, page, vec![uid], move |cx, session, els| {
            let Some(el) = els.into_iter().next() else {
                return fail(cx, call, "No element to fill.");
            };
            let action: watch::Action =
                Box::new(move |cx, done| fill::fill(cx, session, el, value, done));
            act_and_reply(
                cx,
                call,
                page,
                action,
                (
                    "Successfully filled out the element",
                    "The element was filled out and it opened a dialog.",
                ),
                include_snapshot,
            );
        });
    });
}

fn fill_form(cx: &mut Ctx, call: CallId, args: Value) {
    let items: Vec<(String, String)> = args["elements"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| (str_arg(e, "uid"), str_arg(e, "value")))
                .collect()
        })
        .unwrap_or_default();
    let include_snapshot = args["includeSnapshot"].as_bool().unwrap_or(false);
    let last_uid = items.last().map(|(u, _)| u.clone());
    begin(cx, call, &args, move |cx, page| {
        // The element being filled now, to name it when a dialog interrupts.
        let current = std::rc::Rc::new(std::cell::RefCell::new(String::new()));
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
                    reply(cx, call, page, line, o, false)
                }
                Ok(o) => reply(
                    cx,
                    call,
                    page,
                    "Successfully filled out the form".into(),
                    o,
                    include_snapshot,
                ),
            }),
        );
    });
}

fn fill_each(
    cx: &mut Ctx,
    page: u32,
    mut items: Vec<(String, String)>,
    current: std::rc::Rc<std::cell::RefCell<String>>,
    done: Done<()>,
) {
    if items.is_empty() {
        return done(cx, Ok(()));
    }
    let (uid, value) = items.remove(0);
    super::snapshot::resolve_uids(
        cx,
        page,
        vec![uid.clone()],
        Box::new(move |cx, r| {
            let object_id = match r.map(|mut o| o.pop()) {
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
            let el = Element { uid, object_id };
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

// ------------------------------------------------------------------ keyboard

fn press_key(cx: &mut Ctx, call: CallId, args: Value) {
    let combo = str_arg(&args, "key");
    let include_snapshot = args["includeSnapshot"].as_bool().unwrap_or(false);
    let (key, modifiers) = match keys::parse_combo(&combo) {
        Ok(k) => k,
        Err(e) => return fail(cx, call, e),
    };
    begin(cx, call, &args, move |cx, page| {
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return fail(cx, call, e),
        };
        let action: watch::Action = Box::new(move |cx, done| {
            dispatch::sequence(cx, &session, dispatch::combo(key, &modifiers), done)
        });
        watch::act(
            cx,
            page,
            true,
            action,
            Box::new(move |cx, r| match r {
                Err(e) => fail(cx, call, e),
                Ok(o) => {
                    let line = said(
                        &o,
                        &format!("Successfully pressed key: {combo}"),
                        &format!("The key {combo} was pressed and it opened a dialog."),
                    );
                    reply(cx, call, page, line, o, include_snapshot)
                }
            }),
        );
    });
}

fn type_text(cx: &mut Ctx, call: CallId, args: Value) {
    let text = str_arg(&args, "text");
    let submit = args["submitKey"].as_str().map(str::to_owned);
    let submit_key = match submit.as_deref().map(|k| (k, keys::find(k))) {
        None => None,
        Some((_, Some(def))) => Some(def),
        Some((k, None)) => return fail(cx, call, format!("Unknown key: \"{k}\"")),
    };
    begin(cx, call, &args, move |cx, page| {
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return fail(cx, call, e),
        };
        let mut chunks = dispatch::typing(&text);
        if let Some(def) = submit_key {
            chunks.push(dispatch::combo(def, &[]));
        }
        let action: watch::Action =
            Box::new(move |cx, done| dispatch::chunks(cx, session, chunks, done));
        let typed = match &submit {
            Some(k) => format!("Typed text \"{text} + {k}\""),
            None => format!("Typed text \"{text}\""),
        };
        watch::act(
            cx,
            page,
            true,
            action,
            Box::new(move |cx, r| match r {
                Err(e) => fail(cx, call, e),
                Ok(o) => {
                    let line = said(
                        &o,
                        &typed,
                        "Typing the text opened a dialog; what came after that point was not typed.",
                    );
                    reply(cx, call, page, line, o, false)
                }
            }),
        );
    });
}
