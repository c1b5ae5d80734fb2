//! DevTools' NetworkDependencyTree insight: the chains of critical requests from the
//! document, their latency, the longest one, and the origins the page preconnected to.
//!
//! DevTools walks Lantern's page dependency graph; this walks its network part
//! (`lantern::network_graph`). Preconnect candidates come from Lantern (`lantern::Connections`):
//! its RTTs and its pessimistic LCP graph.

use std::collections::HashSet;

use super::super::event::Bounds;
use super::super::format::{js, millis};
use super::super::lantern::network_graph::{self, Graph};
use super::super::network::Request;
use super::super::report::{InsightSet, Report};
use super::super::request_text::{initiator, origin, url, url_with_key};

/// A request in the tree: its latency from the chain's first request and what it loaded.
struct Node {
    /// The request (an index into the set's requests).
    request: usize,
    /// A redirect hop of the request: Lantern's copy of it, which has no event key.
    hop: bool,
    time: f64,
    children: Vec<Node>,
    longest: bool,
}

/// The critical request tree of a navigation.
struct Tree {
    roots: Vec<Node>,
    max_time: f64,
    /// A chain of two requests or more.
    fail: bool,
}

/// DevTools' `isCritical`: the document, or a high-priority or render-blocking request
/// something initiated that is not an image, an XHR, a fetch, an event stream, an iframe
/// or a link preload.
fn critical(set: &InsightSet, r: &Request) -> bool {
    let Some(nav) = &set.navigation else {
        return false;
    };
    if r.id == nav.id {
        return true;
    }
    let iframe = r.resource_type == "Document" && r.frame != nav.frame;
    if r.is_link_preload
        || iframe
        || matches!(
            r.resource_type.as_str(),
            "Image" | "XHR" | "Fetch" | "EventSource"
        )
        || r.mime_type.starts_with("image/")
    {
        return false;
    }
    let initiated = r.initiator.as_ref().and_then(|i| i.url.as_deref());
    if initiated.is_none_or(str::is_empty) && r.stack_url.is_none() {
        return false;
    }
    r.is_high_priority() || r.is_render_blocking()
}

/// Whether DevTools builds its Lantern context for the set: a navigation with FCP and LCP,
/// whose first request (the graph's root, not a video) leads to a document. Without it
/// DevTools finds no critical chain.
fn lantern_context(set: &InsightSet) -> bool {
    let Some(first) = set.requests.first() else {
        return false;
    };
    let document = set
        .requests
        .iter()
        .any(|r| r.resource_type == "Document" && !r.failed && r.url == first.url);
    set.navigation.is_some()
        && set.fcp.is_some()
        && set.lcp.is_some()
        && !first.mime_type.starts_with("video")
        && document
}

/// The tree for a navigation's set; None for the part before the first navigation.
fn tree(set: &InsightSet) -> Option<Tree> {
    set.navigation.as_ref()?;
    let requests: Vec<&Request> = set
        .requests
        .iter()
        .filter(|r| !r.mime_type.starts_with("video"))
        .collect();
    let mut tree = Tree {
        roots: Vec::new(),
        max_time: 0.0,
        fail: false,
    };
    if !lantern_context(set) {
        return Some(tree);
    }
    let graph = network_graph::graph(&requests);
    let mut longest: Vec<usize> = Vec::new();
    graph.traverse(|path| {
        if !path.iter().all(|&i| critical(set, graph.nodes[i].request)) {
            return;
        }
        let url = graph.nodes[path[path.len() - 1]].url;
        if ["blob:", "data:", "intent:", "chrome-extension:"]
            .iter()
            .any(|s| url.starts_with(s))
        {
            return;
        }
        add_chain(&mut tree, &mut longest, &graph, path);
    });
    let mut level = &mut tree.roots;
    for index in &longest {
        let Some(node) = level.iter_mut().find(|n| n.request == *index) else {
            break;
        };
        node.longest = true;
        level = &mut node.children;
    }
    sort(&mut tree.roots);
    // Nodes name graph nodes: map them to the set's requests.
    remap(&mut tree.roots, &graph, &set.requests);
    Some(tree)
}

