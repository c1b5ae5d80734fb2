//! Lantern's First Contentful Paint graph (its optimistic one: what the page needed
//! before its first paint), its pessimistic LCP graph, and RenderBlocking's savings: the
//! FCP graph simulated as it is and without the render-blocking requests and what hangs
//! off them.

use std::collections::{HashMap, HashSet};

use super::graph::{Edges, Graph};
use super::simulator::Simulator;

/// Requests that cost less than this in the simulation are not worth deferring (ms).
const MINIMUM_WASTED_MS: f64 = 50.0;

/// Lantern's optimistic FCP graph: the main document, the render-blocking requests done by
/// `fcp` (not those scripts started), and the tasks of their scripts, the first layout,
/// paint and HTML parse before it; with what they depend on.
pub(super) fn first_contentful_paint(graph: &Graph, fcp: f64) -> Option<Edges> {
    let blocking = |n: usize| {
        graph.nodes[n]
            .net()
            .is_some_and(|r| r.has_render_blocking_priority() && r.initiator_type() != "script")
    };
    first_paint_based(graph, fcp, &blocking, false)
}

/// Lantern's pessimistic LCP graph (what NetworkDependencyTree's preconnect candidates
/// come from): every request done by the LCP and every layout before it, or the pessimistic
/// FCP graph when the LCP is text painted with the first content. `lcp` and `fcp` in µs.
pub(super) fn largest_contentful_paint(
    graph: &Graph,
    fcp: f64,
    lcp: f64,
    text: bool,
) -> Option<Edges> {
    if fcp == lcp && text {
        let blocking = |n: usize| {
            graph.nodes[n]
                .net()
                .is_some_and(|r| r.has_render_blocking_priority())
        };
        return first_paint_based(graph, fcp, &blocking, false);
    }
    first_paint_based(graph, lcp, &|_| true, true)
}

/// Lantern's `getFirstPaintBasedGraph`: the requests done by `cutoff` that `blocking`
/// accepts (the main document always), the tasks of their scripts, and the first layout,
/// paint and HTML parse before it (every layout when `all_layouts`).
fn first_paint_based(
    graph: &Graph,
    cutoff: f64,
    blocking: &dyn Fn(usize) -> bool,
    all_layouts: bool,
) -> Option<Edges> {
    let members = graph.edges.members();
    let mut tasks: Vec<usize> = Vec::new();
    let mut script_task: HashMap<&str, usize> = HashMap::new();
    for &n in &members {
        let node = &graph.nodes[n];
        let Some(task) = node.task() else { continue };
        if node.start <= cutoff {
            tasks.push(n);
        }
        for url in evaluated(graph, task) {
            let best = script_task.entry(url).or_insert(n);
            if node.start < graph.nodes[*best].start {
                *best = n;
            }
        }
    }
    tasks.sort_by(|a, b| graph.nodes[*a].start.total_cmp(&graph.nodes[*b].start));
    let mut kept_tasks: HashSet<usize> = HashSet::new();
    let mut not_blocking: HashSet<&str> = HashSet::new();
    for &n in &members {
        let node = &graph.nodes[n];
        let Some(r) = node.net() else { continue };
        if r.resource_type != Some("Script") || node.end > cutoff || !blocking(n) {
            continue;
        }
        match script_task.get(r.url) {
            Some(t) if tasks.contains(t) => {
                kept_tasks.insert(*t);
            }
            Some(_) => {
                not_blocking.insert(r.url);
            }
            None => {}
        }
    }
    let first = |f: fn(&super::tasks::Task) -> bool| {
        tasks
            .iter()
            .copied()
            .find(|&t| graph.nodes[t].task().is_some_and(f))
    };
    kept_tasks.extend(first(|t| t.layout));
    kept_tasks.extend(first(|t| t.paint));
    kept_tasks.extend(first(|t| t.parse_html));
    if all_layouts {
        kept_tasks.extend(
            tasks
                .iter()
                .filter(|&&t| graph.nodes[t].task().is_some_and(|t| t.layout)),
        );
    }
    graph.edges.keep(|n| {
        let node = &graph.nodes[n];
        match node.net() {
            None => kept_tasks.contains(&n),
            Some(r) => {
                let after = node.end > cutoff || node.start > cutoff;
                if after && n != graph.main_document {
                    return false;
                }
                !not_blocking.contains(r.url) && blocking(n)
            }
        }
    })
}

/// The scripts a task evaluates (by URL), modules included.
fn evaluated<'g>(graph: &'g Graph, task: &'g super::tasks::Task) -> Vec<&'g str> {
    let (pid, tid) = graph.thread;
    task.links
        .iter()
        .filter_map(|l| match *l {
            super::tasks::Link::Evaluates(u) => Some(graph.finished.string(u)),
            super::tasks::Link::Module(s) => graph.finished.module_url(pid, tid, s),
            _ => None,
        })
        .collect()
}

/// FCP and LCP savings (ms) if the `blocking` requests (by request id) were deferred.
pub(super) fn render_blocking_savings(
    graph: &Graph,
    sim: &Simulator,
    fcp_graph: &Edges,
    blocking: &[&str],
    image_lcp: bool,
) -> Option<(f64, f64)> {
    let before = sim.simulate(fcp_graph)?;
    let mut deferred: HashSet<usize> = HashSet::new();
    let mut worth = false;
    for id in blocking {
        // The request's node (after its hops), with its hops' time counted in.
        let Some(n) = fcp_graph.members().into_iter().find(|&n| {
            graph.nodes[n].net().is_some_and(|r| {
                r.request.id == *id && r.hop.is_none() && before.timings.contains_key(&n)
            })
        }) else {
            continue;
        };
        let mut duration = before.timings.get(&n).map_or(0.0, |t| t.end - t.start);
        for hop in hops(graph, fcp_graph, n) {
            deferred.insert(hop);
            duration += before.timings.get(&hop).map_or(0.0, |t| t.end - t.start);
        }
        deferred.extend(fcp_graph.downstream(n));
        worth |= duration.round() >= MINIMUM_WASTED_MS;
    }
    if !worth {
        return Some((0.0, 0.0));
    }
    let estimate_before = before
        .timings
        .values()
        .map(|t| t.end)
        .fold(f64::NEG_INFINITY, f64::max);
    let minimal = fcp_graph.keep(|n| !deferred.contains(&n))?;
    let after = sim.simulate(&minimal)?.time;
    let fcp = (estimate_before - after).max(0.0).round();
    Some((fcp, if image_lcp { 0.0 } else { fcp }))
}

/// The redirect hops before the request's node.
fn hops(graph: &Graph, edges: &Edges, n: usize) -> Vec<usize> {
    let Some(r) = graph.nodes[n].net() else {
        return Vec::new();
    };
    if r.request.redirects.is_empty() {
        return Vec::new();
    }
    edges
        .members()
        .into_iter()
        .filter(|&m| {
            m != n
                && graph.nodes[m]
                    .net()
                    .is_some_and(|h| std::ptr::eq(h.request, r.request))
        })
        .collect()
}
