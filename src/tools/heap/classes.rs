//! `get_heapsnapshot_details` (the summary view's classes), `get_heapsnapshot_class_nodes`
//! (one class's objects) and `get_heapsnapshot_object_details` (one object).

use serde_json::{Number, Value};

use super::text::{self, kb};
use super::{answer_with, max_name};
use crate::heap::{Filter, Snapshot};
use crate::numbers::js_number;
use crate::paging::{paginate, Paging};
use crate::tools::args::{max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;

tool_args! {
    pub(super) struct DetailsArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "filterName" filter_name: Option<String> = (filter_name("An optional filter to apply to the aggregates.")),
        "objectId" object_id: Option<f64> = (object_id()),
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
        "pageIdx" page_idx: Option<Number> = {"type": "integer", "minimum": 0, "maximum": max::COUNT, "description": "The page index for pagination of aggregates."},
        "pageSize" page_size: Option<Number> = {"type": "integer", "exclusiveMinimum": 0, "maximum": max::COUNT, "description": "The page size for pagination of aggregates."},
    }
}

tool_args! {
    pub(super) struct ClassNodesArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "id" id: f64 = {"type": "number", "minimum": -max::COORD, "maximum": max::ID, "description": "The ID for the class, obtained from details."},
        "filterName" filter_name: Option<String> = (filter_name("An optional filter to apply to the nodes.")),
        "objectId" object_id: Option<f64> = (object_id()),
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
        "pageIdx" page_idx: Option<Number> = (super::page_idx()),
        "pageSize" page_size: Option<Number> = (super::page_size()),
    }
}

tool_args! {
    pub(super) struct ObjectArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "nodeId" node_id: f64 = {"type": "number", "minimum": -max::COORD, "maximum": max::ID, "description": "The node ID to get object details for."},
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
    }
}

const FILTERS: [&str; 7] = [
    "objectsRetainedByDetachedDomNodes",
    "objectsRetainedByConsole",
    "objectsRetainedByEventHandlers",
    "objectsRetainedByContexts",
    "sharedNativeContext",
    "noNativeContext",
    "attributedToSpecificNativeContext",
];

fn filter_name(description: &str) -> Value {
    serde_json::json!({"type": "string", "enum": FILTERS, "description": description})
}

fn object_id() -> Value {
    serde_json::json!({"type": "number", "minimum": -max::COORD, "maximum": max::ID, "description": "The object ID (nodeId) of the specific native context to filter by when filterName is attributedToSpecificNativeContext."})
}

/// The filter a call names, as the reference resolves it (a native context by its id).
fn filter(
    s: &Snapshot,
    name: Option<&str>,
    object_id: Option<f64>,
) -> Result<Option<Filter>, String> {
    let Some(name) = name else {
        return Ok(None);
    };
    if name != "attributedToSpecificNativeContext" {
        return Filter::named(name)
            .map(Some)
            .ok_or_else(|| "Invalid filter name".to_owned());
    }
    let id = object_id
        .ok_or("objectId is required when filterName is attributedToSpecificNativeContext")?;
    let node = s.node_of_id(id).ok_or_else(|| not_found(id))?;
    Ok(Some(Filter::NativeContext(node)))
}

pub(super) fn not_found(id: f64) -> String {
    format!("Node with ID {} not found", js_number(id))
}

pub(super) fn details(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<DetailsArgs>(cx, call, args) else {
        return;
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        let f = filter(s, a.filter_name.as_deref(), a.object_id)?;
        let mut rows = s.aggregates(f);
        // Stable, as JavaScript's sort.
        rows.sort_by(|x, y| y.retained.total_cmp(&x.retained));
        let objects: u64 = rows.iter().map(|r| r.count).sum();
        let shallow: f64 = rows.iter().map(|r| r.self_size).sum();
        let paged = paginate(rows.len(), &Paging::new(a.page_size, a.page_idx));
        let max = max_name(a.max_name_length);
        let mut lines = vec![
            "## Heap Snapshot Data".to_owned(),
            format!("Objects: {objects}"),
            format!("Total shallow size: {}", kb(shallow)),
        ];
        lines.extend(paged.lines);
        lines.push("id,className,count,selfSize,retainedSize".to_owned());
        for r in &rows[paged.start..paged.end] {
            lines.push(format!(
                "{},{},{},{},{}",
                r.class + 1,
                text::name(s.class_name(r.class), max),
                r.count,
                kb(r.self_size),
                kb(r.retained)
            ));
        }
        Ok(lines.join("\n"))
    });
}

pub(super) fn class_nodes(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<ClassNodesArgs>(cx, call, args) else {
        return;
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        let f = filter(s, a.filter_name.as_deref(), a.object_id)?;
        let class = class_of_id(s, a.id).ok_or_else(|| {
            format!(
                "Class with ID {} not found in heap snapshot",
                js_number(a.id)
            )
        })?;
        let rows = s.aggregates(f);
        let row = rows
            .iter()
            .find(|r| r.class == class)
            .ok_or("Cannot read properties of undefined (reading 'idxs')")?;
        let mut nodes: Vec<_> = row.nodes.iter().map(|&n| s.node(n)).collect();
        if f.is_none() && s.listed_by_id() {
            nodes.sort_by_key(|n| n.id);
        }
        let paging = Paging::new(a.page_size, a.page_idx);
        Ok(text::nodes(nodes, &paging, max_name(a.max_name_length)))
    });
}

/// The class with this listed id (1-based, a whole number).
fn class_of_id(s: &Snapshot, id: f64) -> Option<u32> {
    let whole = id.fract() == 0.0 && id >= 1.0 && id <= s.class_count() as f64;
    whole.then(|| id as u32 - 1)
}

pub(super) fn object_details(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<ObjectArgs>(cx, call, args) else {
        return;
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        let node = s
            .node_of_id(a.node_id)
            .ok_or_else(|| not_found(a.node_id))?;
        let info = s.node(node);
        let detachedness = match s.detachedness(node) {
            1 => "attached",
            2 => "detached",
            _ => "unknown",
        };
        let max = max_name(a.max_name_length);
        Ok([
            "## Heap Snapshot Data".to_owned(),
            "### Object Details".to_owned(),
            format!("id: @{}", info.id),
            format!("name: {}", text::name(&info.name, max)),
            format!("type: {}", info.type_name),
            format!("detachedness: {detachedness}"),
            format!("selfSize: {}", kb(info.self_size as f64)),
            format!("retainedSize: {}", kb(info.retained)),
            format!("distance: {}", info.distance),
            format!("edgeCount: {}", s.edge_count(node)),
            format!("retainerCount: {}", s.retainer_count(node)),
        ]
        .join("\n"))
    });
}
