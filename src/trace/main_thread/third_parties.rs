//! ThirdParties (DevTools' `ThirdParties` insight): transfer size and main-thread time by
//! entity (see `entities.rs`), listed when an entity other than the page's own shows up.
//!
//! DevTools builds a bottom-up tree of the main thread, CPU profile samples included, and
//! sums the self time of every event by the entity of the URL it names. This analyser reads
//! no samples: a trace event's self time goes to the entity of the URL the event names
//! (a script's evaluation, a function call's script, a parsed document or style sheet),
//! which is what DevTools finds when the third party's code runs in its own calls; time a
//! page's own call spends in a third party's function stays with the page here.

use std::collections::HashMap;

use serde::Deserialize;

use super::context::Context;
use super::entities::{Entities, Entity};
use crate::trace::event::{Bounds, Event};
use crate::trace::format::{bytes, millis};
use crate::trace::network::Request;

/// Self-time sums kept (one per thread, URL and navigation); more are dropped.
const KEPT: usize = 20_000;
/// DevTools outlines an entity's events from 1 ms on.
const OUTLINED: f64 = 1000.0;

/// DevTools' `VISIBLE_TRACE_EVENT_TYPES` that are complete events on a renderer thread:
/// the events its bottom-up tree counts time in (the others are looked through).
const VISIBLE: &[&str] = &[
    "AbortPostTaskCallback",
    "Animation",
    "AsyncTask",
    "v8.deserializeOnBackground",
    "v8.produceModuleCache",
    "v8.produceCache",
    "CancelAnimationFrame",
    "CancelIdleCallback",
    "Commit",
    "V8.CompileCode",
    "V8.CompileModule",
    "v8.compile",
    "CompositeLayers",
    "ComputeIntersections",
    "ConsoleTime",
    "CppGC.IncrementalSweep",
    "DoDecryptReply",
    "DoDecrypt",
    "DoDigestReply",
    "DoDigest",
    "DoEncryptReply",
    "DoEncrypt",
    "DoSignReply",
    "DoSign",
    "DoVerifyReply",
    "DoVerify",
    "Decode Image",
    "EmbedderCallback",
    "v8.evaluateModule",
    "EvaluateScript",
    "EventDispatch",
    "EventTiming",
    "V8.FinalizeDeserialization",
    "FireAnimationFrame",
    "FireIdleCallback",
    "FunctionCall",
    "BlinkGC.AtomicPhase",
    "GCEvent",
    "GPUTask",
    "HandlePostMessage",
    "HitTest",
    "JSSample",
    "Layerize",
    "Layout",
    "MajorGC",
    "MinorGC",
    "V8.OptimizeCode",
    "PaintSetup",
    "Paint",
    "ParseAuthorStyleSheet",
    "ParseHTML",
    "PrePaint",
    "ProfileCall",
    "Program",
    "RasterTask",
    "RequestAnimationFrame",
    "RequestIdleCallback",
    "ResourceFinish",
    "ResourceReceivedData",
    "ResourceReceiveResponse",
    "ResourceSendRequest",
    "ResourceWillSendRequest",
    "RunMicrotasks",
    "RunPostTaskCallback",
    "RunTask",
    "SchedulePostMessage",
    "SchedulePostTaskCallback",
    "ScheduleStyleRecalculation",
    "ScrollLayer",
    "CpuProfiler::StartProfiling",
    "v8.parseOnBackgroundParsing",
    "v8.parseOnBackgroundWaiting",
    "v8.parseOnBackground",
    "TimeStamp",
    "TimerFire",
    "TimerInstall",
    "TimerRemove",
    "UpdateLayerTree",
    "UpdateLayoutTree",
    "UserTiming",
    "V8Console::runTask",
    "v8.wasm.cachedModule",
    "v8.wasm.compiledModule",
    "v8.wasm.moduleCacheHit",
    "v8.wasm.moduleCacheInvalid",
];

