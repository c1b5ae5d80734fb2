//! The network part of Lantern's page dependency graph (`graph.rs` adds the main thread's
//! tasks to it; DevTools' NetworkDependencyTree walks it without them): a node per request,
//! and one more per redirect a request went through (Lantern splits a redirected request
//! into copies of it, one per hop, each depending on the one before); each node depends on
//! its initiator as Lantern links them. Lantern's main-thread task nodes are left out: they
//! only reorder the walk through script-started requests.

use std::collections::{HashSet, VecDeque};

use super::super::network::Request;

/// A node: the request, or one of its redirect hops.
pub(crate) struct GraphNode<'a> {
    pub(crate) request: &'a Request,
    /// The hop this node stands for; None for the request itself.
    pub(crate) redirect: Option<usize>,
    pub(crate) url: &'a str,
    /// When it started (µs): a hop's send, or the request's after its last hop.
    pub(super) start: f64,
    headers_end: f64,
    redirect_source: Option<usize>,
}

impl GraphNode<'_> {
    fn resource_type(&self) -> Option<&str> {
        self.redirect
            .is_none()
            .then_some(self.request.resource_type.as_str())
    }
}

pub(crate) struct Graph<'a> {
    pub(crate) nodes: Vec<GraphNode<'a>>,
    /// What each node depends on, in the order Lantern links them.
    pub(super) deps: Vec<Vec<usize>>,
}

/// Lantern's nodes for `requests` (in time order), redirect hops before their request.
fn nodes<'a>(requests: &[&'a Request]) -> Vec<GraphNode<'a>> {
    let mut nodes = Vec::new();
    for request in requests {
        let first = nodes.len();
        for (i, hop) in request.redirects.iter().enumerate() {
            nodes.push(GraphNode {
                request,
                redirect: Some(i),
                url: hop.url.as_str(),
                start: hop.ts,
                headers_end: hop.ts + hop.dur,
                redirect_source: (i > 0).then(|| nodes.len() - 1),
            });
        }
        let start = request
            .redirects
            .last()
            .map_or(request.ts, |h| h.ts + h.dur);
        nodes.push(GraphNode {
            request,
            redirect: None,
            url: request.url.as_str(),
            start,
            headers_end: request.download_start(),
            redirect_source: (nodes.len() > first).then(|| nodes.len() - 1),
        });
    }
    nodes
}

/// The URLs Lantern reads as a request's initiators.
fn initiator_urls(r: &Request) -> Vec<&str> {
    match &r.initiator {
        Some(i) if i.url.as_deref().is_some_and(|u| !u.is_empty()) => {
            i.url.as_deref().into_iter().collect()
        }
        Some(i) if i.kind.as_deref() == Some("script") => {
            r.stack_url.as_deref().into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// Lantern's `chooseInitiatorRequest`, down to its first filters: the redirect hop before,
/// or the one finished request for the initiator's URL whose headers were in before this
/// one started.
fn initiator(nodes: &[GraphNode], n: usize) -> Option<usize> {
    let node = &nodes[n];
    if node.redirect_source.is_some() {
        return node.redirect_source;
    }
    let url = initiator_urls(node.request).first().copied()?;
    let mut candidates: Vec<usize> = (0..nodes.len())
        .filter(|&i| {
            let c = &nodes[i];
            c.url == url && c.headers_end <= node.start && c.request.finished && !c.request.failed
        })
        .collect();
    let narrow = |candidates: &mut Vec<usize>, keep: &dyn Fn(&GraphNode) -> bool| {
        let kept: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| keep(&nodes[i]))
            .collect();
        if candidates.len() > 1 && !kept.is_empty() {
            *candidates = kept;
        }
    };
    narrow(&mut candidates, &|c| c.resource_type() != Some("Other"));
    narrow(&mut candidates, &|c| c.request.frame == node.request.frame);
    let kind = node
        .request
        .initiator
        .as_ref()
        .and_then(|i| i.kind.as_deref());
    if kind == Some("parser") {
        narrow(&mut candidates, &|c| c.resource_type() == Some("Document"));
    }
    (candidates.len() == 1).then(|| candidates[0])
}

fn depends_on(deps: &[Vec<usize>], from: usize, on: usize) -> bool {
    let mut stack = vec![from];
    let mut seen = HashSet::new();
    while let Some(n) = stack.pop() {
        if n == on {
            return true;
        }
        if seen.insert(n) {
            stack.extend(deps[n].iter().copied());
        }
    }
    false
}

/// Lantern's `linkNetworkNodes`, rooted at the first node.
pub(crate) fn graph<'a>(requests: &[&'a Request]) -> Graph<'a> {
    let nodes = nodes(requests);
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let link = |deps: &mut Vec<Vec<usize>>, node: usize, on: usize| {
        if on != node && !deps[node].contains(&on) {
            deps[node].push(on);
        }
    };
    for i in 0..nodes.len() {
        let direct = initiator(&nodes, i).unwrap_or(0);
        let can_depend = !depends_on(&deps, direct, i) && nodes[direct].start <= nodes[i].start;
        let urls = initiator_urls(nodes[i].request);
        for url in &urls {
            let parents: Vec<usize> = (0..nodes.len()).filter(|&p| nodes[p].url == *url).collect();
            match parents[..] {
                [p] if nodes[p].start <= nodes[i].start && !depends_on(&deps, p, i) => {
                    link(&mut deps, i, p)
                }
                _ if can_depend => link(&mut deps, i, direct),
                _ => {}
            }
        }
        if urls.is_empty() && can_depend {
            link(&mut deps, i, direct);
        }
        if i != 0 && deps[i].is_empty() && nodes[0].start <= nodes[i].start {
            link(&mut deps, i, 0);
        }
        if let Some(source) = nodes[i].redirect_source {
            link(&mut deps, i, source);
        }
    }
    Graph { nodes, deps }
}

