//! The page's scripts that name a source map (`Debugger.scriptParsed`), and their maps once
//! loaded: what turns a stack frame into its original position and function name, as
//! DevTools shows it with source maps on. Bounded: at most [`MAX_SCRIPTS`] scripts of the
//! kept documents, [`MAX_URL_BYTES`] of map URLs not yet loaded (an inline map is a long
//! `data:` URL) and about [`MAX_LOADED_BYTES`] of loaded maps per page; a map past that, or
//! one that does not load or parse, leaves its frames at their generated positions.

use std::collections::{HashMap, HashSet};

use url::Url;

use super::format::display_name;
use crate::cdp::generated::debugger::ScriptParsedEvent;
use crate::cdp::generated::runtime::{CallFrame, StackTrace};
use crate::sourcemap::{Scopes, SourceMap};

/// Scripts with a map remembered per page.
const MAX_SCRIPTS: usize = 512;
/// How much the map URLs of scripts whose maps are not loaded yet may take per page.
const MAX_URL_BYTES: usize = 16 << 20;
/// About how much loaded maps (mappings and scopes) may take per page.
const MAX_LOADED_BYTES: usize = 64 << 20;
/// Script ids remembered as looked at (with a map or not) before the set starts over.
const MAX_CHECKED: usize = 8192;
/// Documents whose scripts are remembered (as many as the record keeps messages of).
const DOCUMENTS_KEPT: u64 = 3;

#[derive(Default)]
pub(crate) struct Scripts {
    by_id: HashMap<String, Script>,
    document: u64,
    url_bytes: usize,
    loaded_bytes: usize,
    /// Scripts the Debugger domain was on for (their maps, if any, are in `by_id`).
    checked: HashSet<String>,
    /// Answers loading maps now: the domain is on while there are any.
    pub(super) loading: u32,
}

struct Script {
    url: String,
    map_url: String,
    frame_id: Option<String>,
    /// Where the script starts in its resource (an inline script's offset in the page).
    start: (u32, u32),
    document: u64,
    state: State,
}

enum State {
    Unloaded,
    Loaded(Box<Loaded>),
    /// Not loaded, not parsed, or past the memory bound: generated positions.
    Failed,
}

struct Loaded {
    map: SourceMap,
    scopes: Option<Scopes>,
    /// What the map's sources are resolved against: the map's URL, or the script's for a
    /// map in a `data:` URL.
    base: Option<Url>,
}

/// Where a script's map is: inline (the decoded text of a `data:` URL) or to be fetched.
pub(super) enum MapSource {
    Inline(Vec<u8>),
    Fetch {
        url: String,
        frame_id: Option<String>,
    },
}

impl Scripts {
    /// `Debugger.scriptParsed`: remembered only when the script names a map.
    pub(super) fn parsed(&mut self, e: &ScriptParsedEvent) {
        self.check(&e.script_id);
        let Some(map_url) = e.source_map_url.as_deref().filter(|u| !u.is_empty()) else {
            return;
        };
        if self.by_id.len() >= MAX_SCRIPTS || self.url_bytes + map_url.len() > MAX_URL_BYTES {
            return;
        }
        self.url_bytes += map_url.len();
        let frame_id = e
            .execution_context_aux_data
            .as_ref()
            .and_then(|d| d.get("frameId"))
            .and_then(|f| f.as_str())
            .map(str::to_owned);
        let script = Script {
            url: e.url.clone(),
            map_url: map_url.to_owned(),
            frame_id,
            start: (to_u32(e.start_line), to_u32(e.start_column)),
            document: self.document,
            state: State::Unloaded,
        };
        self.by_id.insert(e.script_id.clone(), script);
    }

    /// A new document: the scripts of documents no longer kept are forgotten.
    pub(super) fn new_document(&mut self) {
        self.document += 1;
        let oldest = self.document.saturating_sub(DOCUMENTS_KEPT - 1);
        let (mut freed, mut urls) = (0, 0);
        self.by_id.retain(|_, s| {
            let keep = s.document >= oldest;
            if !keep {
                freed += s.weight();
                urls += s.map_url.len();
            }
            keep
        });
        self.loaded_bytes = self.loaded_bytes.saturating_sub(freed);
        self.url_bytes = self.url_bytes.saturating_sub(urls);
    }

    fn check(&mut self, id: &str) {
        if self.checked.len() >= MAX_CHECKED {
            self.checked.clear();
        }
        self.checked.insert(id.to_owned());
    }

    /// Scripts looked at: the ones without a map stay unmapped.
    pub(super) fn checked(&mut self, ids: &[String]) {
        for id in ids {
            self.check(id);
        }
    }

    /// The scripts of a trace's frames still to look at (each once): not known yet to have
    /// a map or not, or with a map not loaded yet.
    pub(super) fn to_visit(&self, trace: &StackTrace, out: &mut Vec<String>) {
        let mut at = Some(trace);
        let mut depth = 0;
        while let Some(t) = at.filter(|_| depth < 64) {
            for f in &t.call_frames {
                let id = &f.script_id;
                let wanted = !self.checked.contains(id) || self.unloaded(id);
                if wanted && !id.is_empty() && !out.contains(id) {
                    out.push(id.clone());
                }
            }
            at = t.parent.as_deref();
            depth += 1;
        }
    }

