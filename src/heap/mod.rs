//! Heap snapshots (`.heapsnapshot`, as Chromium writes them) analysed as DevTools' heap
//! snapshot model analyses them: read as they stream into columns (`parse`), checked and
//! indexed (`graph`), DOM states spread (`dom`), distances from the roots (`distances`),
//! dominators and retained sizes (`dominators`), native context attribution
//! (`native_contexts`), names (`names`) and totals (`summary`). Everything is computed once,
//! when the file is loaded; questions then read the columns.

mod distances;
mod dom;
mod dominators;
mod graph;
mod js;
mod names;
mod native_contexts;
mod parse;
mod strings;
mod summary;

use std::io::Read;

pub(crate) use summary::{ContextRetention, NativeContextSizes, Statistics};

/// A loaded, analysed snapshot.
pub(crate) struct Snapshot {
    graph: graph::Graph,
    retention: dominators::Retention,
    distances: Vec<i32>,
    /// Each node's native context (an ordinal), or `native_contexts::NONE`/`SHARED`.
    attribution: Vec<i32>,
    /// The native contexts, by ordinal, ascending.
    native_contexts: Vec<u32>,
    /// DOM state of each node (0 unknown, 1 attached, 2 detached).
    #[allow(dead_code)]
    states: Vec<u8>,
    #[allow(dead_code)]
    flags: Vec<u8>,
}

/// What the summary shows of the snapshot as a whole.
pub(crate) struct StaticData {
    pub node_count: usize,
    pub root_index: u64,
    pub total_size: f64,
    pub max_js_object_id: u32,
}

impl Snapshot {
    /// Reads and analyses a snapshot; the error says what in the file is wrong.
    pub(crate) fn read(input: impl Read) -> Result<Snapshot, String> {
        let raw = parse::read(input)?;
        let mut g = graph::build(raw)?;
        let states = dom::states(&mut g)?;
        let flags = dom::flags(&g, &states);
        let essential = dominators::essential_edges(&g, &flags);
        dominators::shallow_sizes(&mut g);
        let retention = dominators::compute(&g, &essential);
        drop(essential);
        let distances = distances::distances(&g);
        let (attribution, native_contexts) = native_contexts::attribution(&g);
        Ok(Snapshot {
            graph: g,
            retention,
            distances,
            attribution,
            native_contexts,
            states,
            flags,
        })
    }

    /// Roughly the memory the snapshot holds, for the cache's bound.
    pub(crate) fn bytes(&self) -> usize {
        let n = self.graph.node_count();
        self.graph.bytes() + n * (4 + 8 + 4 + 4 + 1 + 1) + self.native_contexts.len() * 4
    }

    fn total_size(&self) -> f64 {
        self.retention.retained[self.graph.root as usize] + self.graph.extra_native_bytes
    }

    pub(crate) fn statistics(&self) -> Statistics {
        summary::statistics(&self.graph, self.total_size())
    }

    pub(crate) fn static_data(&self) -> StaticData {
        StaticData {
            node_count: self.graph.node_count(),
            root_index: self.graph.root as u64 * self.graph.node_fields as u64,
            total_size: self.total_size(),
            max_js_object_id: summary::max_js_object_id(&self.graph),
        }
    }

    pub(crate) fn native_context_sizes(&self) -> NativeContextSizes {
        summary::native_context_sizes(self)
    }

    pub(crate) fn context_retention(&self) -> ContextRetention {
        summary::context_retention(self)
    }
}

#[cfg(test)]
mod tests;
