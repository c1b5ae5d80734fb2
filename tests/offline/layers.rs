//! The architecture's invariants, checked on the source text (see ARCHITECTURE.md):
//!
//! - the top-level modules form a one-way stack, `cdp` ← `browser` ← `pagetools` ← `tools`
//!   ← `mcp` ← `app`: a module names only modules below it, and the building blocks
//!   (`error`, `log`, `settings`, `timers`) name no layer;
//! - no CDP method or event name is written as a string outside `src/cdp` and `src/browser`
//!   (everything above sends generated types);
//! - no function is over 80 lines, and no hand-written file over 1,000 (a sanity limit: a
//!   file's size is the reader's judgement, not a number's);
//! - in `tests/`, only the real-browser tests have `browser::` in their names, the filter by
//!   which `.ci/test` runs them on each browser build;
//! - no import cycle among the files of one folder of `src/` is larger than two files (see
//!   `layers/cycles.rs` for what counts as a cycle).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

mod cycles;

/// Each top-level module's place in the stack. Building blocks are 0: every layer may use
/// them, and they use none.
const LAYERS: &[(&str, u32)] = &[
    ("error", 0),
    ("headers", 0),
    ("heap", 0),
    ("log", 0),
    ("numbers", 0),
    ("paging", 0),
    ("schema_problems", 0),
    ("settings", 0),
    ("sourcemap", 0),
    ("timers", 0),
    ("trace", 0),
    ("cdp", 1),
    ("browser", 2),
    ("pagetools", 3),
    ("tools", 4),
    ("mcp", 5),
    ("app", 6),
];

fn rank(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, r)| *r)
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`src/tools/input/click.rs` → `tools`).
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap_or(file);
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    first.unwrap_or_default().trim_end_matches(".rs").to_owned()
}

/// The source with comments blanked out (string literals kept: the CDP check reads them).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            // A char literal holding a quote must not open a string.
            ('\'', Some('"')) => {
                out.push_str("'\"");
                chars.next();
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The top-level modules a file's code names through `crate::…` paths (in `use` items and
/// inline), with the line of each.
fn crate_paths(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let braced = after.starts_with('{');
            if braced {
                // `use crate::{a, b::c}`: every first segment inside the braces.
                let inner = after[1..].split('}').next().unwrap_or("");
                for part in inner.split(',') {
                    let first = part.trim().split("::").next().unwrap_or("").trim();
                    if !first.is_empty() {
                        found.push((n + 1, first.to_owned()));
                    }
                }
            } else if !name.is_empty() {
                found.push((n + 1, name));
            }
            rest = after;
        }
    }
    found
}

#[test]
fn layers_only_name_the_layers_below() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let module = module_of(file);
        let Some(own) = rank(&module) else {
            continue; // lib.rs and main.rs sit above everything
        };
        let code = without_comments(&fs::read_to_string(file).unwrap_or_default());
        for (line, named) in crate_paths(&code) {
            if named == module {
                continue;
            }
            let allowed = match rank(&named) {
                Some(0) => true,
                Some(r) => own != 0 && r < own,
                None => false,
            };
            if !allowed {
                let rel = file
                    .strip_prefix(src())
                    .unwrap_or(file)
                    .display()
                    .to_string();
                wrong.push(format!("src/{rel}:{line}: `{module}` names `{named}`"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that go up (or sideways into a building block) the stack \
         cdp <- browser <- pagetools <- tools <- mcp <- app:\n  {}",
        wrong.join("\n  ")
    );
}

/// The protocol's domain names, from the vendored JSON.
fn domains() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for name in ["browser_protocol.json", "js_protocol.json"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("protocol")
            .join(name);
        let text = fs::read_to_string(path).unwrap_or_default();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        for d in json["domains"].as_array().into_iter().flatten() {
            if let Some(n) = d["domain"].as_str() {
                out.insert(n.to_owned());
            }
        }
    }
    out
}

/// String literals of the form `"Domain.name"` whose domain is a protocol domain.
fn cdp_literals(code: &str, domains: &BTreeSet<String>) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        for (i, piece) in line.split('"').enumerate() {
            if i % 2 == 0 {
                continue; // outside quotes
            }
            let Some((domain, name)) = piece.split_once('.') else {
                continue;
            };
            let is_name = !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric())
                && name.starts_with(|c: char| c.is_ascii_lowercase());
            if is_name && domains.contains(domain) {
                found.push((n + 1, piece.to_owned()));
            }
        }
    }
    found
}

