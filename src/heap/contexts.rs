//! Closure contexts that keep variables alive which no live closure can read any more, as
//! DevTools' context analysis finds them. A context is an object V8 makes for a scope whose
//! variables closures capture; its `context` edges are those variables. With the scopes V8
//! embeds (`scopes`: which scope reads which variable) and the live closures (each with the
//! function it runs and the chain of contexts it holds), a variable of a context is dead when
//! no live function that holds that context is, or is inside, a scope that reads it. Each
//! context's dead variables are scored by what their values retain; scopes rank by their best
//! context. Contexts of scripts without embedded scopes are only counted.
//!
//! The walks are bounded by the snapshot's size: a hostile file whose closures and contexts
//! would make them quadratic is refused, not analysed for minutes.

use std::collections::{HashMap, HashSet};

use super::graph::Graph;
use super::scopes::{key, Embedded};
use super::{js, names, Snapshot};

/// The scope id V8 gives a script's top-level scope.
const SCRIPT_ROOT: f64 = -2.0;
/// A generator's continuation once it has returned.
const GENERATOR_CLOSED: f64 = -1.0;
const GENERATOR_TYPES: [&str; 3] = [
    "JS_GENERATOR_OBJECT_TYPE",
    "JS_ASYNC_FUNCTION_OBJECT_TYPE",
    "JS_ASYNC_GENERATOR_OBJECT_TYPE",
];

/// What the analysis found, ranked.
pub(crate) struct ContextAnalysis {
    pub scopes: Vec<ScopeReport>,
    pub scripts_without_scopes: Vec<ScriptReport>,
}

/// A scope with contexts that hold dead variables, its worst context first.
pub(crate) struct ScopeReport {
    pub scope_info_id: u32,
    pub script_id: u32,
    pub script_name: String,
    /// The function's name, when the scope is a named function's.
    pub scope_name: Option<String>,
    pub start: f64,
    pub end: f64,
    /// How many variables the scope's first context holds.
    pub field_count: usize,
    pub contexts: Vec<ContextReport>,
}

pub(crate) struct ContextReport {
    pub id: u32,
    node: u32,
    retained: f64,
    /// What the dead variables' values retain, added up.
    pub dead_size: f64,
    /// Largest first.
    pub dead_fields: Vec<DeadField>,
}

pub(crate) struct DeadField {
    pub name: String,
    pub value_id: u32,
    pub value_name: String,
    pub retained: f64,
}

/// A script whose contexts could not be analysed: it has no embedded scopes.
pub(crate) struct ScriptReport {
    node: u32,
    pub script_id: u32,
    pub script_name: String,
    pub context_count: usize,
}

impl ContextAnalysis {
    /// The contexts of the scope `scope_info` names (all when `None`) whose score is within
    /// `min..=max`, highest score first (ties in the analysis's order).
    pub(crate) fn ranked(
        &self,
        scope_info: Option<f64>,
        min: f64,
        max: Option<f64>,
    ) -> Vec<(&ScopeReport, &ContextReport)> {
        let mut out: Vec<(&ScopeReport, &ContextReport)> = self
            .scopes
            .iter()
            .filter(|s| scope_info.is_none_or(|id| s.scope_info_id as f64 == id))
            .flat_map(|s| s.contexts.iter().map(move |c| (s, c)))
            .filter(|(_, c)| c.dead_size >= min && max.is_none_or(|m| c.dead_size <= m))
            .collect();
        out.sort_by(|a, b| b.1.dead_size.total_cmp(&a.1.dead_size));
        out
    }
}

/// Bounds, in proportion to the snapshot, on the walks' steps (time) and on the pairs of
/// live function and context they keep (memory).
pub(super) struct Budget {
    steps: u64,
    pairs: u64,
}

impl Budget {
    /// The bounds for a snapshot of `size` nodes and edges: far above what a page's heap
    /// needs, far below what a hostile file could ask.
    fn of_size(size: u64) -> Budget {
        Budget {
            steps: 16 * size + (1 << 24),
            pairs: size + (1 << 20),
        }
    }

