//! From what the stream left (`Collected`) to the report: navigations and their insight
//! sets, the lab metrics as DevTools' trace engine computes them (its Meta, PageLoadMetrics,
//! LargestImagePaint and LayoutShifts handlers, and the LCPBreakdown and CLSCulprits
//! insights), and each set's main-thread insights and Lantern estimates.

use std::collections::HashMap;

use super::async_stacks::AsyncStacks;
use super::blocking::LongTasks;
use super::event::{At, Bounds};
use super::insights::render_blocking;
use super::interactions::{Interaction, Timings};
use super::lantern;
use super::main_thread::{self, MainThread};
use super::network::{Request, Requests};
use super::page::{Mark, Navigation, Page, PageLoad, Shift};
use super::report::{Cluster, InsightSet, Lcp, Report, Subparts};
use super::shifts::ShiftDetails;

/// What the stream leaves: each collector as the analyser fed it.
#[derive(Default)]
pub(super) struct Collected {
    pub(super) page: Page,
    pub(super) requests: Requests,
    /// INP: the `EventTiming` events.
    pub(super) timings: Timings,
    /// CLSCulprits: impacted elements and the events root causes are read from.
    pub(super) shift_details: ShiftDetails,
    /// Request initiators: which script scheduled the task a request was sent from.
    pub(super) async_stacks: AsyncStacks,
    /// TBT: the long tasks.
    pub(super) long_tasks: LongTasks,
    /// What DOMSize, ForcedReflow and ThirdParties read.
    pub(super) main_thread: main_thread::Evidence,
    /// Lantern's main-thread tasks (RenderBlocking's savings).
    pub(super) tasks: lantern::Tasks,
    /// Events dropped because they did not parse.
    pub(super) malformed: u64,
}

impl Collected {
    pub(super) fn new() -> Self {
        Collected {
            page: Page::new(),
            ..Default::default()
        }
    }
}

const MAX_CLUSTER_DURATION: f64 = 5_000_000.0;
const MAX_SHIFT_GAP: f64 = 1_000_000.0;

/// Computes the report from what the stream left.
pub(super) fn report(collected: Collected, events: u64) -> Report {
    let mut c = collected.page;
    let requests = collected.requests.finish();
    let mut shift_details = collected.shift_details;
    shift_details.finish();
    c.shifts.sort_by(|a, b| a.at.ts.total_cmp(&b.at.ts));
    let interactions = collected.timings.finish();
    let bounds = trace_bounds(&c);
    // Navigations of frames no renderer was seen for are dropped (DevTools' Meta finalize);
    // the main frame's list keeps them all.
    let main_navigations: Vec<Navigation> = c
        .navigations
        .iter()
        .filter(|n| n.frame == c.main_frame && !n.frame.is_empty() && !n.id.is_empty())
        .cloned()
        .collect();
    let known = known_navigations(&c);
    let url = main_url(&c, &main_navigations, bounds);
    let metrics = page_load_metrics(&c, &known);
    let mut frame_navs: Vec<&Navigation> = known
        .iter()
        .copied()
        .filter(|n| n.frame == c.main_frame)
        .collect();
    frame_navs.sort_by(|a, b| a.at.ts.total_cmp(&b.at.ts));
    let max = bounds.map_or(0.0, |b| b.max);
    let clusters = clusters(&c.shifts, &frame_navs, max);

    let mut sets = Vec::new();
    if let Some(b) = bounds {
        initial_set(
            &mut sets,
            &c,
            &main_navigations,
            b,
            &clusters,
            &interactions,
        );
    }
    for (i, nav) in main_navigations.iter().enumerate() {
        let max = match main_navigations.get(i + 1) {
            Some(next) => next.at.ts - 1.0,
            None => max,
        };
        let set_bounds = Bounds {
            min: nav.at.ts,
            max,
        };
        let set = navigation_set(
            &c,
            nav,
            set_bounds,
            &metrics,
            &requests,
            &clusters,
            sets.len(),
        );
        sets.push(set);
    }
    let navigations = known.iter().map(|n| (n.frame.clone(), n.at.ts)).collect();
    let (main_thread, tasks) = (collected.main_thread, collected.tasks);
    main_thread_and_lantern(&mut sets, main_thread, tasks, &c, &requests);
    Report {
        url,
        bounds,
        cpu_throttling: None,
        network_throttling: None,
        sets,
        requests,
        navigations,
        link_preconnects: std::mem::take(&mut c.link_preconnects),
        events,
        long_tasks: collected.long_tasks,
        shift_details,
        async_stacks: collected.async_stacks,
    }
}