#[test]
fn cdp_names_are_written_only_in_cdp_and_browser() {
    let domains = domains();
    assert!(domains.contains("Runtime") && domains.contains("Page"));
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut raw = Vec::new();
    for file in &files {
        let module = module_of(file);
        if module == "cdp" || module == "browser" {
            continue;
        }
        let code = without_comments(&fs::read_to_string(file).unwrap_or_default());
        for (line, name) in cdp_literals(&code, &domains) {
            let rel = file
                .strip_prefix(src())
                .unwrap_or(file)
                .display()
                .to_string();
            raw.push(format!("src/{rel}:{line}: \"{name}\""));
        }
    }
    assert!(
        raw.is_empty(),
        "CDP names written as strings above the browser layer (send the generated type):\n  {}",
        raw.join("\n  ")
    );
}

/// The code with the contents of string and char literals blanked (braces in a literal are
/// not the code's). Raw strings (`r#"…"#`) are blanked to their closing quote and hashes.
fn without_literals(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let raw_start = c == 'r' && matches!(chars.get(i + 1), Some('"') | Some('#'));
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if raw_start && !ident_before {
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) == Some(&'"') {
                let close: String = std::iter::once('"')
                    .chain("#".repeat(hashes).chars())
                    .collect();
                let body_start = i + 2 + hashes;
                let rest: String = chars[body_start..].iter().collect();
                let len = rest
                    .find(&close)
                    .map_or(rest.chars().count(), |b| rest[..b].chars().count());
                out.push_str("r\"");
                out.extend(chars[body_start..body_start + len].iter().map(|c| {
                    if *c == '\n' {
                        '\n'
                    } else {
                        ' '
                    }
                }));
                out.push('"');
                i = body_start + len + close.chars().count();
                continue;
            }
        }
        if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(if chars[i] == '\n' { '\n' } else { ' ' });
                }
                i += 1;
            }
            out.push('"');
            i += 1;
            continue;
        }
        // A char literal ('{', '\'', '\\'), not a lifetime ('a).
        if c == '\'' {
            let lit = match (chars.get(i + 1), chars.get(i + 2), chars.get(i + 3)) {
                (Some('\\'), Some(_), Some('\'')) => 4,
                (Some(_), Some('\''), _) => 3,
                _ => 0,
            };
            if lit > 0 {
                out.push_str("' '");
                i += lit;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The length of each function (its `fn` line to the line of its closing brace).
fn function_lengths(code: &str) -> Vec<(usize, usize, String)> {
    let code = without_literals(code);
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let is_fn = t.starts_with("fn ")
            || t.starts_with("pub fn ")
            || t.starts_with("pub(crate) fn ")
            || t.starts_with("pub(super) fn ")
            || t.starts_with("async fn ");
        if !is_fn {
            continue;
        }
        let name = t
            .split("fn ")
            .nth(1)
            .unwrap_or("")
            .split(['(', '<'])
            .next()
            .unwrap_or("");
        let mut depth = 0i32;
        let mut opened = false;
        for (i, l) in lines.iter().enumerate().skip(start) {
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened && depth == 0 => break,
                    _ => {}
                }
            }
            if !opened && l.trim_end().ends_with(';') {
                break; // a declaration without a body
            }
            if opened && depth <= 0 {
                out.push((start + 1, i - start + 1, name.to_owned()));
                break;
            }
        }
    }
    out
}

#[test]
fn the_browser_filter_picks_only_browser_tests() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = Vec::new();
    rust_files(&tests, &mut files);
    let mut outside = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&tests).unwrap_or(file);
        if rel.starts_with("browser") {
            continue;
        }
        outside += 1;
        // The module path the file's tests are named by; no segment may end in `browser`.
        let path: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .filter(|s| s != "mod")
            .collect();
        if path.iter().any(|s| s.ends_with("browser")) {
            wrong.push(path.join("::"));
        }
    }
    assert!(outside > 20, "the walk found only {outside} files");
    assert!(
        wrong.is_empty(),
        "modules outside tests/browser/ whose tests `cargo test -- browser::` would run: {wrong:?}"
    );
}

/// The most lines a function may have.
const MAX_FN_LINES: usize = 80;
/// The most lines a hand-written file may have: far above any file written to be read.
const MAX_FILE_LINES: usize = 1000;

