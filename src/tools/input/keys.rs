//! The US keyboard layout: what each key name an agent may use (`Enter`, `a`, `Control`, `+`,
//! `F5`, ...) sends as `key`, `code`, `windowsVirtualKeyCode` and `text` in
//! `Input.dispatchKeyEvent`, and how a combination like `Control+Shift+R` is read. The table is
//! the same set of names, in the same order, that puppeteer's layout (and so the reference)
//! accepts, so the error listing the valid keys matches too.

use crate::cdp::generated::input::{DispatchKeyEventParams, DispatchKeyEventType};

/// One key of the layout.
#[derive(Debug)]
pub(super) struct KeyDef {
    /// The name agents use.
    pub name: &'static str,
    pub key_code: u32,
    pub code: &'static str,
    pub key: &'static str,
    /// `key` while Shift is held, when it differs ("a" → "A", "1" → "!").
    pub shift_key: &'static str,
    /// `key_code` while Shift is held, when it differs (numpad keys).
    pub shift_key_code: u32,
    /// The text the key types, when it is not simply its one-character `key` (Enter → "\r").
    pub text: &'static str,
    /// 0 standard, 1 left, 2 right, 3 numpad, 4 mobile.
    pub location: u32,
}

#[allow(clippy::too_many_arguments)]
const fn k(
    name: &'static str,
    key_code: u32,
    code: &'static str,
    key: &'static str,
    shift_key: &'static str,
    shift_key_code: u32,
    text: &'static str,
    location: u32,
) -> KeyDef {
    KeyDef {
        name,
        key_code,
        code,
        key,
        shift_key,
        shift_key_code,
        text,
        location,
    }
}