    /// Whether a script has a map not loaded yet.
    pub(super) fn unloaded(&self, id: &str) -> bool {
        self.by_id
            .get(id)
            .is_some_and(|s| matches!(s.state, State::Unloaded))
    }

    /// Where a script's map is; `None` (and the script marked failed) for a URL that cannot
    /// be read.
    pub(super) fn source_of(&mut self, id: &str) -> Option<MapSource> {
        let script = self.by_id.get_mut(id)?;
        let source = map_source(&script.url, &script.map_url, script.frame_id.clone());
        if source.is_none() {
            script.state = State::Failed;
            self.url_bytes = self.url_bytes.saturating_sub(script.map_url.len());
            script.map_url = String::new();
        }
        source
    }

    /// A script's map text and generated source arrived (or did not: `None`).
    pub(super) fn loaded(&mut self, id: &str, map: Option<&[u8]>, text: Option<&str>) {
        // Two answers may have loaded the same map; the first one stays.
        let Some(script) = self
            .by_id
            .get_mut(id)
            .filter(|s| !matches!(s.state, State::Loaded(_)))
        else {
            return;
        };
        let parsed = map.and_then(SourceMap::parse).map(|map| Loaded {
            map,
            scopes: text.and_then(Scopes::scan),
            base: base_url(&script.url, &script.map_url),
        });
        // Loaded or not, the URL is not needed any more.
        self.url_bytes = self.url_bytes.saturating_sub(script.map_url.len());
        script.map_url = String::new();
        script.state = match parsed {
            Some(l) if self.loaded_bytes + l.weight() <= MAX_LOADED_BYTES => {
                self.loaded_bytes += l.weight();
                State::Loaded(Box::new(l))
            }
            _ => State::Failed,
        };
    }

    /// A frame as its script's map tells it, `at <name> (<source>:<line>:<column>)`, 1-based;
    /// `None` when there is no loaded map or it does not place the frame.
    pub(super) fn frame_line(&self, f: &CallFrame) -> Option<String> {
        let script = self.by_id.get(&f.script_id)?;
        let State::Loaded(loaded) = &script.state else {
            return None;
        };
        let line = to_u32(f.line_number).checked_sub(script.start.0)?;
        let mut column = to_u32(f.column_number);
        if line == 0 {
            column = column.checked_sub(script.start.1)?;
        }
        let frame = loaded
            .map
            .frame(loaded.scopes.as_ref(), (line, column), &f.function_name)?;
        let source = match loaded
            .base
            .as_ref()
            .and_then(|b| b.join(frame.at.source).ok())
        {
            Some(url) => display_name(url.as_str()),
            None => display_name(frame.at.source),
        };
        let name = frame.name.as_deref().unwrap_or("<anonymous>");
        let (line, column) = (frame.at.line + 1, frame.at.column + 1);
        Some(format!("at {name} ({source}:{line}:{column})"))
    }
}

impl Script {
    fn weight(&self) -> usize {
        match &self.state {
            State::Loaded(l) => l.weight(),
            _ => 0,
        }
    }
}

impl Loaded {
    fn weight(&self) -> usize {
        self.map.weight() + self.scopes.as_ref().map_or(0, Scopes::weight)
    }
}

fn to_u32(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

/// The map of a script: a `data:` URL decoded here, anything else fetched by the browser
/// (resolved against the script's URL).
fn map_source(script_url: &str, map_url: &str, frame_id: Option<String>) -> Option<MapSource> {
    if let Some(data) = map_url.strip_prefix("data:") {
        return decode_data(data).map(MapSource::Inline);
    }
    let url = match Url::parse(script_url) {
        Ok(base) => base.join(map_url).ok()?,
        Err(_) => Url::parse(map_url).ok()?,
    };
    matches!(url.scheme(), "http" | "https" | "file").then(|| MapSource::Fetch {
        url: url.into(),
        frame_id,
    })
}

/// The base a map's sources resolve against.
fn base_url(script_url: &str, map_url: &str) -> Option<Url> {
    let script = Url::parse(script_url).ok();
    if map_url.starts_with("data:") {
        return script;
    }
    match script {
        Some(base) => base.join(map_url).ok(),
        None => Url::parse(map_url).ok(),
    }
}

/// The payload of a `data:` URL (after `data:`): base64 or percent-encoded.
fn decode_data(data: &str) -> Option<Vec<u8>> {
    if data.len() > crate::sourcemap::MAX_MAP_BYTES * 2 {
        return None;
    }
    let (meta, payload) = data.split_once(',')?;
    if meta.ends_with(";base64") {
        let clean: String = payload.chars().filter(|c| !c.is_whitespace()).collect();
        return crate::tools::base64::decode_base64(&clean).ok();
    }
    super::format::percent_decode(payload).map(String::into_bytes)
}
