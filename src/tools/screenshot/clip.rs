//! The area of one element, for a screenshot of just that element: the element a uid
//! names, its border box, and the clip in page coordinates (the capture's steps are in
//! `capture.rs`).

use crate::browser::{pages, PageId};
use crate::cdp::generated::page as cdp_page;
use crate::error::{Error, Fault};
use crate::tools::ctx::Ctx;
use crate::tools::snapshot::model::no_snapshot_message;

/// The element `uid` names in the page's latest snapshot, as a backend node id.
pub(super) fn element(cx: &Ctx, page: PageId, uid: &str) -> Result<i64, Error> {
    if cx.browser.pages.get(page).is_none() {
        return Err(pages::no_such_page(page));
    }
    let Some(snap) = cx.snapshots.latest(page) else {
        return Err(Error::Invalid(no_snapshot_message(page)));
    };
    match snap.resolve(uid) {
        Ok(e) => Ok(e.backend_node_id),
        Err(e) => Err(Error::Invalid(e.message(uid, page))),
    }
}

/// The browser's complaint about a node, in the words the reference uses.
pub(super) fn node_error(e: Error, uid: &str) -> Error {
    match &e {
        Error::Cdp {
            fault: Fault::NodeNotFound,
            ..
        } => Error::Invalid(format!(
            "Element with uid {uid} no longer exists on the page."
        )),
        Error::Cdp { .. } => Error::Page("Node is either not visible or not an HTMLElement".into()),
        _ => e,
    }
}

/// The bounding box (x, y, width, height) of a quad of four points.
pub(super) fn border_box(points: &[f64]) -> Result<(f64, f64, f64, f64), String> {
    if points.len() != 8 {
        return Err("Node is either not visible or not an HTMLElement".into());
    }
    let xs = [points[0], points[2], points[4], points[6]];
    let ys = [points[1], points[3], points[5], points[7]];
    let min = |v: &[f64; 4]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64; 4]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (x, y) = (min(&xs), min(&ys));
    let (w, h) = (max(&xs) - x, max(&ys) - y);
    if w == 0.0 {
        return Err("Node has 0 width.".into());
    }
    if h == 0.0 {
        return Err("Node has 0 height.".into());
    }
    Ok((x, y, w, h))
}

/// Whole pixels, keeping the far edges where they were.
pub(super) fn round_clip(x: f64, y: f64, w: f64, h: f64) -> cdp_page::Viewport {
    let (rx, ry) = (x.round(), y.round());
    cdp_page::Viewport {
        x: rx,
        y: ry,
        width: (w + x - rx).round(),
        height: (h + y - ry).round(),
        scale: 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn boxes() {
        let quad = [10.0, 20.0, 110.0, 20.0, 110.0, 70.0, 10.0, 70.0];
        assert_eq!(border_box(&quad), Ok((10.0, 20.0, 100.0, 50.0)));
        let flat = [10.0, 20.0, 10.0, 20.0, 10.0, 70.0, 10.0, 70.0];
        assert_eq!(border_box(&flat), Err("Node has 0 width.".into()));
        assert_eq!(
            json!(round_clip(10.4, 20.6, 100.2, 50.0)),
            // The protocol's scale is a double: sent as 1.0.
            json!({"x": 10.0, "y": 21.0, "width": 101.0, "height": 50.0, "scale": 1.0})
        );
    }
}
