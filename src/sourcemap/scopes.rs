//! The function scopes of a generated script and the original name of each, found as
//! DevTools finds them for a map without a `scopes` field: every function, method and arrow
//! is a range of the generated text; a range's name is the map's `names` entry mapped
//! exactly at one of its name positions (the function's name, a method's key, the `(` of
//! its parameters, an arrow's `=>`), else the name the generated code gives it. A frame is
//! named after the innermost range around it that maps into one source; top-level code has
//! no name.
//!
//! A scanner, not a parser: it knows comments, strings, templates, regular expressions,
//! brackets, and the heads of functions, methods and arrows; that is all naming needs.
//! Text it cannot follow (unbalanced brackets) gives no scopes, and the frame keeps the
//! name the browser gave it.

use super::SourceMap;

/// Largest script scanned.
const MAX_SCRIPT_BYTES: usize = 16 << 20;
/// Most functions kept from one script.
const MAX_RANGES: usize = 200_000;
/// Deepest bracket nesting followed.
const MAX_DEPTH: usize = 4_096;

/// A generated position: 0-based line and UTF-16 column, as V8 and source maps count.
type Pos = (u32, u32);

struct Range {
    start: Pos,
    end: Pos,
    name: Option<String>,
    name_at: Vec<Pos>,
}

/// One script's function ranges, the root first.
pub(crate) struct Scopes {
    ranges: Vec<Range>,
}

impl Scopes {
    /// Scans a generated script; `None` when it is too big or cannot be followed.
    pub(crate) fn scan(text: &str) -> Option<Scopes> {
        if text.len() > MAX_SCRIPT_BYTES {
            return None;
        }
        let raw = Scanner::new(text).run()?;
        Some(Scopes {
            ranges: to_positions(text, raw),
        })
    }

    /// About how many bytes the scopes hold.
    pub(crate) fn weight(&self) -> usize {
        self.ranges
            .iter()
            .map(|r| 64 + r.name.as_ref().map_or(0, String::len) + r.name_at.len() * 8)
            .sum()
    }

    /// The original name of the function at a generated position: `Some("")` for a function
    /// without one, `None` for top-level code (DevTools prints `<anonymous>`) or when the
    /// innermost function around it does not map into one source.
    pub(crate) fn function_name(&self, map: &SourceMap, at: Pos) -> Option<String> {
        // Ranges nest, so the innermost one around a position is the one starting last.
        let innermost = (1..self.ranges.len())
            .filter(|i| {
                self.ranges
                    .get(*i)
                    .is_some_and(|r| r.start <= at && at < r.end)
            })
            .max_by_key(|i| self.ranges.get(*i).map(|r| (r.start, *i)))?;
        self.maps(map, innermost).then(|| self.name(map, innermost))
    }

    /// A range has an original scope when its start and end map into the same source.
    fn maps(&self, map: &SourceMap, i: usize) -> bool {
        let Some(r) = self.ranges.get(i) else {
            return false;
        };
        let start = map.source_of(r.start.0, r.start.1);
        start.is_some() && start == map.source_of(r.end.0, r.end.1)
    }

    fn name(&self, map: &SourceMap, i: usize) -> String {
        let Some(r) = self.ranges.get(i) else {
            return String::new();
        };
        r.name_at
            .iter()
            .find_map(|p| map.name_at(p.0, p.1))
            .map(str::to_owned)
            .or_else(|| r.name.clone())
            .unwrap_or_default()
    }
}

/// A range as byte offsets, while scanning.
struct RawRange {
    start: usize,
    end: usize,
    name: Option<String>,
    name_at: Vec<usize>,
}

#[derive(Clone, Copy, PartialEq)]
enum Open {
    Paren {
        at: usize,
        params_of: Option<usize>,
    },
    Bracket,
    Block,
    Object,
    Class,
    Body(usize),
    /// `${` in a template literal.
    Template,
}

/// The last significant token, as far as the scanner needs it.
#[derive(Clone, Copy, PartialEq)]
enum Tok {
    None,
    Ident(usize, usize),
    /// A value: number, string, regular expression, template, `)`, `]`, `}`.
    Value,
    CloseParen(usize),
    Punct(u8),
}