    /// Bounds of `steps` and `pairs`, to see them hold on a small snapshot.
    #[cfg(test)]
    pub(super) fn of(steps: u64, pairs: u64) -> Budget {
        Budget { steps, pairs }
    }

    fn step(&mut self) -> Result<(), String> {
        if self.steps == 0 {
            return Err("following its closures and contexts takes too many steps".into());
        }
        self.steps -= 1;
        Ok(())
    }

    fn pair(&mut self) -> Result<(), String> {
        if self.pairs == 0 {
            return Err("its live closures hold too many contexts".into());
        }
        self.pairs -= 1;
        self.step()
    }
}

/// The analysis of `s`; an error names what in the snapshot's scopes or graph stops it.
pub(super) fn analyse(s: &Snapshot) -> Result<ContextAnalysis, String> {
    let g = &s.graph;
    analyse_within(s, Budget::of_size((g.node_count() + g.edge_count()) as u64))
}

/// The analysis of `s` within `budget`.
pub(super) fn analyse_within(s: &Snapshot, mut budget: Budget) -> Result<ContextAnalysis, String> {
    let g = &s.graph;
    let embedded = super::scopes::build(
        &s.scope_sections,
        g.node_fields,
        g.node_count(),
        g.strings.len(),
    )?;
    let mut scan = scan(g);
    let live = live_functions(g, &scan, &mut budget)?;
    let (entries, without) = correlate(g, &mut scan.script_of, &scan.contexts, &embedded);
    let mut scopes = Vec::new();
    for entry in &entries {
        let found = Found {
            s,
            embedded: &embedded,
            live: &live,
        };
        if let Some(report) = found.classify(entry, &mut budget)? {
            scopes.push(report);
        }
    }
    Ok(ranked(scopes, without))
}

/// The graph as the analysis reads it: internal edges by name, boxed integers.
fn internal(g: &Graph, node: u32, name: &str) -> Option<u32> {
    g.edges(node)
        .find(|&e| {
            g.edge_type(e) == g.types.internal && g.strings.get(g.edge_name_index(e)) == name
        })
        .map(|e| g.edge_to(e))
}

/// A boxed integer's value (an `int` number node with a `value` edge), as `parseInt` reads it.
fn int_value(g: &Graph, node: u32) -> Option<f64> {
    if g.node_type[node as usize] != g.types.number || g.raw_name(node) != "int" {
        return None;
    }
    js::parse_int(g.raw_name(internal(g, node, "value")?))
}

fn int_field(g: &Graph, node: u32, field: &str) -> Option<f64> {
    int_value(g, internal(g, node, field)?)
}

fn is_scope_info(g: &Graph, node: u32) -> bool {
    g.raw_name(node) == "system / ScopeInfo"
}

fn is_script_root(g: &Graph, node: u32) -> bool {
    int_field(g, node, "scope_id") == Some(SCRIPT_ROOT)
}

fn is_script(g: &Graph, node: u32) -> bool {
    g.raw_name(node).starts_with("system / Script")
}

/// A script's name: the URL its node's name carries, else its `source_url`.
fn script_name(g: &Graph, node: u32) -> String {
    let name = g
        .raw_name(node)
        .strip_prefix("system / Script / ")
        .unwrap_or("");
    if !name.is_empty() {
        return name.to_owned();
    }
    internal(g, node, "source_url").map_or(String::new(), |u| names::name(g, u))
}

/// A closure (or a suspended generator) that can still run: the function's script and scope
/// id, and the context it holds.
struct LiveClosure {
    owner: u32,
    context: u32,
    script: u32,
    scope_id: f64,
}

/// What one pass over the nodes collects.
struct Scan {
    /// Each context with a scope info, and that scope info, in node order.
    contexts: Vec<(u32, u32)>,
    closures: Vec<LiveClosure>,
    /// Module functions whose generator has finished: their closures are not live.
    finished: HashSet<u32>,
    /// The script each scope info belongs to, as far as the scripts' function lists say (and
    /// `None` where a scope info is known to lead to none).
    script_of: HashMap<u32, Option<u32>>,
}

