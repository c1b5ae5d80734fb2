//! DevTools' named filters of the summary view: the objects only detached DOM nodes, the
//! console, event handlers or closure contexts keep alive (everything the root reaches
//! without passing through them is left out), and the objects of one, several or no native
//! contexts.

use super::distances::reached_or_unreachable;
use super::dom::DETACHED;
use super::native_contexts::{NONE, SHARED};
use super::Snapshot;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Filter {
    RetainedByDetachedDomNodes,
    RetainedByConsole,
    RetainedByEventHandlers,
    RetainedByContexts,
    SharedNativeContext,
    NoNativeContext,
    /// The objects attributed to this native context (an ordinal).
    NativeContext(u32),
}

impl Filter {
    pub(crate) fn named(name: &str) -> Option<Filter> {
        Some(match name {
            "objectsRetainedByDetachedDomNodes" => Filter::RetainedByDetachedDomNodes,
            "objectsRetainedByConsole" => Filter::RetainedByConsole,
            "objectsRetainedByEventHandlers" => Filter::RetainedByEventHandlers,
            "objectsRetainedByContexts" => Filter::RetainedByContexts,
            "sharedNativeContext" => Filter::SharedNativeContext,
            "noNativeContext" => Filter::NoNativeContext,
            _ => return None,
        })
    }
}

/// Which nodes the filter keeps.
pub(super) fn kept(s: &Snapshot, filter: Filter) -> Vec<bool> {
    let g = &s.graph;
    let left_out = match filter {
        Filter::RetainedByDetachedDomNodes => reached_or_unreachable(g, &s.distances, |_, e| {
            s.detachedness(g.edge_to(e) as usize as u32) != DETACHED
        }),
        Filter::RetainedByConsole => reached_or_unreachable(g, &s.distances, |node, e| {
            let console = g.node_type[node as usize] == g.types.synthetic
                && g.edge_has_string_name(e)
                && g.edge_name(e).ends_with(" / DevTools console");
            !console
        }),
        Filter::RetainedByEventHandlers => {
            let handlers = event_handlers(s);
            reached_or_unreachable(g, &s.distances, |_, e| !handlers[g.edge_to(e) as usize])
        }
        Filter::RetainedByContexts => {
            reached_or_unreachable(g, &s.distances, |_, e| !g.is_context(g.edge_to(e)))
        }
        Filter::SharedNativeContext => return s.attribution.iter().map(|a| a == SHARED).collect(),
        Filter::NoNativeContext => return s.attribution.iter().map(|a| a == NONE).collect(),
        Filter::NativeContext(c) => return s.attribution.iter().map(|a| a == c as i32).collect(),
    };
    left_out.into_iter().map(|out| !out).collect()
}

/// The target of the node's first edge named `name`.
fn edge_target(s: &Snapshot, node: u32, name: &str) -> Option<u32> {
    let g = &s.graph;
    g.edges(node)
        .find(|&e| g.edge_name(e) == name)
        .map(|e| g.edge_to(e))
}

/// The functions event listeners call: a `V8EventListener`'s callback (edge `1`), or the
/// first of its children that has code when the callback has none.
fn event_handlers(s: &Snapshot) -> Vec<bool> {
    let g = &s.graph;
    let mut handlers = vec![false; g.node_count()];
    for node in 0..g.node_count() as u32 {
        if g.raw_name(node) != "V8EventListener" {
            continue;
        }
        let Some(callback) = edge_target(s, node, "1") else {
            continue;
        };
        if edge_target(s, callback, "code").is_some() {
            handlers[callback as usize] = true;
            continue;
        }
        let child = g
            .edges(callback)
            .map(|e| g.edge_to(e))
            .find(|&c| edge_target(s, c, "code").is_some());
        handlers[child.unwrap_or(callback) as usize] = true;
    }
    handlers
}
