//! The scopes V8 embeds in a snapshot for each script: `scopes` (one record per scope, in
//! source order, each with its depth), `scope_context_vars` (the names of the variables each
//! scope keeps in its context) and `scope_uses` (which variables of enclosing scopes each
//! scope reads), laid out by `snapshot.meta`'s `scope_fields`, `scope_context_var_fields`
//! and `scope_use_fields`. Read as plain numbers while the file streams; checked and turned
//! into a tree only when the context analysis asks, so a file whose scopes are wrong still
//! answers every other question.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};

/// The three sections and their layouts as the file gives them.
#[derive(Default)]
pub(super) struct Sections {
    pub scope_fields: Vec<String>,
    pub var_fields: Vec<String>,
    pub use_fields: Vec<String>,
    pub scopes: Vec<i32>,
    pub vars: Vec<i32>,
    pub uses: Vec<i32>,
    /// The first number that is not a 32-bit whole number, named: the analysis refuses the
    /// sections, and every other question still answers.
    problem: Option<String>,
}

impl Sections {
    /// Where the section `key` (`scopes`, `scope_context_vars` or `scope_uses`) is read into.
    pub(super) fn seed(&mut self, key: &str) -> NumbersSeed<'_> {
        let (out, name) = match key {
            "scopes" => (&mut self.scopes, "scopes"),
            "scope_context_vars" => (&mut self.vars, "scope_context_vars"),
            _ => (&mut self.uses, "scope_uses"),
        };
        NumbersSeed {
            out,
            problem: &mut self.problem,
            name,
        }
    }

    pub(super) fn bytes(&self) -> usize {
        (self.scopes.capacity() + self.vars.capacity() + self.uses.capacity()) * 4
    }
}

/// A scope id (or any number the analysis matches against one) as a key: JavaScript's
/// numbers compare equal for `0` and `-0`.
pub(super) fn key(x: f64) -> u64 {
    (x + 0.0).to_bits()
}

/// One scope of a script.
pub(super) struct Scope {
    script: u32,
    pub id: f64,
    pub parent: Option<u32>,
    /// Its context variables: `names[first_var..first_var + var_count]`.
    first_var: u32,
    var_count: u32,
}

/// The scopes of every script, as a tree per script.
#[derive(Default)]
pub(super) struct Embedded {
    pub scopes: Vec<Scope>,
    /// Each context variable's name (a string index), scope after scope.
    names: Vec<u32>,
    /// Variable `v` is read by the scopes `users[first_user[v]..first_user[v + 1]]`.
    first_user: Vec<u32>,
    users: Vec<u32>,
    /// The scope a script (by node ordinal) and a scope id name: the last record of them.
    by_id: HashMap<(u32, u64), u32>,
    /// The scripts with at least one scope.
    scripts: HashSet<u32>,
}

impl Embedded {
    pub(super) fn has_script(&self, script: u32) -> bool {
        self.scripts.contains(&script)
    }

    pub(super) fn scope(&self, script: u32, id: f64) -> Option<u32> {
        self.by_id.get(&(script, key(id))).copied()
    }

    /// The scope's context variables, as indexes for [`Embedded::name`] and
    /// [`Embedded::users`].
    pub(super) fn variables(&self, scope: u32) -> std::ops::Range<u32> {
        let s = &self.scopes[scope as usize];
        s.first_var..s.first_var + s.var_count
    }

    /// The variable's name, a string index.
    pub(super) fn name(&self, var: u32) -> u32 {
        self.names[var as usize]
    }

    /// The scopes that read the variable.
    pub(super) fn users(&self, var: u32) -> &[u32] {
        let v = var as usize;
        &self.users[self.first_user[v] as usize..self.first_user[v + 1] as usize]
    }
}

/// Where each field sits in a record of a section, and the record's width.
struct Fields {
    width: usize,
    at: Vec<usize>,
}

