//! The scanner behind the used.txt tests: what src/ names (string literals and generated type
//! names in code, never in comments) and what protocol/used.txt and the protocol JSON list.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A used.txt entry, written the way used.txt spells it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    pub event: bool,
    /// `Domain.name`
    pub name: String,
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.event {
            write!(f, "event {}", self.name)
        } else {
            f.write_str(&self.name)
        }
    }
}

/// The entries of used.txt, with their line numbers (its syntax is checked by the generator).
pub fn used_entries(text: &str) -> BTreeMap<Entry, usize> {
    let mut entries = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        let entry = match line.strip_prefix("event ") {
            _ if line.is_empty() => continue,
            Some(name) => Entry {
                event: true,
                name: name.trim().to_string(),
            },
            None => Entry {
                event: false,
                name: line.to_string(),
            },
        };
        entries.insert(entry, index + 1);
    }
    entries
}

/// Every `.rs` file under `dir`, in a stable order.
pub fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// One place in the source that names a command or event.
pub struct Mention {
    pub line: usize,
    /// As written: `"Domain.name"` or the (qualified) type name.
    pub text: String,
    /// The used.txt entries it may stand for; empty: a protocol domain, but no such member.
    pub candidates: Vec<Entry>,
}

/// The names the protocol JSON defines.
pub struct ProtocolNames {
    /// Domain → (commands, events).
    domains: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>,
}

impl ProtocolNames {
    pub fn new(files: &[String]) -> ProtocolNames {
        let mut domains = BTreeMap::new();
        for text in files {
            let root: serde_json::Value = serde_json::from_str(text).expect("protocol JSON");
            for domain in root["domains"].as_array().into_iter().flatten() {
                let names = |list: &str| -> BTreeSet<String> {
                    domain[list]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|m| m["name"].as_str().map(String::from))
                        .collect()
                };
                let name = domain["domain"].as_str().unwrap_or_default().to_string();
                domains.insert(name, (names("commands"), names("events")));
            }
        }
        ProtocolNames { domains }
    }

    /// The domain whose generated module is `module` (`dom_debugger` → `DOMDebugger`).
    fn domain_of_module(&self, module: &str) -> Option<&str> {
        self.domains
            .keys()
            .find(|d| super::codegen::snake_case(d) == module)
            .map(String::as_str)
    }

    /// Where `source` names commands or events: `"Domain.name"` literals and generated
    /// `<Method>Params` / `<Name>Event` types (qualified by their module, a `use … as` alias
    /// of it, or not at all — then any domain's type of that name).
    pub fn mentions(&self, source: &Lexed) -> Vec<Mention> {
        let mut found = self.literal_mentions(source);
        found.extend(self.type_mentions(source));
        found
    }

    /// The `"Domain.name"` literals of `source` whose domain is a protocol domain.
    fn literal_mentions(&self, source: &Lexed) -> Vec<Mention> {
        let mut found = Vec::new();
        for (line, literal) in &source.literals {
            let Some((domain, member)) = literal.split_once('.') else {
                continue;
            };
            let Some((commands, events)) = self.domains.get(domain) else {
                continue;
            };
            let looks_like_member = member.starts_with(|c: char| c.is_ascii_lowercase())
                && member.chars().all(|c| c.is_ascii_alphanumeric());
            if !looks_like_member {
                continue;
            }
            let mut candidates = Vec::new();
            if commands.contains(member) {
                candidates.push(Entry {
                    event: false,
                    name: literal.clone(),
                });
            }
            if events.contains(member) {
                candidates.push(Entry {
                    event: true,
                    name: literal.clone(),
                });
            }
            found.push(Mention {
                line: *line,
                text: format!("\"{literal}\""),
                candidates,
            });
        }
        found
    }

    /// The generated `<Method>Params` / `<Name>Event` types that `source` names.
    fn type_mentions(&self, source: &Lexed) -> Vec<Mention> {
        let mut found = Vec::new();
        let tokens = identifiers(&source.code);
        let between = |a: &Token, b: &Token| -> String {
            source.code[a.end..b.start]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect()
        };
        // `use crate::cdp::generated::{page as cdp_page}`
        let mut aliases: BTreeMap<&str, &str> = BTreeMap::new();
        for w in tokens.windows(3) {
            let adjacent = between(&w[0], &w[1]).is_empty() && between(&w[1], &w[2]).is_empty();
            if w[1].text == "as" && adjacent {
                if let Some(domain) = self.domain_of_module(w[0].text) {
                    aliases.insert(w[2].text, domain);
                }
            }
        }
        for (k, token) in tokens.iter().enumerate() {
            let (stem, event) = if let Some(stem) = token.text.strip_suffix("Params") {
                (stem, false)
            } else if let Some(stem) = token.text.strip_suffix("Event") {
                (stem, true)
            } else {
                continue;
            };
            let qualifier = k
                .checked_sub(1)
                .map(|p| &tokens[p])
                .filter(|q| between(q, token) == "::");
            let only = qualifier.and_then(|q| {
                self.domain_of_module(q.text)
                    .or_else(|| aliases.get(q.text).copied())
            });
            let mut candidates = Vec::new();
            for (domain, (commands, events)) in &self.domains {
                if only.is_some_and(|d| d != domain) {
                    continue;
                }
                let members = if event { events } else { commands };
                for member in members {
                    if super::codegen::upper_first(member) == stem {
                        candidates.push(Entry {
                            event,
                            name: format!("{domain}.{member}"),
                        });
                    }
                }
            }
            // Not a generated type (a type of our own that happens to end so).
            if candidates.is_empty() {
                continue;
            }
            let text = match qualifier {
                Some(q) => format!("{}::{}", q.text, token.text),
                None => token.text.to_string(),
            };
            found.push(Mention {
                line: token.line,
                text,
                candidates,
            });
        }
        found
    }
}

