//! The area of one element, for a screenshot of just that element.

use crate::browser::{self, pages, PageId};
use crate::cdp::generated::{dom, page as cdp_page, runtime};
use crate::error::{Error, Fault};
use crate::tools::snapshot::model::no_snapshot_message;
use crate::tools::{Ctx, Done};

/// The element's border box in page coordinates, after scrolling it into view (as a user
/// would see it; lazy content gets its chance to load).
pub(super) fn element_clip(
    cx: &mut Ctx,
    page: PageId,
    uid: String,
    done: Done<cdp_page::Viewport>,
) {
    let Some(p) = cx.browser.pages.get(page) else {
        return done(cx, Err(pages::no_such_page(page)));
    };
    let Some(snap) = cx.snapshots.latest(page) else {
        return done(cx, Err(Error::Invalid(no_snapshot_message(page))));
    };
    let backend = match snap.resolve(&uid) {
        Ok(e) => e.backend_node_id,
        Err(e) => return done(cx, Err(Error::Invalid(e.message(&uid, page)))),
    };
    let session = p.session.clone();
    let scroll = dom::ScrollIntoViewIfNeededParams {
        backend_node_id: Some(backend),
        ..Default::default()
    };
    browser::send(cx, Some(&session.clone()), scroll, move |cx, r| {
        if let Err(e) = r {
            return done(cx, Err(node_error(e, &uid)));
        }
        let model = dom::GetBoxModelParams {
            backend_node_id: Some(backend),
            ..Default::default()
        };
        browser::send(cx, Some(&session.clone()), model, move |cx, r| {
            let model = match r {
                Ok(m) => m.model,
                Err(e) => return done(cx, Err(node_error(e, &uid))),
            };
            match border_box(&model.border) {
                Ok(b) => page_clip(cx, &session, b, done),
                Err(message) => done(cx, Err(Error::Page(message))),
            }
        });
    });
}

/// The clip for a box relative to the viewport: in page coordinates, in whole pixels.
fn page_clip(
    cx: &mut Ctx,
    session: &str,
    (x, y, w, h): (f64, f64, f64, f64),
    done: Done<cdp_page::Viewport>,
) {
    let offset = runtime::EvaluateParams {
        expression: "[visualViewport.pageLeft, visualViewport.pageTop]".into(),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(session), offset, move |cx, r| match r {
        Ok(v) => {
            let o = v.result.value.unwrap_or_default();
            let (left, top) = (o[0].as_f64().unwrap_or(0.0), o[1].as_f64().unwrap_or(0.0));
            done(cx, Ok(round_clip(x + left, y + top, w, h)))
        }
        Err(e) => done(cx, Err(e)),
    });
}

/// The browser's complaint about a node, in the words the reference uses.
fn node_error(e: Error, uid: &str) -> Error {
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
fn border_box(points: &[f64]) -> Result<(f64, f64, f64, f64), String> {
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
fn round_clip(x: f64, y: f64, w: f64, h: f64) -> cdp_page::Viewport {
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