#[derive(Deserialize, Default)]
struct Frame {
    #[serde(default)]
    url: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Data {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    style_sheet_url: Option<String>,
    #[serde(default)]
    stack_trace: Option<Vec<Frame>>,
    #[serde(default)]
    request_id: Option<String>,
    #[serde(default)]
    encoded_data_length: Option<f64>,
    #[serde(default)]
    from_cache: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Args {
    #[serde(default)]
    data: Option<Data>,
    #[serde(default)]
    begin_data: Option<Frame>,
}

/// DevTools' `getNonResolvedURL` without the samples and handler data.
fn url_of(name: &str, args: &Args) -> Option<String> {
    let data = args.data.as_ref();
    if name == "ParseAuthorStyleSheet" {
        return data.and_then(|d| d.style_sheet_url.clone());
    }
    let stack = data.and_then(|d| d.stack_trace.as_ref()?.first()?.url.clone());
    if stack.is_some() {
        return stack;
    }
    if name == "ParseHTML" {
        return args.begin_data.as_ref().and_then(|b| b.url.clone());
    }
    data.and_then(|d| d.url.clone()).filter(|u| !u.is_empty())
}

/// A visible event open on a thread, its URL and the time its visible children took.
struct Open {
    ts: f64,
    end: f64,
    url: Option<u32>,
    children: f64,
    /// Navigations seen when it began.
    navigations: u32,
}

/// Self time spent in the events of one thread that name one URL, from `ts` on, between
/// two navigations (in the thread's own order, which is the order of its events' times).
struct Spent {
    thread: (i64, i64),
    ts: f64,
    url: u32,
    time: f64,
    navigations: u32,
}

/// A request's transfer size as the main thread's network events report it.
#[derive(Default)]
struct Transfer {
    thread: (i64, i64),
    ts: f64,
    size: f64,
    cached: bool,
}

/// What the stream leaves for this insight.
#[derive(Default)]
pub(super) struct Evidence {
    urls: Vec<String>,
    url_ids: HashMap<String, u32>,
    open: HashMap<(i64, i64), Vec<Open>>,
    spent: Vec<Spent>,
    /// The latest `spent` of each thread and URL, still adding up.
    adding: HashMap<((i64, i64), u32), usize>,
    /// Navigations seen so far: `spent` adds up only between two.
    navigations: u32,
    /// Per URL and process: the span of its events of 1 ms or more.
    outlined: HashMap<(u32, i64), Bounds>,
    transfers: HashMap<String, Transfer>,
}

impl Evidence {
    pub(super) fn take(&mut self, e: &Event) {
        if e.name == "navigationStart" && e.args.is_some_and(|a| a.contains("documentLoaderURL")) {
            self.navigations += 1;
        }
        let parse = |a: &str| serde_json::from_str::<Args>(a).unwrap_or_default();
        if matches!(
            e.name,
            "ResourceReceiveResponse" | "ResourceReceivedData" | "ResourceFinish"
        ) {
            let args = e.args.map(parse).unwrap_or_default();
            self.transfer(e, args.data.as_ref());
            return;
        }
        // Only complete events count: as main-thread time, or when they take 1 ms or more.
        let dur = e.dur.unwrap_or(0.0);
        let visible = e.ph == "X" && VISIBLE.contains(&e.name);
        if e.ph != "X" || (!visible && dur < OUTLINED) {
            return;
        }
        let args = match e.args {
            Some(a) if a.contains("rl\"") => parse(a),
            _ => Args::default(),
        };
        let url = url_of(e.name, &args).map(|u| self.intern(u));
        if let (Some(url), true) = (url, dur >= OUTLINED) {
            let span = self.outlined.entry((url, e.at.pid)).or_insert(Bounds {
                min: e.at.ts,
                max: e.at.ts + dur,
            });
            span.min = span.min.min(e.at.ts);
            span.max = span.max.max(e.at.ts + dur);
        }
        if !visible {
            return;
        }
        let thread = (e.at.pid, e.at.tid);
        let end = e.at.ts + dur;
        let mut open = self.open.remove(&thread).unwrap_or_default();
        while open.last().is_some_and(|o| end > o.end) {
            self.close(thread, &mut open);
        }
        if let Some(parent) = open.last_mut() {
            parent.children += dur;
        }
        open.push(Open {
            ts: e.at.ts,
            end,
            url,
            children: 0.0,
            navigations: self.navigations,
        });
        self.open.insert(thread, open);
    }

    fn intern(&mut self, url: String) -> u32 {
        if let Some(id) = self.url_ids.get(&url) {
            return *id;
        }
        let id = self.urls.len() as u32;
        self.urls.push(url.clone());
        self.url_ids.insert(url, id);
        id
    }

    fn close(&mut self, thread: (i64, i64), open: &mut Vec<Open>) {
        let Some(o) = open.pop() else { return };
        let time = (o.end - o.ts) - o.children;
        let Some(url) = o.url.filter(|_| time > 0.0) else {
            return;
        };
        if let Some(&i) = self.adding.get(&(thread, url)) {
            let spent = &mut self.spent[i];
            if spent.navigations == o.navigations {
                spent.time += time;
                spent.ts = spent.ts.min(o.ts);
                return;
            }
        }
        if self.spent.len() < KEPT {
            self.adding.insert((thread, url), self.spent.len());
            self.spent.push(Spent {
                thread,
                ts: o.ts,
                url,
                time,
                navigations: o.navigations,
            });
        }
    }

    /// DevTools' transfer size of a request: its data events' lengths, or the finish's.
    fn transfer(&mut self, e: &Event, data: Option<&Data>) {
        let Some(data) = data else { return };
        let Some(id) = &data.request_id else { return };
        let t = self.transfers.entry(id.clone()).or_default();
        t.thread = (e.at.pid, e.at.tid);
        t.ts = e.at.ts;
        let length = data.encoded_data_length.unwrap_or(0.0);
        match e.name {
            "ResourceReceiveResponse" => t.cached = data.from_cache.unwrap_or(false),
            "ResourceReceivedData" if t.cached => t.size = 0.0,
            "ResourceReceivedData" => t.size += length,
            _ if length == 0.0 && t.cached => t.size = 0.0,
            _ => {}
        }
        if e.name != "ResourceReceivedData" && length > 0.0 {
            t.size = length;
        }
    }

    /// Closes what the trace left open; then the evidence is read per insight set.
    pub(super) fn finish(mut self, requests: &[Request]) -> Finished {
        let threads: Vec<(i64, i64)> = self.open.keys().copied().collect();
        for thread in threads {
            let mut open = self.open.remove(&thread).unwrap_or_default();
            while !open.is_empty() {
                self.close(thread, &mut open);
            }
        }
        let mut entities = Entities::new();
        let url_entities = self.urls.iter().map(|u| entities.of(u)).collect();
        let request_entities = requests
            .iter()
            .map(|r| (r.id.clone(), (entities.of(&r.url), r.ts, r.end)))
            .collect();
        Finished {
            evidence: self,
            url_entities,
            request_entities,
            entities,
        }
    }
}

type RequestEntities = HashMap<String, (Option<Entity>, f64, f64)>;

/// The evidence with every URL's entity resolved.
pub(super) struct Finished {
    evidence: Evidence,
    url_entities: Vec<Option<Entity>>,
    request_entities: RequestEntities,
    entities: Entities,
}

/// One entity's share of the insight set.
#[derive(Clone, Debug)]
struct Summary {
    entity: Entity,
    transfer: f64,
    time: f64,
}

/// ThirdParties for one insight set.
#[derive(Clone, Debug, Default)]
pub(crate) struct Model {
    /// Entities other than the page's, in the order they first show up.
    others: Vec<Summary>,
    /// The spans of their events of 1 ms or more.
    outlined: Option<Bounds>,
}

impl Finished {
    /// `main`: the main frame's main thread; `first_party`: the page's URL.
    pub(super) fn model(
        &mut self,
        cx: &Context,
        main: Option<(i64, i64)>,
        first_party: &str,
    ) -> Model {
        let first = self.entities.of(first_party);
        let in_set = |ts: f64| ts >= cx.bounds.min && ts <= cx.bounds.max;
        let mut found: Vec<(f64, Summary)> = Vec::new();
        let mut add = |entity: &Option<Entity>, ts: f64, transfer: f64, time: f64| {
            let Some(entity) = entity.clone().filter(|e| Some(e) != first.as_ref()) else {
                return;
            };
            match found.iter_mut().find(|(_, s)| s.entity == entity) {
                Some((first_ts, s)) => {
                    *first_ts = first_ts.min(ts);
                    s.transfer += transfer;
                    s.time += time;
                }
                None => found.push((
                    ts,
                    Summary {
                        entity,
                        transfer,
                        time,
                    },
                )),
            }
        };
        for s in &self.evidence.spent {
            if Some(s.thread) == main && in_set(s.ts) {
                add(&self.url_entities[s.url as usize], s.ts, 0.0, s.time);
            }
        }
        for (id, t) in &self.evidence.transfers {
            let entity = self.request_entities.get(id).map(|r| &r.0);
            if let (Some(entity), true, true) = (entity, Some(t.thread) == main, in_set(t.ts)) {
                add(entity, t.ts, t.size, 0.0);
            }
        }
        found.retain(|(_, s)| s.time > 0.0 || s.transfer > 0.0);
        found.sort_by(|a, b| a.0.total_cmp(&b.0));
        let others: Vec<Summary> = found.into_iter().map(|(_, s)| s).collect();
        let outlined = self.outlined(&others, cx);
        Model { others, outlined }
    }

    fn outlined(&self, others: &[Summary], cx: &Context) -> Option<Bounds> {
        let wanted = |e: &Option<Entity>| {
            e.as_ref()
                .is_some_and(|e| others.iter().any(|s| s.entity == *e))
        };
        let events = self.evidence.outlined.iter().filter(|((url, pid), _)| {
            cx.is_renderer(*pid) && wanted(&self.url_entities[*url as usize])
        });
        let requests = self
            .request_entities
            .values()
            .filter(|(e, ts, end)| end - ts >= OUTLINED && wanted(e));
        let spans = events
            .map(|(_, b)| *b)
            .chain(requests.map(|(_, ts, end)| Bounds {
                min: *ts,
                max: *end,
            }));
        Bounds::union(spans)
    }
}

impl Model {
    /// Listed when an entity other than the page's shows up; about their events.
    pub(crate) fn listed(&self, set: Bounds) -> Option<Bounds> {
        if self.others.is_empty() {
            return None;
        }
        Some(self.outlined.unwrap_or(set))
    }

    /// `performance_analyze_insight`'s detailed analysis (DevTools' `formatThirdPartiesInsight`).
    pub(crate) fn details(&self) -> String {
        if self.others.is_empty() {
            return "No 3rd party scripts were found on this page.".into();
        }
        let mut by_size = self.others.clone();
        by_size.sort_by(|a, b| b.transfer.total_cmp(&a.transfer));
        let mut out = String::from(
            "The following list contains the largest transfer sizes by a 3rd party script:\n\n",
        );
        for s in by_size.iter().filter(|s| s.transfer > 0.0) {
            out.push_str(&format!("- {}: {}\n", s.entity.name(), bytes(s.transfer)));
        }
        out.push_str("\nThe following list contains the largest amount spent by a 3rd party script on the main thread:\n\n");
        let mut by_time = self.others.clone();
        by_time.sort_by(|a, b| b.time.total_cmp(&a.time));
        for s in by_time.iter().filter(|s| s.time > 0.0) {
            out.push_str(&format!(
                "- {}: {}\n",
                s.entity.name(),
                millis(s.time / 1000.0)
            ));
        }
        out.push('\n');
        out.push_str(DESCRIPTION);
        out
    }
}

pub(crate) const DESCRIPTION: &str = "3rd party code can significantly impact load performance. [Reduce and defer loading of 3rd party code](https://developer.chrome.com/docs/performance/insights/third-parties) to prioritize your page’s content.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_print_as_devtools_prints_them() {
        assert_eq!(bytes(441.0), "441\u{a0}B");
        assert_eq!(bytes(1813.0), "1.8\u{a0}kB");
        assert_eq!(bytes(2000.0), "2\u{a0}kB");
        assert_eq!(bytes(1_234_567.0), "1.2\u{a0}MB");
    }
}
