//! Import cycles among the files of `src/`.
//!
//! The module tree is read from the `mod` declarations, starting at `lib.rs` (test modules left
//! out: they name what they test, not what the code needs). File A names file B when A's code
//! holds a path that resolves into B: `crate::a::b::x`, `super::x::y`, `self::x`, a child's
//! name in its parent (`input::TOOLS`), in `use` trees and inline alike; a path is taken as
//! far as it names modules, and through the re-exports (`pub use`) of the modules it passes,
//! so `super::Ctx` names the file that defines `Ctx`, wherever the parent re-exports it from.
//! A module naming one of its own descendants is not an import (a module contains its
//! children); declaring a child (`mod x;`) is not naming it, and `#[cfg(test)]` items are not
//! read. A strongly connected component of two or more files is a cycle; it belongs to the
//! deepest folder that holds all its files.

use std::collections::{BTreeMap, BTreeSet};

use super::{without_comments, without_literals};

/// A module's path from the crate root: `["tools", "input", "drag"]`.
type ModPath = Vec<String>;

/// One file of the crate's module tree.
#[derive(Debug)]
pub struct File {
    /// Relative to `src/`: `tools/input/drag.rs`.
    pub name: String,
    pub module: ModPath,
}

/// File `from` names file `to` (indexes into the files) at `line` with `path` (as written).
#[derive(Clone, Debug)]
pub struct Naming {
    pub from: usize,
    pub to: usize,
    pub line: usize,
    pub path: String,
}

/// One cycle: its nodes (file names relative to the folder; a subtree ends in `/`) and the
/// namings that tie them.
#[derive(Debug)]
pub struct Cycle {
    pub nodes: Vec<String>,
    pub ties: Vec<String>,
}

/// The crate as [`read_crate`] reads it.
pub struct Crate {
    /// Its files, in module order.
    pub files: Vec<File>,
    /// What each file names.
    pub namings: Vec<Naming>,
    /// The files of test modules, left out.
    pub test_files: Vec<String>,
}

/// The crate's files (from `lib.rs` down the `mod` declarations) and what each names, read
/// from `sources`: file text by name relative to `src/`.
pub fn read_crate(sources: &BTreeMap<String, String>) -> Crate {
    let mut parsed = Vec::new();
    let mut test_files = Vec::new();
    let mut queue = vec![("lib.rs".to_owned(), ModPath::new())];
    while let Some((name, module)) = queue.pop() {
        let Some(text) = sources.get(&name) else {
            continue;
        };
        let code = without_comments(text);
        let tokens = tokens(&without_literals(&code));
        let mut children = Vec::new();
        for child in declared_children(&tokens, &code) {
            let file = match &child.path {
                Some(p) => format!("{}{p}", parent_dir(&name)),
                None => {
                    let dir = children_dir(&name);
                    let flat = format!("{dir}{}.rs", child.name);
                    if sources.contains_key(&flat) {
                        flat
                    } else {
                        format!("{dir}{}/mod.rs", child.name)
                    }
                }
            };
            if child.test {
                test_files.push(file);
                continue;
            }
            let mut path = module.clone();
            path.push(child.name.clone());
            queue.push((file, path));
            children.push(child.name);
        }
        parsed.push((File { name, module }, tokens, children));
    }
    parsed.sort_by(|a, b| a.0.module.cmp(&b.0.module));
    let by_module: BTreeMap<ModPath, usize> = parsed
        .iter()
        .enumerate()
        .map(|(i, (f, _, _))| (f.module.clone(), i))
        .collect();
    let reexports = reexports(&parsed);
    let mut namings = Vec::new();
    for (from, (file, tokens, children)) in parsed.iter().enumerate() {
        for (line, inline, path) in named_paths(tokens, children) {
            let Some(target) = resolve(&file.module, &inline, &path, children) else {
                continue;
            };
            let to = file_of(&target, &by_module, &reexports);
            if let Some(to) = to.filter(|to| *to != from) {
                let path = path.join("::");
                namings.push(Naming {
                    from,
                    to,
                    line,
                    path,
                });
            }
        }
    }
    Crate {
        files: parsed.into_iter().map(|(f, _, _)| f).collect(),
        namings,
        test_files,
    }
}

/// What each module re-exports: (module, name) → the path the name stands for.
type Reexports = BTreeMap<(ModPath, String), ModPath>;

