//! `emulate`'s arguments: the one list its schema and typed struct come from, and the checks
//! that turn it into the [`State`] to set, with the reference's error messages.

use serde_json::{Map, Value};

use super::state::{State, Viewport};
use crate::browser::PageId;
use crate::numbers::js_number;
use crate::tools::args::{self, max, tool_args};

tool_args! {
    pub(super) struct EmulateArgs {
        "networkConditions" network_conditions: Option<String> = {
            "type": "string",
            "enum": ["Offline", "Slow 3G", "Fast 3G", "Slow 4G", "Fast 4G"],
        },
        "cpuThrottlingRate" cpu_throttling_rate: Option<f64> = {
            "type": "number", "minimum": 1, "maximum": 20,
            "description": "Slowdown factor",
        },
        "geolocation" geolocation: Option<String> = {
            "type": "string", "maxLength": max::NAME,
            "description": "\"<latitude>,<longitude>\"",
        },
        "userAgent" user_agent: Option<String> = {
            "type": "string", "maxLength": max::URL,
        },
        "colorScheme" color_scheme: Option<String> = {
            "type": "string", "enum": ["dark", "light", "auto"],
        },
        "forcedColors" forced_colors: Option<String> = {
            "type": "string", "enum": ["active", "none", "auto"],
        },
        "prefersContrast" prefers_contrast: Option<String> = {
            "type": "string", "enum": ["more", "less", "custom", "no-preference", "auto"],
        },
        "prefersReducedMotion" prefers_reduced_motion: Option<String> = {
            "type": "string", "enum": ["reduce", "no-preference", "auto"],
        },
        "viewport" viewport: Option<String> = {
            "type": "string", "maxLength": max::NAME,
            "description": "\"<width>x<height>x<dpr>[,mobile][,touch][,landscape]\"",
        },
        "extraHttpHeaders" extra_http_headers: Option<String> = {
            "type": "string", "maxLength": max::URL,
            "description": "JSON object text; \"\" clears",
        },
        "pageId" pub(super) page: Option<PageId> = (args::page_id()),
    }
}

/// An `emulate` call's arguments, checked: the state to set and what to do with headers
/// (`None`: leave them as they are).
pub(super) fn settings(args: &EmulateArgs) -> Result<(State, Option<Map<String, Value>>), String> {
    let text = |v: &Option<String>| v.clone().filter(|v| !v.is_empty());
    // "auto" and absence both mean "the default": nothing stored.
    let media = |v: &Option<String>| text(v).filter(|v| v != "auto");
    // Checked in the order the reference checks them, so the first complaint is the same.
    let geolocation = parse_geolocation(args.geolocation.as_deref().unwrap_or(""))?;
    let viewport = parse_viewport(args.viewport.as_deref().unwrap_or(""))?;
    let headers = match &args.extra_http_headers {
        Some(h) => Some(parse_headers(h)?),
        None => None,
    };
    let state = State {
        network: text(&args.network_conditions),
        cpu_rate: args.cpu_throttling_rate.filter(|r| *r > 0.0),
        geolocation,
        user_agent: text(&args.user_agent),
        color_scheme: media(&args.color_scheme),
        forced_colors: media(&args.forced_colors),
        prefers_contrast: media(&args.prefers_contrast),
        prefers_reduced_motion: media(&args.prefers_reduced_motion),
        viewport,
        extra_headers: None,
    };
    Ok((state, headers))
}

const VIEWPORT_FORMAT: &str = "'<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]'";

/// `<w>x<h>[x<dpr>][,mobile][,touch][,landscape]`; empty means "no viewport".
pub(super) fn parse_viewport(arg: &str) -> Result<Option<Viewport>, String> {
    if arg.is_empty() {
        return Ok(None);
    }
    let mut parts = arg.split(',');
    let dimensions = parts.next().unwrap_or("");
    let tags: Vec<&str> = parts.collect();
    let numbers: Vec<f64> = dimensions.split('x').map(js_to_number).collect();
    let width = numbers.first().copied().unwrap_or(f64::NAN);
    if !width.is_finite() || width <= 0.0 {
        return Err(format!(
            "Invalid viewport width \"{}\". Expected format {VIEWPORT_FORMAT} with a positive width.",
            js_number(width)
        ));
    }
    let height = numbers.get(1).copied();
    if !height.is_some_and(|h| h.is_finite() && h > 0.0) {
        return Err(format!(
            "Invalid viewport height \"{}\". Expected format {VIEWPORT_FORMAT} with a positive height.",
            height.map_or("undefined".to_owned(), js_number)
        ));
    }
    let dpr = numbers.get(2).copied();
    if let Some(d) = dpr {
        if !d.is_finite() || d <= 0.0 {
            return Err(format!(
                "Invalid devicePixelRatio \"{}\". Expected a positive number.",
                js_number(d)
            ));
        }
    }
    Ok(Some(Viewport {
        width,
        height: height.unwrap_or(0.0),
        device_scale_factor: dpr,
        mobile: tags.contains(&"mobile"),
        touch: tags.contains(&"touch"),
        landscape: tags.contains(&"landscape"),
    }))
}

