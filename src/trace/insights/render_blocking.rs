//! DevTools' RenderBlocking insight: the navigation's render-blocking requests that were
//! done before the first paint.
//!
//! DevTools estimates the FCP and LCP savings with Lantern (trace::lantern): the first
//! paint simulated with and without these requests.

use super::super::event::Bounds;
use super::super::network::Request;
use super::super::report::{InsightSet, Report};
use super::super::request_text;

/// "FCP N ms, LCP N ms"; nothing where DevTools has no Lantern estimate (no FCP or LCP, say).
pub(super) fn savings(set: &InsightSet) -> Option<String> {
    let (fcp, lcp) = set.lantern.render_blocking_savings?;
    Some(format!("FCP {fcp} ms, LCP {lcp} ms"))
}

/// The render-blocking requests of the set's navigation, longest first.
pub(crate) fn requests(set: &InsightSet) -> Vec<&Request> {
    let (Some(nav), Some(first_paint)) = (&set.navigation, set.first_paint) else {
        return Vec::new();
    };
    let mut out: Vec<&Request> = set
        .requests
        .iter()
        .filter(|r| r.frame == nav.frame && r.is_render_blocking())
        .filter(|r| r.finish_time <= first_paint)
        .filter(|r| {
            // Parser-blocking requests in the body block only at the highest priorities.
            r.render_blocking != "in_body_parser_blocking"
                || r.priority == "VeryHigh"
                || (r.resource_type == "Script" && r.priority == "High")
        })
        .collect();
    out.sort_by(|a, b| b.dur().total_cmp(&a.dur()));
    out
}

/// Listed when there is one; about the requests.
pub(super) fn bounds(set: &InsightSet) -> Option<Bounds> {
    let windows: Vec<Bounds> = requests(set)
        .iter()
        .map(|r| Bounds {
            min: r.ts,
            max: r.end,
        })
        .collect();
    Bounds::union(windows)
}

pub(crate) fn details(report: &Report, set: &InsightSet) -> String {
    let requests = requests(set);
    let summary = request_text::requests(report, &requests);
    if summary.is_empty() {
        return "There are no network requests that are render-blocking.".into();
    }
    format!("Here is a list of the network requests that were render-blocking on this page and their duration:\n\n{summary}")
}
