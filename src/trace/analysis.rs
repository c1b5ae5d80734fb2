//! `performance_analyze_insight`: one insight of one insight set in detail, laid out as
//! DevTools' `PerformanceInsightFormatter.formatInsight` lays it out.

use super::format::micros;
use super::insights::{
    declares_charset, document_latency, listed, network_dependency_tree, render_blocking, ALL,
};
use super::report::{InsightSet, Report};
use super::{cls_text, lcp_text};

pub(super) fn insight(report: &Report, set_id: &str, name: &str) -> Result<String, String> {
    let Some(set) = report.sets.iter().find(|s| s.id == set_id) else {
        return Err("No Performance Insights for the given insight set id. Only use ids given in the \"Available insight sets\" list.".into());
    };
    let computed = match ALL.iter().find(|(n, _)| *n == name) {
        None => return Err(format!("No Insight with the name {name} found. Double check the name you provided is accurate and try again.")),
        Some((_, computed)) => *computed,
    };
    let details = match name {
        "INPBreakdown" => Some(inp_details(set)),
        "LCPBreakdown" => Some(lcp_text::breakdown(report, set)),
        "LCPDiscovery" => Some(lcp_text::discovery_checks(report, set)),
        "CLSCulprits" => Some(cls_text::culprits(report, set)),
        "CharacterSet" => Some(charset_details(set)),
        "NetworkDependencyTree" => Some(network_dependency_tree::details(report, set)),
        "RenderBlocking" => Some(render_blocking::details(report, set)),
        "DocumentLatency" => Some(document_latency::details(report, set)),
        "DOMSize" => Some(set.main_thread.dom_size.details()),
        "ForcedReflow" => set.main_thread.forced_reflow.details(),
        "ThirdParties" => Some(set.main_thread.third_parties.details()),
        _ => None,
    };
    match details {
        Some(details) if computed => Ok(layout(name, &details, set)),
        _ if listed(set).iter().any(|l| l.name == name) => Err(format!(
            "devtools-mcp lists {name} in the summary but does not write its detailed analysis yet."
        )),
        _ => Err(format!(
            "devtools-mcp does not compute the insight {name} yet."
        )),
    }
}

/// Title, summary and links of the insights analysed here (DevTools' texts); LCPBreakdown's
/// are the fallback.
const TEXTS: &[(&str, Texts)] = &[
    (
        "INPBreakdown",
        ("INP breakdown",
            include_str!("texts/inp_summary.txt"),
            &[
                "https://developer.chrome.com/docs/performance/insights/inp-breakdown",
                "https://web.dev/articles/inp",
                "https://web.dev/explore/how-to-optimize-inp",
                "https://web.dev/articles/optimize-long-tasks",
                "https://web.dev/articles/avoid-large-complex-layouts-and-layout-thrashing",
            ],
        ),
    ),
    (
        "LCPDiscovery",
        ("LCP request discovery",
            include_str!("texts/lcp_discovery_summary.txt"),
            &[
                "https://developer.chrome.com/docs/performance/insights/lcp-discovery",
                "https://web.dev/articles/lcp",
                "https://web.dev/articles/optimize-lcp",
            ],
        ),
    ),
    (
        "CLSCulprits",
        ("Layout shift culprits",
            include_str!("texts/cls_culprits_summary.txt"),
            &[
                "https://developer.chrome.com/docs/performance/insights/cls-culprit",
                "https://web.dev/articles/cls",
                "https://web.dev/articles/optimize-cls",
            ],
        ),
    ),
    (
        "NetworkDependencyTree",
        ("Network dependency tree",
            include_str!("texts/network_dependency_tree_summary.txt"),
            &[
                "https://developer.chrome.com/docs/performance/insights/network-dependency-tree",
                "https://web.dev/learn/performance/understanding-the-critical-path",
                "https://developer.chrome.com/docs/lighthouse/performance/uses-rel-preconnect/",
            ],
        ),
    ),
    (
        "DocumentLatency",
        ("Document request latency",
            include_str!("texts/document_latency_summary.txt"),
            &[
                "https://developer.chrome.com/docs/performance/insights/document-latency",
                "https://web.dev/articles/optimize-ttfb",
            ],
        ),
    ),
    (
        "RenderBlocking",
        ("Render-blocking requests",
            include_str!("texts/render_blocking_summary.txt"),
            &[
                "https://developer.chrome.com/docs/performance/insights/render-blocking",
                "https://web.dev/articles/lcp",
                "https://web.dev/articles/optimize-lcp",
            ],
        ),
    ),
    (
        "DOMSize",
        ("Optimize DOM size",
            include_str!("texts/dom_size_summary.txt"),
            &[
                "https://developer.chrome.com/docs/performance/insights/dom-size",
                "https://developer.chrome.com/docs/lighthouse/performance/dom-size/",
            ],
        ),
    ),
    (
        "ForcedReflow",
        ("Forced reflow",
            include_str!("texts/forced_reflow_summary.txt"),
            &[
                "https://developer.chrome.com/docs/performance/insights/forced-reflow",
                "https://developers.google.com/web/fundamentals/performance/rendering/avoid-large-complex-layouts-and-layout-thrashing#avoid-forced-synchronous-layouts",
            ],
        ),
    ),
    (
        "ThirdParties",
        ("3rd parties",
            include_str!("texts/third_parties_summary.txt"),
            &[
                "https://developer.chrome.com/docs/performance/insights/third-parties",
                "https://web.dev/articles/optimizing-content-efficiency-loading-third-party-javascript/",
            ],
        ),
    ),
    (
        "CharacterSet",
        ("Declare a character encoding",
            include_str!("texts/charset_summary.txt"),
            &[
                "https://developer.chrome.com/docs/insights/charset/",
                "https://developer.chrome.com/docs/insights/charset/",
            ],
        ),
    ),
];

