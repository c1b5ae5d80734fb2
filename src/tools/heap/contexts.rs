//! `analyze_heapsnapshot_contexts`: the closure contexts that keep variables alive which no
//! live closure can read, ranked by what those variables retain, one page at a time.

use serde_json::{Number, Value};

use super::bytes::parse_range;
use super::graph::invalid;
use super::text::{kb, name};
use super::{answer_with, max_name};
use crate::heap::{ContextAnalysis, ContextReport, ScopeReport};
use crate::numbers::js_number;
use crate::paging::{paginate, Paging};
use crate::tools::args::{max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;

const TOOL: &str = "analyze_heapsnapshot_contexts";

tool_args! {
    pub(super) struct ContextsArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "retainedSize" retained_size: Option<String> = {"type": "string", "maxLength": max::NAME, "description": "Inclusive range for the dead-field score of a context (e.g. \"10KB\", \"1MB-2MB\", \"-1MB\", or \"1MB-\"). A single value is treated as a minimum."},
        "scopeInfoNodeId" scope_info_node_id: Option<f64> = {"type": "integer", "minimum": -max::COORD, "maximum": max::ID, "description": "Only return contexts declared by the scope with this ScopeInfo node id, as reported in the scope header of a previous call."},
        "maxNameLength" max_name_length: Option<f64> = (super::max_name_length()),
        "pageIdx" page_idx: Option<Number> = {"type": "integer", "minimum": 0, "maximum": max::COUNT, "description": "The zero-based page index. Defaults to 0."},
        "pageSize" page_size: Option<Number> = {"type": "integer", "exclusiveMinimum": 0, "maximum": max::COUNT, "description": "The number of contexts to return per page. Defaults to 20."},
    }
}

pub(super) fn contexts(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<ContextsArgs>(cx, call, args) else {
        return;
    };
    let range = match a.retained_size.as_deref().map(parse_range).transpose() {
        Ok(r) => r,
        Err(e) => return invalid(cx, call, TOOL, "retainedSize", &e),
    };
    answer_with(cx, call, &a.file_path.clone(), move |s| {
        let analysis = s
            .contexts()
            .map_err(|e| format!("The heap snapshot's contexts could not be analysed: {e}"))?;
        let (min, max) = range.map_or((0.0, None), |r| (r.min, r.max));
        let ranked = analysis.ranked(a.scope_info_node_id, min, max);
        // The reference always pages this listing: pages of 20 unless asked otherwise.
        let paging = Paging::new(a.page_size, Some(a.page_idx.unwrap_or(0.into())));
        let paged = paginate(ranked.len(), &paging);
        let mut lines = vec![
            "## Heap Snapshot Data".to_owned(),
            "### Context Analysis".to_owned(),
        ];
        lines.extend(paged.lines);
        let shown = &ranked[paged.start..paged.end];
        lines.push(report(analysis, shown, max_name(a.max_name_length)));
        Ok(lines.join("\n"))
    });
}

/// One page of contexts, each under its scope's header with its dead variables; then the
/// scripts that could not be analysed.
fn report(
    analysis: &ContextAnalysis,
    shown: &[(&ScopeReport, &ContextReport)],
    max: Option<usize>,
) -> String {
    let mut lines: Vec<String> = Vec::new();
    if shown.is_empty() {
        lines.push("No live contexts with dead fields were found.".to_owned());
    }
    for (scope, context) in shown {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(format!(
            "#### Context @{} in `{}` — {}",
            context.id,
            scope_name(scope, max),
            kb(context.dead_size)
        ));
        lines.push(format!(
            "Script @{}, ScopeInfo @{}, offsets {}-{}, {}",
            scope.script_id,
            scope.scope_info_id,
            js_number(scope.start),
            js_number(scope.end),
            count(scope.field_count, "context field")
        ));
        for field in &context.dead_fields {
            lines.push(format!(
                "- `{}` ({} @{}) — {}",
                name(&field.name, max),
                name(&field.value_name, max),
                field.value_id,
                kb(field.retained)
            ));
        }
    }
    if !analysis.scripts_without_scopes.is_empty() {
        lines.push(String::new());
        lines.push("Scripts without scope metadata could not be analyzed:".to_owned());
        for script in &analysis.scripts_without_scopes {
            lines.push(format!(
                "- `{}` (@{}) — {}",
                script_name(&script.script_name, script.script_id, max),
                script.script_id,
                count(script.context_count, "context")
            ));
        }
    }
    lines.join("\n")
}

fn count(n: usize, singular: &str) -> String {
    let plural = if n == 1 { "" } else { "s" };
    format!("{n} {singular}{plural}")
}

fn script_name(script: &str, id: u32, max: Option<usize>) -> String {
    if script.is_empty() {
        format!("script @{id}")
    } else {
        name(script, max)
    }
}

/// `function (script)`, or the script alone for a scope without a function name.
fn scope_name(scope: &ScopeReport, max: Option<usize>) -> String {
    let script = script_name(&scope.script_name, scope.script_id, max);
    match scope.scope_name.as_deref() {
        Some(function) if !function.is_empty() => format!("{} ({script})", name(function, max)),
        _ => script,
    }
}