/// `<latitude>,<longitude>`; empty means "no override".
fn parse_geolocation(arg: &str) -> Result<Option<(f64, f64)>, String> {
    if arg.is_empty() {
        return Ok(None);
    }
    let mut numbers = arg.split(',').map(js_to_number);
    let lat = numbers.next().unwrap_or(f64::NAN);
    if !lat.is_finite() || !(-90.0..=90.0).contains(&lat) {
        return Err(format!(
            "Invalid latitude \"{}\". Latitude must be a number between -90 and 90.",
            js_number(lat)
        ));
    }
    let lon = numbers.next();
    if !lon.is_some_and(|l| l.is_finite() && (-180.0..=180.0).contains(&l)) {
        return Err(format!(
            "Invalid longitude \"{}\". Longitude must be a number between -180 and 180.",
            lon.map_or("undefined".to_owned(), js_number)
        ));
    }
    Ok(Some((lat, lon.unwrap_or(0.0))))
}

/// A JSON object of header names to string values; empty means "remove them".
fn parse_headers(arg: &str) -> Result<Map<String, Value>, String> {
    if arg.is_empty() {
        return Ok(Map::new());
    }
    let parsed: Value = serde_json::from_str(arg)
        .map_err(|e| format!("Invalid JSON for headers: {}", json_error(&e, arg)))?;
    let Value::Object(map) = parsed else {
        return Err("Invalid JSON for headers: Headers must be a JSON object".into());
    };
    for (name, value) in &map {
        if !value.is_string() {
            return Err(format!(
                "Expected value of header \"{name}\" to be String, but \"{}\" is found.",
                js_typeof(value)
            ));
        }
    }
    Ok(map)
}

/// serde_json's message with the position as a character offset, the way agents are used to
/// reading JSON errors.
fn json_error(e: &serde_json::Error, text: &str) -> String {
    let message = e.to_string();
    let message = match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message,
    };
    let offset: usize = text
        .split('\n')
        .take(e.line().saturating_sub(1))
        .map(|l| l.chars().count() + 1)
        .sum::<usize>()
        + e.column().saturating_sub(1);
    format!("{message} in JSON at position {offset}")
}

fn js_typeof(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        _ => "object",
    }
}

