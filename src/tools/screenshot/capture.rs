//! One capture, step by step: for an element, scrolled into view and clipped to its border
//! box; then, under `--screenshotMax*`, the page measured to scale the capture down; then the
//! image. `take_screenshot` and `--slim`'s `screenshot` both capture so; [`Capture::next`] is
//! the whole story.

use serde_json::Value;

use super::{bounds, clip, Area, Format};
use crate::browser::{self, Flow, PageId};
use crate::cdp::generated::{dom, page as cdp_page, runtime};
use crate::error::Error;
use crate::tools::ctx::{Ctx, Done};

/// A capture of the page's viewport, whole document or one element; `done` gets the image,
/// base64-encoded as the browser sent it.
pub(super) struct Capture {
    page: PageId,
    session: String,
    area: Area,
    params: cdp_page::CaptureScreenshotParams,
    /// The element's backend node id (an element's capture only).
    element: i64,
    /// The element's border box in the viewport: x, y, width, height.
    border: (f64, f64, f64, f64),
    done: Done<String>,
}

pub(super) enum Step {
    /// The element is scrolled into view (as a user would see it; lazy content gets its
    /// chance to load).
    Scrolled(Result<dom::ScrollIntoViewIfNeededReturns, Error>),
    /// The element's border quad, in the viewport.
    Boxed(Result<Vec<f64>, Error>),
    /// The visual viewport's offset in the page: `[left, top]`.
    Offset(Result<Value, Error>),
    /// The page's scroll offset, viewport, document size and pixel ratio (see
    /// [`bounds::MEASURE`]).
    Measured(Result<Value, Error>),
    /// The browser's answer with the image.
    Captured(Result<cdp_page::CaptureScreenshotReturns, Error>),
}

impl Capture {
    pub(super) fn new(
        page: PageId,
        session: String,
        area: Area,
        format: Format,
        quality: Option<f64>,
        done: Done<String>,
    ) -> Capture {
        let params = cdp_page::CaptureScreenshotParams {
            format: Some(format.cdp()),
            quality: quality.map(|q| q.round() as i64),
            optimize_for_speed: Some(true),
            from_surface: Some(true),
            ..Default::default()
        };
        Capture {
            page,
            session,
            area,
            params,
            element: 0,
            border: (0.0, 0.0, 0.0, 0.0),
            done,
        }
    }

    pub(super) fn start(mut self, cx: &mut Ctx) {
        match &self.area {
            Area::Viewport => {
                self.params.capture_beyond_viewport = Some(false);
                self.bound(cx)
            }
            Area::FullPage => {
                // Without a clip, capturing beyond the viewport takes the whole document.
                self.params.capture_beyond_viewport = Some(true);
                self.bound(cx)
            }
            Area::Element(uid) => match clip::element(cx, self.page, uid) {
                Ok(element) => self.scroll(cx, element),
                Err(e) => (self.done)(cx, Err(e)),
            },
        }
    }
}

impl Flow<Ctx> for Capture {
    type Step = Step;

    fn next(mut self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Scrolled(Ok(_)) => self.measure_box(cx),
            Step::Boxed(Ok(quad)) => match clip::border_box(&quad) {
                Ok(border) => self.find_offset(cx, border),
                Err(message) => (self.done)(cx, Err(Error::Page(message))),
            },
            Step::Offset(Ok(offset)) => {
                let (x, y, w, h) = self.border;
                let (left, top) = (offset[0].as_f64(), offset[1].as_f64());
                let (left, top) = (left.unwrap_or(0.0), top.unwrap_or(0.0));
                self.params.clip = Some(clip::round_clip(x + left, y + top, w, h));
                self.params.capture_beyond_viewport = Some(true);
                self.bound(cx)
            }
            Step::Measured(Ok(measured)) => {
                let full_page = matches!(self.area, Area::FullPage);
                let bounds = &cx.settings.policies.screenshot;
                bounds::fit(&mut self.params, full_page, &measured, bounds);
                self.capture(cx)
            }
            Step::Captured(Ok(shot)) if shot.data.is_empty() => {
                let none = Error::Page("The browser returned no image.".into());
                (self.done)(cx, Err(none))
            }
            Step::Captured(Ok(shot)) => (self.done)(cx, Ok(shot.data)),
            // The browser's complaint about the node, in the reference's words.
            Step::Scrolled(Err(e)) | Step::Boxed(Err(e)) => {
                let uid = match &self.area {
                    Area::Element(uid) => uid.as_str(),
                    _ => "",
                };
                let e = clip::node_error(e, uid);
                (self.done)(cx, Err(e))
            }
            Step::Offset(Err(e)) | Step::Measured(Err(e)) | Step::Captured(Err(e)) => {
                (self.done)(cx, Err(e))
            }
        }
    }
}

impl Capture {
    fn scroll(mut self, cx: &mut Ctx, element: i64) {
        self.element = element;
        let scroll = dom::ScrollIntoViewIfNeededParams {
            backend_node_id: Some(element),
            ..Default::default()
        };
        let session = self.session.clone();
        browser::send(cx, Some(&session), scroll, self.then(Step::Scrolled));
    }

    fn measure_box(self, cx: &mut Ctx) {
        let model = dom::GetBoxModelParams {
            backend_node_id: Some(self.element),
            ..Default::default()
        };
        let session = self.session.clone();
        let boxed = self.then(|r: Result<dom::GetBoxModelReturns, Error>| {
            Step::Boxed(r.map(|b| b.model.border))
        });
        browser::send(cx, Some(&session), model, boxed);
    }

    /// The clip is in page coordinates: the box is the viewport's, so it moves by where the
    /// viewport is.
    fn find_offset(mut self, cx: &mut Ctx, border: (f64, f64, f64, f64)) {
        self.border = border;
        let offset = runtime::EvaluateParams {
            expression: "[visualViewport.pageLeft, visualViewport.pageTop]".into(),
            return_by_value: Some(true),
            ..Default::default()
        };
        let session = self.session.clone();
        browser::send(
            cx,
            Some(&session),
            offset,
            self.then(|r| Step::Offset(r.map(evaluated))),
        );
    }

    /// Measures the page when the `--screenshotMax*` bounds may scale the capture down.
    fn bound(self, cx: &mut Ctx) {
        if !bounds::any(&cx.settings.policies.screenshot) {
            return self.capture(cx);
        }
        let measure = runtime::EvaluateParams {
            expression: bounds::MEASURE.into(),
            return_by_value: Some(true),
            ..Default::default()
        };
        let session = self.session.clone();
        browser::send(
            cx,
            Some(&session),
            measure,
            self.then(|r| Step::Measured(r.map(evaluated))),
        );
    }

    fn capture(mut self, cx: &mut Ctx) {
        let params = std::mem::take(&mut self.params);
        let session = self.session.clone();
        browser::send(cx, Some(&session), params, self.then(Step::Captured));
    }
}

/// An evaluation's value (`null` when it has none).
fn evaluated(r: runtime::EvaluateReturns) -> Value {
    r.result.value.unwrap_or_default()
}