#[rustfmt::skip]
pub(super) const KEYS: &[KeyDef] = &[
    k("0", 48, "Digit0", "0", "", 0, "", 0),
    k("1", 49, "Digit1", "1", "", 0, "", 0),
    k("2", 50, "Digit2", "2", "", 0, "", 0),
    k("3", 51, "Digit3", "3", "", 0, "", 0),
    k("4", 52, "Digit4", "4", "", 0, "", 0),
    k("5", 53, "Digit5", "5", "", 0, "", 0),
    k("6", 54, "Digit6", "6", "", 0, "", 0),
    k("7", 55, "Digit7", "7", "", 0, "", 0),
    k("8", 56, "Digit8", "8", "", 0, "", 0),
    k("9", 57, "Digit9", "9", "", 0, "", 0),
    k("Power", 0, "Power", "Power", "", 0, "", 0),
    k("Eject", 0, "Eject", "Eject", "", 0, "", 0),
    k("Abort", 3, "Abort", "Cancel", "", 0, "", 0),
    k("Help", 6, "Help", "Help", "", 0, "", 0),
    k("Backspace", 8, "Backspace", "Backspace", "", 0, "", 0),
    k("Tab", 9, "Tab", "Tab", "", 0, "", 0),
    k("Numpad5", 12, "Numpad5", "Clear", "5", 101, "", 3),
    k("NumpadEnter", 13, "NumpadEnter", "Enter", "", 0, "\r", 3),
    k("Enter", 13, "Enter", "Enter", "", 0, "\r", 0),
    k("\r", 13, "Enter", "Enter", "", 0, "\r", 0),
    k("\n", 13, "Enter", "Enter", "", 0, "\r", 0),
    k("ShiftLeft", 16, "ShiftLeft", "Shift", "", 0, "", 1),
    k("ShiftRight", 16, "ShiftRight", "Shift", "", 0, "", 2),
    k("ControlLeft", 17, "ControlLeft", "Control", "", 0, "", 1),
    k("ControlRight", 17, "ControlRight", "Control", "", 0, "", 2),
    k("AltLeft", 18, "AltLeft", "Alt", "", 0, "", 1),
    k("AltRight", 18, "AltRight", "Alt", "", 0, "", 2),
    k("Pause", 19, "Pause", "Pause", "", 0, "", 0),
    k("CapsLock", 20, "CapsLock", "CapsLock", "", 0, "", 0),
    k("Escape", 27, "Escape", "Escape", "", 0, "", 0),
    k("Convert", 28, "Convert", "Convert", "", 0, "", 0),
    k("NonConvert", 29, "NonConvert", "NonConvert", "", 0, "", 0),
    k("Space", 32, "Space", " ", "", 0, "", 0),
    k("Numpad9", 33, "Numpad9", "PageUp", "9", 105, "", 3),
    k("PageUp", 33, "PageUp", "PageUp", "", 0, "", 0),
    k("Numpad3", 34, "Numpad3", "PageDown", "3", 99, "", 3),
    k("PageDown", 34, "PageDown", "PageDown", "", 0, "", 0),
    k("End", 35, "End", "End", "", 0, "", 0),
    k("Numpad1", 35, "Numpad1", "End", "1", 97, "", 3),
    k("Home", 36, "Home", "Home", "", 0, "", 0),
    k("Numpad7", 36, "Numpad7", "Home", "7", 103, "", 3),
    k("ArrowLeft", 37, "ArrowLeft", "ArrowLeft", "", 0, "", 0),
    k("Numpad4", 37, "Numpad4", "ArrowLeft", "4", 100, "", 3),
    k("Numpad8", 38, "Numpad8", "ArrowUp", "8", 104, "", 3),
    k("ArrowUp", 38, "ArrowUp", "ArrowUp", "", 0, "", 0),
    k("ArrowRight", 39, "ArrowRight", "ArrowRight", "", 0, "", 0),
    k("Numpad6", 39, "Numpad6", "ArrowRight", "6", 102, "", 3),
    k("Numpad2", 40, "Numpad2", "ArrowDown", "2", 98, "", 3),
    k("ArrowDown", 40, "ArrowDown", "ArrowDown", "", 0, "", 0),
    k("Select", 41, "Select", "Select", "", 0, "", 0),
    k("Open", 43, "Open", "Execute", "", 0, "", 0),
    k("PrintScreen", 44, "PrintScreen", "PrintScreen", "", 0, "", 0),
    k("Insert", 45, "Insert", "Insert", "", 0, "", 0),
    k("Numpad0", 45, "Numpad0", "Insert", "0", 96, "", 3),
    k("Delete", 46, "Delete", "Delete", "", 0, "", 0),
    k("NumpadDecimal", 46, "NumpadDecimal", "\0", ".", 110, "", 3),
    k("Digit0", 48, "Digit0", "0", ")", 0, "", 0),
    k("Digit1", 49, "Digit1", "1", "!", 0, "", 0),
    k("Digit2", 50, "Digit2", "2", "@", 0, "", 0),
    k("Digit3", 51, "Digit3", "3", "#", 0, "", 0),
    k("Digit4", 52, "Digit4", "4", "$", 0, "", 0),
    k("Digit5", 53, "Digit5", "5", "%", 0, "", 0),
    k("Digit6", 54, "Digit6", "6", "^", 0, "", 0),
    k("Digit7", 55, "Digit7", "7", "&", 0, "", 0),
    k("Digit8", 56, "Digit8", "8", "*", 0, "", 0),
    k("Digit9", 57, "Digit9", "9", "(", 0, "", 0),
    k("KeyA", 65, "KeyA", "a", "A", 0, "", 0),
    k("KeyB", 66, "KeyB", "b", "B", 0, "", 0),
    k("KeyC", 67, "KeyC", "c", "C", 0, "", 0),
    k("KeyD", 68, "KeyD", "d", "D", 0, "", 0),
    k("KeyE", 69, "KeyE", "e", "E", 0, "", 0),
    k("KeyF", 70, "KeyF", "f", "F", 0, "", 0),
    k("KeyG", 71, "KeyG", "g", "G", 0, "", 0),
    k("KeyH", 72, "KeyH", "h", "H", 0, "", 0),
    k("KeyI", 73, "KeyI", "i", "I", 0, "", 0),
    k("KeyJ", 74, "KeyJ", "j", "J", 0, "", 0),
    k("KeyK", 75, "KeyK", "k", "K", 0, "", 0),
    k("KeyL", 76, "KeyL", "l", "L", 0, "", 0),
    k("KeyM", 77, "KeyM", "m", "M", 0, "", 0),
    k("KeyN", 78, "KeyN", "n", "N", 0, "", 0),
    k("KeyO", 79, "KeyO", "o", "O", 0, "", 0),
    k("KeyP", 80, "KeyP", "p", "P", 0, "", 0),
    k("KeyQ", 81, "KeyQ", "q", "Q", 0, "", 0),
    k("KeyR", 82, "KeyR", "r", "R", 0, "", 0),
    k("KeyS", 83, "KeyS", "s", "S", 0, "", 0),
    k("KeyT", 84, "KeyT", "t", "T", 0, "", 0),
    k("KeyU", 85, "KeyU", "u", "U", 0, "", 0),
    k("KeyV", 86, "KeyV", "v", "V", 0, "", 0),
    k("KeyW", 87, "KeyW", "w", "W", 0, "", 0),
    k("KeyX", 88, "KeyX", "x", "X", 0, "", 0),
    k("KeyY", 89, "KeyY", "y", "Y", 0, "", 0),
    k("KeyZ", 90, "KeyZ", "z", "Z", 0, "", 0),
    k("MetaLeft", 91, "MetaLeft", "Meta", "", 0, "", 1),
    k("MetaRight", 92, "MetaRight", "Meta", "", 0, "", 2),
    k("ContextMenu", 93, "ContextMenu", "ContextMenu", "", 0, "", 0),
    k("NumpadMultiply", 106, "NumpadMultiply", "*", "", 0, "", 3),
    k("NumpadAdd", 107, "NumpadAdd", "+", "", 0, "", 3),
    k("NumpadSubtract", 109, "NumpadSubtract", "-", "", 0, "", 3),
    k("NumpadDivide", 111, "NumpadDivide", "/", "", 0, "", 3),
    k("F1", 112, "F1", "F1", "", 0, "", 0),
    k("F2", 113, "F2", "F2", "", 0, "", 0),
    k("F3", 114, "F3", "F3", "", 0, "", 0),
    k("F4", 115, "F4", "F4", "", 0, "", 0),
    k("F5", 116, "F5", "F5", "", 0, "", 0),
    k("F6", 117, "F6", "F6", "", 0, "", 0),
    k("F7", 118, "F7", "F7", "", 0, "", 0),
    k("F8", 119, "F8", "F8", "", 0, "", 0),
    k("F9", 120, "F9", "F9", "", 0, "", 0),
    k("F10", 121, "F10", "F10", "", 0, "", 0),
    k("F11", 122, "F11", "F11", "", 0, "", 0),
    k("F12", 123, "F12", "F12", "", 0, "", 0),
    k("F13", 124, "F13", "F13", "", 0, "", 0),
    k("F14", 125, "F14", "F14", "", 0, "", 0),
    k("F15", 126, "F15", "F15", "", 0, "", 0),
    k("F16", 127, "F16", "F16", "", 0, "", 0),
    k("F17", 128, "F17", "F17", "", 0, "", 0),
    k("F18", 129, "F18", "F18", "", 0, "", 0),
    k("F19", 130, "F19", "F19", "", 0, "", 0),
    k("F20", 131, "F20", "F20", "", 0, "", 0),
    k("F21", 132, "F21", "F21", "", 0, "", 0),
    k("F22", 133, "F22", "F22", "", 0, "", 0),
    k("F23", 134, "F23", "F23", "", 0, "", 0),
    k("F24", 135, "F24", "F24", "", 0, "", 0),
    k("NumLock", 144, "NumLock", "NumLock", "", 0, "", 0),
    k("ScrollLock", 145, "ScrollLock", "ScrollLock", "", 0, "", 0),
    k("AudioVolumeMute", 173, "AudioVolumeMute", "AudioVolumeMute", "", 0, "", 0),
    k("AudioVolumeDown", 174, "AudioVolumeDown", "AudioVolumeDown", "", 0, "", 0),
    k("AudioVolumeUp", 175, "AudioVolumeUp", "AudioVolumeUp", "", 0, "", 0),
    k("MediaTrackNext", 176, "MediaTrackNext", "MediaTrackNext", "", 0, "", 0),
    k("MediaTrackPrevious", 177, "MediaTrackPrevious", "MediaTrackPrevious", "", 0, "", 0),
    k("MediaStop", 178, "MediaStop", "MediaStop", "", 0, "", 0),
    k("MediaPlayPause", 179, "MediaPlayPause", "MediaPlayPause", "", 0, "", 0),
    k("Semicolon", 186, "Semicolon", ";", ":", 0, "", 0),
    k("Equal", 187, "Equal", "=", "+", 0, "", 0),
    k("NumpadEqual", 187, "NumpadEqual", "=", "", 0, "", 3),
    k("Comma", 188, "Comma", ",", "<", 0, "", 0),
    k("Minus", 189, "Minus", "-", "_", 0, "", 0),
    k("Period", 190, "Period", ".", ">", 0, "", 0),
    k("Slash", 191, "Slash", "/", "?", 0, "", 0),
    k("Backquote", 192, "Backquote", "`", "~", 0, "", 0),
    k("BracketLeft", 219, "BracketLeft", "[", "{", 0, "", 0),
    k("Backslash", 220, "Backslash", "\\", "|", 0, "", 0),
    k("BracketRight", 221, "BracketRight", "]", "}", 0, "", 0),
    k("Quote", 222, "Quote", "'", "\"", 0, "", 0),
    k("AltGraph", 225, "AltGraph", "AltGraph", "", 0, "", 0),
    k("Props", 247, "Props", "CrSel", "", 0, "", 0),
    k("Cancel", 3, "Abort", "Cancel", "", 0, "", 0),
    k("Clear", 12, "Numpad5", "Clear", "", 0, "", 3),
    k("Shift", 16, "ShiftLeft", "Shift", "", 0, "", 1),
    k("Control", 17, "ControlLeft", "Control", "", 0, "", 1),
    k("Alt", 18, "AltLeft", "Alt", "", 0, "", 1),
    k("Accept", 30, "", "Accept", "", 0, "", 0),
    k("ModeChange", 31, "", "ModeChange", "", 0, "", 0),
    k(" ", 32, "Space", " ", "", 0, "", 0),
    k("Print", 42, "", "Print", "", 0, "", 0),
    k("Execute", 43, "Open", "Execute", "", 0, "", 0),
    k("\0", 46, "NumpadDecimal", "\0", "", 0, "", 3),
    k("a", 65, "KeyA", "a", "", 0, "", 0),
    k("b", 66, "KeyB", "b", "", 0, "", 0),
    k("c", 67, "KeyC", "c", "", 0, "", 0),
    k("d", 68, "KeyD", "d", "", 0, "", 0),
    k("e", 69, "KeyE", "e", "", 0, "", 0),
    k("f", 70, "KeyF", "f", "", 0, "", 0),
    k("g", 71, "KeyG", "g", "", 0, "", 0),
    k("h", 72, "KeyH", "h", "", 0, "", 0),
    k("i", 73, "KeyI", "i", "", 0, "", 0),
    k("j", 74, "KeyJ", "j", "", 0, "", 0),
    k("k", 75, "KeyK", "k", "", 0, "", 0),
    k("l", 76, "KeyL", "l", "", 0, "", 0),
    k("m", 77, "KeyM", "m", "", 0, "", 0),
    k("n", 78, "KeyN", "n", "", 0, "", 0),
    k("o", 79, "KeyO", "o", "", 0, "", 0),
    k("p", 80, "KeyP", "p", "", 0, "", 0),
    k("q", 81, "KeyQ", "q", "", 0, "", 0),
    k("r", 82, "KeyR", "r", "", 0, "", 0),
    k("s", 83, "KeyS", "s", "", 0, "", 0),
    k("t", 84, "KeyT", "t", "", 0, "", 0),
    k("u", 85, "KeyU", "u", "", 0, "", 0),
    k("v", 86, "KeyV", "v", "", 0, "", 0),
    k("w", 87, "KeyW", "w", "", 0, "", 0),
    k("x", 88, "KeyX", "x", "", 0, "", 0),
    k("y", 89, "KeyY", "y", "", 0, "", 0),
    k("z", 90, "KeyZ", "z", "", 0, "", 0),
    k("Meta", 91, "MetaLeft", "Meta", "", 0, "", 1),
    k("*", 106, "NumpadMultiply", "*", "", 0, "", 3),
    k("+", 107, "NumpadAdd", "+", "", 0, "", 3),
    k("-", 109, "NumpadSubtract", "-", "", 0, "", 3),
    k("/", 111, "NumpadDivide", "/", "", 0, "", 3),
    k(";", 186, "Semicolon", ";", "", 0, "", 0),
    k("=", 187, "Equal", "=", "", 0, "", 0),
    k(",", 188, "Comma", ",", "", 0, "", 0),
    k(".", 190, "Period", ".", "", 0, "", 0),
    k("`", 192, "Backquote", "`", "", 0, "", 0),
    k("[", 219, "BracketLeft", "[", "", 0, "", 0),
    k("\\", 220, "Backslash", "\\", "", 0, "", 0),
    k("]", 221, "BracketRight", "]", "", 0, "", 0),
    k("'", 222, "Quote", "'", "", 0, "", 0),
    k("Attn", 246, "", "Attn", "", 0, "", 0),
    k("CrSel", 247, "Props", "CrSel", "", 0, "", 0),
    k("ExSel", 248, "", "ExSel", "", 0, "", 0),
    k("EraseEof", 249, "", "EraseEof", "", 0, "", 0),
    k("Play", 250, "", "Play", "", 0, "", 0),
    k("ZoomOut", 251, "", "ZoomOut", "", 0, "", 0),
    k(")", 48, "Digit0", ")", "", 0, "", 0),
    k("!", 49, "Digit1", "!", "", 0, "", 0),
    k("@", 50, "Digit2", "@", "", 0, "", 0),
    k("#", 51, "Digit3", "#", "", 0, "", 0),
    k("$", 52, "Digit4", "$", "", 0, "", 0),
    k("%", 53, "Digit5", "%", "", 0, "", 0),
    k("^", 54, "Digit6", "^", "", 0, "", 0),
    k("&", 55, "Digit7", "&", "", 0, "", 0),
    k("(", 57, "Digit9", "(", "", 0, "", 0),
    k("A", 65, "KeyA", "A", "", 0, "", 0),
    k("B", 66, "KeyB", "B", "", 0, "", 0),
    k("C", 67, "KeyC", "C", "", 0, "", 0),
    k("D", 68, "KeyD", "D", "", 0, "", 0),
    k("E", 69, "KeyE", "E", "", 0, "", 0),
    k("F", 70, "KeyF", "F", "", 0, "", 0),
    k("G", 71, "KeyG", "G", "", 0, "", 0),
    k("H", 72, "KeyH", "H", "", 0, "", 0),
    k("I", 73, "KeyI", "I", "", 0, "", 0),
    k("J", 74, "KeyJ", "J", "", 0, "", 0),
    k("K", 75, "KeyK", "K", "", 0, "", 0),
    k("L", 76, "KeyL", "L", "", 0, "", 0),
    k("M", 77, "KeyM", "M", "", 0, "", 0),
    k("N", 78, "KeyN", "N", "", 0, "", 0),
    k("O", 79, "KeyO", "O", "", 0, "", 0),
    k("P", 80, "KeyP", "P", "", 0, "", 0),
    k("Q", 81, "KeyQ", "Q", "", 0, "", 0),
    k("R", 82, "KeyR", "R", "", 0, "", 0),
    k("S", 83, "KeyS", "S", "", 0, "", 0),
    k("T", 84, "KeyT", "T", "", 0, "", 0),
    k("U", 85, "KeyU", "U", "", 0, "", 0),
    k("V", 86, "KeyV", "V", "", 0, "", 0),
    k("W", 87, "KeyW", "W", "", 0, "", 0),
    k("X", 88, "KeyX", "X", "", 0, "", 0),
    k("Y", 89, "KeyY", "Y", "", 0, "", 0),
    k("Z", 90, "KeyZ", "Z", "", 0, "", 0),
    k(":", 186, "Semicolon", ":", "", 0, "", 0),
    k("<", 188, "Comma", "<", "", 0, "", 0),
    k("_", 189, "Minus", "_", "", 0, "", 0),
    k(">", 190, "Period", ">", "", 0, "", 0),
    k("?", 191, "Slash", "?", "", 0, "", 0),
    k("~", 192, "Backquote", "~", "", 0, "", 0),
    k("{", 219, "BracketLeft", "{", "", 0, "", 0),
    k("|", 220, "Backslash", "|", "", 0, "", 0),
    k("}", 221, "BracketRight", "}", "", 0, "", 0),
    k("\"", 222, "Quote", "\"", "", 0, "", 0),
    k("SoftLeft", 0, "SoftLeft", "SoftLeft", "", 0, "", 4),
    k("SoftRight", 0, "SoftRight", "SoftRight", "", 0, "", 4),
    k("Camera", 44, "Camera", "Camera", "", 0, "", 4),
    k("Call", 0, "Call", "Call", "", 0, "", 4),
    k("EndCall", 95, "EndCall", "EndCall", "", 0, "", 4),
    k("VolumeDown", 182, "VolumeDown", "VolumeDown", "", 0, "", 4),
    k("VolumeUp", 183, "VolumeUp", "VolumeUp", "", 0, "", 4),
];

