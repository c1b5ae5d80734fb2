//! Sending real input events. Events of one gesture are pipelined (the page takes them in, in
//! order) and only the last answer is waited for; an earlier failure is logged.

use std::cell::Cell;
use std::rc::Rc;

use super::keys::{self, Keyboard};
use crate::browser::{self, Flow, Host};
use crate::cdp::generated::input::{
    DispatchKeyEventParams, DispatchMouseEventParams, DispatchMouseEventType, InsertTextParams,
    MouseButton,
};
use crate::error::Error;
use crate::pagetools::page_code;
use crate::tools::ctx::{Ctx, Done};

/// One input event, as one of the `Input` commands.
#[derive(Debug)]
pub(super) enum InputEvent {
    Mouse(DispatchMouseEventParams),
    Key(DispatchKeyEventParams),
    Text(InsertTextParams),
}

/// Sends one event; a failure is only logged.
pub(super) fn fire(cx: &mut Ctx, session: &str, event: InputEvent) {
    match event {
        InputEvent::Mouse(p) => browser::fire(cx, Some(session), p),
        InputEvent::Key(p) => browser::fire(cx, Some(session), p),
        InputEvent::Text(p) => browser::fire(cx, Some(session), p),
    }
}

/// Sends one event and runs `done` with its answer.
fn send(cx: &mut Ctx, session: &str, event: InputEvent, done: Done<()>) {
    let s = Some(session);
    match event {
        InputEvent::Mouse(p) => browser::send(cx, s, p, move |cx, r| done(cx, r.map(|_| ()))),
        InputEvent::Key(p) => browser::send(cx, s, p, move |cx, r| done(cx, r.map(|_| ()))),
        InputEvent::Text(p) => browser::send(cx, s, p, move |cx, r| done(cx, r.map(|_| ()))),
    };
}

/// Sends `events` in order and runs `done` when the last is answered.
pub(super) fn sequence(cx: &mut Ctx, session: &str, mut events: Vec<InputEvent>, done: Done<()>) {
    let Some(last) = events.pop() else {
        return cx.resolve(done, Ok(()));
    };
    for event in events {
        fire(cx, session, event);
    }
    send(cx, session, last, done);
}

fn mouse(
    kind: DispatchMouseEventType,
    (x, y): (f64, f64),
    button: MouseButton,
    buttons: i64,
    count: i64,
) -> InputEvent {
    InputEvent::Mouse(DispatchMouseEventParams {
        r#type: kind,
        x,
        y,
        button: Some(button),
        buttons: Some(buttons),
        modifiers: Some(0),
        click_count: (count > 0).then_some(count),
        ..Default::default()
    })
}

/// Moving the pointer to (x, y) with no button held.
pub(super) fn move_to(x: f64, y: f64) -> InputEvent {
    mouse(
        DispatchMouseEventType::MouseMoved,
        (x, y),
        MouseButton::None,
        0,
        0,
    )
}

/// Moving the pointer to (x, y) with the left button held (a drag).
pub(super) fn drag_to(x: f64, y: f64) -> InputEvent {
    mouse(
        DispatchMouseEventType::MouseMoved,
        (x, y),
        MouseButton::Left,
        1,
        0,
    )
}

pub(super) fn press(x: f64, y: f64, count: i64) -> InputEvent {
    mouse(
        DispatchMouseEventType::MousePressed,
        (x, y),
        MouseButton::Left,
        1,
        count,
    )
}

pub(super) fn release(x: f64, y: f64, count: i64) -> InputEvent {
    mouse(
        DispatchMouseEventType::MouseReleased,
        (x, y),
        MouseButton::Left,
        0,
        count,
    )
}

/// A left click (or a double click: two press/release pairs, the second counting 2).
pub(super) fn click(x: f64, y: f64, double: bool) -> Vec<InputEvent> {
    let mut events = vec![move_to(x, y)];
    for count in 1..=if double { 2 } else { 1 } {
        events.push(press(x, y, count));
        events.push(release(x, y, count));
    }
    events
}

