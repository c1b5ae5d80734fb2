//! Sending real input events. Events of one gesture are pipelined (the page takes them in, in
//! order) and only the last answer is waited for; an earlier failure is logged.

use serde_json::{json, Value};

use super::keys::{self, Keyboard};
use crate::browser;
use crate::browser::Host;
use crate::tools::{Ctx, Done};

/// Sends `events` (method, params) in order and runs `done` when the last is answered.
pub fn sequence(
    cx: &mut Ctx,
    session: &str,
    mut events: Vec<(&'static str, Value)>,
    done: Done<()>,
) {
    let Some(last) = events.pop() else {
        return cx.resolve(done, Ok(()));
    };
    for (method, params) in events {
        browser::fire_raw(cx, Some(session), method, params);
    }
    browser::send_raw(
        cx,
        Some(session),
        last.0,
        last.1,
        Box::new(move |cx, r| done(cx, r.map(|_| ()))),
    );
}

fn mouse(
    kind: &str,
    x: f64,
    y: f64,
    button: &str,
    buttons: u32,
    count: u32,
) -> (&'static str, Value) {
    let mut params =
        json!({"type": kind, "x": x, "y": y, "button": button, "buttons": buttons, "modifiers": 0});
    if count > 0 {
        params["clickCount"] = json!(count);
    }
    ("Input.dispatchMouseEvent", params)
}

/// Moving the pointer to (x, y) with no button held.
pub fn move_to(x: f64, y: f64) -> (&'static str, Value) {
    mouse("mouseMoved", x, y, "none", 0, 0)
}

/// Moving the pointer to (x, y) with the left button held (a drag).
pub fn drag_to(x: f64, y: f64) -> (&'static str, Value) {
    mouse("mouseMoved", x, y, "left", 1, 0)
}

pub fn press(x: f64, y: f64, count: u32) -> (&'static str, Value) {
    mouse("mousePressed", x, y, "left", 1, count)
}

pub fn release(x: f64, y: f64, count: u32) -> (&'static str, Value) {
    mouse("mouseReleased", x, y, "left", 0, count)
}

/// A left click (or a double click: two press/release pairs, the second counting 2).
pub fn click(x: f64, y: f64, double: bool) -> Vec<(&'static str, Value)> {
    let mut events = vec![move_to(x, y)];
    for count in 1..=if double { 2 } else { 1 } {
        events.push(press(x, y, count));
        events.push(release(x, y, count));
    }
    events
}

/// Holding `modifiers`, pressing `key`, then releasing the modifiers in reverse order (always:
/// a modifier left down would change every later key).
pub fn combo(
    key: &'static keys::KeyDef,
    modifiers: &[&'static keys::KeyDef],
) -> Vec<(&'static str, Value)> {
    let mut kb = Keyboard::default();
    let mut events = Vec::new();
    for m in modifiers {
        events.push(("Input.dispatchKeyEvent", kb.down(m)));
    }
    events.push(("Input.dispatchKeyEvent", kb.down(key)));
    events.push(("Input.dispatchKeyEvent", kb.up(key)));
    for m in modifiers.iter().rev() {
        events.push(("Input.dispatchKeyEvent", kb.up(m)));
    }
    events
}

/// Typing `text` as a person would: characters that are keys of the layout are pressed (so
/// key handlers see them), anything else (accents, emoji, other scripts) is inserted as text.
/// One chunk per character, sent each once the page took in the one before: a dialog opened
/// by a key then stops the typing there, rather than have the rest typed into the page once
/// the dialog is answered. The cost is a round trip per character (about a millisecond).
pub fn typing(text: &str) -> Vec<Vec<(&'static str, Value)>> {
    let mut kb = Keyboard::default();
    let mut chunks = Vec::new();
    for ch in text.chars() {
        let mut buf = [0u8; 4];
        let s: &str = ch.encode_utf8(&mut buf);
        chunks.push(match keys::find(s) {
            Some(def) => vec![
                ("Input.dispatchKeyEvent", kb.down(def)),
                ("Input.dispatchKeyEvent", kb.up(def)),
            ],
            None => vec![("Input.insertText", json!({"text": s}))],
        });
    }
    chunks
}

/// Sends the chunks one after another, each once the page took in the one before.
pub fn chunks(
    cx: &mut Ctx,
    session: String,
    mut chunks: Vec<Vec<(&'static str, Value)>>,
    done: Done<()>,
) {
    if chunks.is_empty() {
        return cx.resolve(done, Ok(()));
    }
    let first = chunks.remove(0);
    let s = session.clone();
    sequence(
        cx,
        &session,
        first,
        Box::new(move |cx, r| match r {
            Ok(()) => self::chunks(cx, s, chunks, done),
            Err(e) => done(cx, Err(e)),
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_presses_keys_and_inserts_the_rest() {
        let chunks = typing("aé");
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].len(), 2);
        assert_eq!(chunks[0][0].1["key"], "a");
        assert_eq!(chunks[0][1].1["type"], "keyUp");
        assert_eq!(chunks[1][0].0, "Input.insertText");
        assert_eq!(chunks[1][0].1["text"], "é");
    }

    #[test]
    fn double_click_counts_two() {
        let events = click(1.0, 2.0, true);
        assert_eq!(events.len(), 5);
        assert_eq!(events[3].1["clickCount"], 2);
        assert_eq!(events[4].1["type"], "mouseReleased");
    }

    #[test]
    fn combos_release_modifiers() {
        let (key, mods) = keys::parse_combo("Control+Shift+R").unwrap();
        let events = combo(key, &mods);
        let types: Vec<&str> = events
            .iter()
            .map(|e| e.1["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            [
                "rawKeyDown",
                "rawKeyDown",
                "rawKeyDown",
                "keyUp",
                "keyUp",
                "keyUp"
            ]
        );
        assert_eq!(events[2].1["modifiers"], keys::CONTROL | keys::SHIFT);
        assert_eq!(events[5].1["modifiers"], 0);
    }
}
