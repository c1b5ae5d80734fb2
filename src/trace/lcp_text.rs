//! LCPDiscovery's checks, and the detailed analysis of LCPBreakdown and LCPDiscovery: the
//! LCP, its element and (for an image) its request described in full, then the subparts or
//! the discovery checks, as DevTools' insight formatter writes them.

use super::format::millis;
use super::report::{InsightSet, Report};
use super::request_text::{url_with_key, verbose};

/// The checks on the LCP image's request, from the document's first byte to the request's end.
pub(super) struct Discovery {
    pub(super) priority_hinted: bool,
    pub(super) discoverable: bool,
    pub(super) eager: bool,
    pub(super) first_byte: Option<f64>,
}

pub(super) fn discovery(set: &InsightSet) -> Option<Discovery> {
    let lcp = set.lcp.as_ref()?;
    let doc = set.document.as_ref()?;
    let request = lcp.request.as_ref()?;
    let initiator = request.initiator.as_ref();
    let by_document = initiator.is_some_and(|i| {
        i.kind.as_deref() == Some("parser") && i.url.as_deref() == Some(doc.url.as_str())
    });
    Some(Discovery {
        priority_hinted: request.fetch_priority == "high",
        discoverable: request.is_link_preload || by_document,
        eager: lcp.loading_attr.as_deref() != Some("lazy") || request.is_link_preload,
        first_byte: doc.first_byte(),
    })
}

/// The LCP lines DevTools opens its LCP-related answers with (its
/// `lcpMetricSharedContext`; DocumentLatency's too): the time, and the element with the
/// request that fetched it, if any.
pub(super) fn shared_context(report: &Report, set: &InsightSet) -> String {
    let Some(lcp) = set.navigation.as_ref().and(set.lcp.as_ref()) else {
        return String::new();
    };
    let element = match &lcp.node_name {
        Some(name) => format!(
            "The LCP element ({name}, nodeId: {})",
            lcp.node_id.map_or("undefined".into(), |n| n.to_string())
        ),
        None => "The LCP element".into(),
    };
    let time = format!(
        "The Largest Contentful Paint (LCP) time for this navigation was {}.",
        millis(lcp.timing / 1000.0)
    );
    match &lcp.request {
        Some(r) => format!(
            "{time}\n{element} is an image fetched from {}.\n{}",
            url_with_key(report, r),
            verbose(report, r, "LCP resource network request")
        ),
        None => format!("{time}\n{element} is text and was not fetched from the network."),
    }
}

pub(super) fn breakdown(report: &Report, set: &InsightSet) -> String {
    let Some((lcp, s)) = set
        .lcp
        .as_ref()
        .and_then(|l| Some((l, l.subparts.as_ref()?)))
    else {
        return String::new();
    };
    let mut parts = vec![("Time to first byte", s.ttfb)];
    if let (Some(delay), Some(duration)) = (s.load_delay, s.load_duration) {
        parts.push(("Resource load delay", delay));
        parts.push(("Resource load duration", duration));
    }
    parts.push(("Element render delay", s.render_delay));
    let lcp_ms = lcp.timing / 1000.0;
    let bullets: Vec<String> = parts
        .iter()
        .map(|(label, bounds)| {
            let ms = bounds.range() / 1000.0;
            format!(
                "- {label}: {} ({:.1}% of total LCP time)",
                millis(ms),
                ms / lcp_ms * 100.0
            )
        })
        .collect();
    format!(
        "{}\n\nWe can break this time down into the {} subparts that combine to make the LCP time:\n\n{}",
        shared_context(report, set),
        parts.len(),
        bullets.join("\n")
    )
}

pub(super) fn discovery_checks(report: &Report, set: &InsightSet) -> String {
    let Some(d) = discovery(set) else {
        return String::new();
    };
    if d.first_byte.is_none() {
        return String::new();
    }
    let preload = set
        .lcp
        .as_ref()
        .and_then(|l| l.request.as_ref())
        .is_some_and(|r| r.is_link_preload);
    let priority = match (d.priority_hinted, preload) {
        (true, _) => "fetchpriority=high applied",
        (false, true) => "fetchpriority=high should be applied to the image preload request",
        (false, false) => "fetchpriority=high should be applied",
    };
    let checks = [
        (priority, d.priority_hinted),
        ("LCP resources shouldn’t use loading=lazy", d.eager),
        (
            "Request is discoverable in initial document",
            d.discoverable,
        ),
    ];
    let bullets: Vec<String> = checks
        .iter()
        .map(|(name, passed)| format!("- {name}: {}", if *passed { "PASSED" } else { "FAILED" }))
        .collect();
    format!(
        "{}\n\nThe result of the checks for this insight are:\n{}",
        shared_context(report, set),
        bullets.join("\n")
    )
}