fn add_chain(tree: &mut Tree, longest: &mut Vec<usize>, graph: &Graph, path: &[usize]) {
    if path.len() >= 2 {
        tree.fail = true;
    }
    let request = |i: usize| graph.nodes[i].request;
    let first = request(path[0]);
    let total = request(path[path.len() - 1]).end - first.ts;
    if total > tree.max_time {
        tree.max_time = total;
        *longest = path.to_vec();
    }
    let mut level = &mut tree.roots;
    for &index in path {
        let at = match level.iter().position(|n| n.request == index) {
            Some(at) => at,
            None => {
                level.push(Node {
                    request: index,
                    hop: false,
                    time: request(index).end - first.ts,
                    children: Vec::new(),
                    longest: false,
                });
                level.len() - 1
            }
        };
        level = &mut level[at].children;
    }
}

/// DevTools' `findMaxLeafNode`: it starts from the first child itself, not its leaf.
fn max_leaf(node: &Node) -> &Node {
    let Some(first) = node.children.first() else {
        return node;
    };
    let mut best = first;
    for child in &node.children {
        let leaf = max_leaf(child);
        if leaf.time > best.time {
            best = leaf;
        }
    }
    best
}

fn sort(nodes: &mut [Node]) {
    for node in nodes {
        node.children
            .sort_by(|a, b| max_leaf(b).time.total_cmp(&max_leaf(a).time));
        sort(&mut node.children);
    }
}

fn remap(nodes: &mut [Node], graph: &Graph, to: &[Request]) {
    for node in nodes {
        let graph_node = &graph.nodes[node.request];
        let key = graph_node.request.send.index;
        node.hop = graph_node.redirect.is_some();
        node.request = to.iter().position(|r| r.send.index == key).unwrap_or(0);
        remap(&mut node.children, graph, to);
    }
}

/// Listed when a chain has two requests or more; about every request in the tree.
pub(super) fn bounds(set: &InsightSet) -> Option<Bounds> {
    let tree = tree(set)?;
    if !tree.fail {
        return None;
    }
    let mut windows = Vec::new();
    walk(&tree.roots, &mut |node| {
        let r = &set.requests[node.request];
        windows.push(Bounds {
            min: r.ts,
            max: r.end,
        });
    });
    Some(Bounds::union(windows).unwrap_or(set.bounds))
}

fn walk(nodes: &[Node], f: &mut impl FnMut(&Node)) {
    for node in nodes {
        f(node);
        walk(&node.children, f);
    }
}

/// The detailed analysis, as DevTools' formatter writes it.
pub(crate) fn details(report: &Report, set: &InsightSet) -> String {
    let Some(tree) = tree(set) else {
        return String::new();
    };
    let mut out = if tree.fail {
        "The network dependency tree checks found one or more problems.\n\n".to_owned()
    } else {
        "The network dependency tree checks revealed no problems, but optimization suggestions may be available.\n\n".to_owned()
    };
    if tree.roots.is_empty() {
        out.push_str("No rendering tasks impacted by network dependencies.\n\n");
    } else {
        out.push_str(&format!(
            "Max critical path latency is {}\n\nThe following is the critical request chain:\n",
            millis(tree.max_time / 1000.0)
        ));
        write_nodes(report, set, &tree.roots, "", &mut out);
        out.push('\n');
    }
    let candidates = candidates(report, set);
    let (text, preconnected) = preconnects(report, set, &candidates);
    out.push_str(&text);
    if !candidates.is_empty() && preconnected < TOO_MANY_PRECONNECTS {
        out.push_str("\n\nPreconnect candidates:\nAdd [preconnect](https://developer.chrome.com/docs/lighthouse/performance/uses-rel-preconnect/) hints to your most important origins, but try to use no more than 4\n");
        for c in &candidates {
            out.push_str(&format!(
                "\nAdding [preconnect] to origin '{}' would save {}.",
                c.origin,
                millis(c.wasted_ms)
            ));
        }
    }
    out
}

