//! One object's place in the graph: `get_heapsnapshot_edges` (what it references),
//! `get_heapsnapshot_retainers` (what references it), `get_heapsnapshot_retaining_paths`
//! (why it is alive) and `get_heapsnapshot_dominators` (what would free it).

use serde_json::{Number, Value};

use super::bytes::parse_range;
use super::classes::not_found;
use super::text::{self, kb};
use super::{answer_with, max_name};
use crate::heap::{EdgeOrder, EdgeQuery, PathQuery, PathStep};
use crate::tools::args::{max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::result::ToolResult;

tool_args! {
    pub(super) struct EdgesArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "nodeId" node_id: f64 = {"type": "number", "minimum": -max::COORD, "maximum": max::ID, "description": "The node ID to get outgoing edges for."},
        "sortBy" sort_by: Option<String> = {"type": "string", "enum": ["retainedSize", "selfSize", "name"], "description": "Sort order for edges. Default is retainedSize."},
        "retainedSize" retained_size: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Inclusive retained size range (e.g. \"1MB-2MB\", \"-1MB\", or \"1MB-\") for target nodes. A single value is treated as a minimum. Currently, only the lower bound is applied."},
        "excludePrimitives" exclude_primitives: Option<bool> = {"type": "boolean", "description": "Whether to exclude primitive target nodes. Default is true."},
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
        "pageIdx" page_idx: Option<Number> = (super::page_idx()),
        "pageSize" page_size: Option<Number> = (super::page_size()),
    }
}

tool_args! {
    pub(super) struct RetainersArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "nodeId" node_id: f64 = {"type": "number", "minimum": -max::COORD, "maximum": max::ID, "description": "The node ID to get retainers for."},
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
        "pageIdx" page_idx: Option<Number> = (super::page_idx()),
        "pageSize" page_size: Option<Number> = (super::page_size()),
    }
}

tool_args! {
    pub(super) struct PathsArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "nodeId" node_id: f64 = {"type": "number", "minimum": -max::COORD, "maximum": max::ID, "description": "The node ID to get retaining paths for."},
        "maxDepth" max_depth: Option<f64> = {"type": "number", "minimum": -max::COORD, "maximum": max::COUNT, "description": "The maximum depth to search for retaining paths."},
        "maxNodes" max_nodes: Option<f64> = {"type": "number", "minimum": -max::COORD, "maximum": max::COUNT, "description": "The maximum number of nodes to return."},
        "maxSiblings" max_siblings: Option<f64> = {"type": "number", "minimum": -max::COORD, "maximum": max::COUNT, "description": "The maximum number of siblings to return."},
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
    }
}

tool_args! {
    pub(super) struct DominatorsArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "nodeId" node_id: f64 = {"type": "number", "minimum": -max::COORD, "maximum": max::ID, "description": "The node ID to get the dominator chain for."},
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
    }
}

/// The deepest retaining path searched, whatever `maxDepth` asks: the search recurses once
/// per step, and a chain of a million objects must not exhaust the stack.
const DEEPEST_PATH: f64 = 4000.0;

pub(super) fn edges(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<EdgesArgs>(cx, call, args) else {
        return;
    };
    let min_retained = match a.retained_size.as_deref().map(parse_range).transpose() {
        Ok(r) => r.map(|r| r.min),
        Err(e) => return invalid(cx, call, "get_heapsnapshot_edges", "retainedSize", &e),
    };
    let order = match a.sort_by.as_deref() {
        Some("selfSize") => EdgeOrder::SelfSize,
        Some("name") => EdgeOrder::Name,
        _ => EdgeOrder::RetainedSize,
    };
    let query = EdgeQuery {
        order,
        min_retained,
        exclude_primitives: a.exclude_primitives.unwrap_or(true),
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        let node = s
            .node_of_id(a.node_id)
            .ok_or_else(|| not_found(a.node_id))?;
        let paging = crate::paging::Paging::new(a.page_size, a.page_idx);
        Ok(text::edges(
            &s.edges_of(node, &query),
            &paging,
            max_name(a.max_name_length),
        ))
    });
}

/// An argument the reference's schema refuses: its validation error, as the reference words
/// it.
pub(super) fn invalid(cx: &mut Ctx, call: CallId, tool: &str, field: &str, message: &str) {
    let text =
        format!("Input validation error: Invalid arguments for tool {tool}: {field}: {message}");
    call::finish(cx, call, ToolResult::error(text));
}

pub(super) fn retainers(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<RetainersArgs>(cx, call, args) else {
        return;
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        let node = s
            .node_of_id(a.node_id)
            .ok_or_else(|| not_found(a.node_id))?;
        let paging = crate::paging::Paging::new(a.page_size, a.page_idx);
        Ok(text::edges(
            &s.retainers_of(node),
            &paging,
            max_name(a.max_name_length),
        ))
    });
}

pub(super) fn retaining_paths(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<PathsArgs>(cx, call, args) else {
        return;
    };
    let query = PathQuery {
        max_depth: a.max_depth.unwrap_or(30.0).min(DEEPEST_PATH),
        max_nodes: a.max_nodes.unwrap_or(5000.0),
        max_siblings: a.max_siblings.unwrap_or(100.0),
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        let node = s
            .node_of_id(a.node_id)
            .ok_or_else(|| not_found(a.node_id))?;
        let (paths, limits) = s.retaining_paths(node, query);
        let max = max_name(a.max_name_length);
        let mut lines = vec![
            "## Heap Snapshot Data".to_owned(),
            "### Retaining Paths".to_owned(),
        ];
        if paths.is_empty() {
            lines.push("No retaining paths found.".to_owned());
        } else {
            let mut tree = Vec::new();
            for p in &paths {
                path_lines(p, 0, max, &mut tree);
            }
            lines.push(tree.join("\n"));
        }
        if !limits.0.is_empty() {
            lines.push(format!(
                "Note: results are truncated, the following limits were reached: {}.",
                limits.0.join(", ")
            ));
        }
        Ok(lines.join("\n"))
    });
}

fn path_lines(step: &PathStep, depth: usize, max: Option<usize>, out: &mut Vec<String>) {
    out.push(format!(
        "{}<- @{} {} via {} {} (distance: {})",
        "  ".repeat(depth),
        step.node_id,
        text::name(&step.node_name, max),
        step.edge_type,
        text::name(&step.edge_name, max),
        step.distance
    ));
    for child in &step.children {
        path_lines(child, depth + 1, max, out);
    }
}

pub(super) fn dominators(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<DominatorsArgs>(cx, call, args) else {
        return;
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        let node = s
            .node_of_id(a.node_id)
            .ok_or_else(|| not_found(a.node_id))?;
        let max = max_name(a.max_name_length);
        let mut lines = vec![
            "## Heap Snapshot Data".to_owned(),
            "### Dominator Chain".to_owned(),
            "nodeId,nodeName,selfSize,retainedSize".to_owned(),
        ];
        for n in s.dominator_chain(node) {
            lines.push(format!(
                "{},{},{},{}",
                n.id,
                text::name(&n.name, max),
                kb(n.self_size as f64),
                kb(n.retained)
            ));
        }
        Ok(lines.join("\n"))
    });
}
