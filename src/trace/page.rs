//! The page's own events, kept from the stream as small records: its frames and
//! navigations, the paints and document marks of each load, LCP image paints, layout
//! shifts, charset checks and preconnect links, and the trace's bounds.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::event::At;

/// A frame as `TracingStartedInBrowser` or `FrameCommittedInBrowser` names it.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct FrameData {
    #[serde(default)]
    frame: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    process_id: Option<i64>,
    #[serde(default)]
    parent: Option<String>,
    #[serde(default)]
    is_in_primary_main_frame: Option<bool>,
    #[serde(default)]
    is_outermost_main_frame: Option<bool>,
}

#[derive(Deserialize)]
struct Frames {
    #[serde(default)]
    frames: Vec<FrameData>,
}

#[derive(Deserialize)]
struct Args<T> {
    data: Option<T>,
    #[serde(default)]
    frame: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct NavData {
    #[serde(default, rename = "documentLoaderURL")]
    document_loader_url: Option<String>,
    #[serde(default)]
    navigation_id: Option<String>,
    #[serde(default)]
    is_outermost_main_frame: Option<bool>,
    #[serde(default)]
    candidate_index: Option<u64>,
    #[serde(default)]
    node_id: Option<i64>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    frame: Option<String>,
    #[serde(default)]
    loading_attr: Option<String>,
    #[serde(default)]
    node_name: Option<String>,
    #[serde(default)]
    disposition: Option<String>,
}

#[derive(Deserialize, Default)]
struct ShiftData {
    #[serde(default)]
    weighted_score_delta: f64,
    #[serde(default)]
    had_recent_input: bool,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ImagePaintData {
    #[serde(default, rename = "DOMNodeId")]
    dom_node_id: Option<i64>,
    #[serde(default)]
    image_url: Option<String>,
}

/// A main-frame navigation (`navigationStart` with a document URL).
#[derive(Clone, Debug)]
pub(super) struct Navigation {
    pub(super) at: At,
    pub(super) frame: String,
    pub(super) id: String,
    pub(super) url: String,
    pub(super) outermost: bool,
}

/// What a page-load event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mark {
    FirstPaint,
    Fcp,
    Lcp,
    DomContent,
    Load,
}

/// A page-load event: the paints, LCP candidates and document marks.
#[derive(Clone, Debug)]
pub(super) struct PageLoad {
    pub(super) at: At,
    pub(super) mark: Mark,
    pub(super) frame: String,
    pub(super) navigation_id: Option<String>,
    pub(super) candidate_index: u64,
    pub(super) node_id: Option<i64>,
    pub(super) text: bool,
    pub(super) loading_attr: Option<String>,
    pub(super) node_name: Option<String>,
}

/// A layout shift not caused by recent input.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shift {
    pub(super) at: At,
    pub(super) score: f64,
}

/// A page has a handful of preconnects; past this many the rest are not kept.
const MAX_PRECONNECTS: usize = 64;

/// The page's events, gathered in one pass over the stream.
#[derive(Default)]
pub(super) struct Page {
    pub(super) bounds_min: f64,
    pub(super) bounds_max: f64,
    pub(super) tracing_started: Option<f64>,
    pub(super) main_frame: String,
    pub(super) main_frame_url: String,
    /// Frames with a renderer process: (frame, pid).
    pub(super) frame_processes: HashSet<(String, i64)>,
    pub(super) frames_seen: HashSet<String>,
    pub(super) navigations: Vec<Navigation>,
    navigation_ids: HashSet<String>,
    /// The URL each navigation ended at (its document request's URL).
    pub(super) final_urls: HashMap<String, String>,
    pub(super) page_loads: Vec<PageLoad>,
    /// LargestImagePaint candidates by (pid, node id): their time and image URL.
    pub(super) image_paints: HashMap<(i64, i64), (f64, String)>,
    pub(super) shifts: Vec<Shift>,
    /// `MetaCharsetCheck` results: (event, frame, disposition).
    pub(super) charset_checks: Vec<(At, String, String)>,
    /// `LinkPreconnect` URLs (NetworkDependencyTree), at most `MAX_PRECONNECTS`.
    pub(super) link_preconnects: Vec<String>,
}

impl Page {
    pub(super) fn new() -> Self {
        Page {
            bounds_min: f64::INFINITY,
            bounds_max: f64::NEG_INFINITY,
            ..Default::default()
        }
    }

    /// Takes one of the page's events (a layout shift goes to `shift`); false when its args
    /// are malformed, None for an event of another name.
    pub(super) fn take(&mut self, name: &str, at: At, args: &str) -> Option<bool> {
        Some(match name {
            "TracingStartedInBrowser" => self.tracing_started(at, args),
            "FrameCommittedInBrowser" => self.frame_committed(args),
            "CommitLoad" => self.commit_load(at, args),
            "navigationStart" => self.navigation(at, args),
            "firstPaint" => self.page_load(at, Mark::FirstPaint, args),
            "firstContentfulPaint" => self.page_load(at, Mark::Fcp, args),
            "largestContentfulPaint::Candidate" => self.page_load(at, Mark::Lcp, args),
            "MarkDOMContent" => self.page_load(at, Mark::DomContent, args),
            "MarkLoad" => self.page_load(at, Mark::Load, args),
            "LargestImagePaint::Candidate" => self.image_paint(at, args),
            "MetaCharsetCheck" => self.charset_check(at, args),
            "LinkPreconnect" => self.link_preconnect(args),
            _ => return None,
        })
    }

