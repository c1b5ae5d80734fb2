//! Source maps (revision 3) as DevTools reads them for stack traces: a generated position
//! to its original source, line and column, and the original name of the function around
//! it. Pure logic: the caller fetches the map and the generated script.
//!
//! Hostile input is refused whole, never half-used: a map over [`MAX_MAP_BYTES`], with more
//! than [`MAX_ENTRIES`] mappings, malformed VLQ, or an offset that points outside the map
//! (a negative line, an unknown source or name) is `None`, and the caller keeps the
//! generated positions.

mod scopes;
mod vlq;

use serde::Deserialize;

pub(crate) use scopes::Scopes;

/// Largest map text read.
pub(crate) const MAX_MAP_BYTES: usize = 8 << 20;
/// Most mappings kept from one map (each is 24 bytes).
const MAX_ENTRIES: usize = 500_000;

/// One mapping: a generated position and, if it has one, where it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Entry {
    line: u32,
    column: u32,
    source: u32,
    source_line: u32,
    source_column: u32,
    /// `u32::MAX` when the mapping has no source; `name` likewise when it has no name.
    name: u32,
}

const NONE: u32 = u32::MAX;

/// A parsed map: its mappings sorted by generated position, its sources and names.
pub(crate) struct SourceMap {
    entries: Vec<Entry>,
    sources: Vec<String>,
    names: Vec<String>,
}

/// A stack frame as its source map tells it: the original position and the function's name
/// (`None` for top-level code, which DevTools prints as `<anonymous>`).
#[derive(Debug, PartialEq)]
pub(crate) struct Frame<'a> {
    pub(crate) name: Option<String>,
    pub(crate) at: Original<'a>,
}

/// An original position: the source (as the map names it, joined to `sourceRoot`), 0-based.
#[derive(Debug, PartialEq)]
pub(crate) struct Original<'a> {
    pub(crate) source: &'a str,
    pub(crate) line: u32,
    pub(crate) column: u32,
}

#[derive(Deserialize)]
struct Raw {
    version: u32,
    #[serde(default)]
    sources: Vec<Option<String>>,
    #[serde(default, rename = "sourceRoot")]
    source_root: Option<String>,
    #[serde(default)]
    names: Vec<String>,
    mappings: String,
}

impl SourceMap {
    /// Parses a map's JSON text; `None` when it is too big, malformed or inconsistent.
    pub(crate) fn parse(text: &[u8]) -> Option<SourceMap> {
        if text.len() > MAX_MAP_BYTES {
            return None;
        }
        let raw: Raw = serde_json::from_slice(text).ok()?;
        if raw.version != 3 {
            return None;
        }
        let root = raw.source_root.unwrap_or_default();
        let sources: Vec<String> = raw
            .sources
            .into_iter()
            .map(|s| join_root(&root, &s.unwrap_or_default()))
            .collect();
        let mut entries = decode(&raw.mappings, sources.len(), raw.names.len())?;
        entries.sort_by_key(|e| (e.line, e.column));
        Some(SourceMap {
            entries,
            sources,
            names: raw.names,
        })
    }

    /// About how many bytes the parsed map holds.
    pub(crate) fn weight(&self) -> usize {
        let text: usize = self
            .sources
            .iter()
            .chain(&self.names)
            .map(|s| s.len() + 24)
            .sum();
        self.entries.len() * std::mem::size_of::<Entry>() + text
    }

    /// The last mapping at or before a generated position (0-based), as DevTools finds it.
    pub(crate) fn find(&self, line: u32, column: u32) -> Option<&Entry> {
        let after = self
            .entries
            .partition_point(|e| (e.line, e.column) <= (line, column));
        after.checked_sub(1).and_then(|i| self.entries.get(i))
    }

    /// The mapping exactly at a generated position.
    fn find_exact(&self, line: u32, column: u32) -> Option<&Entry> {
        self.find(line, column)
            .filter(|e| e.line == line && e.column == column)
    }

    /// Where a generated position came from, if its mapping has a source.
    pub(crate) fn original(&self, line: u32, column: u32) -> Option<Original<'_>> {
        let e = self.find(line, column)?;
        let source = self.sources.get(e.source as usize)?;
        Some(Original {
            source,
            line: e.source_line,
            column: e.source_column,
        })
    }

    /// A frame at a generated position (0-based, relative to the script): `None` when the
    /// map does not place it in a source. Without `scopes` (the generated text could not be
    /// scanned) the frame keeps the name the browser gave it.
    pub(crate) fn frame(
        &self,
        scopes: Option<&Scopes>,
        at: (u32, u32),
        generated_name: &str,
    ) -> Option<Frame<'_>> {
        let original = self.original(at.0, at.1)?;
        let name = match scopes {
            Some(s) => s.function_name(self, at),
            None => Some(generated_name.to_owned()),
        };
        Some(Frame { name, at: original })
    }

    fn source_of(&self, line: u32, column: u32) -> Option<u32> {
        self.find(line, column)
            .map(|e| e.source)
            .filter(|s| *s != NONE)
    }

    fn name_at(&self, line: u32, column: u32) -> Option<&str> {
        let e = self.find_exact(line, column)?;
        self.names.get(e.name as usize).map(String::as_str)
    }
}

/// `sourceRoot` joined to a source, as the spec joins them.
fn join_root(root: &str, source: &str) -> String {
    if root.is_empty() || source.contains("://") || source.starts_with('/') {
        return source.to_owned();
    }
    if root.ends_with('/') {
        format!("{root}{source}")
    } else {
        format!("{root}/{source}")
    }
}

/// The `mappings` string into entries; `None` at the first inconsistency.
fn decode(mappings: &str, sources: usize, names: usize) -> Option<Vec<Entry>> {
    let mut entries = Vec::new();
    let (mut source, mut source_line, mut source_column, mut name) = (0i64, 0i64, 0i64, 0i64);
    for (line, text) in mappings.split(';').enumerate() {
        let line = u32::try_from(line).ok()?;
        let mut column = 0i64;
        for segment in text.split(',').filter(|s| !s.is_empty()) {
            let mut fields = vlq::Fields::new(segment);
            column += fields.next()??;
            let mut entry = Entry {
                line,
                column: u32::try_from(column).ok()?,
                source: NONE,
                source_line: 0,
                source_column: 0,
                name: NONE,
            };
            if let Some(delta) = fields.next() {
                source += delta?;
                source_line += fields.next()??;
                source_column += fields.next()??;
                entry.source = index(source, sources)?;
                entry.source_line = u32::try_from(source_line).ok()?;
                entry.source_column = u32::try_from(source_column).ok()?;
                if let Some(delta) = fields.next() {
                    name += delta?;
                    entry.name = index(name, names)?;
                }
            }
            if fields.next().is_some() || entries.len() >= MAX_ENTRIES {
                return None;
            }
            entries.push(entry);
        }
    }
    Some(entries)
}

fn index(value: i64, len: usize) -> Option<u32> {
    let i = usize::try_from(value).ok().filter(|i| *i < len)?;
    u32::try_from(i).ok()
}

#[cfg(test)]
mod tests;