#[test]
fn files_and_functions_stay_small() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        rust_files(&root.join(dir), &mut files);
    }
    let shim = src().join("pagetools/shim");
    files.extend(
        fs::read_dir(shim)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path()),
    );
    let mut too_big = Vec::new();
    for file in &files {
        if file.ends_with("cdp/generated.rs") {
            continue; // generated, never edited by hand
        }
        let text = fs::read_to_string(file).unwrap_or_default();
        let rel = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        let count = text.lines().count();
        if count > MAX_FILE_LINES {
            too_big.push(format!("{rel}: {count} lines (at most {MAX_FILE_LINES})"));
        }
        if file.extension().is_some_and(|e| e != "rs") {
            continue; // the shim's functions are counted by its own review
        }
        let code = without_comments(&text);
        for (line, len, name) in function_lengths(&code) {
            if len > MAX_FN_LINES {
                too_big.push(format!(
                    "{rel}:{line}: fn {name} is {len} lines (at most {MAX_FN_LINES})"
                ));
            }
        }
    }
    assert!(
        files.len() > 50,
        "the walk found only {} files",
        files.len()
    );
    assert!(too_big.is_empty(), "too big:\n  {}", too_big.join("\n  "));
}

#[test]
fn the_checks_see_what_they_look_for() {
    // A positive control for each check, so a scanner that sees nothing cannot pass.
    let code = without_comments(
        "use crate::tools::Ctx; // crate::mcp in a comment\nlet s = \"Runtime.evaluate\";\n",
    );
    assert_eq!(crate_paths(&code), vec![(1, "tools".to_owned())]);
    let braced = crate_paths("use crate::{browser::Host, mcp};");
    assert_eq!(braced, vec![(1, "browser".into()), (1, "mcp".into())]);
    let domains: BTreeSet<String> = ["Runtime".to_owned()].into();
    assert_eq!(
        cdp_literals(&code, &domains),
        vec![(2, "Runtime.evaluate".into())]
    );
    assert!(cdp_literals("\"Runtime.Evaluate x\" \"a.b\"", &domains).is_empty());
    let f = function_lengths("fn a() {\n    1\n}\nfn b();\npub fn c() { }\n");
    assert_eq!(f, vec![(1, 3, "a".into()), (5, 1, "c".into())]);
    // Braces in literals are not the code's.
    let code = "fn d() {\n    let s = \"{{\";\n    let r = r#\"}\"#;\n    let c = '{';\n}\nfn e<'a>() {}\n";
    let f = function_lengths(code);
    assert_eq!(f, vec![(1, 5, "d".into()), (6, 1, "e".into())]);
}

/// The largest cycle a folder may have: a module and a child that name each other (the child
/// re-exported, the parent's shared items used) is two files and needs no untangling.
const ALLOWED_CYCLE: usize = 2;

#[test]
fn no_import_cycle_over_two_files() {
    let mut paths = Vec::new();
    rust_files(&src(), &mut paths);
    let sources: BTreeMap<String, String> = paths
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(src()).unwrap_or(p);
            let text = fs::read_to_string(p).unwrap_or_default();
            (rel.display().to_string(), text)
        })
        .collect();
    let cycles::Crate {
        files,
        namings,
        test_files,
    } = cycles::read_crate(&sources);
    // Every file is in the module tree but the binary's and the unit tests' own.
    let reached: BTreeSet<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let unreached: Vec<&String> = sources
        .keys()
        .filter(|n| !reached.contains(n.as_str()) && !test_files.contains(n))
        .filter(|n| *n != "main.rs")
        .collect();
    assert!(
        unreached.is_empty() && files.len() > 100,
        "the module tree has {} files and misses {unreached:?}",
        files.len()
    );
    let found = cycles::cycles(&files, &namings);
    println!("The largest import cycle of each folder of src/ (files of its subfolders included):");
    for (folder, cycles) in &found {
        match cycles.first() {
            Some(c) => println!("  {folder}: {} ({})", c.nodes.len(), c.nodes.join(", ")),
            None => println!("  {folder}: none"),
        }
    }
    let problems = cycles::judge(&found, ALLOWED_CYCLE);
    assert!(
        problems.is_empty(),
        "import cycles among the files of a folder (at most {ALLOWED_CYCLE} files):\n  {}",
        problems.join("\n  ")
    );
}