/// Each set's main-thread insights and Lantern's estimates, from what the stream left for
/// them.
fn main_thread_and_lantern(
    sets: &mut [InsightSet],
    main_thread: main_thread::Evidence,
    tasks: lantern::Tasks,
    c: &Page,
    requests: &[Request],
) {
    let parts: Vec<(Bounds, Option<&Navigation>)> = sets
        .iter()
        .map(|s| (s.bounds, s.navigation.as_ref()))
        .collect();
    let models = main_thread.evaluate(&parts, c, requests);
    for (set, model) in sets.iter_mut().zip(models) {
        set.main_thread = model;
    }
    let tasks = tasks.finish();
    for set in sets {
        set.lantern = lantern_estimates(set, &tasks);
    }
}

/// Lantern's estimates for a set: none where DevTools has no Lantern context (no
/// navigation, FCP or LCP).
fn lantern_estimates(set: &InsightSet, tasks: &lantern::Finished) -> lantern::Estimates {
    let (Some(nav), Some(fcp), Some(lcp)) = (&set.navigation, set.fcp, &set.lcp) else {
        return lantern::Estimates::default();
    };
    let load = lantern::Load {
        at: nav.at,
        fcp: nav.at.ts + fcp,
        lcp: nav.at.ts + lcp.timing,
        lcp_text: lcp.text,
        lcp_request: lcp.request.is_some(),
        requests: &set.requests,
        end: set.bounds.max,
    };
    lantern::estimate(&load, &render_blocking::requests(set), tasks)
}

/// From tracing's start (or the first event) to the last event.
fn trace_bounds(c: &Page) -> Option<Bounds> {
    match (c.bounds_min.is_finite(), c.bounds_max.is_finite()) {
        (true, true) => Some(Bounds {
            min: c.tracing_started.unwrap_or(c.bounds_min),
            max: c.bounds_max,
        }),
        _ => None,
    }
}

/// Navigations of frames a renderer was seen for.
fn known_navigations(c: &Page) -> Vec<&Navigation> {
    c.navigations
        .iter()
        .filter(|n| c.frames_seen.contains(&n.frame))
        .collect()
}

/// The trace's URL: the main frame's when tracing started, or its first navigation's when
/// that came within half a second (DevTools' Meta handler).
fn main_url(c: &Page, navigations: &[Navigation], bounds: Option<Bounds>) -> String {
    match (navigations.first(), bounds) {
        (Some(first), Some(b)) if first.at.ts - b.min < 500_000.0 && first.outermost => {
            first.url.clone()
        }
        _ => c.main_frame_url.clone(),
    }
}

/// The part of the trace before the first navigation: DevTools keeps it only when it
/// holds something (5 s or more, or layout shifts).
fn initial_set(
    sets: &mut Vec<InsightSet>,
    c: &Page,
    navigations: &[Navigation],
    b: Bounds,
    clusters: &[Cluster],
    interactions: &[Interaction],
) {
    let bounds = match navigations.first() {
        Some(first) => Bounds {
            min: b.min,
            max: first.at.ts - 1.0,
        },
        None => b,
    };
    let clusters: Vec<Cluster> = clusters
        .iter()
        .filter(|k| bounds.holds(k.first.ts, k.dur))
        .cloned()
        .collect();
    let inp = longest(interactions, bounds);
    if bounds.range() < 5_000_000.0 && clusters.is_empty() && inp.is_none() {
        return;
    }
    let url = c
        .final_urls
        .get("")
        .cloned()
        .unwrap_or_else(|| c.main_frame_url.clone());
    if !url.contains(':') {
        return;
    }
    sets.push(InsightSet {
        id: "NO_NAVIGATION".into(),
        url,
        bounds,
        navigation: None,
        document: None,
        fcp: None,
        first_paint: None,
        lcp: None,
        meta_charset: None,
        inp,
        clusters,
        requests: Vec::new(),
        main_thread: MainThread::default(),
        lantern: lantern::Estimates::default(),
    });
}

/// DevTools' INPBreakdown: of the set's interactions, the longest event per interaction
/// id, then the longest of those.
fn longest(interactions: &[Interaction], bounds: Bounds) -> Option<Interaction> {
    let mut longest: Option<&Interaction> = None;
    for event in interactions
        .iter()
        .filter(|e| bounds.holds(e.begin.ts, e.dur))
    {
        if longest.is_none_or(|l| event.dur > l.dur) {
            longest = Some(event);
        }
    }
    longest.filter(|l| l.dur != 0.0).cloned()
}

type Metrics<'a> = HashMap<(String, String), HashMap<&'static str, &'a PageLoad>>;