fn reexports(parsed: &[(File, Vec<Token>, Vec<String>)]) -> Reexports {
    let mut out = Reexports::new();
    for (file, tokens, children) in parsed {
        for (i, t) in tokens.iter().enumerate() {
            let next = |k: usize| tokens.get(i + k).map(|n| n.text.as_str());
            let start = match (t.text.as_str(), next(1), next(4)) {
                ("pub", Some("use"), _) => i + 2,
                ("pub", Some("("), Some("use")) => i + 5,
                _ => continue,
            };
            if is_test_item(tokens, i) {
                continue;
            }
            let end = tokens[start..]
                .iter()
                .position(|t| t.text == ";")
                .map_or(tokens.len(), |e| start + e);
            let mut leaves = Vec::new();
            use_tree(&tokens[start..end], Vec::new(), &mut leaves);
            for leaf in leaves {
                let Some(name) = leaf.last().cloned() else {
                    continue;
                };
                if let Some(target) = resolve(&file.module, &[], &leaf, children) {
                    out.insert((file.module.clone(), name), target);
                }
            }
        }
    }
    out
}

/// The file a resolved path names: as far as the path names modules (the longest prefix
/// that is a file), through the re-exports of that module (a bounded number of hops).
fn file_of(
    target: &[String],
    by_module: &BTreeMap<ModPath, usize>,
    reexports: &Reexports,
) -> Option<usize> {
    let mut target = target.to_vec();
    for _ in 0..8 {
        let n = (0..=target.len())
            .rev()
            .find(|n| by_module.contains_key(&target[..*n]))?;
        let Some(name) = target.get(n) else {
            return by_module.get(&target[..n]).copied();
        };
        let key = (target[..n].to_vec(), name.clone());
        match reexports.get(&key) {
            Some(through) if through[..] != target[..=n] => {
                let mut next = through.clone();
                next.extend(target[n + 1..].iter().cloned());
                target = next;
            }
            _ => return by_module.get(&target[..n]).copied(),
        }
    }
    None
}

/// The folder of a module's children: `tools/mod.rs` → `tools/`, `tools/input.rs` →
/// `tools/input/`, `lib.rs` → ``.
fn children_dir(name: &str) -> String {
    let (dir, file) = name.rsplit_once('/').map_or(("", name), |(d, f)| (d, f));
    let dir = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    match file {
        "mod.rs" | "lib.rs" | "main.rs" => dir,
        _ => format!("{dir}{}/", file.trim_end_matches(".rs")),
    }
}

/// The folder a file is in, for `#[path]`: `tools/files.rs` → `tools/`.
fn parent_dir(name: &str) -> String {
    name.rsplit_once('/')
        .map_or(String::new(), |(d, _)| format!("{d}/"))
}

/// A token of code without comments and literals, with its line (from 1).
#[derive(Clone, Debug, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let start = i;
            if c.is_alphanumeric() || c == '_' {
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            } else if c == ':' && chars.get(i + 1) == Some(&':') {
                i += 2;
            } else if c.is_whitespace() {
                i += 1;
                continue;
            } else {
                i += 1;
            }
            out.push(Token {
                text: chars[start..i].iter().collect(),
                line: n + 1,
            });
        }
    }
    out
}

fn is_ident(text: &str) -> bool {
    text.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// Whether the item that starts after the last `;`, `{` or `}` before `at` carries
/// `#[cfg(test)]`.
fn is_test_item(tokens: &[Token], at: usize) -> bool {
    let start = tokens[..at]
        .iter()
        .rposition(|t| matches!(t.text.as_str(), ";" | "{" | "}"))
        .map_or(0, |i| i + 1);
    let prefix = &tokens[start..at];
    prefix.iter().any(|t| t.text == "cfg") && prefix.iter().any(|t| t.text == "test")
}

/// A `mod name;` declaration.
struct Declared {
    name: String,
    /// The file its `#[path]` names, if any.
    path: Option<String>,
    /// Whether it is `#[cfg(test)]`.
    test: bool,
}

/// The `mod name;` declarations outside inline modules (`#[path]` read from `code`, which still
/// has its literals).
fn declared_children(tokens: &[Token], code: &str) -> Vec<Declared> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    let mut depth = 0;
    for (i, t) in tokens.iter().enumerate() {
        match t.text.as_str() {
            "{" => depth += 1,
            "}" => depth -= 1,
            "mod" if depth == 0 => {
                let (Some(name), Some(end)) = (tokens.get(i + 1), tokens.get(i + 2)) else {
                    continue;
                };
                if end.text != ";" {
                    continue;
                }
                let start = tokens[..i]
                    .iter()
                    .rposition(|t| matches!(t.text.as_str(), ";" | "{" | "}"))
                    .map_or(0, |s| s + 1);
                let path = tokens[start..i]
                    .iter()
                    .find(|t| t.text == "path")
                    .and_then(|t| lines.get(t.line - 1))
                    .and_then(|l| l.split('"').nth(1))
                    .map(str::to_owned);
                out.push(Declared {
                    name: name.text.clone(),
                    path,
                    test: is_test_item(tokens, i),
                });
            }
            _ => {}
        }
    }
    out
}

