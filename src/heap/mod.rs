//! Heap snapshots (`.heapsnapshot`, as Chromium writes them) analysed as DevTools' heap
//! snapshot model analyses them: read as they stream into columns (`parse`), checked and
//! indexed (`graph`), DOM states spread (`dom`), distances from the roots (`distances`),
//! dominators and retained sizes (`dominators`), native context attribution
//! (`native_contexts`), names (`names`) and totals (`summary`). Everything is computed once,
//! when the file is loaded; questions then read the columns. The closure contexts' analysis
//! (`contexts`, over the embedded `scopes`) is computed once too, when first asked for.

mod aggregates;
mod bits;
mod classes;
mod contexts;
mod diff;
mod distances;
mod dom;
mod dominators;
mod duplicates;
mod filters;
mod graph;
mod js;
mod lengauer_tarjan;
mod names;
mod native_contexts;
mod packed;
mod parse;
mod paths;
mod peel;
mod query;
mod retained;
mod runs;
mod scan;
mod scopes;
mod strings;
mod summary;

use std::cell::{Cell, OnceCell, RefCell};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

use packed::{Packed, PackedSigned};

pub(crate) use aggregates::Aggregate;
pub(crate) use contexts::{ContextAnalysis, ContextReport, ScopeReport};
pub(crate) use diff::{diff, ClassDiff};
pub(crate) use filters::Filter;
pub(crate) use paths::{EdgeInfo, EdgeOrder, EdgeQuery, PathQuery, PathStep};
pub(crate) use query::{ObjectQuery, QueryOrder};
pub(crate) use summary::{ContextRetention, NativeContextSizes, Statistics};

/// A loaded, analysed snapshot.
/// Its per-node columns are packed (see `packed`): they hold a few bits a node.
pub(crate) struct Snapshot {
    graph: graph::Graph,
    /// Each node's immediate dominator (the root its own).
    dominator: Packed,
    retained: retained::Retained,
    distances: PackedSigned,
    /// Each node's native context (an ordinal), or `native_contexts::NONE`/`SHARED`.
    attribution: PackedSigned,
    /// The native contexts, by ordinal, ascending.
    native_contexts: Vec<u32>,
    /// DOM state of each node (0 unknown, 1 attached, 2 detached).
    states: Packed,
    classes: classes::Classes,
    /// The plain-object interfaces inferred from this snapshot.
    interfaces: classes::Interfaces,
    /// This load's number: a comparison against it is remembered by it.
    uid: u64,
    /// Whether the whole-snapshot class listings show objects in id order: DevTools sorts
    /// them when the snapshot is compared against a base it was not compared against
    /// before, and unsorts them when it serves as a base for other interfaces.
    sorted_by_id: Cell<bool>,
    /// The bases (by uid) this snapshot was compared against.
    compared_with: RefCell<Vec<u64>>,
    /// The interfaces this snapshot was last classed by as a base (DevTools keeps one).
    base_for: RefCell<Option<Vec<classes::Definition>>>,
    /// The dominator tree downwards.
    dominated: runs::Runs,
    /// The scopes V8 embedded, as read, for the contexts' analysis.
    scope_sections: scopes::Sections,
    contexts: OnceCell<Result<ContextAnalysis, String>>,
    context_retention: ContextRetention,
    statistics: Statistics,
}

/// One object as the listings show it.
pub(crate) struct NodeInfo {
    pub id: u32,
    pub name: String,
    pub type_name: String,
    pub distance: i32,
    pub self_size: u32,
    pub retained: f64,
}

static NEXT_UID: AtomicU64 = AtomicU64::new(1);

/// What the summary shows of the snapshot as a whole.
pub(crate) struct StaticData {
    pub node_count: usize,
    pub root_index: u64,
    pub total_size: f64,
    pub max_js_object_id: u32,
}