/// DevTools' PageLoadMetrics handler: each paint or mark goes to its navigation (by id for
/// paints, by frame and time for the document marks), in time order; LCP keeps the
/// candidate with the highest index. Keyed by (frame, navigation id).
fn page_load_metrics<'a>(c: &'a Page, known: &[&Navigation]) -> Metrics<'a> {
    let by_id: HashMap<&str, &Navigation> = known.iter().map(|n| (n.id.as_str(), *n)).collect();
    let mut events: Vec<&PageLoad> = c.page_loads.iter().collect();
    events.sort_by(|a, b| a.at.ts.total_cmp(&b.at.ts));
    let mut out: Metrics = HashMap::new();
    for event in events {
        let navigation = match event.mark {
            Mark::Fcp | Mark::Lcp | Mark::FirstPaint => event
                .navigation_id
                .as_deref()
                .and_then(|id| by_id.get(id).copied()),
            Mark::DomContent | Mark::Load => known
                .iter()
                .copied()
                .rfind(|n| n.frame == event.frame && n.at.ts <= event.at.ts),
        };
        let Some(navigation) = navigation else {
            continue;
        };
        if !c
            .frame_processes
            .contains(&(event.frame.clone(), event.at.pid))
        {
            continue;
        }
        let key = (event.frame.clone(), navigation.id.clone());
        let metrics = out.entry(key).or_default();
        let name = match event.mark {
            Mark::FirstPaint => "FP",
            Mark::Fcp => "FCP",
            Mark::Lcp => "LCP",
            Mark::DomContent => "DCL",
            Mark::Load => "L",
        };
        if event.mark == Mark::Lcp {
            if let Some(last) = metrics.get("LCP") {
                if last.candidate_index >= event.candidate_index {
                    continue;
                }
            }
        }
        metrics.insert(name, event);
    }
    out
}

fn navigation_set(
    c: &Page,
    nav: &Navigation,
    bounds: Bounds,
    metrics: &Metrics,
    requests: &[Request],
    clusters: &[Cluster],
    index: usize,
) -> InsightSet {
    let key = (c.main_frame.clone(), nav.id.clone());
    let nav_metrics = metrics.get(&key);
    let document = requests.iter().find(|r| r.id == nav.id).cloned();
    let fcp = nav_metrics
        .and_then(|m| m.get("FCP"))
        .map(|e| e.at.ts - nav.at.ts);
    let lcp = nav_metrics
        .and_then(|m| m.get("LCP"))
        .map(|event| lcp(c, nav, event, document.as_ref(), requests));
    InsightSet {
        id: format!("NAVIGATION_{index}"),
        url: c
            .final_urls
            .get(&nav.id)
            .cloned()
            .unwrap_or_else(|| c.main_frame_url.clone()),
        bounds,
        navigation: Some(nav.clone()),
        document,
        fcp,
        first_paint: nav_metrics.and_then(|m| m.get("FP")).map(|e| e.at.ts),
        lcp,
        meta_charset: meta_charset(c, nav),
        inp: None,
        clusters: clusters
            .iter()
            .filter(|k| bounds.holds(k.first.ts, k.dur))
            .cloned()
            .collect(),
        requests: requests
            .iter()
            .filter(|r| r.ts >= nav.at.ts && r.ts <= bounds.max)
            .cloned()
            .collect(),
        main_thread: MainThread::default(),
        lantern: lantern::Estimates::default(),
    }
}

/// The disposition of the last charset check of the navigation's document (a check belongs
/// to the frame's latest navigation at its time).
fn meta_charset(c: &Page, nav: &Navigation) -> Option<String> {
    let mut checks: Vec<&(At, String, String)> = c
        .charset_checks
        .iter()
        .filter(|k| k.1 == nav.frame)
        .collect();
    checks.sort_by(|a, b| a.0.ts.total_cmp(&b.0.ts));
    checks
        .into_iter()
        .rfind(|(at, _, _)| {
            let latest = c
                .navigations
                .iter()
                .filter(|n| n.frame == nav.frame && c.frames_seen.contains(&n.frame))
                .rfind(|n| n.at.ts <= at.ts);
            latest.is_some_and(|n| n.id == nav.id)
        })
        .map(|k| k.2.clone())
}

fn lcp(
    c: &Page,
    nav: &Navigation,
    event: &PageLoad,
    document: Option<&Request>,
    requests: &[Request],
) -> Lcp {
    let request = lcp_request(c, nav, event, requests);
    let subparts = document.and_then(|doc| subparts(nav, doc, event, request.as_ref()));
    Lcp {
        timing: event.at.ts - nav.at.ts,
        event: event.at,
        node_id: event.node_id,
        text: event.text,
        loading_attr: event.loading_attr.clone(),
        node_name: event.node_name.clone(),
        request,
        subparts,
    }
}