pub(super) fn find(name: &str) -> Option<&'static KeyDef> {
    KEYS.iter().find(|k| k.name == name)
}

/// Modifier bits of `Input.dispatchKeyEvent` / `dispatchMouseEvent`.
pub(super) const ALT: u32 = 1;
pub(super) const CONTROL: u32 = 2;
pub(super) const META: u32 = 4;
pub(super) const SHIFT: u32 = 8;

fn modifier_bit(key: &str) -> u32 {
    match key {
        "Alt" => ALT,
        "Control" => CONTROL,
        "Meta" => META,
        "Shift" => SHIFT,
        _ => 0,
    }
}

fn invalid(name: &str) -> String {
    let all: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
    format!("{name} is invalid. Valid keys are: {}.", all.join(","))
}

/// Splits `Control+Shift+R` into the key to press (`R`) and the modifiers to hold first
/// (`Control`, `Shift`), in order. A `+` right after a separator is the key itself, so
/// `Control++` holds Control and presses `+`.
pub(super) fn parse_combo(input: &str) -> Result<(&'static KeyDef, Vec<&'static KeyDef>), String> {
    let mut parts: Vec<&'static KeyDef> = Vec::new();
    let mut current = String::new();
    for ch in input.chars() {
        if ch == '+' && !current.is_empty() {
            parts.push(find(&current).ok_or_else(|| invalid(&current))?);
            current.clear();
        } else {
            current.push(ch);
        }
    }
    if !current.is_empty() {
        parts.push(find(&current).ok_or_else(|| invalid(&current))?);
    }
    let Some(key) = parts.pop() else {
        return Err(format!("Key {input} could not be parsed."));
    };
    let mut names: Vec<&str> = parts.iter().map(|k| k.name).collect();
    names.push(key.name);
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    if unique.len() != names.len() {
        return Err(format!("Key {input} contains duplicate keys."));
    }
    Ok((key, parts))
}