fn write_nodes(report: &Report, set: &InsightSet, nodes: &[Node], indent: &str, out: &mut String) {
    for node in nodes {
        let r = &set.requests[node.request];
        let longest = if node.longest { " (longest chain)" } else { "" };
        let named = if node.hop {
            // Lantern's copy of a redirected request is no event of the trace.
            format!("{} (eventKey: null, ts: {})", url(report, r), js(r.ts))
        } else {
            url_with_key(report, r)
        };
        out.push_str(&format!(
            "{indent}- {named} ({}){longest}\n",
            millis(node.time / 1000.0)
        ));
        write_nodes(report, set, &node.children, &format!("{indent}  "), out);
    }
}

/// DevTools shows this many preconnects before it warns.
const TOO_MANY_PRECONNECTS: usize = 4;

/// The page's preconnects (`<link rel=preconnect>` and the document's `Link` headers), each
/// flagged when no request of the set went to its origin, or when its origin is a candidate
/// (so the preconnect did not serve its requests); with how many there were.
fn preconnects(report: &Report, set: &InsightSet, candidates: &[Candidate]) -> (String, usize) {
    let in_set = |r: &&Request| r.ts <= set.bounds.max && set.bounds.min < r.end;
    let used: HashSet<String> = report
        .requests
        .iter()
        .filter(in_set)
        .filter_map(|r| origin(&r.url))
        .collect();
    let unused = |url: &str| origin(url).is_none_or(|o| !used.contains(&o));
    let warnings = |url: &str, entry: &mut String| {
        if unused(url) {
            entry.push_str("\n   - Warning: Unused preconnect. Only use `preconnect` for origins that the page is likely to request.");
        }
        let own = origin(url);
        if candidates.iter().any(|c| own.as_ref() == Some(&c.origin)) {
            entry.push_str("\n   - Warning: Unused preconnect. Check that the `crossorigin` attribute is used properly.");
        }
    };
    let mut entries: Vec<String> = Vec::new();
    for url in &report.link_preconnects {
        let mut entry = format!("\n  - {url}\n    - Source: 'DOM'");
        warnings(url, &mut entry);
        entries.push(entry);
    }
    let links = set.document.iter().flat_map(|d| d.headers.iter());
    for (_, value) in links.filter(|(n, _)| n.eq_ignore_ascii_case("link")) {
        for (url, text) in link_preconnects(value) {
            let mut entry =
                format!("\n  - {url}\n    - Source: 'ResponseHeader'\n   - Header: '{text}'");
            warnings(&url, &mut entry);
            entries.push(entry);
        }
    }
    if entries.is_empty() {
        return ("No origins were preconnected.".into(), 0);
    }
    let mut out = "Preconnected origins:\n[preconnect](https://developer.chrome.com/docs/lighthouse/performance/uses-rel-preconnect/) hints help the browser establish a connection earlier in the page load, saving time when the first request for that origin is made. The following are the origins that the page preconnected to.\n".to_owned();
    let many = entries.len() > TOO_MANY_PRECONNECTS;
    out.push_str(&entries.concat());
    if many {
        out.push_str("\n\n**Warning**: More than 4 `preconnect` connections were found. These should be used sparingly and only to the most important origins.");
    }
    (out, entries.len())
}

/// A candidate saving less than this is not proposed (ms).
const IGNORE_THRESHOLD_MS: f64 = 50.0;
/// A connection first used this long after the document loaded would have been closed
/// again before its use (ms).
const SOCKET_MAX_IDLE_MS: f64 = 15_000.0;

/// An origin worth preconnecting to, and what that would save (ms).
struct Candidate {
    origin: String,
    wasted_ms: f64,
}

