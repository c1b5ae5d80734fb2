//! Which of DevTools' insights an insight set lists, with the bounds each is about.
//! DevTools lists an insight unless it passes; its own descriptions and example questions
//! are part of the answer an agent reads, so they are kept here verbatim.

use super::event::Bounds;
use super::lcp_text::discovery;
use super::main_thread::{dom_size, forced_reflow, third_parties};
use super::report::InsightSet;

// The network insights port DevTools' rules on a set's requests, a file each; rank.rs
// orders the list by the LCP savings they estimate.
pub(super) mod document_latency;
pub(super) mod network_dependency_tree;
mod rank;
pub(super) mod render_blocking;

/// DevTools' insights in its baseline order, and whether this analyser computes each.
pub const ALL: &[(&str, bool)] = &[
    ("INPBreakdown", true),
    ("LCPBreakdown", true),
    ("LCPDiscovery", true),
    ("CLSCulprits", true),
    ("RenderBlocking", true),
    ("NetworkDependencyTree", true),
    ("ImageDelivery", false),
    ("DocumentLatency", true),
    ("FontDisplay", false),
    ("Viewport", false),
    ("DOMSize", true),
    ("ThirdParties", true),
    ("DuplicatedJavaScript", false),
    ("SlowCSSSelector", false),
    ("ForcedReflow", true),
    ("Cache", false),
    ("CharacterSet", true),
    ("ModernHTTP", false),
    ("LegacyJavaScript", false),
];

/// Whether a set lists an insight, and about which part of the trace.
type Check = fn(&InsightSet) -> Option<Bounds>;

/// An insight the set lists.
pub(super) struct Listed {
    pub(super) name: &'static str,
    pub(super) bounds: Bounds,
}