/// Keeps track of held modifiers and turns key presses into `Input.dispatchKeyEvent` params.
#[derive(Default)]
pub(super) struct Keyboard {
    pub modifiers: u32,
}

struct Described {
    key: &'static str,
    key_code: u32,
    text: &'static str,
}

impl Keyboard {
    fn describe(&self, def: &'static KeyDef) -> Described {
        let shift = self.modifiers & SHIFT != 0;
        let key = if shift && !def.shift_key.is_empty() {
            def.shift_key
        } else {
            def.key
        };
        let key_code = if shift && def.shift_key_code != 0 {
            def.shift_key_code
        } else {
            def.key_code
        };
        let mut text = if key.chars().count() == 1 { key } else { "" };
        if !def.text.is_empty() {
            text = def.text;
        }
        // With Control, Alt or Meta held a key is a shortcut: it types nothing.
        if self.modifiers & !SHIFT != 0 {
            text = "";
        }
        Described {
            key,
            key_code,
            text,
        }
    }

    /// The key-down event (which also types the key's text, if it has one).
    pub(super) fn down(&mut self, def: &'static KeyDef) -> DispatchKeyEventParams {
        let d = self.describe(def);
        self.modifiers |= modifier_bit(d.key);
        let text = (!d.text.is_empty()).then(|| d.text.to_owned());
        DispatchKeyEventParams {
            r#type: if text.is_none() {
                DispatchKeyEventType::RawKeyDown
            } else {
                DispatchKeyEventType::KeyDown
            },
            modifiers: Some(self.modifiers.into()),
            windows_virtual_key_code: Some(d.key_code.into()),
            code: Some(def.code.to_owned()),
            key: Some(d.key.to_owned()),
            auto_repeat: Some(false),
            location: Some(def.location.into()),
            is_keypad: Some(def.location == 3),
            unmodified_text: text.clone(),
            text,
            ..Default::default()
        }
    }

    pub(super) fn up(&mut self, def: &'static KeyDef) -> DispatchKeyEventParams {
        let d = self.describe(def);
        self.modifiers &= !modifier_bit(d.key);
        DispatchKeyEventParams {
            r#type: DispatchKeyEventType::KeyUp,
            modifiers: Some(self.modifiers.into()),
            key: Some(d.key.to_owned()),
            windows_virtual_key_code: Some(d.key_code.into()),
            code: Some(def.code.to_owned()),
            location: Some(def.location.into()),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// An event as it goes on the wire.
    fn json(params: DispatchKeyEventParams) -> Value {
        serde_json::to_value(params).unwrap()
    }

    fn names(combo: &str) -> (String, Vec<String>) {
        let (key, mods) = parse_combo(combo).unwrap();
        (
            key.name.to_owned(),
            mods.iter().map(|m| m.name.to_owned()).collect(),
        )
    }

    #[test]
    fn combinations() {
        assert_eq!(names("Enter"), ("Enter".into(), vec![]));
        assert_eq!(
            names("Control+Shift+R"),
            ("R".into(), vec!["Control".into(), "Shift".into()])
        );
        assert_eq!(names("Control++"), ("+".into(), vec!["Control".into()]));
        assert_eq!(names("+"), ("+".into(), vec![]));
        assert!(parse_combo("").unwrap_err().contains("could not be parsed"));
        assert!(parse_combo("Control+Control")
            .unwrap_err()
            .contains("duplicate"));
        let bad = parse_combo("Ctrl+a").unwrap_err();
        assert!(bad.starts_with("Ctrl is invalid. Valid keys are: 0,1,2,"));
    }

    #[test]
    fn events() {
        let mut kb = Keyboard::default();
        let a = find("a").unwrap();
        let down = json(kb.down(a));
        assert_eq!(down["type"], "keyDown");
        assert_eq!(down["text"], "a");
        assert_eq!(down["windowsVirtualKeyCode"], 65);
        let shift = find("Shift").unwrap();
        assert_eq!(json(kb.down(shift))["type"], "rawKeyDown");
        assert_eq!(kb.modifiers, SHIFT);
        // The physical key (KeyA) changes with Shift; the character name "a" does not.
        let key_a = json(kb.down(find("KeyA").unwrap()));
        assert_eq!(key_a["key"], "A");
        assert_eq!(key_a["text"], "A");
        assert_eq!(json(kb.down(a))["key"], "a");
        kb.up(shift);
        assert_eq!(kb.modifiers, 0);
        let control = find("Control").unwrap();
        kb.down(control);
        let ctrl_a = json(kb.down(a));
        assert_eq!(ctrl_a["type"], "rawKeyDown");
        assert!(ctrl_a.get("text").is_none());
        assert_eq!(ctrl_a["modifiers"], CONTROL);
        let enter = find("Enter").unwrap();
        kb.up(control);
        assert_eq!(json(kb.down(enter))["text"], "\r");
    }
}