type Texts = (&'static str, &'static str, &'static [&'static str]);

const LCP_BREAKDOWN_TEXTS: Texts = (
    "LCP breakdown",
    include_str!("texts/lcp_breakdown_summary.txt"),
    &[
        "https://developer.chrome.com/docs/performance/insights/lcp-breakdown",
        "https://web.dev/articles/lcp",
        "https://web.dev/articles/optimize-lcp",
    ],
);

fn texts(name: &str) -> Texts {
    let found = TEXTS.iter().find(|(n, _)| *n == name);
    found.map_or(LCP_BREAKDOWN_TEXTS, |(_, texts)| *texts)
}

fn layout(name: &str, details: &str, set: &InsightSet) -> String {
    let (title, summary, links) = texts(name);
    let savings = super::insights::savings(set, name).unwrap_or_else(|| "none".into());
    let links: Vec<String> = links.iter().map(|l| format!("- {l}")).collect();
    format!(
        "## Insight Title: {title}\n\n## Insight Summary:\n{}\n\n## Detailed analysis:\n{details}\n\n## Estimated savings: {savings}\n\n## External resources:\n{}",
        summary.trim_end(),
        links.join("\n")
    )
}

fn charset_details(set: &InsightSet) -> String {
    let Some(doc) = set.navigation.as_ref().and(set.document.as_ref()) else {
        return String::new();
    };
    let http = doc.content_type.as_deref().is_some_and(declares_charset);
    let meta = set.meta_charset.as_deref().unwrap_or("unknown");
    let mut out = format!(
        "HTTP Content-Type header charset: {}.\nHTML meta charset disposition: {meta}.\n",
        if http { "present" } else { "missing" }
    );
    if !http && meta != "found-in-first-1024-bytes" {
        out.push_str("\nThe page does not declare character encoding via HTTP header or a meta charset tag in the first 1024 bytes.\n");
    }
    out
}

fn inp_details(set: &InsightSet) -> String {
    let Some(i) = &set.inp else {
        return String::new();
    };
    format!(
        "The longest interaction on the page was a `{}` which had a total duration of `{}`. The timings of each of the three subparts were:\n\n1. Input delay: {}\n2. Processing duration: {}\n3. Presentation delay: {}.",
        i.kind,
        micros(i.dur),
        micros(i.input_delay()),
        micros(i.handling()),
        micros(i.presentation_delay()),
    )
}
