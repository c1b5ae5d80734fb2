//! How the shim's parts become the one script the server installs. build.rs runs this at
//! every build and writes the result to `$OUT_DIR/shim.js`, which `pagetools::shim()`
//! includes; the crate's tests use it to check that text.
//!
//! The parts are the `*.js` files beside this one, each a script that parses alone, joined
//! in file-name order as the body of ONE function expression called at once: they share its
//! scope, and nothing they declare reaches the page except through `window.__dtmcp`. No part
//! returns; the wrapper does, after the first part (what `refusal()` answers, when it is not
//! null: an iframe, or a window that has a shim already, stops before the built-ins are
//! captured) and at the end (what `publish()` answers). The contract is at the top of the
//! first part.
//!
//! What is installed has no whole-line comments, indentation or blank lines, and a `}` that
//! begins a line is on the line before (76 → 41 KB). Each page keeps copies of the installed
//! text in its renderer and in the browser process; the dropped 34 KB were ~0.4 MB of
//! anonymous memory per page (measured, see ARCHITECTURE.md "Lean browser"). No literal in
//! the shim spans lines (a test checks), so every dropped line is whitespace or a comment,
//! and every line a `}` begins is code.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Before the first part.
pub(crate) const OPEN: &str = "(function () {\n'use strict';\n";
/// Between the first part and the second.
pub(crate) const AFTER_FIRST: &str =
    "var refused = refusal();\nif (refused !== null) return refused;\n";
/// After the last part.
pub(crate) const CLOSE: &str = "return publish();\n})();\n";

/// The parts in `dir`, in the order they are joined: file-name order.
pub(crate) fn parts(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut parts = Vec::new();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "js") {
            parts.push(path);
        }
    }
    parts.sort();
    Ok(parts)
}

/// The parts in `dir` joined into the script, comments and all.
pub(crate) fn joined(dir: &Path) -> io::Result<String> {
    let mut script = String::from(OPEN);
    for (i, part) in parts(dir)?.iter().enumerate() {
        let text = fs::read_to_string(part)?;
        script.push_str(&text);
        if !text.ends_with('\n') {
            script.push('\n');
        }
        if i == 0 {
            script.push_str(AFTER_FIRST);
        }
    }
    script.push_str(CLOSE);
    Ok(script)
}

/// The script as installed: [`joined`], [`stripped`].
pub(crate) fn installed(dir: &Path) -> io::Result<String> {
    joined(dir).map(|script| stripped(&script))
}

/// `source` without its comments, indentation and blank lines, and with each closing brace
/// that begins a line on the line before.
pub(crate) fn stripped(source: &str) -> String {
    closing_braces_raised(&without_comments(source))
}

/// `source` without whole-line `//` comments, `/* */` comments that begin a line, leading
/// and trailing whitespace, and blank lines; code after a comment's `*/` on its last line
/// is kept.
pub(crate) fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut in_block = false;
    for line in source.lines() {
        let mut code = line.trim();
        if !in_block && code.starts_with("/*") {
            in_block = true;
            code = &code[2..];
        }
        if in_block {
            let Some(end) = code.find("*/") else {
                continue;
            };
            in_block = false;
            code = code[end + 2..].trim_start();
        }
        if code.is_empty() || code.starts_with("//") {
            continue;
        }
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// `code` (lines of code, no comment lines) with each line that begins with `}` appended to
/// the line before it, unless a comment may run to the end of that line (`//`, or `<!--`,
/// which also opens one in a classic script). A line break before a `}` changes nothing in
/// JavaScript: the only semicolon it could make the parser insert is inserted before a `}`
/// anyway, and no literal spans lines. This drops a few hundred bytes (one per such line).
pub(crate) fn closing_braces_raised(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    for line in code.lines() {
        if line.starts_with('}') && out.ends_with('\n') {
            let before = &out[..out.len() - 1];
            let last = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
            if !last.contains("//") && !last.contains("<!--") {
                out.pop();
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}