fn fields(names: &[String], wanted: &[&str], meta: &str) -> Result<Fields, String> {
    let at = wanted
        .iter()
        .map(|w| {
            names
                .iter()
                .position(|n| n == w)
                .ok_or_else(|| format!("snapshot.meta.{meta} has no \"{w}\""))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Fields {
        width: names.len(),
        at,
    })
}

/// The records of `section` (named `name`), each as the wanted fields' values.
fn records<'a, const N: usize>(
    section: &'a [i32],
    f: &'a Fields,
    name: &str,
) -> Result<impl Iterator<Item = [i64; N]> + 'a, String> {
    if !section.len().is_multiple_of(f.width) {
        return Err(format!(
            "the {name} array's length is not a multiple of its {} fields",
            f.width
        ));
    }
    Ok(section
        .chunks_exact(f.width)
        .map(|r| std::array::from_fn(|i| r[f.at[i]] as i64)))
}

/// A count or index that must be a whole number from 0 to `limit`.
fn bounded(v: i64, limit: usize, what: impl FnOnce() -> String) -> Result<u32, String> {
    if v < 0 || v as u64 > limit as u64 || v > u32::MAX as i64 {
        return Err(what());
    }
    Ok(v as u32)
}

/// Checks the sections against the snapshot (`node_fields` numbers per node, `nodes` nodes,
/// `strings` strings) and builds the tree. No `scope_fields` means no scopes, as DevTools
/// reads an older snapshot.
pub(super) fn build(
    s: &Sections,
    node_fields: u32,
    nodes: usize,
    strings: usize,
) -> Result<Embedded, String> {
    if s.scope_fields.is_empty() {
        return Ok(Embedded::default());
    }
    if let Some(problem) = &s.problem {
        return Err(problem.clone());
    }
    let wanted = [
        "script_node_index",
        "scope_id",
        "depth",
        "scope_context_vars_count",
        "scope_uses_count",
    ];
    let scope_fields = fields(&s.scope_fields, &wanted, "scope_fields")?;
    let var_fields = fields(&s.var_fields, &["name"], "scope_context_var_fields")?;
    let use_fields = fields(
        &s.use_fields,
        &["declaring_scope_id", "slot_index"],
        "scope_use_fields",
    )?;
    let var_names: Vec<i32> = records::<1>(&s.vars, &var_fields, "scope_context_vars")?
        .map(|[name]| name as i32)
        .collect();
    let mut tree = Tree {
        e: Embedded::default(),
        stack: Vec::new(),
        node_fields,
        nodes,
        strings,
        var_names: &var_names,
        uses_counts: Vec::new(),
    };
    for (i, r) in records::<5>(&s.scopes, &scope_fields, "scopes")?.enumerate() {
        tree.add(i, &r)?;
    }
    let Tree {
        mut e, uses_counts, ..
    } = tree;
    if e.names.len() != var_names.len() {
        return Err(format!(
            "the scopes have {} context variables, but scope_context_vars has {}",
            e.names.len(),
            var_names.len()
        ));
    }
    link_uses(&mut e, s, &use_fields, &uses_counts)?;
    Ok(e)
}

/// The tree as the scope records build it, and the enclosing scopes of the last one.
struct Tree<'a> {
    e: Embedded,
    stack: Vec<u32>,
    node_fields: u32,
    nodes: usize,
    strings: usize,
    var_names: &'a [i32],
    uses_counts: Vec<i64>,
}

