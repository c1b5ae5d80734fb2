//! Aiming at an element: scroll it into view, find the centre of its visible box, and make
//! sure a real pointer there would reach it (not hidden, not disabled, not covered by
//! something else). Failures say which of those it was, in the reference's error frame
//! "Failed to interact with the element with uid X. <reason>".

use serde_json::json;

use crate::browser;
use crate::cdp::generated::{dom, page, runtime};
use crate::error::{Error, Fault};
use crate::tools::{Ctx, Done};

/// An element of the page, by its snapshot uid and its remote object.
#[derive(Clone, Debug)]
pub struct Element {
    pub uid: String,
    pub object_id: String,
    /// The session its object lives in: the page's, or an out-of-process iframe's.
    pub session: String,
}

/// The error for an element that cannot be acted on.
pub fn failed(uid: &str, reason: impl std::fmt::Display) -> Error {
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
pub fn aim(cx: &mut Ctx, element: &Element, hit_test: bool, done: Done<(f64, f64)>) {
    let el = element.clone();
    let (uid, frame_session) = (element.uid.clone(), element.session.clone());
    // Where the element is in its own frame's viewport, then where that frame is.
    let in_frame: Done<(f64, f64)> = Box::new(move |cx, r| {
        let (x, y) = match r {
            Ok(p) => p,
            Err(e) => return done(cx, Err(e)),
        };
        let moved: Done<(f64, f64)> = Box::new(move |cx, r| match r {
            Ok((dx, dy)) => done(cx, Ok((x + dx, y + dy))),
            Err(e) => done(cx, Err(failed(&uid, e))),
        });
        browser::frames::offset(cx, &frame_session, moved);
    });
    let params = dom::ScrollIntoViewIfNeededParams {
        object_id: Some(element.object_id.clone()),
        ..Default::default()
    };
    let s = element.session.clone();
    browser::send(cx, Some(&element.session), params, move |cx, r| {
        if let Err(e) = r {
            return in_frame(cx, Err(node_error(&el.uid, e)));
        }
        quads(cx, s, el, hit_test, in_frame);
    });
}

fn quads(cx: &mut Ctx, session: String, el: Element, hit_test: bool, done: Done<(f64, f64)>) {
    if browser::frames::is_frame(cx, &session) {
        return frame_quads(cx, session, el, hit_test, done);
    }
    // Both asked at once; the page answers in order, so the second answer finds the first.
    let quads = std::rc::Rc::new(std::cell::RefCell::new(None));
    let q = quads.clone();
    let params = dom::GetContentQuadsParams {
        object_id: Some(el.object_id.clone()),
        ..Default::default()
    };
    browser::send(cx, Some(&session), params, move |_, r| {
        *q.borrow_mut() = Some(r)
    });
    let metrics = page::GetLayoutMetricsParams {};
    browser::send(cx, Some(&session.clone()), metrics, move |cx, r| {
        let quads = match quads.borrow_mut().take() {
            Some(Ok(v)) => v.quads,
            Some(Err(e)) => return done(cx, Err(node_error(&el.uid, e))),
            None => return done(cx, Err(failed(&el.uid, "The page did not answer."))),
        };
        let viewport = match r {
            Ok(m) => m.css_layout_viewport,
            Err(e) => return done(cx, Err(e)),
        };
        let size = (
            extent(viewport.client_width),
            extent(viewport.client_height),
        );
        place(cx, session, el, hit_test, (quads, size), done);
    });
}

/// The element's boxes and its frame's viewport, read by the frame's own script: in the
/// frame's CSS pixels, the coordinates the hit test and the frame offsets use too.
const FRAME_QUADS: &str = "function() {
  const quads = Array.from(this.getClientRects(), r => [r.left, r.top, r.right, r.top, r.right, r.bottom, r.left, r.bottom]);
  const root = document.documentElement;
  return {quads, width: root.clientWidth, height: root.clientHeight};
}";

fn frame_quads(cx: &mut Ctx, session: String, el: Element, hit_test: bool, done: Done<(f64, f64)>) {
    let params = runtime::CallFunctionOnParams {
        function_declaration: FRAME_QUADS.to_owned(),
        object_id: Some(el.object_id.clone()),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(&session.clone()), params, move |cx, r| {
        let value = match r {
            Ok(a) => a.result.value.unwrap_or_default(),
            Err(e) => return done(cx, Err(node_error(&el.uid, e))),
        };
        let quads: Vec<dom::Quad> =
            serde_json::from_value(value["quads"].clone()).unwrap_or_default();
        let side = |v: &serde_json::Value| extent(v.as_f64().unwrap_or(0.0) as i64);
        let size = (side(&value["width"]), side(&value["height"]));
        place(cx, session, el, hit_test, (quads, size), done);
    });
}

/// The centre of the element's visible box in its frame's viewport (`size`), checked by a
/// hit test when asked.
fn place(
    cx: &mut Ctx,
    session: String,
    el: Element,
    hit_test: bool,
    (quads, (width, height)): (Vec<dom::Quad>, (f64, f64)),
    done: Done<(f64, f64)>,
) {
    let Some((x, y)) = centre(&quads, width, height) else {
        let reason = if has_area(&quads) {
            "The element is outside the visible part of the page and could not be scrolled into view."
        } else {
            "The element is hidden: it has no visible size on the page."
        };
        return done(cx, Err(failed(&el.uid, reason)));
    };
    if hit_test {
        let corner = top_left(&quads).unwrap_or((x, y));
        check_hit(cx, session, el, (x, y), corner, done);
    } else {
        done(cx, Ok((x, y)))
    }
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

fn check_hit(
    cx: &mut Ctx,
    session: String,
    el: Element,
    (x, y): (f64, f64),
    (qx, qy): (f64, f64),
    done: Done<(f64, f64)>,
) {
    let arguments = [x, y, qx, qy].map(|v| argument(json!(v))).to_vec();
    let params = runtime::CallFunctionOnParams {
        function_declaration: HIT_TEST.to_owned(),
        object_id: Some(el.object_id.clone()),
        arguments: Some(arguments),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(&session), params, move |cx, r| {
        let result = match r {
            Ok(r) => r.result.value.unwrap_or_default(),
            Err(e) => return done(cx, Err(node_error(&el.uid, e))),
        };
        let (rx, ry) = (x.round(), y.round());
        let reason = match result["problem"].as_str() {
            None if result["ok"] == true => return done(cx, Ok((x, y))),
            None => "The page could not check the element.".to_owned(),
            Some("gone") => return done(cx, Err(gone(&el.uid))),
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
        done(cx, Err(failed(&el.uid, reason)))
    });
}

/// A value handed to a function run in the page.
pub fn argument(value: serde_json::Value) -> runtime::CallArgument {
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
