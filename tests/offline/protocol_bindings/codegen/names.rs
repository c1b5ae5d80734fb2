//! How protocol names and descriptions are spelled in the generated Rust.

use serde_json::Value;

/// Writes the first sentence of a definition's description as a `///` line, marking
/// deprecated entries.
pub(super) fn push_doc(out: &mut String, indent: &str, def: &Value) {
    let description = def.get("description").and_then(Value::as_str).unwrap_or("");
    let mut text = first_sentence(description);
    if def.get("deprecated").and_then(Value::as_bool) == Some(true) {
        text = if text.is_empty() {
            "Deprecated.".to_string()
        } else {
            format!("{text} (Deprecated.)")
        };
    }
    if !text.is_empty() {
        out.push_str(&format!("{indent}/// {text}\n"));
    }
}

/// The first sentence of a description, on one line.
pub(super) fn first_sentence(description: &str) -> String {
    let flat: String = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut end = flat.len();
    let mut search = 0;
    while let Some(found) = flat[search..].find(". ") {
        let at = search + found;
        let before = &flat[..at];
        let abbreviation = ["e.g", "i.e", "etc", "vs"]
            .iter()
            .any(|a| before.ends_with(a));
        if !abbreviation {
            end = at + 1;
            break;
        }
        search = at + 2;
    }
    flat[..end].trim().to_string()
}

/// `backendDOMNodeId` → `backend_dom_node_id`, `DOMDebugger` → `dom_debugger`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// A struct field name: snake case, with Rust keywords made raw (`r#type`).
pub(super) fn field_name(wire: &str) -> String {
    let snake = snake_case(wire);
    match snake.as_str() {
        "self" | "super" | "crate" => format!("{snake}_"),
        "as" | "async" | "await" | "break" | "const" | "continue" | "dyn" | "else" | "enum"
        | "extern" | "false" | "fn" | "for" | "if" | "impl" | "in" | "let" | "loop" | "match"
        | "mod" | "move" | "mut" | "pub" | "ref" | "return" | "static" | "struct" | "trait"
        | "true" | "type" | "unsafe" | "use" | "where" | "while" | "abstract" | "become"
        | "box" | "do" | "final" | "gen" | "macro" | "override" | "priv" | "try" | "typeof"
        | "unsized" | "virtual" | "yield" => format!("r#{snake}"),
        _ => snake,
    }
}

/// An enum value as a variant name: `mousePressed` → `MousePressed`,
/// `prefers-color-scheme` → `PrefersColorScheme`, `XHR` → `Xhr`.
pub(super) fn variant_name(wire: &str) -> String {
    let mut out = String::new();
    for part in wire.split(|c: char| !c.is_ascii_alphanumeric()) {
        if part.is_empty() {
            continue;
        }
        let all_caps = part.len() > 1 && !part.chars().any(|c| c.is_ascii_lowercase());
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            if all_caps {
                out.extend(chars.map(|c| c.to_ascii_lowercase()));
            } else {
                out.extend(chars);
            }
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    if out == "Self" {
        out.push('_');
    }
    out
}

pub fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}
