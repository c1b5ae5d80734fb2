//! `compare_heapsnapshots`: what changed between two snapshots, class by class (the classes
//! that changed most first), or one class's new and deleted objects.

use serde_json::{Number, Value};

use super::text::{self, kb};
use super::{max_name, reply, with_snapshot};
use crate::heap::{diff, ClassDiff, Snapshot};
use crate::numbers::js_number;
use crate::paging::{paginate, Paging};
use crate::tools::args::{max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;

tool_args! {
    pub(super) struct CompareArgs {
        "baseFilePath" base_file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to the base .heapsnapshot file (earlier snapshot)."},
        "currentFilePath" current_file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to the current .heapsnapshot file (later snapshot)."},
        "classIndex" class_index: Option<f64> = {"type": "number", "minimum": -max::COORD, "maximum": max::COUNT, "description": "Optional 0-based index of the class in the summary list to filter results, showing individual objects."},
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
        "pageIdx" page_idx: Option<Number> = (super::page_idx()),
        "pageSize" page_size: Option<Number> = (super::page_size()),
    }
}

/// `+n` for a gain, `n` otherwise.
fn signed_count(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

fn signed_size(bytes: f64) -> String {
    if bytes > 0.0 {
        format!("+{}", kb(bytes))
    } else {
        kb(bytes)
    }
}

/// `# new: …, # deleted: …, # delta: …, alloc size: …, freed size: …, size delta: …`.
fn totals(added: usize, removed: usize, added_size: f64, removed_size: f64) -> String {
    format!(
        "# new: {added}, # deleted: {removed}, # delta: {}, alloc size: {}, freed size: {}, size delta: {}",
        signed_count(added as i64 - removed as i64),
        signed_size(added_size),
        signed_size(removed_size),
        signed_size(added_size - removed_size)
    )
}

pub(super) fn compare(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<CompareArgs>(cx, call, args) else {
        return;
    };
    let base_path = a.base_file_path.clone();
    with_snapshot(cx, call, &base_path, move |cx, call, base| {
        let current_path = a.current_file_path.clone();
        with_snapshot(cx, call, &current_path, move |cx, call, current| {
            let answer = comparison(&base, &current, &a);
            reply(cx, call, answer);
        });
    });
}

/// The comparison of `current` with `base`, as `a` asks for it.
fn comparison(base: &Snapshot, current: &Snapshot, a: &CompareArgs) -> Result<String, String> {
    let diffs = sorted_diffs(base, current);
    let max = max_name(a.max_name_length);
    match a.class_index {
        Some(i) => detailed(&diffs, i, max),
        None => Ok(summary(
            &diffs,
            &Paging::new(a.page_size.clone(), a.page_idx.clone()),
            max,
        )),
    }
}

/// The classes that changed, those whose size grew most first.
fn sorted_diffs(base: &Snapshot, current: &Snapshot) -> Vec<ClassDiff> {
    let mut diffs = diff(base, current);
    // Stable, as JavaScript's sort.
    diffs.sort_by(|x, y| {
        let delta = |d: &ClassDiff| d.added_size() - d.removed_size();
        delta(y).total_cmp(&delta(x))
    });
    diffs
}

/// What `devtools-mcp heap --compare` prints: the comparison as the tool answers it without
/// paging, and each class's net gain in objects (new less deleted), for leak budgets.
pub(crate) fn report(base: &Snapshot, current: &Snapshot) -> (String, Vec<(String, i64)>) {
    let diffs = sorted_diffs(base, current);
    let text = summary(&diffs, &Paging::new(None, None), None);
    let gains = diffs
        .iter()
        .map(|d| {
            (
                d.name.clone(),
                d.added.len() as i64 - d.deleted.len() as i64,
            )
        })
        .collect();
    (text, gains)
}

fn summary(diffs: &[ClassDiff], paging: &Paging, max: Option<usize>) -> String {
    let added: usize = diffs.iter().map(|d| d.added.len()).sum();
    let removed: usize = diffs.iter().map(|d| d.deleted.len()).sum();
    let added_size: f64 = diffs.iter().map(ClassDiff::added_size).sum();
    let removed_size: f64 = diffs.iter().map(ClassDiff::removed_size).sum();
    let paged = paginate(diffs.len(), paging);
    let mut lines = vec![
        "## Heap Snapshot Data".to_owned(),
        "### Heap Snapshot Diff".to_owned(),
        format!(
            "Total: {}",
            totals(added, removed, added_size, removed_size)
        ),
    ];
    lines.extend(paged.lines);
    lines.push(
        "index,className,addedCount,removedCount,countDelta,addedSize,removedSize,sizeDelta"
            .to_owned(),
    );
    for (i, d) in diffs.iter().enumerate().take(paged.end).skip(paged.start) {
        let (a, r) = (d.added_size(), d.removed_size());
        lines.push(format!(
            "{i},{},{},{},{},{},{},{}",
            text::name(&d.name, max),
            d.added.len(),
            d.deleted.len(),
            d.added.len() as i64 - d.deleted.len() as i64,
            kb(a),
            kb(r),
            kb(a - r)
        ));
    }
    lines.join("\n")
}

fn detailed(diffs: &[ClassDiff], index: f64, max: Option<usize>) -> Result<String, String> {
    let found = (index.fract() == 0.0 && index >= 0.0)
        .then(|| diffs.get(index as usize))
        .flatten();
    let d = found.ok_or_else(|| {
        format!(
            "Invalid classIndex: {}. Total classes with changes: {}",
            js_number(index),
            diffs.len()
        )
    })?;
    let mut lines = vec![
        "## Heap Snapshot Data".to_owned(),
        "### Heap Snapshot Detailed Diff".to_owned(),
        format!(
            "{}: {}",
            text::name(&d.name, max),
            totals(
                d.added.len(),
                d.deleted.len(),
                d.added_size(),
                d.removed_size()
            )
        ),
        "Objects:".to_owned(),
    ];
    for &(id, size) in &d.added {
        lines.push(format!("  + @{id} (self_size: {})", kb(size as f64)));
    }
    for &(id, size) in &d.deleted {
        lines.push(format!("  - @{id} (self_size: {})", kb(size as f64)));
    }
    Ok(lines.join("\n"))
}
