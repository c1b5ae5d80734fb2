//! Which element each `@container` rule around the element's matched rules queried: the
//! reference writes it in a comment above the rule's `@container` header
//! (`/* container: div.box (uid: "1_3") */`), from `DOM.getContainerForNode`, asked once per
//! query as a step of the call.

use super::model::Block;
use crate::cdp::generated::css::{CSSContainerQuery, GetMatchedStylesForNodeReturns};
use crate::cdp::generated::dom;

/// A container query's `@container` header, as the blocks write it.
pub(super) fn header(q: &CSSContainerQuery) -> String {
    match &q.name {
        Some(n) if !q.text.starts_with(n.as_str()) => format!("@container {n} {}", q.text),
        _ => format!("@container {}", q.text),
    }
}

/// The container queries of every rule the element's styles show, once each.
pub(super) fn queries(m: &GetMatchedStylesForNodeReturns) -> Vec<CSSContainerQuery> {
    let own = m.matched_css_rules.iter().flatten().map(|r| &r.rule);
    let inherited = m
        .inherited
        .iter()
        .flatten()
        .flat_map(|i| i.matched_css_rules.iter().map(|r| &r.rule));
    let pseudo = m
        .pseudo_elements
        .iter()
        .flatten()
        .flat_map(|p| p.matches.iter().map(|r| &r.rule));
    let mut out: Vec<CSSContainerQuery> = Vec::new();
    for rule in own.chain(inherited).chain(pseudo) {
        for q in rule.container_queries.iter().flatten() {
            if !out.iter().any(|o| header(o) == header(q)) {
                out.push(q.clone());
            }
        }
    }
    out
}

/// What asks the browser which element `node_id`'s query `q` is answered by.
pub(super) fn container_params(
    node_id: i64,
    q: &CSSContainerQuery,
) -> dom::GetContainerForNodeParams {
    dom::GetContainerForNodeParams {
        node_id,
        container_name: q.name.clone(),
        physical_axes: q.physical_axes.clone(),
        logical_axes: q.logical_axes.clone(),
        queries_scroll_state: q.queries_scroll_state,
        queries_anchored: q.queries_anchored,
    }
}

/// Puts each container's comment (`container: …`) above its `@container` header.
pub(super) fn annotate(blocks: &mut [Block], comments: &[(String, String)]) {
    for block in blocks {
        for (i, ancestor) in block.ancestors.iter().enumerate() {
            if let Some((_, comment)) = comments.iter().find(|(h, _)| h == ancestor) {
                block.comments.push((i, comment.clone()));
            }
        }
    }
}
