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
//! What is installed has no whole-line comments, indentation or blank lines (76 → 42 KB).
//! Each page keeps copies of the installed text in its renderer and in the browser process;
//! the dropped 34 KB were ~0.4 MB of anonymous memory per page (measured, see ARCHITECTURE.md
//! "Lean browser"). No literal in the shim spans lines (a test checks), so every dropped
//! line is whitespace or a comment.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Before the first part.
pub const OPEN: &str = "(function () {\n'use strict';\n";
/// Between the first part and the second.
pub const AFTER_FIRST: &str = "var refused = refusal();\nif (refused !== null) return refused;\n";
/// After the last part.
pub const CLOSE: &str = "return publish();\n})();\n";

/// The parts in `dir`, in the order they are joined: file-name order.
pub fn parts(dir: &Path) -> io::Result<Vec<PathBuf>> {
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
pub fn joined(dir: &Path) -> io::Result<String> {
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

/// The script as installed: [`joined`] without its comments, indentation and blank lines.
pub fn installed(dir: &Path) -> io::Result<String> {
    joined(dir).map(|script| without_comments(&script))
}

/// `source` without whole-line `//` comments, `/* */` comments that begin a line, leading
/// and trailing whitespace, and blank lines; code after a comment's `*/` on its last line
/// is kept.
pub fn without_comments(source: &str) -> String {
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
