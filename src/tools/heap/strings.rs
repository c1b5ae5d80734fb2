//! `get_heapsnapshot_duplicate_strings`: strings the heap holds more than once.

use serde_json::{Number, Value};

use super::text::{kb, truncate};
use super::{answer_with, max_name};
use crate::paging::{paginate, Paging};
use crate::tools::args::{max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;

tool_args! {
    pub(super) struct DuplicatesArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "pageIdx" page_idx: Option<Number> = (super::page_idx()),
        "pageSize" page_size: Option<Number> = (super::page_size()),
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
    }
}

pub(super) fn duplicate_strings(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<DuplicatesArgs>(cx, call, args) else {
        return;
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        Ok({
            let groups = s.duplicate_strings();
            let paged = paginate(groups.len(), &Paging::new(a.page_size, a.page_idx));
            let max = max_name(a.max_name_length);
            let mut lines = vec![
                "## Heap Snapshot Data".to_owned(),
                "### Duplicate Strings".to_owned(),
            ];
            lines.extend(paged.lines);
            lines.push("value,count,totalSelfSize,totalRetainedSize,truncated,nodeIds".to_owned());
            for g in &groups[paged.start..paged.end] {
                let value = serde_json::to_string(&truncate(&g.value, max)).unwrap_or_default();
                let ids: Vec<String> = g.ids.iter().map(|id| format!("@{id}")).collect();
                lines.push(format!(
                    "{value},{},{},{},{},{}",
                    g.ids.len(),
                    kb(g.self_size),
                    kb(g.retained),
                    g.truncated,
                    ids.join(" ")
                ));
            }
            lines.join("\n")
        })
    });
}
