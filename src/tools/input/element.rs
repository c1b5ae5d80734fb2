//! The elements an input acts on: resolved from the uids of the page's latest snapshot, and
//! aimed at: scrolled into view, the centre of the visible box found, and checked that a
//! real pointer there would reach it (not hidden, not disabled, not covered by something
//! else). Failures say which of those it was, in the reference's error frame
//! "Failed to interact with the element with uid X. <reason>".

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{json, Value};

use crate::browser::{self, Flow, PageId};
use crate::cdp::generated::{dom, page, runtime};
use crate::error::{Error, Fault};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::snapshot;

/// An element of the page, by its snapshot uid and its remote object.
#[derive(Clone, Debug)]
pub(super) struct Element {
    pub uid: String,
    /// The accessibility role the snapshot gave it when it was resolved.
    pub role: String,
    pub object_id: String,
    /// The session its object lives in: the page's, or an out-of-process iframe's.
    pub session: String,
}

/// Resolves uids of the page's latest snapshot to elements, in order.
pub(super) fn resolve(cx: &mut Ctx, page: PageId, uids: Vec<String>, done: Done<Vec<Element>>) {
    let snap = cx.snapshots.latest(page);
    let role = |uid: &String| {
        snap.and_then(|s| s.resolve(uid).ok())
            .map(|e| e.role.to_owned())
    };
    let roles: Vec<String> = uids
        .iter()
        .map(|uid| role(uid).unwrap_or_default())
        .collect();
    let wanted = uids.clone();
    let resolved: Done<Vec<snapshot::Resolved>> = Box::new(move |cx, r| {
        let elements = r.map(|objects| {
            let each = wanted.into_iter().zip(roles).zip(objects);
            each.map(|((uid, role), o)| Element {
                uid,
                role,
                object_id: o.object_id,
                session: o.session,
            })
            .collect()
        });
        done(cx, elements)
    });
    snapshot::resolve_elements(cx, page, uids, resolved);
}

/// The error for an element that cannot be acted on.
pub(super) fn failed(uid: &str, reason: impl std::fmt::Display) -> Error {
    Error::Page(format!(
        "Failed to interact with the element with uid {uid}. {reason}"
    ))
}

fn gone(uid: &str) -> Error {
    Error::Invalid(format!(
        "Element with uid {uid} no longer exists on the page."
    ))
}

/// Reads a CDP error about a node in the element's terms.
fn node_error(uid: &str, e: Error) -> Error {
    let Error::Cdp { message, fault, .. } = e else {
        return e;
    };
    match fault {
        Fault::NoLayout => failed(
            uid,
            "The element is not displayed (it has no box on the page, e.g. display: none).",
        ),
        Fault::NodeNotFound | Fault::ObjectNotFound | Fault::Detached => gone(uid),
        _ => failed(uid, message),
    }
}

/// Scrolls the element into view and gives the page's viewport point at the centre of its
/// visible box. With `hit_test`, also checks that a click there reaches the element. An
/// element of an out-of-process iframe is aimed at in its frame, then moved by where the
/// frame sits in the page.
pub(super) fn aim(cx: &mut Ctx, element: &Element, hit_test: bool, done: Done<(f64, f64)>) {
    let aim = Aim {
        el: element.clone(),
        hit_test,
        quads: Rc::default(),
        point: (0.0, 0.0),
        done,
    };
    aim.scroll(cx);
}

/// Aiming at one element (see [`aim`]).
struct Aim {
    el: Element,
    hit_test: bool,
    /// The element's boxes, when they are asked for with the page's viewport (see
    /// [`Aim::boxes`]).
    quads: Rc<RefCell<Option<Result<dom::GetContentQuadsReturns, Error>>>>,
    /// The centre of the element's visible box in its own frame's viewport.
    point: (f64, f64),
    done: Done<(f64, f64)>,
}

