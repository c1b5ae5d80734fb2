//! What CLSCulprits needs beyond the shifts' scores: the elements each shift moved and the
//! events DevTools reads root causes from (pre-paints, image paints, unsized images).
//! Kept as small records while the trace streams.

use std::collections::HashMap;

use serde::Deserialize;

use super::event::At;

#[derive(Deserialize)]
struct Args<T> {
    data: Option<T>,
}

#[derive(Deserialize, Default)]
struct ShiftData {
    #[serde(default)]
    impacted_nodes: Vec<Impacted>,
}

#[derive(Deserialize, Default)]
struct Impacted {
    #[serde(default)]
    debug_name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ImageData {
    #[serde(default)]
    node_id: Option<i64>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    node_name: Option<String>,
}

/// A `PaintImage` complete event.
#[derive(Clone, Debug)]
pub(super) struct PaintImage {
    pub(super) ts: f64,
    pub(super) node_id: Option<i64>,
    pub(super) url: Option<String>,
    pub(super) node_name: Option<String>,
}

/// A complete event's span, µs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Span {
    pub(super) ts: f64,
    pub(super) dur: f64,
}

#[derive(Clone, Debug, Default)]
pub(super) struct ShiftDetails {
    /// The impacted nodes' debug names, by the shift's position in the events array.
    pub(super) impacted: HashMap<u64, Vec<String>>,
    pub(super) pre_paints: Vec<Span>,
    pub(super) paint_images: Vec<PaintImage>,
    /// `LayoutImageUnsized`: (time, node id).
    pub(super) unsized_images: Vec<(f64, i64)>,
}

impl ShiftDetails {
    /// Takes an event the root causes read; false when its args are malformed.
    pub(super) fn take(
        &mut self,
        name: &str,
        ph: &str,
        at: At,
        dur: Option<f64>,
        args: &str,
    ) -> bool {
        match name {
            "PrePaint" => self.pre_paints.push(Span {
                ts: at.ts,
                dur: dur.unwrap_or(0.0),
            }),
            "PaintImage" if ph == "X" => {
                let Ok(parsed) = serde_json::from_str::<Args<ImageData>>(args) else {
                    return false;
                };
                let data = parsed.data.unwrap_or_default();
                self.paint_images.push(PaintImage {
                    ts: at.ts,
                    node_id: data.node_id,
                    url: data.url.filter(|u| !u.is_empty()),
                    node_name: data.node_name,
                });
            }
            "LayoutImageUnsized" => {
                let Ok(parsed) = serde_json::from_str::<Args<ImageData>>(args) else {
                    return false;
                };
                if let Some(node) = parsed.data.and_then(|d| d.node_id) {
                    self.unsized_images.push((at.ts, node));
                }
            }
            _ => {}
        }
        true
    }

    /// Notes the impacted elements of a shift that counts (no recent input).
    pub(super) fn shift(&mut self, at: At, args: &str) {
        let Ok(parsed) = serde_json::from_str::<Args<ShiftData>>(args) else {
            return;
        };
        let names: Vec<String> = parsed
            .data
            .unwrap_or_default()
            .impacted_nodes
            .into_iter()
            .filter_map(|n| n.debug_name)
            .collect();
        if !names.is_empty() {
            self.impacted.insert(at.index, names);
        }
    }

    /// Sorts what arrived out of order (DevTools reads them sorted by time).
    pub(super) fn finish(&mut self) {
        self.pre_paints.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        self.paint_images.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        self.unsized_images.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
}
