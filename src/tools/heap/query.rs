//! `query_heapsnapshot_objects`: objects found by class or property name pattern, type, size
//! and detachedness.

use serde_json::{Number, Value};

use super::bytes::{parse_range, ByteRange};
use super::graph::invalid;
use super::{answer_with, max_name, text};
use crate::heap::{ObjectQuery, QueryOrder};
use crate::paging::Paging;
use crate::tools::args::{max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;

const TOOL: &str = "query_heapsnapshot_objects";

tool_args! {
    pub(super) struct QueryArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "className" class_name: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Optional regex or text matching object class name."},
        "propertyName" property_name: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Optional property name filter for outgoing reference edges."},
        "nodeType" node_type: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Optional V8 node type filter (e.g. object, closure, string, array, code)."},
        "retainedSize" retained_size: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Inclusive retained size range (e.g. \"1MB-2MB\", \"-1MB\", or \"1MB-\"). A single value is treated as a minimum."},
        "selfSize" self_size: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Inclusive self size range (e.g. \"1MB-2MB\", \"-1MB\", or \"1MB-\"). A single value is treated as a minimum."},
        "isDetached" is_detached: Option<bool> = {"type": "boolean", "description": "Whether to filter for detached DOM nodes."},
        "sortBy" sort_by: Option<String> = {"type": "string", "enum": ["retainedSize", "selfSize", "id"], "description": "Sort order for results. Default is retainedSize."},
        "pageIdx" page_idx: Option<Number> = (super::page_idx()),
        "pageSize" page_size: Option<Number> = (super::page_size()),
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
    }
}

fn range(given: Option<&str>) -> Result<(Option<f64>, Option<f64>), String> {
    Ok(match given.map(parse_range).transpose()? {
        Some(ByteRange { min, max }) => (Some(min), max),
        None => (None, None),
    })
}

pub(super) fn query(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<QueryArgs>(cx, call, args) else {
        return;
    };
    let retained = match range(a.retained_size.as_deref()) {
        Ok(r) => r,
        Err(e) => return invalid(cx, call, TOOL, "retainedSize", &e),
    };
    let self_size = match range(a.self_size.as_deref()) {
        Ok(r) => r,
        Err(e) => return invalid(cx, call, TOOL, "selfSize", &e),
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        let q = ObjectQuery {
            class_name: a.class_name.as_deref(),
            property_name: a.property_name.as_deref(),
            node_type: a.node_type.as_deref(),
            self_size,
            retained,
            detached: a.is_detached,
            order: match a.sort_by.as_deref() {
                Some("selfSize") => QueryOrder::SelfSize,
                Some("id") => QueryOrder::Id,
                _ => QueryOrder::RetainedSize,
            },
        };
        // The reference's worker fails on a pattern JavaScript cannot compile, and its
        // answer is what the page of results then reads.
        let found = s.query(&q).map_err(|()| {
            "TypeError: Cannot read properties of undefined (reading 'serializeItemsRange')"
                .to_owned()
        })?;
        let nodes = found.into_iter().map(|n| s.node(n)).collect();
        let paging = Paging::new(a.page_size, a.page_idx);
        Ok(text::nodes(nodes, &paging, max_name(a.max_name_length)))
    });
}