/// DevTools' description and example questions for an insight.
pub(super) fn texts(name: &str) -> (&'static str, &'static [&'static str]) {
    match name {
        "INPBreakdown" => (
            "Start investigating [how to improve INP](https://developer.chrome.com/docs/performance/insights/inp-breakdown) by looking at the longest subpart",
            &[
                "Suggest fixes for my longest interaction",
                "Why is a large INP score problematic?",
                "What's the biggest contributor to my longest interaction?",
            ],
        ),
        "LCPBreakdown" => (
            "Each [subpart has specific improvement strategies](https://developer.chrome.com/docs/performance/insights/lcp-breakdown). Ideally, most of the LCP time should be spent on loading the resources, not within delays.",
            &[
                "Help me optimize my LCP score",
                "Which LCP subpart was most problematic?",
                "What can I do to reduce the LCP time for this page load?",
            ],
        ),
        "LCPDiscovery" => (
            "[Optimize LCP](https://developer.chrome.com/docs/performance/insights/lcp-discovery) by making the LCP image discoverable from the HTML immediately, and avoiding lazy-loading",
            &[
                "Suggest fixes to reduce my LCP",
                "What can I do to reduce my LCP discovery time?",
                "Why is LCP discovery time important?",
            ],
        ),
        "CLSCulprits" => (
            "Layout shifts occur when elements move absent any user interaction. [Investigate the causes of layout shifts](https://developer.chrome.com/docs/performance/insights/cls-culprit), such as elements being added, removed, or their fonts changing as the page loads.",
            &[
                "Help me optimize my CLS score",
                "How can I prevent layout shifts on this page?",
            ],
        ),
        // The network insights: their texts here with the others', their rules in their files.
        "RenderBlocking" => (
            "Requests are blocking the page’s initial render, which may delay LCP. [Deferring or inlining](https://developer.chrome.com/docs/performance/insights/render-blocking) can move these network requests out of the critical path.",
            &[
                "Show me the most impactful render-blocking requests that I should focus on",
                "How can I reduce the number of render-blocking requests?",
            ],
        ),
        "NetworkDependencyTree" => (
            "[Avoid chaining critical requests](https://developer.chrome.com/docs/performance/insights/network-dependency-tree) by reducing the length of chains, reducing the download size of resources, or deferring the download of unnecessary resources to improve page load",
            &["How do I optimize my network dependency tree?"],
        ),
        "DocumentLatency" => (
            "Your first network request is the most important. [Reduce its latency](https://developer.chrome.com/docs/performance/insights/document-latency) by avoiding redirects, ensuring a fast server response, and enabling text compression.",
            &[
                "How do I decrease the initial loading time of my page?",
                "Did anything slow down the request for this document?",
            ],
        ),
        "DOMSize" => (dom_size::DESCRIPTION, &["How can I reduce the size of my DOM?"]),
        "ThirdParties" => (
            third_parties::DESCRIPTION,
            &["Which third parties are having the largest impact on my page performance?"],
        ),
        "ForcedReflow" => (
            forced_reflow::DESCRIPTION,
            &[
                "How can I avoid forced reflows and layout thrashing?",
                "What is forced reflow and why is it problematic?",
            ],
        ),
        "CharacterSet" => (
            "A character encoding declaration is required. It can be done with a meta charset tag in the first 1024 bytes of the HTML or in the Content-Type HTTP response header. [Learn more about declaring the character encoding](https://developer.chrome.com/docs/insights/charset/).",
            &["How do I declare a character encoding for my page?"],
        ),
        _ => ("", &[]),
    }
}

/// The insights of `set` that do not pass, in DevTools' baseline order.
pub(super) fn listed(set: &InsightSet) -> Vec<Listed> {
    let mut out = Vec::new();
    if let Some(i) = &set.inp {
        out.push(Listed {
            name: "INPBreakdown",
            bounds: Bounds {
                min: i.begin.ts,
                max: i.begin.ts + i.input_delay() + i.handling() + i.presentation_delay(),
            },
        });
    }
    if let Some(bounds) = lcp_breakdown(set) {
        out.push(Listed {
            name: "LCPBreakdown",
            bounds,
        });
    }
    if let Some(bounds) = lcp_discovery(set) {
        out.push(Listed {
            name: "LCPDiscovery",
            bounds,
        });
    }
    if let Some(bounds) = cls_culprits(set) {
        out.push(Listed {
            name: "CLSCulprits",
            bounds,
        });
    }
    // The network insights decide from the set's requests, each by its own file's rules.
    let network: [(&'static str, Check); 3] = [
        ("RenderBlocking", render_blocking::bounds),
        ("NetworkDependencyTree", network_dependency_tree::bounds),
        ("DocumentLatency", document_latency::bounds),
    ];
    for (name, bounds) in network {
        if let Some(bounds) = bounds(set) {
            out.push(Listed { name, bounds });
        }
    }
    let main_thread = &set.main_thread;
    let more = [
        ("DOMSize", main_thread.dom_size.listed()),
        ("ThirdParties", main_thread.third_parties.listed(set.bounds)),
        ("ForcedReflow", main_thread.forced_reflow.listed(set.bounds)),
        ("CharacterSet", character_set(set)),
    ];
    for (name, bounds) in more {
        if let Some(bounds) = bounds {
            out.push(Listed { name, bounds });
        }
    }
    // Baseline order first; then DevTools' ranking by LCP savings (a stable sort).
    out.sort_by_key(|l| ALL.iter().position(|(n, _)| *n == l.name));
    by_rank(set, &mut out);
    out
}

/// DevTools moves insights whose LCP savings would raise the LCP score most to the front
/// (a stable sort: ties keep the baseline order).
fn by_rank(set: &InsightSet, listed: &mut [Listed]) {
    let observed = set.lcp.as_ref().map_or(0.0, |l| l.timing / 1000.0);
    let lcp_savings = |name: &str| match name {
        "DocumentLatency" => document_latency::checks(set).map_or(0.0, |c| c.savings_ms()),
        "RenderBlocking" => set.lantern.render_blocking_savings.map_or(0.0, |s| s.1),
        _ => 0.0,
    };
    listed.sort_by(|a, b| {
        let rank = |l: &Listed| rank::rank(observed, lcp_savings(l.name));
        rank(b).total_cmp(&rank(a))
    });
}

/// Fails when neither the Content-Type header nor a meta tag in the first 1024 bytes
/// declares the encoding; about the document's request.
fn character_set(set: &InsightSet) -> Option<Bounds> {
    set.navigation.as_ref()?;
    let doc = set.document.as_ref()?;
    let http = doc.content_type.as_deref().is_some_and(declares_charset);
    let meta = set.meta_charset.as_deref() == Some("found-in-first-1024-bytes");
    (!http && !meta).then_some(Bounds {
        min: doc.ts,
        max: doc.end,
    })
}

/// DevTools' `/charset\s*=\s*[a-zA-Z0-9\-_:.()]{2,}/i`.
pub(super) fn declares_charset(content_type: &str) -> bool {
    let lower = content_type.to_ascii_lowercase();
    lower.match_indices("charset").any(|(i, _)| {
        let rest = lower[i + "charset".len()..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            return false;
        };
        let name = rest.trim_start();
        name.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "-_:.()".contains(*c))
            .count()
            >= 2
    })
}

/// What the summary says an insight would save, when it says anything.
pub(super) fn savings(set: &InsightSet, name: &str) -> Option<String> {
    match name {
        "RenderBlocking" => render_blocking::savings(set),
        "DocumentLatency" => document_latency::savings(set),
        _ => None,
    }
}

/// The bytes an insight says could be saved (none when zero).
pub(super) fn wasted_bytes(set: &InsightSet, name: &str) -> Option<f64> {
    match name {
        "DocumentLatency" => document_latency::wasted_bytes(set),
        _ => None,
    }
    .filter(|b| *b != 0.0)
}

/// Listed whenever there is an LCP; about its subparts and its resource's request.
fn lcp_breakdown(set: &InsightSet) -> Option<Bounds> {
    let lcp = set.lcp.as_ref()?;
    let mut windows = Vec::new();
    if let Some(s) = &lcp.subparts {
        windows.push(s.ttfb);
        windows.extend(s.load_delay);
        windows.extend(s.load_duration);
        windows.push(s.render_delay);
    }
    if let Some(r) = &lcp.request {
        windows.push(Bounds {
            min: r.ts,
            max: r.end,
        });
    }
    Some(Bounds::union(windows).unwrap_or(set.bounds))
}

fn lcp_discovery(set: &InsightSet) -> Option<Bounds> {
    let d = discovery(set)?;
    if d.priority_hinted && d.discoverable && d.eager {
        return None;
    }
    let request = set.lcp.as_ref()?.request.as_ref()?;
    let windows = match d.first_byte {
        Some(first) if request.ts != first => vec![
            Bounds {
                min: request.ts,
                max: request.end,
            },
            Bounds {
                min: first,
                max: request.ts,
            },
        ],
        _ => Vec::new(),
    };
    Some(Bounds::union(windows).unwrap_or(set.bounds))
}

/// Listed when the set has a layout shift cluster; about its worst one.
fn cls_culprits(set: &InsightSet) -> Option<Bounds> {
    let mut worst = set.clusters.first()?;
    for cluster in &set.clusters {
        if cluster.score > worst.score {
            worst = cluster;
        }
    }
    Some(Bounds {
        min: worst.first.ts,
        max: worst.first.ts + worst.dur,
    })
}