fn scan(g: &Graph) -> Scan {
    let mut scan = Scan {
        contexts: Vec::new(),
        closures: Vec::new(),
        finished: HashSet::new(),
        script_of: HashMap::new(),
    };
    let mut generator_maps: HashMap<u32, bool> = HashMap::new();
    for node in 0..g.node_count() as u32 {
        if is_script(g, node) {
            script_scope_infos(g, node, &mut scan.script_of);
        } else if g.is_context(node) {
            if let Some(info) = internal(g, node, "scope_info") {
                scan.contexts.push((node, info));
            }
        } else if g.node_type[node as usize] == g.types.closure {
            if let (Some(shared), Some(context)) =
                (internal(g, node, "shared"), internal(g, node, "context"))
            {
                add_live(g, &mut scan.closures, node, shared, context);
            }
        } else if is_generator(g, node, &mut generator_maps) {
            generator(g, node, &mut scan);
        }
    }
    scan
}

fn add_live(g: &Graph, out: &mut Vec<LiveClosure>, owner: u32, shared: u32, context: u32) {
    let Some(script) = internal(g, shared, "script") else {
        return;
    };
    if let Some(scope_id) = int_field(g, shared, "scope_id") {
        out.push(LiveClosure {
            owner,
            context,
            script,
            scope_id,
        });
    }
}

fn is_generator(g: &Graph, node: u32, maps: &mut HashMap<u32, bool>) -> bool {
    if g.node_type[node as usize] != g.types.object {
        return false;
    }
    let Some(map) = internal(g, node, "map") else {
        return false;
    };
    *maps.entry(map).or_insert_with(|| {
        internal(g, map, "instance_type_name")
            .is_some_and(|t| GENERATOR_TYPES.contains(&g.raw_name(t)))
    })
}

/// A generator: live while suspended (its function and context); once a module's top-level
/// function's generator has returned, that function's closure is not live either.
fn generator(g: &Graph, node: u32, scan: &mut Scan) {
    let Some(continuation) = int_field(g, node, "continuation") else {
        return;
    };
    let Some(function) = internal(g, node, "function") else {
        return;
    };
    if g.node_type[function as usize] != g.types.closure {
        return;
    }
    let Some(shared) = internal(g, function, "shared") else {
        return;
    };
    if continuation == GENERATOR_CLOSED {
        if int_field(g, shared, "scope_id") == Some(SCRIPT_ROOT) {
            scan.finished.insert(function);
        }
        return;
    }
    if let Some(context) = internal(g, node, "context") {
        add_live(g, &mut scan.closures, node, shared, context);
    }
}

/// The scope infos a script's function list reaches (directly, through a function's own or
/// its outer scope info), each with the chain of scope infos around it, belong to it; the
/// first script to claim one keeps it. An `eval`'s script stops at the scope it was called in.
fn script_scope_infos(g: &Graph, script: u32, script_of: &mut HashMap<u32, Option<u32>>) {
    let Some(infos) = internal(g, script, "infos") else {
        return;
    };
    let stop = internal(g, script, "eval_from_scope_info").filter(|&n| is_scope_info(g, n));
    for e in g.edges(infos) {
        let info = g.edge_to(e);
        if is_scope_info(g, info) {
            claim_chain(g, script_of, info, stop, script);
            continue;
        }
        if !g.raw_name(info).starts_with("system / SharedFunctionInfo") {
            continue;
        }
        if let Some(own) = internal(g, info, "name_or_scope_info").filter(|&n| is_scope_info(g, n))
        {
            claim_chain(g, script_of, own, stop, script);
            continue;
        }
        match int_field(g, info, "scope_id") {
            Some(id) if id != SCRIPT_ROOT => {}
            _ => continue,
        }
        let outer = internal(g, info, "raw_outer_scope_info_or_feedback_metadata");
        if let Some(outer) = outer.filter(|&n| is_scope_info(g, n)) {
            claim_chain(g, script_of, outer, stop, script);
        }
    }
}

/// Each node claimed ends the walk or adds one entry, so a cycle of scope infos ends.
fn claim_chain(
    g: &Graph,
    script_of: &mut HashMap<u32, Option<u32>>,
    from: u32,
    stop: Option<u32>,
    script: u32,
) {
    let mut at = from;
    loop {
        if Some(at) == stop || script_of.contains_key(&at) {
            return;
        }
        script_of.insert(at, Some(script));
        if is_script_root(g, at) {
            return;
        }
        match internal(g, at, "outer_scope_info") {
            Some(outer) => at = outer,
            None => return,
        }
    }
}