struct Scanner<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    ranges: Vec<RawRange>,
    stack: Vec<Open>,
    /// Open function ranges, innermost last, with the stack depth an expression-bodied
    /// arrow ends at (`None` for a range that ends with its body's `}`).
    open: Vec<(usize, Option<usize>)>,
    prev: Tok,
    prev2: Tok,
    params_for: Option<usize>,
    body_for: Option<usize>,
    class_pending: bool,
    /// An object literal's key just before `:`: its name and position.
    key: Option<(String, usize)>,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        let root = RawRange {
            start: 0,
            end: text.len(),
            name: None,
            name_at: Vec::new(),
        };
        Scanner {
            text,
            b: text.as_bytes(),
            i: 0,
            ranges: vec![root],
            stack: Vec::new(),
            open: Vec::new(),
            prev: Tok::None,
            prev2: Tok::None,
            params_for: None,
            body_for: None,
            class_pending: false,
            key: None,
        }
    }

    fn run(mut self) -> Option<Vec<RawRange>> {
        while self.i < self.b.len() {
            self.step()?;
            if self.ranges.len() > MAX_RANGES || self.stack.len() > MAX_DEPTH {
                return None;
            }
        }
        self.end_arrows(true, self.b.len());
        if !self.stack.is_empty() || !self.open.is_empty() {
            return None;
        }
        Some(self.ranges)
    }

    fn push_tok(&mut self, t: Tok) {
        // A function's parameters and body follow its head directly.
        self.params_for = None;
        if !matches!(t, Tok::CloseParen(_)) {
            self.body_for = None;
        }
        self.prev2 = self.prev;
        self.prev = t;
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    /// One token (or a run of blanks and comments).
    fn step(&mut self) -> Option<()> {
        let c = self.at(self.i);
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.i += 1,
            b'/' if self.at(self.i + 1) == b'/' => self.line_comment(),
            b'/' if self.at(self.i + 1) == b'*' => self.block_comment()?,
            b'/' if self.regex_allowed() => {
                self.regex()?;
                self.push_tok(Tok::Value);
            }
            b'\'' | b'"' => {
                self.string(c)?;
                self.key_candidate(None);
                self.push_tok(Tok::Value);
            }
            b'`' => {
                self.i += 1;
                self.template()?;
            }
            b'0'..=b'9' => {
                self.word_end();
                self.push_tok(Tok::Value);
            }
            b'.' if self.at(self.i + 1).is_ascii_digit() => {
                self.word_end();
                self.push_tok(Tok::Value);
            }
            b'(' | b'[' | b'{' => self.open_bracket(c)?,
            b')' | b']' | b'}' => self.close_bracket(c)?,
            b'=' if self.at(self.i + 1) == b'>' => self.arrow(),
            b',' | b';' => {
                self.end_arrows(false, self.i);
                self.i += 1;
                self.push_tok(Tok::Punct(c));
            }
            _ if is_word(c) => self.word(),
            _ => {
                if c == b':' {
                    self.colon();
                } else {
                    self.key = None;
                }
                self.i += 1;
                self.push_tok(Tok::Punct(c));
            }
        }
        Some(())
    }

    fn line_comment(&mut self) {
        while self.i < self.b.len() && !matches!(self.b[self.i], b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn block_comment(&mut self) -> Option<()> {
        let end = self.text.get(self.i + 2..)?.find("*/")?;
        self.i += 2 + end + 2;
        Some(())
    }

    /// Whether a `/` here starts a regular expression rather than a division.
    fn regex_allowed(&self) -> bool {
        match self.prev {
            Tok::Value | Tok::CloseParen(_) => false,
            Tok::Ident(s, e) => matches!(
                self.text.get(s..e),
                Some(
                    "return"
                        | "typeof"
                        | "instanceof"
                        | "in"
                        | "of"
                        | "new"
                        | "delete"
                        | "void"
                        | "throw"
                        | "case"
                        | "do"
                        | "else"
                        | "yield"
                        | "await"
                )
            ),
            Tok::None | Tok::Punct(_) => true,
        }
    }

    fn regex(&mut self) -> Option<()> {
        self.i += 1;
        let mut class = false;
        loop {
            if self.i >= self.b.len() {
                return None;
            }
            match self.b[self.i] {
                b'\n' | b'\r' => return None,
                b'\\' => self.i += 1,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => break,
                _ => {}
            }
            self.i += 1;
        }
        self.i += 1;
        self.word_end();
        Some(())
    }

    fn string(&mut self, quote: u8) -> Option<()> {
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                c if c == quote => {
                    self.i += 1;
                    return Some(());
                }
                _ => self.i += 1,
            }
        }
        None
    }

    /// The text of a template from here: to its closing backtick, or into a `${`.
    fn template(&mut self) -> Option<()> {
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'`' => {
                    self.i += 1;
                    self.push_tok(Tok::Value);
                    return Some(());
                }
                b'$' if self.at(self.i + 1) == b'{' => {
                    self.i += 2;
                    self.stack.push(Open::Template);
                    self.push_tok(Tok::Punct(b'{'));
                    return Some(());
                }
                _ => self.i += 1,
            }
        }
        None
    }

    fn word_end(&mut self) {
        while self.i < self.b.len() && (is_word(self.b[self.i]) || self.b[self.i] == b'.') {
            if self.b[self.i] == b'.' && !self.at(self.i + 1).is_ascii_alphanumeric() {
                break;
            }
            self.i += 1;
        }
    }

    fn word(&mut self) {
        let start = self.i;
        self.i += 1;
        while self.i < self.b.len() && is_word(self.b[self.i]) {
            self.i += 1;
        }
        let word = self.text.get(start..self.i).unwrap_or("");
        let property = self.prev == Tok::Punct(b'.');
        match word {
            "function" if !property => self.function(start),
            "class" if !property => {
                self.class_pending = true;
                self.key = None;
                self.push_tok(Tok::Ident(start, self.i));
            }
            _ => {
                self.key_candidate(Some((start, self.i)));
                self.push_tok(Tok::Ident(start, self.i));
            }
        }
    }

    /// In an object literal, a key right after `{` or `,` may name the function after `:`.
    fn key_candidate(&mut self, ident: Option<(usize, usize)>) {
        self.key = None;
        let after_separator = matches!(self.prev, Tok::Punct(b',') | Tok::Punct(b'{'));
        if after_separator && self.stack.last() == Some(&Open::Object) {
            if let Some((s, e)) = ident {
                self.key = Some((self.text.get(s..e).unwrap_or("").to_owned(), s));
            }
        }
    }

    fn colon(&mut self) {
        // The key stays only for the `:` right after it.
        if !matches!(self.prev, Tok::Ident(..)) {
            self.key = None;
        }
    }

    /// `function [*] [name] (`: a range named by the object key before it, its own name or
    /// the map's name at either, or at its `(`.
    fn function(&mut self, keyword: usize) {
        let key = if self.prev == Tok::Punct(b':') {
            self.key.take()
        } else {
            None
        };
        self.key = None;
        self.push_tok(Tok::Ident(keyword, self.i));
        self.blanks();
        if self.at(self.i) == b'*' {
            self.i += 1;
            self.blanks();
        }
        let mut id = None;
        if is_word(self.at(self.i)) && !self.at(self.i).is_ascii_digit() {
            let s = self.i;
            while self.i < self.b.len() && is_word(self.b[self.i]) {
                self.i += 1;
            }
            id = Some((s, self.i));
            self.push_tok(Tok::Ident(s, self.i));
        }
        self.blanks();
        let mut name_at = Vec::new();
        if let Some((_, at)) = &key {
            name_at.push(*at);
        }
        if let Some((s, _)) = id {
            name_at.push(s);
        }
        if self.at(self.i) == b'(' {
            name_at.push(self.i);
        }
        let name = key
            .map(|(k, _)| k)
            .or_else(|| id.and_then(|(s, e)| self.text.get(s..e)).map(str::to_owned));
        let start = id.map_or(keyword, |(_, e)| e);
        self.params_for = Some(self.new_range(start, name, name_at));
    }

    fn blanks(&mut self) {
        loop {
            match self.at(self.i) {
                b' ' | b'\t' | b'\n' | b'\r' => self.i += 1,
                b'/' if self.at(self.i + 1) == b'/' => self.line_comment(),
                b'/' if self.at(self.i + 1) == b'*' => {
                    if self.block_comment().is_none() {
                        self.i = self.b.len();
                    }
                }
                _ => return,
            }
        }
    }

    fn new_range(&mut self, start: usize, name: Option<String>, name_at: Vec<usize>) -> usize {
        // Empty until its end is seen: a head without a body contains nothing.
        self.ranges.push(RawRange {
            start,
            end: start,
            name,
            name_at,
        });
        self.ranges.len() - 1
    }

    fn open_bracket(&mut self, c: u8) -> Option<()> {
        let at = self.i;
        let open = match c {
            b'(' => {
                let params_of = self.params_for.take().or_else(|| self.method(at));
                Open::Paren { at, params_of }
            }
            b'[' => Open::Bracket,
            _ => self.brace(),
        };
        if let Open::Body(r) = open {
            self.open.push((r, None));
        }
        self.stack.push(open);
        self.key = None;
        self.i += 1;
        self.push_tok(Tok::Punct(c));
        Some(())
    }

    /// `key(` in an object literal or a class body starts a method named by its key.
    fn method(&mut self, paren: usize) -> Option<usize> {
        let in_object = matches!(self.stack.last(), Some(Open::Object | Open::Class));
        let Tok::Ident(s, e) = self.prev else {
            return None;
        };
        let before_ok = match self.prev2 {
            Tok::Punct(b'{' | b',' | b';' | b'}' | b'*') | Tok::Value => true,
            Tok::Ident(ps, pe) => matches!(
                self.text.get(ps..pe),
                Some("get" | "set" | "static" | "async")
            ),
            _ => false,
        };
        if !in_object || !before_ok {
            return None;
        }
        let name = self.text.get(s..e).map(str::to_owned);
        Some(self.new_range(paren, name, vec![s, paren]))
    }

    fn brace(&mut self) -> Open {
        if let Some(r) = self.body_for.take() {
            return Open::Body(r);
        }
        if std::mem::take(&mut self.class_pending) {
            return Open::Class;
        }
        let object = match self.prev {
            Tok::None | Tok::Value | Tok::CloseParen(_) => false,
            Tok::Punct(p) => p != b';' && p != b'{' && p != b'}',
            Tok::Ident(s, e) => matches!(
                self.text.get(s..e),
                Some("return" | "typeof" | "in" | "of" | "yield" | "await" | "void" | "case")
            ),
        };
        if object {
            Open::Object
        } else {
            Open::Block
        }
    }

    fn close_bracket(&mut self, c: u8) -> Option<()> {
        self.end_arrows(true, self.i);
        let open = self.stack.pop()?;
        let at = self.i;
        self.i += 1;
        match (c, open) {
            (
                b')',
                Open::Paren {
                    at: open_at,
                    params_of,
                },
            ) => {
                self.body_for = params_of;
                self.push_tok(Tok::CloseParen(open_at));
            }
            (b']', Open::Bracket) => self.push_tok(Tok::Value),
            (b'}', Open::Template) => self.template()?,
            (b'}', Open::Body(r)) => {
                if let Some(range) = self.ranges.get_mut(r) {
                    range.end = at + 1;
                }
                self.open.pop();
                self.push_tok(Tok::Value);
            }
            (b'}', Open::Block | Open::Object | Open::Class) => self.push_tok(Tok::Value),
            _ => return None,
        }
        self.key = None;
        Some(())
    }

    /// `=>`: a range from its parameters, named by the map at its `(` or its `=>`; its body
    /// a block, or an expression that ends at the first `,`, `;` or closing bracket outside it.
    fn arrow(&mut self) {
        let arrow_at = self.i;
        let (start, mut name_at) = match self.prev {
            Tok::CloseParen(open) => (open, vec![open]),
            Tok::Ident(s, _) => (s, Vec::new()),
            _ => (arrow_at, Vec::new()),
        };
        name_at.push(arrow_at);
        // The parentheses just closed were the arrow's parameters, not a function's.
        self.body_for = None;
        let r = self.new_range(start, None, name_at);
        self.i += 2;
        self.push_tok(Tok::Punct(b'>'));
        self.blanks();
        if self.at(self.i) == b'{' {
            self.body_for = Some(r);
        } else {
            self.open.push((r, Some(self.stack.len())));
        }
    }

    /// Ends the expression-bodied arrows a `,`/`;` (or a closing bracket, `closing`) at this
    /// depth ends.
    fn end_arrows(&mut self, closing: bool, at: usize) {
        while let Some(&(r, Some(depth))) = self.open.last() {
            let ends = if closing {
                self.stack.len() <= depth
            } else {
                self.stack.len() == depth
            };
            if !ends {
                return;
            }
            if let Some(range) = self.ranges.get_mut(r) {
                range.end = at;
            }
            self.open.pop();
        }
    }
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'#' || c >= 0x80
}