/// JavaScript's `Number(text)`: decimal (with exponent), `0x`/`0o`/`0b` integers, `Infinity`,
/// surrounding white space, and "" as 0; anything else is NaN.
fn js_to_number(text: &str) -> f64 {
    let s = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if s.is_empty() {
        return 0.0;
    }
    match s {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    let radix = match s.get(..2) {
        Some("0x") | Some("0X") => Some(16),
        Some("0o") | Some("0O") => Some(8),
        Some("0b") | Some("0B") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        let digits = &s[2..];
        if digits.is_empty() {
            return f64::NAN;
        }
        let mut n = 0.0f64;
        for c in digits.chars() {
            match c.to_digit(radix) {
                Some(d) => n = n * radix as f64 + d as f64,
                None => return f64::NAN,
            }
        }
        return n;
    }
    // Rust would also take "inf", "nan" and the like; JavaScript only takes these characters.
    if !s
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return f64::NAN;
    }
    s.parse::<f64>().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::super::state::viewport_json;
    use super::*;
    use serde_json::json;

    fn settings_of(args: Value) -> Result<(State, Option<Map<String, Value>>), String> {
        settings(&crate::tools::args::parse(args).unwrap())
    }

    #[test]
    fn numbers_parse_like_javascript() {
        assert_eq!(js_to_number("800"), 800.0);
        assert_eq!(js_to_number(" 1.5 "), 1.5);
        assert_eq!(js_to_number(""), 0.0);
        assert_eq!(js_to_number("1e3"), 1000.0);
        assert_eq!(js_to_number(".5"), 0.5);
        assert_eq!(js_to_number("-3"), -3.0);
        assert_eq!(js_to_number("0x10"), 16.0);
        assert_eq!(js_to_number("0b101"), 5.0);
        assert_eq!(js_to_number("Infinity"), f64::INFINITY);
        assert!(js_to_number("inf").is_nan());
        assert!(js_to_number("nan").is_nan());
        assert!(js_to_number("abc").is_nan());
        assert!(js_to_number("1e").is_nan());
        assert!(js_to_number("12px").is_nan());
        assert!(js_to_number("0x").is_nan());
    }

    #[test]
    fn viewport_syntax() {
        let v = parse_viewport("400x800x2,mobile,touch").unwrap().unwrap();
        assert_eq!(
            viewport_json(&v),
            r#"{"deviceScaleFactor":2,"isMobile":true,"hasTouch":true,"isLandscape":false,"width":400,"height":800}"#
        );
        let v = parse_viewport("800x600").unwrap().unwrap();
        assert_eq!(
            viewport_json(&v),
            r#"{"isMobile":false,"hasTouch":false,"isLandscape":false,"width":800,"height":600}"#
        );
        let v = parse_viewport("800x600x1.5,landscape").unwrap().unwrap();
        assert!(v.landscape && !v.mobile);
        assert_eq!(v.device_scale_factor, Some(1.5));
        assert_eq!(parse_viewport("").unwrap(), None);
        assert_eq!(
            parse_viewport("abc").unwrap_err(),
            "Invalid viewport width \"NaN\". Expected format '<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]' with a positive width."
        );
        assert_eq!(
            parse_viewport("800").unwrap_err(),
            "Invalid viewport height \"undefined\". Expected format '<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]' with a positive height."
        );
        assert_eq!(
            parse_viewport("800x600x0").unwrap_err(),
            "Invalid devicePixelRatio \"0\". Expected a positive number."
        );
        assert_eq!(
            parse_viewport("800x600x").unwrap_err(),
            "Invalid devicePixelRatio \"0\". Expected a positive number."
        );
        assert!(parse_viewport("-5x10").unwrap_err().contains("\"-5\""));
    }

    #[test]
    fn geolocation_syntax() {
        assert_eq!(parse_geolocation("12.5,-3").unwrap(), Some((12.5, -3.0)));
        assert_eq!(parse_geolocation("").unwrap(), None);
        assert_eq!(
            parse_geolocation("91,0").unwrap_err(),
            "Invalid latitude \"91\". Latitude must be a number between -90 and 90."
        );
        assert_eq!(
            parse_geolocation("1,200").unwrap_err(),
            "Invalid longitude \"200\". Longitude must be a number between -180 and 180."
        );
        assert_eq!(
            parse_geolocation("abc").unwrap_err(),
            "Invalid latitude \"NaN\". Latitude must be a number between -90 and 90."
        );
        assert!(parse_geolocation("5")
            .unwrap_err()
            .contains("\"undefined\""));
    }

    #[test]
    fn header_syntax() {
        let h = parse_headers(r#"{"X-A": "b"}"#).unwrap();
        assert_eq!(h["X-A"], "b");
        assert!(parse_headers("").unwrap().is_empty());
        assert_eq!(
            parse_headers("[1]").unwrap_err(),
            "Invalid JSON for headers: Headers must be a JSON object"
        );
        assert!(parse_headers("{bad")
            .unwrap_err()
            .starts_with("Invalid JSON for headers: "));
        assert!(parse_headers("{bad").unwrap_err().contains("position 1"));
        assert_eq!(
            parse_headers(r#"{"a": 1}"#).unwrap_err(),
            "Expected value of header \"a\" to be String, but \"number\" is found."
        );
    }

    #[test]
    fn arguments_replace_everything_but_headers() {
        let (state, headers) =
            settings_of(json!({"colorScheme": "auto", "cpuThrottlingRate": 1})).unwrap();
        assert_eq!(state.color_scheme, None);
        assert_eq!(state.cpu_rate, Some(1.0));
        assert!(headers.is_none());
        let (_, headers) = settings_of(json!({"extraHttpHeaders": ""})).unwrap();
        assert_eq!(headers, Some(Map::new()));
        let (state, _) = settings_of(json!({"colorScheme": "dark", "userAgent": ""})).unwrap();
        assert_eq!(state.color_scheme.as_deref(), Some("dark"));
        assert_eq!(state.user_agent, None);
    }
}