/// The script of a scope info its script did not list: the first of its outer scope infos
/// that is known; every scope info on the way is remembered with the answer.
fn resolve_script(g: &Graph, script_of: &mut HashMap<u32, Option<u32>>, info: u32) -> Option<u32> {
    if let Some(&known) = script_of.get(&info) {
        return known;
    }
    let mut visited = Vec::new();
    let mut seen = HashSet::new();
    let mut at = info;
    let mut script = None;
    while seen.insert(at) {
        if let Some(&known) = script_of.get(&at) {
            script = known;
            break;
        }
        visited.push(at);
        if is_script_root(g, at) {
            break;
        }
        match internal(g, at, "outer_scope_info") {
            Some(outer) => at = outer,
            None => break,
        }
    }
    for v in visited {
        script_of.insert(v, script);
    }
    script
}

/// Which live function (script, scope id) holds which context: each live closure's context
/// and the contexts it chains to through `previous`.
type Live = HashSet<(u32, u64, u32)>;

fn live_functions(g: &Graph, scan: &Scan, budget: &mut Budget) -> Result<Live, String> {
    let mut live = Live::new();
    for c in &scan.closures {
        if scan.finished.contains(&c.owner) {
            continue;
        }
        let function = (c.script, key(c.scope_id));
        let mut context = Some(c.context);
        while let Some(at) = context {
            if live.contains(&(function.0, function.1, at)) || !g.is_context(at) {
                break;
            }
            budget.pair()?;
            live.insert((function.0, function.1, at));
            context = internal(g, at, "previous");
        }
    }
    Ok(live)
}

/// A scope with contexts: its scope info, script and embedded scope, the names of its first
/// context's variables (string indexes, in edge order) and each context's variable values.
struct Entry {
    scope_info: u32,
    script: u32,
    scope: u32,
    field_names: Vec<u32>,
    contexts: Vec<(u32, Vec<u32>)>,
}

/// A context's variables: the names and targets of its `context` edges.
fn fields(g: &Graph, context: u32) -> (Vec<u32>, Vec<u32>) {
    g.edges(context)
        .filter(|&e| g.edge_type(e) == g.types.context)
        .map(|e| (g.edge_name_index(e), g.edge_to(e)))
        .unzip()
}

/// The contexts grouped by scope info, in the order each scope info is first met; a context
/// whose scope info has no scope id, no script or no embedded scope is left out, and one of a
/// script without embedded scopes is counted for that script.
fn correlate(
    g: &Graph,
    script_of: &mut HashMap<u32, Option<u32>>,
    contexts: &[(u32, u32)],
    embedded: &Embedded,
) -> (Vec<Entry>, Vec<ScriptReport>) {
    let mut entries: Vec<Entry> = Vec::new();
    let mut entry_of: HashMap<u32, usize> = HashMap::new();
    let mut without: Vec<ScriptReport> = Vec::new();
    let mut without_of: HashMap<u32, usize> = HashMap::new();
    for &(context, info) in contexts {
        if let Some(&i) = entry_of.get(&info) {
            entries[i].contexts.push((context, fields(g, context).1));
            continue;
        }
        let Some(scope_id) = int_field(g, info, "scope_id") else {
            continue;
        };
        let Some(script) = resolve_script(g, script_of, info) else {
            continue;
        };
        if let Some(&w) = without_of.get(&script) {
            without[w].context_count += 1;
            continue;
        }
        if !embedded.has_script(script) {
            without_of.insert(script, without.len());
            without.push(ScriptReport {
                node: script,
                script_id: g.node_id(script as usize),
                script_name: script_name(g, script),
                context_count: 1,
            });
            continue;
        }
        let Some(scope) = embedded.scope(script, scope_id) else {
            continue;
        };
        let (field_names, values) = fields(g, context);
        entry_of.insert(info, entries.len());
        entries.push(Entry {
            scope_info: info,
            script,
            scope,
            field_names,
            contexts: vec![(context, values)],
        });
    }
    (entries, without)
}