enum AimStep {
    /// The element was scrolled into view.
    Scrolled(Result<dom::ScrollIntoViewIfNeededReturns, Error>),
    /// The page's viewport (an element of the page's own: its boxes came just before).
    Viewport(Result<page::GetLayoutMetricsReturns, Error>),
    /// The element's boxes and its frame's viewport (an element of a frame).
    FrameBoxes(Result<Value, Error>),
    /// What a pointer at the centre would reach.
    Hit(Result<Value, Error>),
    /// Where the element's frame sits in the page.
    Offset(Result<(f64, f64), Error>),
}

impl Flow<Ctx> for Aim {
    type Step = AimStep;

    fn next(self, cx: &mut Ctx, step: AimStep) {
        let uid = self.el.uid.clone();
        match step {
            AimStep::Scrolled(Ok(_)) => self.boxes(cx),
            AimStep::Viewport(metrics) => self.page_boxes(cx, metrics),
            AimStep::FrameBoxes(Ok(value)) => self.frame_boxes(cx, value),
            AimStep::Hit(Ok(value)) => self.hit(cx, value),
            AimStep::Offset(Ok((dx, dy))) => {
                let (x, y) = self.point;
                (self.done)(cx, Ok((x + dx, y + dy)))
            }
            AimStep::Scrolled(Err(e)) | AimStep::FrameBoxes(Err(e)) | AimStep::Hit(Err(e)) => {
                (self.done)(cx, Err(node_error(&uid, e)))
            }
            AimStep::Offset(Err(e)) => (self.done)(cx, Err(failed(&uid, e))),
        }
    }
}

impl Aim {
    fn scroll(self, cx: &mut Ctx) {
        let params = dom::ScrollIntoViewIfNeededParams {
            object_id: Some(self.el.object_id.clone()),
            ..Default::default()
        };
        let session = self.el.session.clone();
        browser::send(cx, Some(&session), params, self.then(AimStep::Scrolled));
    }

    /// Asks for the element's boxes and its frame's viewport: a frame's own script reads
    /// both; for the page's, both are asked at once, and the page answers in order, so the
    /// viewport's answer finds the boxes'.
    fn boxes(self, cx: &mut Ctx) {
        let session = self.el.session.clone();
        if browser::frames::is_frame(cx, &session) {
            let params = runtime::CallFunctionOnParams {
                function_declaration: FRAME_QUADS.to_owned(),
                object_id: Some(self.el.object_id.clone()),
                return_by_value: Some(true),
                ..Default::default()
            };
            browser::send(
                cx,
                Some(&session),
                params,
                self.then(|r| AimStep::FrameBoxes(r.map(value))),
            );
            return;
        }
        let quads = self.quads.clone();
        let params = dom::GetContentQuadsParams {
            object_id: Some(self.el.object_id.clone()),
            ..Default::default()
        };
        browser::send(cx, Some(&session), params, move |_, r| {
            *quads.borrow_mut() = Some(r)
        });
        let metrics = page::GetLayoutMetricsParams {};
        browser::send(cx, Some(&session), metrics, self.then(AimStep::Viewport));
    }

    /// The boxes' answer is read first: a node's error says more than the viewport's.
    fn page_boxes(self, cx: &mut Ctx, metrics: Result<page::GetLayoutMetricsReturns, Error>) {
        let quads = self.quads.borrow_mut().take();
        let quads = match quads {
            Some(Ok(v)) => v.quads,
            Some(Err(e)) => return (self.done)(cx, Err(node_error(&self.el.uid, e))),
            None => return (self.done)(cx, Err(failed(&self.el.uid, "The page did not answer."))),
        };
        let viewport = match metrics {
            Ok(m) => m.css_layout_viewport,
            Err(e) => return (self.done)(cx, Err(e)),
        };
        let size = (
            extent(viewport.client_width),
            extent(viewport.client_height),
        );
        self.place(cx, quads, size);
    }

    fn frame_boxes(self, cx: &mut Ctx, value: Value) {
        let quads: Vec<dom::Quad> =
            serde_json::from_value(value["quads"].clone()).unwrap_or_default();
        let side = |v: &Value| extent(v.as_f64().unwrap_or(0.0) as i64);
        let size = (side(&value["width"]), side(&value["height"]));
        self.place(cx, quads, size);
    }

