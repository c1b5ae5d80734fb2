//! Two snapshots compared class by class, as DevTools' comparison view does: the base's
//! objects classed by the current snapshot's interfaces, each class's objects matched by id
//! (new in the current one, or deleted since the base).

use std::collections::{HashMap, HashSet};

use super::classes::{self, Classes, NONE};
use super::Snapshot;

#[derive(Default)]
pub(crate) struct ClassDiff {
    pub name: String,
    pub added: Vec<(u32, u32)>,
    pub deleted: Vec<(u32, u32)>,
}

impl ClassDiff {
    pub(crate) fn added_size(&self) -> f64 {
        self.added.iter().map(|&(_, s)| s as f64).sum()
    }
    pub(crate) fn removed_size(&self) -> f64 {
        self.deleted.iter().map(|&(_, s)| s as f64).sum()
    }
}

/// Each class's objects as (id, self size), sorted by id.
fn by_class(s: &Snapshot, classes: &Classes) -> Vec<Vec<(u32, u32)>> {
    let g = &s.graph;
    let mut out = vec![Vec::new(); classes.names.len()];
    for (node, class) in classes.of.iter().enumerate() {
        if class != NONE {
            out[class as usize].push((g.node_id(node), g.self_size(node)));
        }
    }
    for objects in &mut out {
        objects.sort_by_key(|&(id, _)| id);
    }
    out
}

fn merge(name: String, base: &[(u32, u32)], current: &[(u32, u32)]) -> Option<ClassDiff> {
    let mut d = ClassDiff {
        name,
        ..ClassDiff::default()
    };
    let (mut i, mut j) = (0, 0);
    while i < base.len() && j < current.len() {
        let (a, b) = (base[i], current[j]);
        if a.0 < b.0 {
            d.deleted.push(a);
            i += 1;
        } else if a.0 > b.0 {
            d.added.push(b);
            j += 1;
        } else {
            i += 1;
            j += 1;
        }
    }
    d.deleted.extend_from_slice(&base[i..]);
    d.added.extend_from_slice(&current[j..]);
    (!d.added.is_empty() || !d.deleted.is_empty()).then_some(d)
}

/// What changed from `base` to `current`, class by class: the base's classes in its order,
/// then the classes only the current snapshot has.
pub(crate) fn diff(base: &Snapshot, current: &Snapshot) -> Vec<ClassDiff> {
    base.prepared_for_diff_with(current);
    current.diffed_against(base);
    let reclassed;
    let base_classes = if base.interfaces == current.interfaces {
        &base.classes
    } else {
        reclassed = classes::classes(&base.graph, &current.interfaces);
        &reclassed
    };
    let base_objects = by_class(base, base_classes);
    let current_objects = by_class(current, &current.classes);
    let current_of: HashMap<&str, usize> = current
        .classes
        .keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for (class, key) in base_classes.keys.iter().enumerate() {
        let objects = &base_objects[class];
        let Some(&(last_id, _)) = objects.last() else {
            continue;
        };
        let matched = current_of.get(key.as_str()).copied();
        let name = match matched {
            Some(c) => current.classes.names[c].clone(),
            None => base.own_class_name_of_id(last_id),
        };
        let empty = Vec::new();
        let now = matched.map_or(&empty, |c| &current_objects[c]);
        out.extend(merge(name, objects, now));
    }
    let in_base: HashSet<&str> = base_classes.keys.iter().map(String::as_str).collect();
    for (class, key) in current.classes.keys.iter().enumerate() {
        if !in_base.contains(key.as_str()) {
            let name = current.classes.names[class].clone();
            out.extend(merge(name, &[], &current_objects[class]));
        }
    }
    out
}