/// Byte offsets to lines and UTF-16 columns, in one pass over the text.
fn to_positions(text: &str, raw: Vec<RawRange>) -> Vec<Range> {
    let mut offsets: Vec<usize> = Vec::new();
    for r in &raw {
        offsets.push(r.start);
        offsets.push(r.end);
        offsets.extend(&r.name_at);
    }
    offsets.sort_unstable();
    offsets.dedup();
    let mut table: Vec<Pos> = Vec::with_capacity(offsets.len());
    let (mut line, mut column) = (0u32, 0u32);
    let mut next = offsets.iter().peekable();
    let mut chars = text.char_indices().peekable();
    let mut last_cr = false;
    loop {
        let here = chars.peek().map_or(text.len(), |(i, _)| *i);
        while next.peek().is_some_and(|o| **o <= here) {
            next.next();
            table.push((line, column));
        }
        let Some((_, ch)) = chars.next() else { break };
        match ch {
            '\n' if last_cr => {}
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => {
                line += 1;
                column = 0;
            }
            _ => column += u32::try_from(ch.len_utf16()).unwrap_or(1),
        }
        last_cr = ch == '\r';
    }
    let pos = |o: usize| {
        let i = offsets.partition_point(|x| *x < o);
        table.get(i).copied().unwrap_or((line, column))
    };
    raw.into_iter()
        .map(|r| Range {
            start: pos(r.start),
            end: pos(r.end),
            name: r.name,
            name_at: r.name_at.iter().map(|o| pos(*o)).collect(),
        })
        .collect()
}
