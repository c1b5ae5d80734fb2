//! The input tools: clicking, hovering, dragging, filling forms, pressing keys, typing,
//! uploading files, and answering JavaScript dialogs. Every action is real input (CDP
//! `Input.*` events aimed at the element's box), is followed by a short bounded wait for the
//! navigation or DOM change it caused, and never waits behind a dialog it opened.
//!
//! One file per tool (its arguments, what it aims at, its gesture and its answer). Every
//! input tool's call is an `action::InputCall` (the page, the dialog gate, the target, the
//! gesture watched, the answer); the steps they share are `element` (resolving uids and
//! aiming at an element), `reach` (the mouse over an element, across frames), `dispatch`
//! (sending input events), `keys` (the keyboard layout), `watch` (waiting for what an
//! action set off) and `reply` (the answer's lines).

mod action;
mod click;
mod click_at;
mod dispatch;
mod drag;
mod element;
mod fill;
mod fill_form;
mod handle_dialog;
mod hover;
mod keys;
mod press_key;
mod reach;
mod reply;
mod type_text;
mod upload_file;
mod watch;

use super::tool::Tool;

/// The order `tools/list` shows them in.
pub(crate) const TOOLS: &[Tool] = &[
    click::TOOL,
    click_at::TOOL,
    drag::TOOL,
    fill::TOOL,
    fill_form::TOOL,
    handle_dialog::TOOL,
    hover::TOOL,
    press_key::TOOL,
    type_text::TOOL,
    upload_file::TOOL,
];