impl Tree<'_> {
    /// Scope record `i`: script node index, scope id, depth, variable and use counts.
    fn add(&mut self, i: usize, r: &[i64]) -> Result<(), String> {
        let width = self.node_fields as i64;
        if r[0] < 0 || r[0] % width != 0 || r[0] / width >= self.nodes as i64 {
            return Err(format!(
                "scope {i}'s script_node_index {} is not a node",
                r[0]
            ));
        }
        let script = (r[0] / width) as u32;
        if self.e.scopes.last().map(|s| s.script) != Some(script) {
            self.stack.clear();
        }
        let depth = bounded(r[2], self.stack.len(), || {
            format!(
                "scope {i} has depth {}, but no scope of its script encloses it",
                r[2]
            )
        })?;
        let first_var = self.e.names.len();
        let left = self.var_names.len() - first_var;
        let var_count = bounded(r[3], left, || {
            format!(
                "scope {i} has {} context variables, but scope_context_vars has {left} left",
                r[3]
            )
        })?;
        for (v, &name) in self.var_names[first_var..first_var + var_count as usize]
            .iter()
            .enumerate()
        {
            let strings = self.strings;
            let name = bounded(name as i64, strings.saturating_sub(1), || {
                format!(
                    "context variable {} names string {name}, but there are {strings} strings",
                    first_var + v
                )
            })?;
            self.e.names.push(name);
        }
        self.uses_counts.push(r[4]);
        let index = self.e.scopes.len() as u32;
        self.stack.truncate(depth as usize);
        self.e.scopes.push(Scope {
            script,
            id: r[1] as f64,
            parent: self.stack.last().copied(),
            first_var: first_var as u32,
            var_count,
        });
        self.stack.push(index);
        self.e.by_id.insert((script, key(r[1] as f64)), index);
        self.e.scripts.insert(script);
        Ok(())
    }
}

/// Who reads which variable: each use names a scope of the same script by id and one of its
/// variables by slot. A use of a scope or slot that is not there reads nothing, as in
/// DevTools; a use is listed once per reading scope.
fn link_uses(e: &mut Embedded, s: &Sections, f: &Fields, counts: &[i64]) -> Result<(), String> {
    let total = s.uses.len() / f.width;
    let mut uses = records::<2>(&s.uses, f, "scope_uses")?;
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut at = 0usize;
    for (i, &count) in counts.iter().enumerate() {
        let count = bounded(count, total - at, || {
            format!(
                "scope {i} has {count} uses, but scope_uses has {} left",
                total - at
            )
        })? as usize;
        let (script, id) = (e.scopes[i].script, e.scopes[i].id);
        let reader = e.scope(script, id);
        for u in uses.by_ref().take(count) {
            let declaring = e.scope(script, u[0] as f64);
            let (Some(reader), Some(declaring)) = (reader, declaring) else {
                continue;
            };
            let vars = e.variables(declaring);
            if u[1] >= 0 && (u[1] as u64) < vars.len() as u64 {
                pairs.push((vars.start + u[1] as u32, reader));
            }
        }
        at += count;
    }
    if at != total {
        return Err(format!(
            "the scopes have {at} uses, but scope_uses has {total}"
        ));
    }
    pairs.sort_unstable();
    pairs.dedup();
    // Sorted by variable: each variable's readers start where the pairs reach it.
    e.first_user = (0..=e.names.len() as u32)
        .map(|v| pairs.partition_point(|&(pv, _)| pv < v) as u32)
        .collect();
    e.users = pairs.into_iter().map(|(_, scope)| scope).collect();
    Ok(())
}

/// A section's numbers, read as they stream: whole numbers of 32 bits (as V8 writes them),
/// so that a section costs at most twice its text.
pub(super) struct NumbersSeed<'a> {
    out: &'a mut Vec<i32>,
    problem: &'a mut Option<String>,
    name: &'static str,
}

impl<'de> DeserializeSeed<'de> for NumbersSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for NumbersSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the {} array: numbers", self.name)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<f64>()? {
            if self.problem.is_some() {
                continue;
            }
            if v.fract() != 0.0 || v < i32::MIN as f64 || v > i32::MAX as f64 {
                let name = self.name;
                *self.problem = Some(format!(
                    "the {name} array holds {v}, not a whole number of 32 bits"
                ));
                continue;
            }
            self.out.push(v as i32);
        }
        Ok(())
    }
}
