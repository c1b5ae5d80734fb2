//! What is emulated on a page, and how answers about the page say so. `Ctx` keeps a
//! [`State`] per page and every answer prints it, so this module reads nothing of the calls.

use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::browser::navigation;
use crate::numbers::js_number;

/// An emulated viewport, as `emulate` was given it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Viewport {
    pub width: f64,
    pub height: f64,
    /// Absent when the argument gave none (the browser then uses 1).
    pub device_scale_factor: Option<f64>,
    pub mobile: bool,
    pub touch: bool,
    pub landscape: bool,
}

/// What is emulated on a page (kept across navigations, shown in answers).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct State {
    /// A preset name ("Slow 3G", …, or "Offline").
    pub network: Option<String>,
    pub cpu_rate: Option<f64>,
    /// Latitude, longitude.
    pub geolocation: Option<(f64, f64)>,
    pub user_agent: Option<String>,
    pub color_scheme: Option<String>,
    pub forced_colors: Option<String>,
    pub prefers_contrast: Option<String>,
    pub prefers_reduced_motion: Option<String>,
    pub viewport: Option<Viewport>,
    /// The extra headers as given (names as written).
    pub extra_headers: Option<Map<String, Value>>,
}

/// The "Emulating …" lines every answer about the page carries while something is emulated,
/// in the reference's order and wording.
pub(crate) fn lines(state: &State) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(net) = &state.network {
        out.push(format!("Emulating network conditions: {net}"));
        out.push(format!(
            "Default navigation timeout set to {} ms",
            js_number(navigation_timeout_ms(state))
        ));
    }
    if let Some((lat, lon)) = state.geolocation {
        out.push(format!(
            "Emulating geolocation: latitude={}, longitude={}",
            js_number(lat),
            js_number(lon)
        ));
    }
    if let Some(v) = &state.viewport {
        out.push(format!("Emulating viewport: {}", viewport_json(v)));
    }
    if let Some(ua) = &state.user_agent {
        out.push(format!("Emulating user agent: {ua}"));
    }
    let rate = state.cpu_rate.unwrap_or(1.0);
    if rate > 1.0 {
        out.push(format!(
            "Emulating CPU throttling: {}x slowdown",
            js_number(rate)
        ));
    }
    for (label, value) in media_labels(state) {
        if let Some(v) = value {
            out.push(format!("Emulating {label}: {v}"));
        }
    }
    out
}

/// The same facts for `structuredContent`.
pub(crate) fn structured(state: &State, out: &mut Map<String, Value>) {
    if let Some(net) = &state.network {
        out.insert("networkConditions".into(), json!(net));
        out.insert(
            "navigationTimeout".into(),
            number_value(navigation_timeout_ms(state)),
        );
    }
    if let Some((lat, lon)) = state.geolocation {
        out.insert(
            "geolocation".into(),
            json!({"latitude": number_value(lat), "longitude": number_value(lon)}),
        );
    }
    if let Some(v) = &state.viewport {
        out.insert("viewport".into(), viewport_value(v));
    }
    if let Some(ua) = &state.user_agent {
        out.insert("userAgent".into(), json!(ua));
    }
    if let Some(rate) = state.cpu_rate.filter(|r| *r > 1.0) {
        out.insert("cpuThrottlingRate".into(), number_value(rate));
    }
    let keys = [
        "colorScheme",
        "forcedColors",
        "prefersContrast",
        "prefersReducedMotion",
    ];
    for (key, (_, value)) in keys.iter().zip(media_labels(state)) {
        if let Some(v) = value {
            out.insert((*key).into(), json!(v));
        }
    }
}

fn viewport_value(v: &Viewport) -> Value {
    let mut m = Map::new();
    if let Some(d) = v.device_scale_factor {
        m.insert("deviceScaleFactor".into(), number_value(d));
    }
    m.insert("isMobile".into(), json!(v.mobile));
    m.insert("hasTouch".into(), json!(v.touch));
    m.insert("isLandscape".into(), json!(v.landscape));
    m.insert("width".into(), number_value(v.width));
    m.insert("height".into(), number_value(v.height));
    Value::Object(m)
}