    /// The centre of the element's visible box in its frame's viewport (`size`), checked by
    /// a hit test when asked.
    fn place(mut self, cx: &mut Ctx, quads: Vec<dom::Quad>, (width, height): (f64, f64)) {
        let Some((x, y)) = centre(&quads, width, height) else {
            let reason = if has_area(&quads) {
                "The element is outside the visible part of the page and could not be scrolled into view."
            } else {
                "The element is hidden: it has no visible size on the page."
            };
            return (self.done)(cx, Err(failed(&self.el.uid, reason)));
        };
        self.point = (x, y);
        if !self.hit_test {
            return self.offset(cx);
        }
        let (qx, qy) = top_left(&quads).unwrap_or((x, y));
        let arguments = [x, y, qx, qy].map(|v| argument(json!(v))).to_vec();
        let params = runtime::CallFunctionOnParams {
            function_declaration: HIT_TEST.to_owned(),
            object_id: Some(self.el.object_id.clone()),
            arguments: Some(arguments),
            return_by_value: Some(true),
            ..Default::default()
        };
        let session = self.el.session.clone();
        browser::send(
            cx,
            Some(&session),
            params,
            self.then(|r| AimStep::Hit(r.map(value))),
        );
    }

    /// The hit test's verdict: the element, or what keeps a pointer from reaching it.
    fn hit(self, cx: &mut Ctx, result: Value) {
        let uid = &self.el.uid;
        let (x, y) = self.point;
        let (rx, ry) = (x.round(), y.round());
        let reason = match result["problem"].as_str() {
            None if result["ok"] == true => return self.offset(cx),
            None => "The page could not check the element.".to_owned(),
            Some("gone") => return (self.done)(cx, Err(gone(uid))),
            Some("disabled") => "The element is disabled.".to_owned(),
            Some("invisible") => {
                "The element is hidden (visibility: hidden or a hidden ancestor).".to_owned()
            }
            Some("nothing") => {
                format!("Nothing on the page is at the element's centre ({rx}, {ry}).")
            }
            Some(_) => format!(
                "The element is covered by another element at its centre ({rx}, {ry}): {}. \
Close or move what covers it first.",
                result["by"].as_str().unwrap_or("unknown")
            ),
        };
        let e = failed(uid, reason);
        (self.done)(cx, Err(e))
    }

    /// Where the element's frame sits in the page, to move the point into the page's
    /// viewport.
    fn offset(self, cx: &mut Ctx) {
        let session = self.el.session.clone();
        browser::frames::offset(cx, &session, self.then(AimStep::Offset));
    }
}

/// The element's boxes and its frame's viewport, read by the frame's own script: in the
/// frame's CSS pixels, the coordinates the hit test and the frame offsets use too.
const FRAME_QUADS: &str = "function() {
  const quads = Array.from(this.getClientRects(), r => [r.left, r.top, r.right, r.top, r.right, r.bottom, r.left, r.bottom]);
  const root = document.documentElement;
  return {quads, width: root.clientWidth, height: root.clientHeight};
}";

/// The value a function run in the page answered (null when none).
fn value(answer: runtime::CallFunctionOnReturns) -> Value {
    answer.result.value.unwrap_or_default()
}

/// A viewport side; an answer that leaves it out (it reads as 0) clips nothing.
fn extent(css_pixels: i64) -> f64 {
    if css_pixels > 0 {
        css_pixels as f64
    } else {
        f64::MAX
    }
}

fn area(points: &[(f64, f64)]) -> f64 {
    let mut sum = 0.0;
    for i in 0..points.len() {
        let (x1, y1) = points[i];
        let (x2, y2) = points[(i + 1) % points.len()];
        sum += x1 * y2 - x2 * y1;
    }
    (sum / 2.0).abs()
}

fn points(quad: &dom::Quad) -> Option<Vec<(f64, f64)>> {
    (quad.len() == 8).then(|| quad.chunks(2).map(|c| (c[0], c[1])).collect())
}

fn has_area(quads: &[dom::Quad]) -> bool {
    quads.iter().filter_map(points).any(|p| area(&p) > 1.0)
}