/// A path the code names: its line, the inline modules it is written in, the path.
type Named = (usize, Vec<String>, Vec<String>);

/// Every path the code names: the leaves of `use` trees, and inline paths that start at
/// `crate`, `super`, `self` or a child module (`input::TOOLS`). Code in test modules is left
/// out.
fn named_paths(tokens: &[Token], children: &[String]) -> Vec<Named> {
    let mut out = Vec::new();
    // Open inline modules: (brace depth inside them, name, is a test module).
    let mut inline: Vec<(i32, String, bool)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i].text;
        let prev = i.checked_sub(1).map(|p| tokens[p].text.as_str());
        let next = tokens.get(i + 1).map(|n| n.text.as_str());
        let in_test = inline.iter().any(|(_, _, test)| *test);
        let here: Vec<String> = inline.iter().map(|(_, n, _)| n.clone()).collect();
        match t.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if inline.last().is_some_and(|(d, _, _)| depth < *d) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(i + 2).is_some_and(|b| b.text == "{") => {
                let name = next.unwrap_or_default().to_owned();
                inline.push((depth + 1, name, is_test_item(tokens, i)));
            }
            "use" if prev != Some("::") => {
                let end = tokens[i..]
                    .iter()
                    .position(|t| t.text == ";")
                    .map_or(tokens.len(), |e| i + e);
                if !in_test && !is_test_item(tokens, i) {
                    let mut leaves = Vec::new();
                    use_tree(&tokens[i + 1..end], Vec::new(), &mut leaves);
                    for leaf in leaves {
                        out.push((tokens[i].line, here.clone(), leaf));
                    }
                }
                i = end;
                continue;
            }
            _ if next == Some("::") && prev != Some("::") && prev != Some("$") && !in_test => {
                let starts = matches!(t.as_str(), "crate" | "super" | "self")
                    || (inline.is_empty() && children.contains(t));
                if starts {
                    let mut path = vec![t.clone()];
                    let mut j = i + 1;
                    while tokens.get(j).is_some_and(|c| c.text == "::")
                        && tokens.get(j + 1).is_some_and(|s| is_ident(&s.text))
                    {
                        path.push(tokens[j + 1].text.clone());
                        j += 2;
                    }
                    out.push((tokens[i].line, here, path));
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The leaves of a `use` tree (`a::{b, c::{self, d}}` → `a::b`, `a::c`, `a::c::d`), each
/// after `prefix`. A glob names its module.
fn use_tree(tokens: &[Token], prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].text.as_str();
        match t {
            "::" => {}
            "{" => {
                // Split the braces' contents at the commas of this level.
                let mut level = 0;
                let mut part = i + 1;
                for j in i + 1..tokens.len() {
                    match tokens[j].text.as_str() {
                        "{" => level += 1,
                        "}" if level == 0 => {
                            use_tree(&tokens[part..j], path.clone(), out);
                            return;
                        }
                        "}" => level -= 1,
                        "," if level == 0 => {
                            use_tree(&tokens[part..j], path.clone(), out);
                            part = j + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            "*" | "as" => break,
            "self" if !path.is_empty() => {}
            _ if is_ident(t) => path.push(t.to_owned()),
            _ => {}
        }
        i += 1;
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The module a path names, from the crate root, for code of module `module` written in the
/// inline modules `inline` (where `super` first leaves those); `None` for what is not a path
/// into the crate (`std::…`, `serde_json::…`).
fn resolve(
    module: &[String],
    inline: &[String],
    path: &[String],
    children: &[String],
) -> Option<ModPath> {
    let mut base: ModPath = [module, inline].concat();
    match path.first()?.as_str() {
        "crate" => return Some(path[1..].to_vec()),
        "super" | "self" => {
            let mut rest = path;
            while let Some(("super" | "self", tail)) =
                rest.split_first().map(|(s, t)| (s.as_str(), t))
            {
                if rest[0] == "super" {
                    base.pop()?;
                }
                rest = tail;
            }
            base.extend(rest.iter().cloned());
        }
        first if inline.is_empty() && children.iter().any(|c| c == first) => {
            base.extend(path.iter().cloned())
        }
        _ => return None,
    }
    Some(base)
}

/// The cycles of the crate's files (strongly connected components of two or more files),
/// each in the deepest folder that holds all its files, largest first within a folder;
/// folders in module order. A folder without cycles is listed with none, so every folder can
/// be reported.
pub fn cycles(files: &[File], namings: &[Naming]) -> Vec<(String, Vec<Cycle>)> {
    let contains =
        |a: &File, b: &File| b.module.len() > a.module.len() && b.module.starts_with(&a.module);
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for n in namings {
        let (from, to) = (&files[n.from], &files[n.to]);
        if n.from == n.to || contains(from, to) {
            continue;
        }
        let tie = format!("{}:{} `{}`", from.name, n.line, n.path);
        let key = (from.name.clone(), to.name.clone());
        edges.entry(key).or_default().push(tie);
    }
    let nodes: BTreeSet<String> = files.iter().map(|f| f.name.clone()).collect();
    let mut folders: Vec<(String, Vec<Cycle>)> = Vec::new();
    for f in files {
        let dir = children_dir(&f.name);
        let has_children = files.iter().any(|c| contains(f, c));
        if has_children && !folders.iter().any(|(d, _)| *d == dir) {
            folders.push((dir, Vec::new()));
        }
    }
    for component in components(&nodes, &edges) {
        if component.len() < 2 {
            continue;
        }
        let dir = common_dir(&component);
        let ties = edges
            .iter()
            .filter(|((a, b), _)| component.contains(a) && component.contains(b))
            .map(|((a, b), how)| format!("{} -> {}: {}", strip(a, &dir), strip(b, &dir), how[0]))
            .collect();
        let cycle = Cycle {
            nodes: component.iter().map(|n| strip(n, &dir)).collect(),
            ties,
        };
        match folders.iter_mut().find(|(d, _)| *d == dir) {
            Some((_, found)) => found.push(cycle),
            None => folders.push((dir, vec![cycle])),
        }
    }
    folders
        .into_iter()
        .map(|(dir, mut found)| {
            found.sort_by_key(|c| std::cmp::Reverse(c.nodes.len()));
            (format!("src/{dir}"), found)
        })
        .collect()
}

/// The deepest folder that holds every file of `names`.
fn common_dir(names: &BTreeSet<String>) -> String {
    let dirs: Vec<Vec<&str>> = names
        .iter()
        .map(|n| {
            let mut parts: Vec<&str> = n.split('/').collect();
            parts.pop();
            parts
        })
        .collect();
    let first = dirs.first().cloned().unwrap_or_default();
    let depth = (0..=first.len())
        .rev()
        .find(|d| dirs.iter().all(|p| p.len() >= *d && p[..*d] == first[..*d]))
        .unwrap_or(0);
    first[..depth].iter().map(|p| format!("{p}/")).collect()
}

/// A file's name relative to folder `dir`.
fn strip(name: &str, dir: &str) -> String {
    name.strip_prefix(dir).unwrap_or(name).to_owned()
}

/// The strongly connected components of a graph (Tarjan's algorithm).
fn components(
    nodes: &BTreeSet<String>,
    edges: &BTreeMap<(String, String), Vec<String>>,
) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        next: BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let n = w.index.len();
        w.index.insert(v, n);
        w.low.insert(v, n);
        w.stack.push(v);
        w.on_stack.insert(v);
        for u in w.next.get(v).cloned().unwrap_or_default() {
            if !w.index.contains_key(u) {
                visit(w, u);
                let low = w.low[v].min(w.low[u]);
                w.low.insert(v, low);
            } else if w.on_stack.contains(u) {
                let low = w.low[v].min(w.index[u]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = BTreeSet::new();
            while let Some(u) = w.stack.pop() {
                w.on_stack.remove(u);
                component.insert(u.to_owned());
                if u == v {
                    break;
                }
            }
            w.out.push(component);
        }
    }
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        next.entry(a.as_str()).or_default().push(b.as_str());
    }
    let mut walk = Walk {
        next,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in nodes {
        if !walk.index.contains_key(v.as_str()) {
            visit(&mut walk, v);
        }
    }
    walk.out
}

/// The cycles found of more than `allowed` files, each with the namings that tie it.
pub fn judge(found: &[(String, Vec<Cycle>)], allowed: usize) -> Vec<String> {
    let mut problems = Vec::new();
    for (folder, cycles) in found {
        for cycle in cycles.iter().filter(|c| c.nodes.len() > allowed) {
            problems.push(format!(
                "{folder}: a cycle of {} files: {}\n    tied by:\n      {}",
                cycle.nodes.len(),
                cycle.nodes.join(", "),
                cycle.ties.join("\n      ")
            ));
        }
    }
    problems
}

/// A made-up crate. In folder `a/`: `b` names `c` (through `a`'s parent-held name), `c` names
/// `d/e` (in code), and `e` names `b` through `a`'s re-export of `B`: one cycle of `b.rs`,
/// `c.rs` and `d/e.rs`. `a/mod.rs` naming its children (the re-export, `d::g`) is no import;
/// `b` and `e` naming `a` (`super::A`, `crate::a`) are, but nothing leads back to `a/mod.rs`.
/// Comments, literals and test code name more and are not read; `z`'s inline module names
/// `a::c`, which makes no cycle.
fn made_up() -> Crate {
    let sources: BTreeMap<String, String> = [
        ("lib.rs", "pub mod a;\npub mod z;\n"),
        (
            "a/mod.rs",
            "mod b;\npub mod c;\nmod d;\n#[cfg(test)]\nmod tests;\npub use b::B;\npub struct A;\nfn f() { d::g(); }\n",
        ),
        ("a/b.rs", "use super::{c::C, A};\npub struct B;\n"),
        ("a/c.rs", "pub struct C;\nfn f() { crate::a::d::e::h(); }\n"),
        (
            "a/d.rs",
            "pub mod e;\n// super::b::B in a comment\nlet s = \"super::b::B\";\npub fn g() {}\n",
        ),
        ("a/d/e.rs", "use crate::a::{self as x, B};\npub fn h() {}\n"),
        ("a/tests.rs", "use super::d::g;\nuse super::b::B;\n"),
        (
            "z.rs",
            "mod inner {\n    use super::super::a::c::C;\n}\n\
             #[cfg(test)]\nmod tests {\n    use crate::a::b;\n}\n",
        ),
    ]
    .into_iter()
    .map(|(n, t)| (n.to_owned(), t.to_owned()))
    .collect();
    read_crate(&sources)
}

#[test]
fn the_cycle_finder_sees_what_it_looks_for() {
    let made_up = made_up();
    assert_eq!(made_up.test_files, ["a/tests.rs"]);
    let names: Vec<&str> = made_up.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["lib.rs", "a/mod.rs", "a/b.rs", "a/c.rs", "a/d.rs", "a/d/e.rs", "z.rs"]
    );
    let found = cycles(&made_up.files, &made_up.namings);
    let folders: Vec<&str> = found.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(folders, ["src/", "src/a/", "src/a/d/"]);
    assert!(found[0].1.is_empty(), "{:?}", found[0].1);
    let a = &found[1].1;
    let nodes: Vec<Vec<&str>> = a
        .iter()
        .map(|c| c.nodes.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(nodes, [vec!["b.rs", "c.rs", "d/e.rs"]]);
    let ties = a[0].ties.join("\n");
    for tie in [
        "b.rs -> c.rs: a/b.rs:1 `super::c::C`",
        "c.rs -> d/e.rs: a/c.rs:2 `crate::a::d::e::h`",
        "d/e.rs -> b.rs: a/d/e.rs:1 `crate::a::B`",
    ] {
        assert!(ties.contains(tie), "{tie} not in:\n{ties}");
    }
    assert!(
        !ties.contains("mod.rs") && !ties.contains("tests"),
        "{ties}"
    );
}

#[test]
fn a_cycle_over_the_allowed_size_is_named_with_its_ties() {
    let made_up = made_up();
    let found = cycles(&made_up.files, &made_up.namings);
    assert!(
        judge(&found, 3).is_empty(),
        "a cycle of the allowed size passes"
    );
    let over = judge(&found, 2);
    assert_eq!(over.len(), 1, "{over:?}");
    assert!(
        over[0].starts_with("src/a/: a cycle of 3 files: b.rs, c.rs, d/e.rs"),
        "{over:?}"
    );
    assert!(over[0].contains("tied by:"), "{over:?}");
}