impl Graph<'_> {
    /// Lantern's walk from the root: breadth first, a node once all it depends on has been
    /// visited; each node with the path that reached it, root first.
    pub(crate) fn traverse(&self, mut visit: impl FnMut(&[usize])) {
        if self.nodes.is_empty() {
            return;
        }
        let mut seen = vec![false; self.nodes.len()];
        let mut queued = vec![false; self.nodes.len()];
        let mut queue = VecDeque::from([vec![0]]);
        queued[0] = true;
        while let Some(path) = queue.pop_front() {
            let node = path[path.len() - 1];
            seen[node] = true;
            visit(&path);
            for (next, deps) in self.deps.iter().enumerate() {
                if !queued[next] && deps.contains(&node) && deps.iter().all(|&d| seen[d]) {
                    queued[next] = true;
                    let mut longer = path.clone();
                    longer.push(next);
                    queue.push_back(longer);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::super::event::At;
    use super::super::super::network::{Request, Requests};
    use super::graph;

    /// Requests from `(name, request id, args data)` events, one µs apart.
    fn requests(events: &[(&str, &str, &str)]) -> Vec<Request> {
        let mut requests = Requests::default();
        let mut urls = HashMap::new();
        for (i, (name, id, data)) in events.iter().enumerate() {
            let at = At {
                index: i as u64,
                ts: 1000.0 + i as f64,
                pid: 1,
                tid: 1,
            };
            let args = format!(r#"{{"data":{{"requestId":"{id}",{data}}}}}"#);
            assert!(requests.take(name, at, &args, &mut urls), "{args}");
        }
        requests.finish()
    }

    #[test]
    fn redirects_become_hops_and_requests_hang_off_their_initiator() {
        let doc = r#""url":"http://a.test/b","resourceType":"Document""#;
        let timing = r#""timing":{"requestTime":0.0,"receiveHeadersEnd":0.5}"#;
        let all = requests(&[
            ("ResourceWillSendRequest", "d", r#""x":0"#),
            (
                "ResourceSendRequest",
                "d",
                r#""url":"http://a.test/a","resourceType":"Document""#,
            ),
            ("ResourceWillSendRequest", "d", r#""x":0"#),
            ("ResourceSendRequest", "d", doc),
            ("ResourceReceiveResponse", "d", timing),
            ("ResourceFinish", "d", r#""x":0"#),
            (
                "ResourceSendRequest",
                "c",
                r#""url":"http://a.test/c.css","initiator":{"type":"parser","url":"http://a.test/b"}"#,
            ),
        ]);
        let refs: Vec<&Request> = all.iter().collect();
        let graph = graph(&refs);
        // The redirect hop, the document, the stylesheet.
        let urls: Vec<&str> = graph.nodes.iter().map(|n| n.url).collect();
        assert_eq!(
            urls,
            ["http://a.test/a", "http://a.test/b", "http://a.test/c.css"]
        );
        assert_eq!(graph.nodes[0].redirect, Some(0));
        let mut paths = Vec::new();
        graph.traverse(|path| paths.push(path.to_vec()));
        assert_eq!(paths, [vec![0], vec![0, 1], vec![0, 1, 2]]);
    }
}