/// What classifying a scope's contexts reads.
struct Found<'a> {
    s: &'a Snapshot,
    embedded: &'a Embedded,
    live: &'a Live,
}

impl Found<'_> {
    /// The scope's contexts with dead variables, or `None` when it has none.
    fn classify(&self, entry: &Entry, budget: &mut Budget) -> Result<Option<ScopeReport>, String> {
        let g = &self.s.graph;
        let variables = self.variables(entry);
        let mut contexts = Vec::new();
        for (context, values) in &entry.contexts {
            let mut dead_fields = Vec::new();
            let mut dead_size = 0.0;
            for ((&name, &value), &var) in entry.field_names.iter().zip(values).zip(&variables) {
                let Some(var) = var else {
                    continue;
                };
                if self.read_by_live(entry.script, *context, var, budget)? {
                    continue;
                }
                let retained = self.s.retained(value as usize);
                dead_size += retained;
                dead_fields.push(DeadField {
                    name: g.strings.get(name).to_owned(),
                    value_id: g.node_id(value as usize),
                    value_name: names::name(g, value),
                    retained,
                });
            }
            if !dead_fields.is_empty() {
                contexts.push(ContextReport {
                    id: g.node_id(*context as usize),
                    node: *context,
                    retained: self.s.retained(*context as usize),
                    dead_size,
                    dead_fields,
                });
            }
        }
        if contexts.is_empty() {
            return Ok(None);
        }
        let info = entry.scope_info;
        Ok(Some(ScopeReport {
            scope_info_id: g.node_id(info as usize),
            script_id: g.node_id(entry.script as usize),
            script_name: script_name(g, entry.script),
            scope_name: internal(g, info, "function_name").map(|n| names::name(g, n)),
            start: int_field(g, info, "start_position").unwrap_or(0.0),
            end: int_field(g, info, "end_position").unwrap_or(0.0),
            field_count: entry.field_names.len(),
            contexts,
        }))
    }

    /// For each of the entry's variable names, the first of its scope's variables so named:
    /// found once per scope, not per context (a module's scope may have thousands).
    fn variables(&self, entry: &Entry) -> Vec<Option<u32>> {
        let strings = &self.s.graph.strings;
        let mut by_name: HashMap<&str, u32> = HashMap::new();
        for v in self.embedded.variables(entry.scope) {
            by_name
                .entry(strings.get(self.embedded.name(v)))
                .or_insert(v);
        }
        entry
            .field_names
            .iter()
            .map(|&n| by_name.get(strings.get(n)).copied())
            .collect()
    }

    /// Whether a live function holding `context` is, or is inside, a scope that reads `var`.
    fn read_by_live(
        &self,
        script: u32,
        context: u32,
        var: u32,
        budget: &mut Budget,
    ) -> Result<bool, String> {
        for &reader in self.embedded.users(var) {
            let mut at = Some(reader);
            while let Some(scope) = at {
                budget.step()?;
                let scope = &self.embedded.scopes[scope as usize];
                if self.live.contains(&(script, key(scope.id), context)) {
                    return Ok(true);
                }
                at = scope.parent;
            }
        }
        Ok(false)
    }
}

/// Worst first: the dead variables' score, then the context's retained size, then snapshot
/// order.
fn worse_first(a: &ContextReport, b: &ContextReport) -> std::cmp::Ordering {
    b.dead_size
        .total_cmp(&a.dead_size)
        .then(b.retained.total_cmp(&a.retained))
        .then(a.node.cmp(&b.node))
}

fn ranked(mut scopes: Vec<ScopeReport>, mut without: Vec<ScriptReport>) -> ContextAnalysis {
    for scope in &mut scopes {
        for context in &mut scope.contexts {
            context
                .dead_fields
                .sort_by(|a, b| b.retained.total_cmp(&a.retained));
        }
        scope.contexts.sort_by(worse_first);
    }
    scopes.sort_by(|a, b| worse_first(&a.contexts[0], &b.contexts[0]));
    without.sort_by_key(|w| w.node);
    ContextAnalysis {
        scopes,
        scripts_without_scopes: without,
    }
}