/// The centre of the first quad that keeps some area once clipped to the viewport.
fn centre(quads: &[dom::Quad], width: f64, height: f64) -> Option<(f64, f64)> {
    for quad in quads {
        let Some(p) = points(quad) else { continue };
        let clipped: Vec<(f64, f64)> = p
            .iter()
            .map(|&(x, y)| (x.clamp(0.0, width), y.clamp(0.0, height)))
            .collect();
        if area(&clipped) > 1.0 {
            let n = clipped.len() as f64;
            let x = clipped.iter().map(|p| p.0).sum::<f64>() / n;
            let y = clipped.iter().map(|p| p.1).sum::<f64>() / n;
            return Some((x, y));
        }
    }
    None
}

/// Asks the page what a pointer at (x, y) would reach. Runs on the element (`this`); a text
/// node stands for its parent element. The point is in the top document's viewport, and
/// (qx, qy) is the top left of the element's boxes there; the point is moved into the
/// element's own frame by where the element is in it, which needs no access to the frames
/// in between (a cross-origin frame's `frameElement` is null). Shadow roots are entered, and
/// a label whose control is the element counts as the element (the usual styled checkbox).
const HIT_TEST: &str = r#"function(x, y, qx, qy) {
  const el = this.nodeType === Node.ELEMENT_NODE ? this : this.parentElement;
  if (!el || !el.isConnected) return {problem: 'gone'};
  if (el.matches(':disabled')) return {problem: 'disabled'};
  if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true})) return {problem: 'invisible'};
  const doc = el.ownerDocument;
  const own = this.nodeType === Node.ELEMENT_NODE ? this.getBoundingClientRect() : el.getBoundingClientRect();
  x += own.left - qx;
  y += own.top - qy;
  let hit = doc.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit) return {problem: 'nothing'};
  for (let n = hit; n; n = n.parentNode || (n instanceof ShadowRoot ? n.host : null)) {
    if (n === el) return {ok: true};
  }
  const label = hit.closest && hit.closest('label');
  if (label && label.control === el) return {ok: true};
  let text = '<' + hit.localName;
  if (hit.id) text += ' id="' + hit.id + '"';
  const cls = typeof hit.className === 'string' ? hit.className.trim() : '';
  if (cls) text += ' class="' + cls.slice(0, 80) + '"';
  text += '>';
  const words = (hit.innerText || hit.textContent || '').trim().replace(/\s+/g, ' ');
  if (words) text += ' "' + words.slice(0, 60) + (words.length > 60 ? '…' : '') + '"';
  return {problem: 'covered', by: text};
}"#;

/// The top left corner of the boxes' union.
fn top_left(quads: &[dom::Quad]) -> Option<(f64, f64)> {
    let points: Vec<(f64, f64)> = quads.iter().filter_map(points).flatten().collect();
    let x = points.iter().map(|p| p.0).reduce(f64::min)?;
    let y = points.iter().map(|p| p.1).reduce(f64::min)?;
    Some((x, y))
}

/// A value handed to a function run in the page.
pub(super) fn argument(value: serde_json::Value) -> runtime::CallArgument {
    runtime::CallArgument {
        value: Some(value),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_of_a_visible_quad() {
        let quads = vec![vec![10.0, 10.0, 30.0, 10.0, 30.0, 20.0, 10.0, 20.0]];
        assert_eq!(centre(&quads, 800.0, 600.0), Some((20.0, 15.0)));
    }

    #[test]
    fn clipped_to_the_viewport() {
        let quads = vec![vec![-100.0, 0.0, 100.0, 0.0, 100.0, 50.0, -100.0, 50.0]];
        assert_eq!(centre(&quads, 800.0, 600.0), Some((50.0, 25.0)));
    }

    #[test]
    fn zero_size_is_no_point() {
        let quads = vec![vec![10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0]];
        assert_eq!(centre(&quads, 800.0, 600.0), None);
        assert!(!has_area(&quads));
        assert_eq!(centre(&[], 800.0, 600.0), None);
    }
}