/// DevTools' `generatePreconnectCandidates`: the origins (not the document's) of the set's
/// requests that Lantern's pessimistic LCP graph holds, opened a fresh connection soon after
/// the document loaded and were not loaded by the document itself. Each first request would
/// save its connection setup as Lantern simulates it (an RTT, twice over TLS), at most its
/// time since the document loaded; the four that save most.
fn candidates(report: &Report, set: &InsightSet) -> Vec<Candidate> {
    let (Some(lantern), Some(doc)) = (&set.lantern.connections, &set.document) else {
        return Vec::new();
    };
    let Some(main_origin) = origin(&doc.url) else {
        return Vec::new();
    };
    let mut in_set: Vec<&Request> = report
        .requests
        .iter()
        .filter(|r| r.ts <= set.bounds.max && set.bounds.min < r.end)
        .collect();
    in_set.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    let mut seen: HashSet<String> = HashSet::new();
    let mut out: Vec<Candidate> = Vec::new();
    for r in in_set {
        let Some(timing) = r
            .timing
            .filter(|t| t.connect_end >= 0.0 && t.connect_start >= 0.0)
        else {
            continue;
        };
        if initiator(report, r).is_some_and(|i| i.send.index == doc.send.index) {
            continue;
        }
        let Some(own) = origin(&r.url).filter(|o| *o != main_origin) else {
            continue;
        };
        let already_connected = timing.dns_end - timing.dns_start == 0.0
            && timing.connect_end - timing.connect_start == 0.0;
        let since_document = r.send_start_time() - doc.finish_time;
        if !lantern.lcp_urls.contains(&r.url)
            || already_connected
            || since_document.max(0.0) / 1000.0 >= SOCKET_MAX_IDLE_MS
            || !seen.insert(own.clone())
        {
            continue;
        }
        let rtt = lantern.rtt + lantern.additional_rtt.get(&own).copied().unwrap_or(0.0);
        let setup = if own.starts_with("https:") {
            rtt * 2.0
        } else {
            rtt
        };
        let wasted_ms = setup.min((since_document + timing.dns_start * 1000.0) / 1000.0);
        if wasted_ms >= IGNORE_THRESHOLD_MS {
            out.push(Candidate {
                origin: own,
                wasted_ms,
            });
        }
    }
    out.sort_by(|a, b| b.wasted_ms.total_cmp(&a.wasted_ms));
    out.truncate(TOO_MANY_PRECONNECTS);
    out
}

/// The `rel=preconnect` parts of a `Link` header: (URL, the part as written).
fn link_preconnects(header: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < header.len() {
        let Some(close) = header[i..].find('>').map(|c| c + i) else {
            break;
        };
        let end = header[close..]
            .find(',')
            .map_or(header.len(), |c| c + close);
        let part = header[i..end].trim();
        i = end + 1;
        let Some(rest) = part.strip_prefix('<') else {
            continue;
        };
        let Some((url, params)) = rest.split_once('>') else {
            continue;
        };
        let url = url.trim();
        let preconnect = params.split(';').any(|p| {
            let Some((name, value)) = p.trim().split_once('=') else {
                return false;
            };
            let value = value.trim();
            let value = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(value);
            name.trim().eq_ignore_ascii_case("rel") && value == "preconnect"
        });
        if !url.is_empty() && preconnect {
            out.push((url.to_owned(), part.to_owned()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::link_preconnects;

    #[test]
    fn link_headers_name_their_preconnects() {
        let header = "<https://a.example>; rel=preconnect, <https://b.example/x.css>; rel=preload; as=style, <https://c.example>; rel=\"preconnect\"; crossorigin";
        let found = link_preconnects(header);
        assert_eq!(
            found,
            [
                (
                    "https://a.example".to_owned(),
                    "<https://a.example>; rel=preconnect".to_owned()
                ),
                (
                    "https://c.example".to_owned(),
                    "<https://c.example>; rel=\"preconnect\"; crossorigin".to_owned()
                ),
            ]
        );
        assert!(link_preconnects("garbage").is_empty());
    }
}