/// The LCP image's request: the first request for its URL between the navigation and the
/// image's paint (DevTools' LargestImagePaint handler).
fn lcp_request(
    c: &Page,
    nav: &Navigation,
    event: &PageLoad,
    requests: &[Request],
) -> Option<Request> {
    let node = event.node_id.filter(|n| *n != 0)?;
    let (paint_ts, url) = c.image_paints.get(&(event.at.pid, node))?;
    if url.is_empty() {
        return None;
    }
    requests
        .iter()
        .skip_while(|r| r.ts < nav.at.ts)
        .take_while(|r| r.ts < *paint_ts)
        .find(|r| &r.url == url)
        .cloned()
}

fn subparts(
    nav: &Navigation,
    doc: &Request,
    event: &PageLoad,
    request: Option<&Request>,
) -> Option<Subparts> {
    let first_byte = doc.first_byte()?;
    let ttfb = Bounds {
        min: nav.at.ts,
        max: first_byte,
    };
    let Some(request) = request else {
        return Some(Subparts {
            ttfb,
            load_delay: None,
            load_duration: None,
            render_delay: Bounds {
                min: first_byte,
                max: event.at.ts,
            },
        });
    };
    Some(Subparts {
        ttfb,
        load_delay: Some(Bounds {
            min: first_byte,
            max: request.ts,
        }),
        load_duration: Some(Bounds {
            min: request.ts,
            max: request.finish_time,
        }),
        render_delay: Bounds {
            min: request.finish_time,
            max: event.at.ts,
        },
    })
}

/// DevTools' LayoutShifts handler: session windows that end after 5 s, after a 1 s gap,
/// or at a navigation of the main frame.
fn clusters(shifts: &[Shift], navs: &[&Navigation], max: f64) -> Vec<Cluster> {
    let nav_before = |ts: f64| navs.iter().rposition(|n| n.at.ts < ts);
    let mut out: Vec<Cluster> = Vec::new();
    let (mut first_ts, mut last_ts) = match shifts.first() {
        Some(s) => (s.at.ts, s.at.ts),
        None => return out,
    };
    let mut last_nav = None;
    for shift in shifts.iter() {
        let too_long = shift.at.ts - first_ts > MAX_CLUSTER_DURATION;
        let gap = shift.at.ts - last_ts > MAX_SHIFT_GAP;
        let nav = nav_before(shift.at.ts);
        let navigated = last_nav != nav && nav.is_some();
        if too_long || gap || navigated || out.is_empty() {
            let mut end = f64::INFINITY;
            if too_long {
                end = end.min(first_ts + MAX_CLUSTER_DURATION);
            }
            if gap {
                end = end.min(last_ts + MAX_SHIFT_GAP);
            }
            if let (true, Some(i)) = (navigated, nav) {
                end = end.min(navs[i].at.ts);
            }
            if let Some(current) = out.last_mut() {
                current.window.max = end;
            }
            out.push(Cluster {
                first: shift.at,
                worst_index: shift.at.index,
                dur: 0.0,
                score: 0.0,
                window: Bounds {
                    min: shift.at.ts,
                    max: shift.at.ts,
                },
                shifts: Vec::new(),
            });
            first_ts = shift.at.ts;
        }
        if let Some(current) = out.last_mut() {
            current.score += shift.score;
            current.window.max = shift.at.ts;
            current.shifts.push((shift.at, shift.score));
        }
        last_ts = shift.at.ts;
        last_nav = nav;
    }
    if let Some(last) = out.last_mut() {
        let next_nav = navs
            .iter()
            .position(|n| n.at.ts > last.window.max)
            .filter(|i| *i != 0)
            .map_or(f64::INFINITY, |i| navs[i].at.ts);
        last.window.max = (last.window.min + MAX_CLUSTER_DURATION)
            .min(last.window.max + MAX_SHIFT_GAP)
            .min(max)
            .min(next_nav);
    }
    for cluster in &mut out {
        let mut largest = 0.0;
        for (at, score) in &cluster.shifts {
            if *score > largest {
                largest = *score;
                cluster.worst_index = at.index;
            }
        }
        let last = cluster.shifts.last().map_or(cluster.first.ts, |s| s.0.ts);
        cluster.dur = last - cluster.first.ts + MAX_SHIFT_GAP;
    }
    out
}