/// An identifier in code, by byte offsets.
struct Token<'a> {
    text: &'a str,
    start: usize,
    end: usize,
    line: usize,
}

fn identifiers(code: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut start = None;
    for (i, c) in code.char_indices().chain([(code.len(), ' ')]) {
        if c.is_alphanumeric() || c == '_' {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            tokens.push(Token {
                text: &code[s..i],
                start: s,
                end: i,
                line,
            });
        }
        if c == '\n' {
            line += 1;
        }
    }
    tokens
}

/// A Rust source split into its string literals (with their lines) and the rest of the code,
/// with comments dropped and each literal left as `""` (line breaks are kept, so lines match).
pub struct Lexed {
    pub literals: Vec<(usize, String)>,
    pub code: String,
}

impl Lexed {
    pub fn new(text: &str) -> Lexed {
        let mut lexer = Lexer {
            chars: text.chars().collect(),
            i: 0,
            line: 1,
            literals: Vec::new(),
            code: String::new(),
        };
        lexer.run();
        Lexed {
            literals: lexer.literals,
            code: lexer.code,
        }
    }
}

/// The state of `Lexed::new`: a cursor over the characters and what has been read so far.
struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: usize,
    literals: Vec<(usize, String)>,
    code: String,
}

impl Lexer {
    fn at(&self, i: usize) -> char {
        self.chars.get(i).copied().unwrap_or('\0')
    }

    fn run(&mut self) {
        while self.i < self.chars.len() {
            let c = self.chars[self.i];
            let i = self.i;
            if c == '/' && self.at(i + 1) == '/' {
                while self.i < self.chars.len() && self.chars[self.i] != '\n' {
                    self.i += 1;
                }
            } else if c == '/' && self.at(i + 1) == '*' {
                self.block_comment();
            } else if c.is_alphabetic() || c == '_' {
                self.word();
            } else if c == '"' {
                self.string();
            } else if c == '\'' && (self.at(i + 1) == '\\' || self.at(i + 2) == '\'') {
                // A char literal ('x', '"', '\n', '\''); a lifetime has no closing quote.
                self.i += if self.at(i + 1) == '\\' { 3 } else { 2 };
                while self.i < self.chars.len() && self.chars[self.i] != '\'' {
                    self.i += 1;
                }
                self.i += 1;
                self.code.push_str("' '");
            } else {
                if c == '\n' {
                    self.line += 1;
                }
                self.code.push(c);
                self.i += 1;
            }
        }
    }

    /// A `/* … */` comment, nested ones included; only its line breaks are kept.
    fn block_comment(&mut self) {
        let mut depth = 0;
        while self.i < self.chars.len() {
            let i = self.i;
            if self.chars[i] == '/' && self.at(i + 1) == '*' {
                depth += 1;
                self.i += 2;
            } else if self.chars[i] == '*' && self.at(i + 1) == '/' {
                depth -= 1;
                self.i += 2;
                if depth == 0 {
                    break;
                }
            } else {
                if self.chars[i] == '\n' {
                    self.code.push('\n');
                    self.line += 1;
                }
                self.i += 1;
            }
        }
    }

    /// An identifier or keyword, or the prefix of a raw, byte or C string.
    fn word(&mut self) {
        let start = self.i;
        while self.at(self.i).is_alphanumeric() || self.at(self.i) == '_' {
            self.i += 1;
        }
        let word: String = self.chars[start..self.i].iter().collect();
        let mut hashes = 0;
        while self.at(self.i + hashes) == '#' {
            hashes += 1;
        }
        let raw = matches!(word.as_str(), "r" | "br" | "cr") && self.at(self.i + hashes) == '"';
        if raw {
            self.raw_string(hashes);
        } else if !(matches!(word.as_str(), "b" | "c") && self.at(self.i) == '"') {
            self.code.push_str(&word);
        }
        // b"…" and c"…": the quote is read next, as a plain string.
    }

    /// r#"…"#: up to a quote followed by as many hashes.
    fn raw_string(&mut self, hashes: usize) {
        let start_line = self.line;
        let mut j = self.i + hashes + 1;
        let mut literal = String::new();
        while j < self.chars.len()
            && !(self.chars[j] == '"' && (1..=hashes).all(|h| self.at(j + h) == '#'))
        {
            literal.push(self.chars[j]);
            j += 1;
        }
        self.i = j + 1 + hashes;
        self.literal(start_line, literal);
    }

    /// A plain `"…"` string, escapes kept as written.
    fn string(&mut self) {
        let start_line = self.line;
        let mut literal = String::new();
        self.i += 1;
        while self.i < self.chars.len() && self.chars[self.i] != '"' {
            if self.chars[self.i] == '\\' {
                literal.push(self.chars[self.i]);
                self.i += 1;
            }
            if let Some(&ch) = self.chars.get(self.i) {
                literal.push(ch);
            }
            self.i += 1;
        }
        self.i += 1;
        self.literal(start_line, literal);
    }

    /// Records a literal that started on `start_line` and leaves `""` in the code, followed
    /// by the literal's line breaks.
    fn literal(&mut self, start_line: usize, literal: String) {
        self.line += literal.matches('\n').count();
        self.code.push_str("\"\"");
        self.code
            .extend(std::iter::repeat_n('\n', self.line - start_line));
        self.literals.push((start_line, literal));
    }
}
