//! `--screenshotMaxWidth` / `--screenshotMaxHeight`: a capture larger than the bounds is
//! taken scaled down by the browser (the clip's `scale`), keeping its aspect ratio; the
//! smaller of the two factors wins, as in the reference.

use serde_json::Value;

use crate::cdp::generated::page as cdp_page;
use crate::settings::ScreenshotDefaults;

/// The page's scroll offset, viewport, document size and device pixel ratio.
pub(super) const MEASURE: &str = "({x: scrollX, y: scrollY, w: innerWidth, h: innerHeight, \
sw: Math.max(document.documentElement.scrollWidth, document.body ? document.body.scrollWidth : 0), \
sh: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0), \
dpr: devicePixelRatio})";

/// Whether the flags bound captures at all (else nothing is measured).
pub(super) fn any(bounds: &ScreenshotDefaults) -> bool {
    bounds.max_width.is_some() || bounds.max_height.is_some()
}

/// The factor that fits `w`×`h` CSS pixels at `dpr` into the bounds, or `None` when it fits
/// already (or would shrink to nothing).
fn scale(w: f64, h: f64, dpr: f64, bounds: &ScreenshotDefaults) -> Option<f64> {
    let factor =
        |max: Option<u32>, size: f64| max.map_or(1.0, |m| (f64::from(m) / (size * dpr)).min(1.0));
    let s = factor(bounds.max_width, w).min(factor(bounds.max_height, h));
    let visible = (w * dpr * s).round() >= 1.0 && (h * dpr * s).round() >= 1.0;
    (s.is_finite() && s < 1.0 && visible).then_some(s)
}

/// Sets a scaled clip on `params` when the capture exceeds the bounds, from the page as
/// [`MEASURE`] found it (`m`). The area is the element clip already set, else the whole
/// document (`full_page`) or the viewport where it is scrolled to.
pub(super) fn fit(
    params: &mut cdp_page::CaptureScreenshotParams,
    full_page: bool,
    m: &Value,
    bounds: &ScreenshotDefaults,
) {
    let num = |k: &str| m[k].as_f64().filter(|n| n.is_finite() && *n >= 0.0);
    let dpr = num("dpr").filter(|d| *d > 0.0).unwrap_or(1.0);
    let area = match (&params.clip, full_page) {
        (Some(clip), _) => Some((clip.x, clip.y, clip.width, clip.height)),
        (None, true) => num("sw").zip(num("sh")).map(|(w, h)| (0.0, 0.0, w, h)),
        (None, false) => match (num("x"), num("y"), num("w"), num("h")) {
            (Some(x), Some(y), Some(w), Some(h)) => Some((x, y, w, h)),
            _ => None,
        },
    };
    let Some((x, y, width, height)) = area else {
        return;
    };
    if let Some(scale) = scale(width, height, dpr, bounds) {
        params.clip = Some(cdp_page::Viewport {
            x,
            y,
            width,
            height,
            scale,
        });
        params.capture_beyond_viewport = Some(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smaller_factor_wins() {
        let bounds = |w, h| ScreenshotDefaults {
            max_width: w,
            max_height: h,
            ..Default::default()
        };
        assert_eq!(
            scale(800.0, 600.0, 1.0, &bounds(Some(400), None)),
            Some(0.5)
        );
        assert_eq!(
            scale(800.0, 600.0, 2.0, &bounds(Some(400), None)),
            Some(0.25)
        );
        assert_eq!(
            scale(800.0, 600.0, 1.0, &bounds(Some(400), Some(150))),
            Some(0.25)
        );
        assert_eq!(scale(800.0, 600.0, 1.0, &bounds(Some(1000), None)), None);
        assert_eq!(scale(8000.0, 1.0, 1.0, &bounds(Some(1), None)), None);
    }
}