/// Holding `modifiers`, pressing `key`, then releasing the modifiers in reverse order (always:
/// a modifier left down would change every later key).
pub(super) fn combo(
    key: &'static keys::KeyDef,
    modifiers: &[&'static keys::KeyDef],
) -> Vec<InputEvent> {
    let mut kb = Keyboard::default();
    let mut events = Vec::new();
    for m in modifiers {
        events.push(InputEvent::Key(kb.down(m)));
    }
    events.push(InputEvent::Key(kb.down(key)));
    events.push(InputEvent::Key(kb.up(key)));
    for m in modifiers.iter().rev() {
        events.push(InputEvent::Key(kb.up(m)));
    }
    events
}

/// Characters pressed as keys per round trip at most.
const TYPING_BATCH: usize = 64;
/// The characters typed key by key. The page takes in a key in a millisecond or two, so
/// these take a few seconds; the rest of a longer text is inserted as text (no key events),
/// which takes a megabyte in about a second rather than half an hour.
const KEYED_CHARS: usize = 4096;
/// Characters inserted per round trip after the first [`KEYED_CHARS`].
const INSERT_CHARS: usize = 128 * 1024;

/// Typing a text as a person would: characters that are keys of the layout are pressed (so
/// key handlers see them), anything else (accents, emoji, other scripts) is inserted as text.
/// The events are made a batch of characters at a time (all at once, a long text would hold
/// kilobytes of them per character), each batch sent once the page took in the one before:
/// a dialog opened by a key then stops the typing near there, rather than have the rest typed
/// into the page once the dialog is answered. The first batch is one character and each next
/// one twice as long, up to [`TYPING_BATCH`], so a dialog the first keys open stops the typing
/// right after the key that opened it.
pub(super) struct Typing {
    text: String,
    /// Byte offset of the next character to type.
    at: usize,
    /// How many characters went out so far.
    sent: usize,
    keyboard: Keyboard,
    batch: usize,
    /// How many characters the page has taken in.
    typed: Rc<Cell<u64>>,
}

impl Typing {
    pub(super) fn new(text: String, typed: Rc<Cell<u64>>) -> Typing {
        Typing {
            text,
            at: 0,
            sent: 0,
            keyboard: Keyboard::default(),
            batch: 1,
            typed,
        }
    }

    /// The events of the next batch and its number of characters; no events at the end.
    fn next_batch(&mut self) -> (Vec<InputEvent>, u64) {
        if self.sent >= KEYED_CHARS {
            return self.next_insert();
        }
        let Typing {
            text,
            at,
            sent,
            keyboard,
            batch,
            ..
        } = self;
        let mut events = Vec::with_capacity(2 * *batch);
        let mut count = 0;
        let take = (*batch).min(KEYED_CHARS - *sent);
        for ch in text[*at..].chars().take(take) {
            let mut buf = [0u8; 4];
            let s: &str = ch.encode_utf8(&mut buf);
            match keys::find(s) {
                Some(def) => {
                    events.push(InputEvent::Key(keyboard.down(def)));
                    events.push(InputEvent::Key(keyboard.up(def)));
                }
                None => events.push(InputEvent::Text(InsertTextParams { text: s.to_owned() })),
            }
            *at += ch.len_utf8();
            count += 1;
        }
        *sent += count;
        *batch = (*batch * 2).min(TYPING_BATCH);
        (events, count as u64)
    }

    /// The next [`INSERT_CHARS`] characters as one text insertion.
    fn next_insert(&mut self) -> (Vec<InputEvent>, u64) {
        let rest = &self.text[self.at..];
        let end = rest
            .char_indices()
            .nth(INSERT_CHARS)
            .map_or(rest.len(), |(i, _)| i);
        if end == 0 {
            return (Vec::new(), 0);
        }
        let chunk = rest[..end].to_owned();
        let count = chunk.chars().count();
        self.at += end;
        self.sent += count;
        (
            vec![InputEvent::Text(InsertTextParams { text: chunk })],
            count as u64,
        )
    }
}

/// Types the text batch after batch, each once the page took in the one before.
pub(super) fn typing(cx: &mut Ctx, session: String, typing: Typing, done: Done<()>) {
    let typist = Typist {
        session,
        typing,
        batch: 0,
        done,
    };
    typist.type_next(cx);
}

/// A text typed into `session` a batch at a time (see [`Typing`]).
struct Typist {
    session: String,
    typing: Typing,
    /// The characters of the batch in flight.
    batch: u64,
    done: Done<()>,
}

enum TypingStep {
    /// The page took in the batch in flight (its last event was answered).
    TakenIn(Result<(), Error>),
}

impl Flow<Ctx> for Typist {
    type Step = TypingStep;

    fn next(self, cx: &mut Ctx, step: TypingStep) {
        match step {
            TypingStep::TakenIn(Ok(())) => {
                let typed = &self.typing.typed;
                typed.set(typed.get() + self.batch);
                self.type_next(cx)
            }
            TypingStep::TakenIn(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

impl Typist {
    fn type_next(mut self, cx: &mut Ctx) {
        let (events, count) = self.typing.next_batch();
        if events.is_empty() {
            return cx.resolve(self.done, Ok(()));
        }
        self.batch = count;
        let session = self.session.clone();
        sequence(cx, &session, events, self.then(TypingStep::TakenIn));
    }
}

/// Resolves after the page rendered two frames (or 100 ms, for a page that renders none):
/// by then it has handled the input sent before. A busy page may take longer than that
/// to render: the answer then comes before it has.
pub(super) fn drawn(cx: &mut Ctx, session: &str, done: Done<()>) {
    let expression = "new Promise(resolve => {
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)));
  setTimeout(() => resolve(true), 100);
})";
    let params = page_code::awaited(expression.to_owned());
    browser::send(cx, Some(session), params, move |cx, r| {
        done(cx, r.map(|_| ()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdp::Command;
    use serde_json::Value;

    /// An event as it goes on the wire: its method and params.
    fn wire(event: &InputEvent) -> (&'static str, Value) {
        fn json<T: serde::Serialize>(params: &T) -> Value {
            serde_json::to_value(params).unwrap()
        }
        match event {
            InputEvent::Mouse(p) => (DispatchMouseEventParams::METHOD, json(p)),
            InputEvent::Key(p) => (DispatchKeyEventParams::METHOD, json(p)),
            InputEvent::Text(p) => (InsertTextParams::METHOD, json(p)),
        }
    }

    fn wires(events: &[InputEvent]) -> Vec<(&'static str, Value)> {
        events.iter().map(wire).collect()
    }

    #[test]
    fn typing_presses_keys_and_inserts_the_rest() {
        let mut typing = Typing::new("aé".into(), Rc::default());
        let chunks = [wires(&typing.next_batch().0), wires(&typing.next_batch().0)];
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].len(), 2);
        assert_eq!(chunks[0][0].1["key"], "a");
        assert_eq!(chunks[0][1].1["type"], "keyUp");
        assert_eq!(chunks[1][0].0, InsertTextParams::METHOD);
        assert_eq!(chunks[1][0].1["text"], "é");
    }

    #[test]
    fn double_click_counts_two() {
        let events = wires(&click(1.0, 2.0, true));
        assert_eq!(events.len(), 5);
        assert_eq!(events[3].1["clickCount"], 2);
        assert_eq!(events[4].1["type"], "mouseReleased");
    }

    #[test]
    fn combos_release_modifiers() {
        let (key, mods) = keys::parse_combo("Control+Shift+R").unwrap();
        let events = wires(&combo(key, &mods));
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