impl Snapshot {
    /// Reads and analyses a snapshot (of `size` bytes, when known); the error says what in
    /// the file is wrong.
    pub(crate) fn read(input: impl Read, size: Option<u64>) -> Result<Snapshot, String> {
        let mut raw = parse::read(input, size)?;
        let scope_sections = std::mem::take(&mut raw.scopes);
        let mut g = graph::build(raw)?;
        let states = dom::states(&mut g)?;
        let (essential, sizes) = retaining_edges_and_sizes(&g, &states);
        if let Some(sizes) = sizes {
            g.set_self_sizes(sizes);
        }
        let states: Packed = states.into_iter().map(u32::from).collect();
        let (retention, shapes) = dominators_and_shapes(&g, essential);
        let dominator: Packed = retention.dominator.into_iter().collect();
        let retained = retention.retained;
        let rest = Rest::of(&g, &dominator);
        let statistics = Statistics {
            total: heap_size(&g, &retained),
            ..shapes.statistics
        };
        Ok(Snapshot {
            graph: g,
            dominator,
            retained,
            distances: rest.distances,
            attribution: rest.attribution,
            native_contexts: rest.native_contexts,
            states,
            classes: shapes.classes,
            interfaces: shapes.interfaces,
            uid: NEXT_UID.fetch_add(1, Ordering::Relaxed),
            sorted_by_id: Cell::new(false),
            compared_with: RefCell::new(Vec::new()),
            base_for: RefCell::new(None),
            dominated: rest.dominated,
            context_retention: rest.context_retention,
            statistics,
            scope_sections,
            contexts: OnceCell::new(),
        })
    }
}

/// The heap's size as the summary counts it: what the root retains, and the native bytes
/// the snapshot declares besides.
fn heap_size(g: &graph::Graph, retained: &retained::Retained) -> f64 {
    retained.get(g.root as usize) + g.extra_native_bytes
}

/// The edges that count for retention and the self sizes moved to their single owners,
/// side by side on two threads; each's scratch is freed before the dominators run (theirs
/// is the load's largest).
fn retaining_edges_and_sizes(g: &graph::Graph, states: &[u8]) -> (bits::Bits, Option<Packed>) {
    std::thread::scope(|scope| {
        let sizes = scope.spawn(|| dominators::shallow_sizes(g));
        let flags = dom::flags(g, states);
        let essential = dominators::essential_edges(g, &flags);
        drop(flags);
        (essential, joined(sizes))
    })
}

/// What the load works out from the graph alone: classes and the sizes by kind (their total
/// is the root's retained size, known later).
struct Shapes {
    interfaces: classes::Interfaces,
    classes: classes::Classes,
    statistics: Statistics,
}

/// The dominators and retained sizes, the load's longest step, with the shapes worked out on
/// a second thread meanwhile: the interfaces and sizes by kind (little memory) beside
/// Lengauer–Tarjan, the load's peak of memory; the classes' column once its scratch is gone.
/// The edges that count for retention are freed as soon as the sizes are summed.
fn dominators_and_shapes(
    g: &graph::Graph,
    essential: bits::Bits,
) -> (dominators::Retention, Shapes) {
    std::thread::scope(|scope| {
        let early = scope.spawn(|| (classes::Interfaces::infer(g), summary::statistics(g)));
        let tree = dominators::Tree::of(g, &essential);
        let (interfaces, statistics) = joined(early);
        let classes = scope.spawn(move || {
            let classes = classes::classes(g, &interfaces);
            (interfaces, classes)
        });
        let retention = tree.retention(g, &essential);
        drop(essential);
        let (interfaces, classes) = joined(classes);
        let shapes = Shapes {
            interfaces,
            classes,
            statistics,
        };
        (retention, shapes)
    })
}

/// A second thread's result; its panic goes on in this one.
fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// What the load works out once the dominators are known: analyses that only read the
/// graph, on two threads that take about as long as each other (a load is seconds on a
/// large snapshot).
struct Rest {
    dominated: runs::Runs,
    distances: PackedSigned,
    attribution: PackedSigned,
    native_contexts: Vec<u32>,
    context_retention: ContextRetention,
}

impl Rest {
    fn of(g: &graph::Graph, dominator: &Packed) -> Rest {
        std::thread::scope(|scope| {
            let walks = scope.spawn(|| {
                let distances: PackedSigned = distances::distances(g).into_iter().collect();
                let outside_contexts = distances::reached(g, |_, e| !g.is_context(g.edge_to(e)));
                let context_retention =
                    summary::context_retention(g, &outside_contexts, &distances);
                (distances, context_retention)
            });
            let dominated = aggregates::dominated(dominator, g.root);
            let (attribution, native_contexts) = native_contexts::attribution(g);
            let attribution = attribution.into_iter().collect();
            let (distances, context_retention) = joined(walks);
            Rest {
                dominated,
                distances,
                attribution,
                native_contexts,
                context_retention,
            }
        })
    }
}