    /// DevTools' trace bounds: every begin, end, complete and instant event with a time.
    pub(super) fn bounds(&mut self, name: &str, ph: &str, ts: f64, dur: Option<f64>) {
        if ts != 0.0 && !name.ends_with("::UMA") && matches!(ph, "B" | "E" | "X" | "I") {
            self.bounds_min = self.bounds_min.min(ts);
            self.bounds_max = self.bounds_max.max(ts + dur.unwrap_or(0.0));
        }
    }

    fn tracing_started(&mut self, at: At, args: &str) -> bool {
        let Ok(parsed) = serde_json::from_str::<Args<Frames>>(args) else {
            return false;
        };
        self.tracing_started = Some(at.ts);
        for frame in parsed.data.map(|d| d.frames).unwrap_or_default() {
            self.note_frame(&frame);
            let main = match (
                frame.is_in_primary_main_frame,
                frame.is_outermost_main_frame,
            ) {
                (Some(primary), Some(outermost)) => primary && outermost,
                (None, Some(outermost)) => outermost,
                _ => frame.parent.is_none() && !frame.url.is_empty(),
            };
            if main {
                self.main_frame = frame.frame.clone();
                self.main_frame_url = frame.url.clone();
            }
        }
        true
    }

    fn note_frame(&mut self, frame: &FrameData) {
        if let Some(pid) = frame.process_id {
            self.frame_processes.insert((frame.frame.clone(), pid));
        }
        self.frames_seen.insert(frame.frame.clone());
    }

    fn frame_committed(&mut self, args: &str) -> bool {
        let Ok(parsed) = serde_json::from_str::<Args<FrameData>>(args) else {
            return false;
        };
        if let Some(frame) = parsed.data {
            self.note_frame(&frame);
        }
        true
    }

    fn commit_load(&mut self, at: At, args: &str) -> bool {
        let Ok(parsed) = serde_json::from_str::<Args<NavData>>(args) else {
            return false;
        };
        if let Some(frame) = parsed.data.and_then(|d| d.frame) {
            self.frame_processes.insert((frame.clone(), at.pid));
            self.frames_seen.insert(frame);
        }
        true
    }

    fn navigation(&mut self, at: At, args: &str) -> bool {
        let Ok(parsed) = serde_json::from_str::<Args<NavData>>(args) else {
            return false;
        };
        let Some(data) = parsed.data else { return true };
        let url = data.document_loader_url.unwrap_or_default();
        let id = data.navigation_id.unwrap_or_default();
        if url.is_empty() || !self.navigation_ids.insert(id.clone()) {
            return true;
        }
        self.final_urls.insert(id.clone(), url.clone());
        self.navigations.push(Navigation {
            at,
            frame: parsed.frame.unwrap_or_default(),
            id,
            url,
            outermost: data.is_outermost_main_frame.unwrap_or(false),
        });
        true
    }

    fn page_load(&mut self, at: At, mark: Mark, args: &str) -> bool {
        let Ok(parsed) = serde_json::from_str::<Args<NavData>>(args) else {
            return false;
        };
        let data = parsed.data.unwrap_or_default();
        // The document marks name their frame in `data`, the paints beside it.
        let frame = match mark {
            Mark::DomContent | Mark::Load => data.frame.clone(),
            _ => parsed.frame,
        };
        if mark == Mark::Lcp && data.candidate_index.unwrap_or(0) == 0 {
            return false;
        }
        self.page_loads.push(PageLoad {
            at,
            mark,
            frame: frame.unwrap_or_default(),
            navigation_id: data.navigation_id,
            candidate_index: data.candidate_index.unwrap_or(0),
            node_id: data.node_id,
            text: data.kind.as_deref() == Some("text"),
            loading_attr: data.loading_attr,
            node_name: data.node_name,
        });
        true
    }

    fn image_paint(&mut self, at: At, args: &str) -> bool {
        let Ok(parsed) = serde_json::from_str::<Args<ImagePaintData>>(args) else {
            return false;
        };
        if let Some(data) = parsed.data {
            if let Some(node) = data.dom_node_id {
                let url = data.image_url.unwrap_or_default();
                self.image_paints.insert((at.pid, node), (at.ts, url));
            }
        }
        true
    }

    fn link_preconnect(&mut self, args: &str) -> bool {
        #[derive(Deserialize)]
        struct Link {
            #[serde(default)]
            url: String,
        }
        let Ok(parsed) = serde_json::from_str::<Args<Link>>(args) else {
            return false;
        };
        if let Some(link) = parsed.data {
            if self.link_preconnects.len() < MAX_PRECONNECTS {
                self.link_preconnects.push(link.url);
            }
        }
        true
    }

    fn charset_check(&mut self, at: At, args: &str) -> bool {
        let Ok(parsed) = serde_json::from_str::<Args<NavData>>(args) else {
            return false;
        };
        if let Some(NavData {
            frame: Some(frame),
            disposition: Some(disposition),
            ..
        }) = parsed.data
        {
            self.charset_checks.push((at, frame, disposition));
        }
        true
    }

    /// Takes a `LayoutShift`: whether it counts (no recent input), None when its args are
    /// malformed.
    pub(super) fn shift(&mut self, at: At, args: &str) -> Option<bool> {
        let parsed = serde_json::from_str::<Args<ShiftData>>(args).ok()?;
        // A shift without data still opens a cluster in DevTools, with no score.
        let data = parsed.data.unwrap_or_default();
        if !data.had_recent_input {
            self.shifts.push(Shift {
                at,
                score: data.weighted_score_delta,
            });
        }
        Some(!data.had_recent_input)
    }
}