fn media_labels(state: &State) -> [(&'static str, Option<&String>); 4] {
    [
        ("color scheme", state.color_scheme.as_ref()),
        ("forced-colors", state.forced_colors.as_ref()),
        ("prefers-contrast", state.prefers_contrast.as_ref()),
        (
            "prefers-reduced-motion",
            state.prefers_reduced_motion.as_ref(),
        ),
    ]
}

/// How long a navigation of this page may take: the default, stretched by the network and
/// CPU throttling in effect (a throttled page legitimately loads slower).
pub(super) fn navigation_timeout(state: &State) -> Duration {
    Duration::from_millis(navigation_timeout_ms(state).round() as u64)
}

fn navigation_timeout_ms(state: &State) -> f64 {
    // Multiplied in this order so the printed figure matches the reference's to the last digit.
    navigation::DEFAULT_TIMEOUT.as_millis() as f64
        * network_multiplier(state.network.as_deref())
        * state.cpu_rate.unwrap_or(1.0)
}

fn network_multiplier(preset: Option<&str>) -> f64 {
    match preset {
        Some("Slow 4G") => 2.5,
        Some("Fast 3G") => 5.0,
        Some("Slow 3G") => 10.0,
        _ => 1.0,
    }
}

/// The viewport as the reference prints it: JSON with its keys in the reference's order and
/// without a device scale factor that was not given.
pub(super) fn viewport_json(v: &Viewport) -> String {
    let mut parts = Vec::new();
    if let Some(d) = v.device_scale_factor {
        parts.push(format!("\"deviceScaleFactor\":{}", js_number(d)));
    }
    parts.push(format!("\"isMobile\":{}", v.mobile));
    parts.push(format!("\"hasTouch\":{}", v.touch));
    parts.push(format!("\"isLandscape\":{}", v.landscape));
    parts.push(format!("\"width\":{}", js_number(v.width)));
    parts.push(format!("\"height\":{}", js_number(v.height)));
    format!("{{{}}}", parts.join(","))
}

/// A number for JSON output: integers without a fraction, as JavaScript writes them.
fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

#[cfg(test)]
mod tests {
    use super::super::args::parse_viewport;
    use super::*;

    #[test]
    fn lines_follow_the_reference() {
        let state = State {
            network: Some("Slow 3G".into()),
            cpu_rate: Some(2.5),
            geolocation: Some((12.5, -3.0)),
            user_agent: Some("MyUA/1".into()),
            color_scheme: Some("light".into()),
            forced_colors: Some("active".into()),
            prefers_contrast: Some("more".into()),
            prefers_reduced_motion: Some("reduce".into()),
            viewport: parse_viewport("400x800x2,mobile,touch").unwrap(),
            extra_headers: None,
        };
        assert_eq!(
            lines(&state).join("\n"),
            "Emulating network conditions: Slow 3G
Default navigation timeout set to 250000 ms
Emulating geolocation: latitude=12.5, longitude=-3
Emulating viewport: {\"deviceScaleFactor\":2,\"isMobile\":true,\"hasTouch\":true,\"isLandscape\":false,\"width\":400,\"height\":800}
Emulating user agent: MyUA/1
Emulating CPU throttling: 2.5x slowdown
Emulating color scheme: light
Emulating forced-colors: active
Emulating prefers-contrast: more
Emulating prefers-reduced-motion: reduce"
        );
        assert_eq!(navigation_timeout(&state), Duration::from_secs(250));
        let mut m = Map::new();
        structured(&state, &mut m);
        assert_eq!(m["navigationTimeout"], json!(250000));
        assert_eq!(m["viewport"]["deviceScaleFactor"], json!(2));
        assert_eq!(m["geolocation"], json!({"latitude": 12.5, "longitude": -3}));

        let offline = State {
            network: Some("Offline".into()),
            cpu_rate: Some(1.0),
            ..State::default()
        };
        assert_eq!(
            lines(&offline),
            vec![
                "Emulating network conditions: Offline",
                "Default navigation timeout set to 10000 ms"
            ]
        );
        assert!(lines(&State::default()).is_empty());
    }
}
