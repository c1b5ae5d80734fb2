//! CLSCulprits' detailed analysis: the worst cluster, its shifts with the elements they
//! moved, and the root causes DevTools finds for each (web fonts loaded just before the
//! pre-paint that shifted, unsized images painted right after it). DevTools also names
//! injected iframes and non-composited animations; this analyser does not look for those.

use super::format::{micros, millis};
use super::network::Request;
use super::report::{Cluster, InsightSet, Report};
use super::request_text::url_with_key;
use super::shifts::{PaintImage, Span};

/// How long before a pre-paint a font's load may end to be a cause of its shifts.
const ROOT_CAUSE_WINDOW: f64 = 500_000.0;

#[derive(Default)]
struct Causes<'a> {
    fonts: Vec<&'a Request>,
    images: Vec<&'a PaintImage>,
}

pub(super) fn culprits(report: &Report, set: &InsightSet) -> String {
    let (_, Some(worst)) = set.cls() else {
        return "No layout shifts were found.".into();
    };
    let base = report.bounds.map_or(0.0, |b| b.min);
    let causes = root_causes(report, set);
    let shifts: Vec<String> = worst
        .shifts
        .iter()
        .enumerate()
        .map(|(i, (at, score))| {
            let index = set
                .clusters
                .iter()
                .flat_map(|c| c.shifts.iter())
                .position(|(a, _)| a.index == at.index);
            let causes = index.and_then(|n| causes.get(n));
            shift_text(report, i, at.index, at.ts - base, *score, causes)
        })
        .collect();
    format!(
        "The worst layout shift cluster was the cluster that started at {} and ended at {}, with a duration of {}.\nThe score for this cluster is {:.4}.\n\nLayout shifts in this cluster:\n{}",
        micros(worst.first.ts - base),
        micros(worst.first.ts + worst.dur - base),
        micros(worst.dur),
        worst.score,
        shifts.join("\n")
    )
}

fn shift_text(
    report: &Report,
    i: usize,
    key: u64,
    start: f64,
    score: f64,
    causes: Option<&Causes>,
) -> String {
    let mut lines: Vec<String> = Vec::new();
    for font in causes.map_or(&[][..], |c| &c.fonts) {
        lines.push(format!(
            "- A font that was loaded over the network: {}.",
            url_with_key(report, font)
        ));
    }
    for image in causes.map_or(&[][..], |c| &c.images) {
        let extra = match &image.url {
            Some(url) => match report.requests.iter().find(|r| &r.url == url) {
                Some(request) => format!("url: {}", url_with_key(report, request)),
                None => format!("url: {url}"),
            },
            None => format!(
                "id: {}",
                image.node_id.map_or("undefined".into(), |n| n.to_string())
            ),
        };
        let name = image.node_name.as_deref().unwrap_or("undefined");
        lines.push(format!("- An unsized image ({name}) ({extra})."));
    }
    let causes = if lines.is_empty() {
        "- No potential root causes identified".into()
    } else {
        format!("- Potential root causes:\n  {}", lines.join("\n"))
    };
    let impacted = match report.shift_details.impacted.get(&key) {
        Some(names) => format!("\n- Impacted elements:\n  - {}\n", names.join("\n  - ")),
        None => String::new(),
    };
    format!(
        "### Layout shift {}:{impacted}\n- Start time: {}\n- Score: {score:.4}\n{causes}",
        i + 1,
        millis(start / 1000.0)
    )
}

/// The root causes of every shift in the set's clusters, in the clusters' order.
fn root_causes<'a>(report: &'a Report, set: &InsightSet) -> Vec<Causes<'a>> {
    let b = set.bounds;
    let d = &report.shift_details;
    let shifts: Vec<f64> = set
        .clusters
        .iter()
        .flat_map(|c: &Cluster| c.shifts.iter().map(|(at, _)| at.ts))
        .collect();
    let mut causes: Vec<Causes> = shifts.iter().map(|_| Causes::default()).collect();
    let pre_paints: Vec<Span> = d
        .pre_paints
        .iter()
        .copied()
        .filter(|p| b.holds(p.ts, p.dur))
        .collect();
    // Each pre-paint with the shifts that happened during it.
    let by_pre_paint: Vec<(Span, Vec<usize>)> = pre_paints
        .iter()
        .map(|p| {
            let during = (0..shifts.len())
                .filter(|i| shifts[*i] >= p.ts && shifts[*i] <= p.ts + p.dur)
                .collect();
            (*p, during)
        })
        .filter(|(_, during): &(Span, Vec<usize>)| !during.is_empty())
        .collect();
    let next_pre_paint = |end: f64| pre_paints.iter().find(|p| p.ts > end);
    let fonts = report.requests.iter().filter(|r| {
        b.holds(r.ts, r.end - r.ts) && r.resource_type == "Font" && r.mime_type.starts_with("font")
    });
    for font in fonts {
        let end = font.end;
        let Some(next) = next_pre_paint(end) else {
            continue;
        };
        if !(end < next.ts && end >= next.ts - ROOT_CAUSE_WINDOW) {
            continue;
        }
        for (_, during) in by_pre_paint.iter().filter(|(p, _)| p.ts == next.ts) {
            for i in during {
                causes[*i].fonts.push(font);
            }
        }
    }
    let images: Vec<&PaintImage> = d
        .paint_images
        .iter()
        .filter(|p| b.holds(p.ts, 0.0))
        .collect();
    for (pre_paint, during) in &by_pre_paint {
        let Some(paint) = images.iter().find(|p| p.ts > pre_paint.ts + pre_paint.dur) else {
            continue;
        };
        let is_unsized = d
            .unsized_images
            .iter()
            .filter(|(ts, _)| b.holds(*ts, 0.0))
            .any(|(_, node)| Some(*node) == paint.node_id);
        if is_unsized {
            for i in during {
                causes[*i].images.push(paint);
            }
        }
    }
    causes
}
