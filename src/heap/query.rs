//! Objects found by what they are: class name and property name patterns (case-insensitive
//! regular expressions), type, size ranges, detachedness, in the order asked for.

use regex::{Regex, RegexBuilder};

use super::dom::DETACHED;
use super::{names, Snapshot};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueryOrder {
    RetainedSize,
    SelfSize,
    Id,
}

/// What `query_heapsnapshot_objects` asks for.
pub(crate) struct ObjectQuery<'a> {
    pub class_name: Option<&'a str>,
    pub property_name: Option<&'a str>,
    pub node_type: Option<&'a str>,
    pub self_size: (Option<f64>, Option<f64>),
    pub retained: (Option<f64>, Option<f64>),
    pub detached: Option<bool>,
    pub order: QueryOrder,
}

/// A pattern as JavaScript's `new RegExp(p, 'i')` would take it, as far as Rust's regular
/// expressions read it the same way; `None` when it does not compile.
fn pattern(p: Option<&str>) -> Result<Option<Regex>, ()> {
    p.filter(|p| !p.is_empty())
        .map(|p| {
            RegexBuilder::new(p)
                .case_insensitive(true)
                .size_limit(1 << 22)
                .build()
                .map_err(|_| ())
        })
        .transpose()
}

fn within(value: f64, (min, max): (Option<f64>, Option<f64>)) -> bool {
    min.is_none_or(|m| value >= m) && max.is_none_or(|m| value <= m)
}

impl Snapshot {
    /// The matching objects, or `Err` when a pattern is not a regular expression.
    pub(crate) fn query(&self, q: &ObjectQuery) -> Result<Vec<u32>, ()> {
        let g = &self.graph;
        let class = pattern(q.class_name)?;
        let property = pattern(q.property_name)?;
        let wanted_type = q.node_type.filter(|t| !t.is_empty()).map(str::to_lowercase);
        let mut found: Vec<u32> = (0..g.node_count() as u32)
            .filter(|&node| {
                let n = node as usize;
                within(g.self_size(n) as f64, q.self_size)
                    && within(self.retained(n), q.retained)
                    && q.detached
                        .is_none_or(|d| (self.detachedness(n as u32) == DETACHED) == d)
                    && class
                        .as_ref()
                        .is_none_or(|c| c.is_match(&names::name(g, node)))
                    && wanted_type.as_ref().is_none_or(|t| {
                        g.types.node_names[g.node_type[n] as usize].to_lowercase() == *t
                    })
                    && property
                        .as_ref()
                        .is_none_or(|p| g.edges(node).any(|e| p.is_match(&g.edge_name(e))))
            })
            .collect();
        match q.order {
            QueryOrder::RetainedSize => found.sort_by(|&a, &b| {
                self.retained(b as usize)
                    .total_cmp(&self.retained(a as usize))
            }),
            QueryOrder::SelfSize => {
                found.sort_by_key(|&n| std::cmp::Reverse(g.self_size(n as usize)))
            }
            QueryOrder::Id => found.sort_by_key(|&n| g.node_id(n as usize)),
        }
        Ok(found)
    }
}