impl Snapshot {
    /// As a base for `current`'s interfaces: classed anew unless it was last classed for
    /// the same ones, which leaves its own listings in snapshot order.
    fn prepared_for_diff_with(&self, current: &Snapshot) {
        let defs = &current.interfaces.definitions;
        let mut base_for = self.base_for.borrow_mut();
        if base_for.as_ref() != Some(defs) {
            *base_for = Some(defs.clone());
            self.sorted_by_id.set(false);
        }
    }

    /// Compared against `base`: the first time, its listings are sorted by id.
    fn diffed_against(&self, base: &Snapshot) {
        let mut seen = self.compared_with.borrow_mut();
        if !seen.contains(&base.uid) {
            seen.push(base.uid);
            self.sorted_by_id.set(true);
        }
    }

    /// The class (by this snapshot's own interfaces) of the object with this id.
    fn own_class_name_of_id(&self, id: u32) -> String {
        let node = self.graph.node_ids().position(|i| i == id);
        node.map_or(String::new(), |n| {
            self.class_name(self.classes.of.get(n)).to_owned()
        })
    }

    /// Whether the whole-snapshot class listings are in id order (see `sorted_by_id`).
    pub(crate) fn listed_by_id(&self) -> bool {
        self.sorted_by_id.get()
    }

    /// The nodes `node` immediately dominates.
    fn dominated(&self, node: u32) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.dominated.of(node).map(|i| self.dominated.value(i))
    }

    fn retained(&self, node: usize) -> f64 {
        self.retained.get(node)
    }

    fn distance(&self, node: usize) -> i32 {
        self.distances.get(node)
    }

    /// The summary view's classes of the objects `filter` keeps, by their first object.
    pub(crate) fn aggregates(&self, filter: Option<Filter>) -> Vec<Aggregate> {
        let kept = filter.map(|f| filters::kept(self, f));
        aggregates::aggregates(self, kept.as_deref())
    }

    /// How many classes the whole snapshot has (ids run from 1 to this).
    pub(crate) fn class_count(&self) -> usize {
        self.classes.names.len()
    }

    pub(crate) fn class_name(&self, class: u32) -> &str {
        self.classes
            .names
            .get(class as usize)
            .map_or("", String::as_str)
    }

    /// The node with this id (the first, as DevTools looks it up).
    pub(crate) fn node_of_id(&self, id: f64) -> Option<u32> {
        self.graph
            .node_ids()
            .position(|i| i as f64 == id)
            .map(|n| n as u32)
    }

    pub(crate) fn node(&self, node: u32) -> NodeInfo {
        let g = &self.graph;
        let n = node as usize;
        NodeInfo {
            id: g.node_id(n),
            name: names::name(g, node),
            type_name: g.types.node_names[g.node_type[n] as usize].clone(),
            distance: self.distance(n),
            self_size: g.self_size(n),
            retained: self.retained(n),
        }
    }

    /// 0 unknown, 1 attached, 2 detached.
    pub(crate) fn detachedness(&self, node: u32) -> u8 {
        self.states.get(node as usize) as u8
    }

    pub(crate) fn edge_count(&self, node: u32) -> usize {
        self.graph.edges(node).len()
    }

    pub(crate) fn retainer_count(&self, node: u32) -> usize {
        self.graph.retainers(node).len()
    }

    /// Roughly the memory the snapshot holds, for the cache's bound.
    pub(crate) fn bytes(&self) -> usize {
        let packed = [&self.dominator, &self.states, &self.classes.of];
        self.graph.bytes()
            + packed.iter().map(|p| p.bytes()).sum::<usize>()
            + self.retained.bytes()
            + self.dominated.bytes()
            + self.distances.bytes()
            + self.attribution.bytes()
            + self.native_contexts.len() * 4
            + self.scope_sections.bytes()
    }

    /// The closure contexts holding variables no live closure reads, analysed on first use;
    /// the error says what in the snapshot stops the analysis.
    pub(crate) fn contexts(&self) -> Result<&ContextAnalysis, String> {
        self.contexts
            .get_or_init(|| contexts::analyse(self))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn total_size(&self) -> f64 {
        heap_size(&self.graph, &self.retained)
    }

    /// The sizes by kind (worked out with the load).
    pub(crate) fn statistics(&self) -> Statistics {
        self.statistics
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

    /// How much is held only through closure contexts (worked out with the load).
    pub(crate) fn context_retention(&self) -> ContextRetention {
        self.context_retention
    }
}

#[cfg(test)]
mod contexts_tests;
#[cfg(test)]
mod dominators_oracle;
#[cfg(test)]
mod dominators_tests;
#[cfg(test)]
mod tests;
