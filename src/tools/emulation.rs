//! `emulate` and `resize_page`: what a page pretends to be (viewport, media features, network,
//! CPU, position, user agent, extra headers) and the size of its window.
//!
//! Emulation is set with CDP on the page's own session, and Chromium keeps it for that session
//! across navigations, so nothing has to be re-applied after a load. [`State`] remembers what
//! is set, because every answer about the page says so ([`lines`]) and the navigation timeout
//! grows with the throttling ([`navigation_timeout`]).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::response::{finish, Response};
use super::{fail, page_arg, Tool};
use crate::browser::{self, navigation, pages};
use crate::error::Error;
use crate::tools::CallId;
use crate::tools::{Ctx, Done};

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "emulate",
        description: "Make the page emulate a device or environment: viewport, color scheme and other media features, \
network and CPU throttling, geolocation, user agent, extra HTTP headers. Each call sets the whole emulation: \
a setting left out is turned off (extraHttpHeaders excepted: they stay until replaced or cleared with an \
empty string), so pass every setting you want in one call. Settings stay in effect across navigations.",
        properties: || {
            json!({
                "networkConditions": {
                    "type": "string",
                    "enum": ["Offline", "Slow 3G", "Fast 3G", "Slow 4G", "Fast 4G"],
                    "description": "Throttle the network to this preset, or cut it off. Leave out for no throttling.",
                },
                "cpuThrottlingRate": {
                    "type": "number", "minimum": 1, "maximum": 20,
                    "description": "Slow the CPU down by this factor. Leave out, or 1, for full speed.",
                },
                "geolocation": {
                    "type": "string",
                    "description": "Position to report, as `<latitude>,<longitude>` (latitude -90..90, longitude -180..180). Leave out to stop overriding it.",
                },
                "userAgent": {
                    "type": "string",
                    "description": "User agent string to send and report. Leave out, or empty, for the browser's own.",
                },
                "colorScheme": {
                    "type": "string", "enum": ["dark", "light", "auto"],
                    "description": "Force dark or light mode (prefers-color-scheme). Leave out, or \"auto\", for the default.",
                },
                "forcedColors": {
                    "type": "string", "enum": ["active", "none", "auto"],
                    "description": "Value of the `forced-colors` media feature. Leave out, or \"auto\", for the default.",
                },
                "prefersContrast": {
                    "type": "string", "enum": ["more", "less", "custom", "no-preference", "auto"],
                    "description": "Value of the `prefers-contrast` media feature. Leave out, or \"auto\", for the default.",
                },
                "prefersReducedMotion": {
                    "type": "string", "enum": ["reduce", "no-preference", "auto"],
                    "description": "Value of the `prefers-reduced-motion` media feature. Leave out, or \"auto\", for the default.",
                },
                "viewport": {
                    "type": "string",
                    "description": "Viewport as '<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]', e.g. '390x844x3,mobile,touch'. Leave out to stop overriding it.",
                },
                "extraHttpHeaders": {
                    "type": "string",
                    "description": "Headers to add to every request the page makes, as a JSON object string, e.g. {\"X-Test\": \"1\"}. They stay across navigations; an empty string removes them.",
                },
            })
        },
        required: &[],
        read_only: false,
        page_scoped: true,
        run: emulate,
    },
    Tool {
        name: "resize_page",
        description: "Resize the page's window so that the page's own area (window.innerWidth/innerHeight) gets the given size in CSS pixels.",
        properties: || {
            json!({
                "width": {"type": "integer", "exclusiveMinimum": 0, "description": "Width of the page in CSS pixels."},
                "height": {"type": "integer", "exclusiveMinimum": 0, "description": "Height of the page in CSS pixels."},
            })
        },
        required: &["width", "height"],
        read_only: false,
        page_scoped: true,
        run: resize_page,
    },
];

/// An emulated viewport, as `emulate` was given it.
#[derive(Debug, Clone, PartialEq)]
pub struct Viewport {
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
pub struct State {
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
pub fn lines(state: &State) -> Vec<String> {
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
pub fn structured(state: &State, out: &mut Map<String, Value>) {
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
        let mut m = Map::new();
        if let Some(d) = v.device_scale_factor {
            m.insert("deviceScaleFactor".into(), number_value(d));
        }
        m.insert("isMobile".into(), json!(v.mobile));
        m.insert("hasTouch".into(), json!(v.touch));
        m.insert("isLandscape".into(), json!(v.landscape));
        m.insert("width".into(), number_value(v.width));
        m.insert("height".into(), number_value(v.height));
        out.insert("viewport".into(), Value::Object(m));
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
pub fn navigation_timeout(state: &State) -> Duration {
    Duration::from_millis(navigation_timeout_ms(state).round() as u64)
}

fn navigation_timeout_ms(state: &State) -> f64 {
    // Multiplied in this order so the printed figure matches the reference's to the last digit.
    super::pages::NAVIGATION_TIMEOUT.as_millis() as f64
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

/// Throughput (bytes/s down, up) and latency (ms) of the throttling presets.
fn network_preset(name: &str) -> Option<(f64, f64, f64)> {
    // 3G/4G figures as Chrome DevTools defines them: bits/s / 8, times a fudge factor, with
    // latency scaled the same way.
    match name {
        "Slow 3G" => Some((500_000.0 / 8.0 * 0.8, 500_000.0 / 8.0 * 0.8, 400.0 * 5.0)),
        "Fast 3G" | "Slow 4G" => {
            Some((1_600_000.0 / 8.0 * 0.9, 750_000.0 / 8.0 * 0.9, 150.0 * 3.75))
        }
        "Fast 4G" => Some((
            9_000_000.0 / 8.0 * 0.9,
            1_500_000.0 / 8.0 * 0.9,
            60.0 * 2.75,
        )),
        _ => None,
    }
}

/// The viewport as the reference prints it: JSON with its keys in the reference's order and
/// without a device scale factor that was not given.
fn viewport_json(v: &Viewport) -> String {
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

// ---------------------------------------------------------------- arguments

const VIEWPORT_FORMAT: &str = "'<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]'";

/// `<w>x<h>[x<dpr>][,mobile][,touch][,landscape]`; empty means "no viewport".
pub fn parse_viewport(arg: &str) -> Result<Option<Viewport>, String> {
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
pub fn parse_geolocation(arg: &str) -> Result<Option<(f64, f64)>, String> {
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
pub fn parse_headers(arg: &str) -> Result<Map<String, Value>, String> {
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
pub fn js_to_number(text: &str) -> f64 {
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

/// A number as JavaScript prints it (`String(n)`): no ".0" on integers, exponent notation
/// outside 1e-6..1e21, NaN and Infinity by name.
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n == 0.0 {
        return "0".into();
    }
    let abs = n.abs();
    if (1e-6..1e21).contains(&abs) {
        return format!("{n}");
    }
    let e = format!("{n:e}");
    match e.split_once('e') {
        Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
        _ => e,
    }
}

/// A number for JSON output: integers without a fraction, as JavaScript writes them.
fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

// ---------------------------------------------------------------- emulate

/// The reference's error for tools that an open dialog blocks.
pub fn dialog_blocks(cx: &Ctx, page: u32) -> Option<String> {
    let d = cx.browser.pages.get(page)?.dialog.as_ref()?;
    Some(format!("A dialog is open ({}: {}).", d.kind, d.message))
}

/// An `emulate` call's arguments, checked: the state to set and what to do with headers
/// (`None`: leave them as they are).
fn settings(args: &Value) -> Result<(State, Option<Map<String, Value>>), String> {
    let text = |key: &str| args[key].as_str().map(str::to_owned);
    // "auto" and absence both mean "the default": nothing stored.
    let media = |key: &str| text(key).filter(|v| !v.is_empty() && v != "auto");
    // Checked in the order the reference checks them, so the first complaint is the same.
    let geolocation = parse_geolocation(args["geolocation"].as_str().unwrap_or(""))?;
    let viewport = parse_viewport(args["viewport"].as_str().unwrap_or(""))?;
    let headers = match args["extraHttpHeaders"].as_str() {
        Some(h) => Some(parse_headers(h)?),
        None => None,
    };
    let state = State {
        network: text("networkConditions").filter(|v| !v.is_empty()),
        cpu_rate: args["cpuThrottlingRate"].as_f64().filter(|r| *r > 0.0),
        geolocation,
        user_agent: text("userAgent").filter(|v| !v.is_empty()),
        color_scheme: media("colorScheme"),
        forced_colors: media("forcedColors"),
        prefers_contrast: media("prefersContrast"),
        prefers_reduced_motion: media("prefersReducedMotion"),
        viewport,
        extra_headers: None,
    };
    Ok((state, headers))
}

/// How long the emulation commands may take before the call gives up (they only stall when
/// the page's main thread does).
const EMULATE_TIMEOUT: Duration = Duration::from_secs(10);

fn emulate(cx: &mut Ctx, call: CallId, args: Value) {
    // Bad arguments are reported before anything else, as the reference's schema does.
    let (mut next, headers) = match settings(&args) {
        Ok(s) => s,
        Err(message) => return fail(cx, call, message),
    };
    super::call::on_page(cx, call, page_arg(&args), move |cx, page| {
        if let Some(message) = dialog_blocks(cx, page) {
            return fail(cx, call, message);
        }
        let (session, previous) = match cx.browser.pages.get(page) {
            Some(p) => (p.session.clone(), cx.emulation.entry(page).clone()),
            None => return fail(cx, call, pages::no_such_page(page)),
        };
        next.extra_headers = match &headers {
            Some(h) if h.is_empty() => None,
            Some(h) => Some(h.clone()),
            None => previous.extra_headers.clone(),
        };
        let commands = commands(&previous, &next, headers.as_ref(), &session);
        let reload = needs_reload(&previous, &next);
        super::screenshot::unless_dialog(
            cx,
            &session,
            EMULATE_TIMEOUT,
            "Applying the emulation settings timed out (is the page busy?).".into(),
            Box::new(move |cx, done| send_all(cx, commands, done)),
            Box::new(move |cx, r: Result<(), Error>| {
                if let Err(e) = r {
                    return fail(cx, call, e);
                }
                let timeout = navigation_timeout(&next);
                if cx.browser.pages.get(page).is_some() {
                    *cx.emulation.entry(page) = next;
                }
                let answer = move |cx: &mut Ctx, r: Result<(), Error>| match r {
                    Err(e) => fail(cx, call, e),
                    Ok(()) => {
                        let mut resp = Response::for_page(page);
                        resp.line("Emulation configured successfully");
                        finish(cx, call, resp)
                    }
                };
                if reload {
                    // Touch support and mobile layout are decided when a document starts;
                    // the document that is there keeps the old ones until reloaded.
                    navigation::reload(cx, page, false, timeout, Box::new(answer));
                } else {
                    answer(cx, Ok(()));
                }
            }),
        );
    });
}

fn needs_reload(previous: &State, next: &State) -> bool {
    let flags = |s: &State| {
        s.viewport
            .as_ref()
            .map_or((false, false), |v| (v.mobile, v.touch))
    };
    flags(previous) != flags(next)
}

/// One CDP command: browser-level when the session is `None`.
type Command = (Option<String>, &'static str, Value);

/// The commands that take the page from `previous` to `next`.
fn commands(
    previous: &State,
    next: &State,
    headers: Option<&Map<String, Value>>,
    session: &str,
) -> Vec<Command> {
    let on_page = |method: &'static str, params: Value| (Some(session.to_owned()), method, params);
    let mut out = Vec::new();

    let (offline, down, up, latency) = match next.network.as_deref() {
        Some("Offline") => (true, 0.0, 0.0, 0.0),
        Some(name) => match network_preset(name) {
            Some((down, up, latency)) => (false, down, up, latency),
            None => (false, -1.0, -1.0, 0.0),
        },
        None => (false, -1.0, -1.0, 0.0),
    };
    // The state navigator.onLine and navigator.connection report, then the throttling itself.
    out.push(on_page(
        "Network.overrideNetworkState",
        json!({"offline": offline, "latency": latency, "downloadThroughput": down, "uploadThroughput": up}),
    ));
    out.push(on_page(
        "Network.emulateNetworkConditionsByRule",
        json!({"matchedNetworkConditions": [{
            "urlPattern": "", "offline": offline, "latency": latency,
            "downloadThroughput": down, "uploadThroughput": up,
        }]}),
    ));

    out.push(on_page(
        "Emulation.setCPUThrottlingRate",
        json!({"rate": next.cpu_rate.unwrap_or(1.0)}),
    ));

    match next.geolocation {
        Some((latitude, longitude)) => {
            // Without the permission, navigator.geolocation refuses to answer in a headless
            // browser, and the override would be invisible to the page.
            out.push((
                None,
                "Browser.grantPermissions",
                json!({"permissions": ["geolocation"]}),
            ));
            out.push(on_page(
                "Emulation.setGeolocationOverride",
                json!({"latitude": latitude, "longitude": longitude, "accuracy": 0}),
            ));
        }
        None => out.push(on_page("Emulation.clearGeolocationOverride", json!({}))),
    }

    // An empty user agent removes the override.
    out.push(on_page(
        "Emulation.setUserAgentOverride",
        json!({"userAgent": next.user_agent.clone().unwrap_or_default()}),
    ));

    let feature = |name: &str, value: &Option<String>| json!({"name": name, "value": value.clone().unwrap_or_default()});
    out.push(on_page(
        "Emulation.setEmulatedMedia",
        json!({"features": [
            feature("prefers-color-scheme", &next.color_scheme),
            feature("forced-colors", &next.forced_colors),
            feature("prefers-contrast", &next.prefers_contrast),
            feature("prefers-reduced-motion", &next.prefers_reduced_motion),
        ]}),
    ));

    if let Some(headers) = headers {
        // Header names are case-insensitive; the browser wants them lower-cased.
        let lower: Map<String, Value> = headers
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
            .collect();
        out.push(on_page(
            "Network.setExtraHTTPHeaders",
            json!({"headers": lower}),
        ));
    }

    match &next.viewport {
        Some(v) => {
            let orientation = if v.landscape {
                json!({"angle": 90, "type": "landscapePrimary"})
            } else {
                json!({"angle": 0, "type": "portraitPrimary"})
            };
            out.push(on_page(
                "Emulation.setDeviceMetricsOverride",
                json!({
                    "mobile": v.mobile,
                    "width": v.width,
                    "height": v.height,
                    "deviceScaleFactor": v.device_scale_factor.unwrap_or(1.0),
                    "screenOrientation": orientation,
                }),
            ));
            out.push(on_page(
                "Emulation.setTouchEmulationEnabled",
                json!({"enabled": v.touch}),
            ));
        }
        // Clearing an override that was never set would still relayout the page; skip it.
        None if previous.viewport.is_some() => {
            out.push(on_page("Emulation.clearDeviceMetricsOverride", json!({})));
            out.push(on_page(
                "Emulation.setTouchEmulationEnabled",
                json!({"enabled": false}),
            ));
        }
        None => {}
    }
    out
}

/// Sends every command at once (the browser runs a session's commands in order) and calls
/// `done` when all have answered, with the first error if any failed.
fn send_all(cx: &mut Ctx, commands: Vec<Command>, done: Done<()>) {
    struct Batch {
        left: usize,
        error: Option<Error>,
        done: Option<Done<()>>,
    }
    if commands.is_empty() {
        return done(cx, Ok(()));
    }
    let batch = Rc::new(RefCell::new(Batch {
        left: commands.len(),
        error: None,
        done: Some(done),
    }));
    for (session, method, params) in commands {
        let batch = batch.clone();
        browser::send_raw(
            cx,
            session.as_deref(),
            method,
            params,
            Box::new(move |cx, r| {
                let finished = {
                    let mut b = batch.borrow_mut();
                    if let Err(e) = r {
                        b.error.get_or_insert(e);
                    }
                    b.left -= 1;
                    if b.left == 0 {
                        b.done.take().map(|d| (d, b.error.take()))
                    } else {
                        None
                    }
                };
                if let Some((done, error)) = finished {
                    done(cx, error.map_or(Ok(()), Err));
                }
            }),
        );
    }
}

// ---------------------------------------------------------------- resize_page

/// How long the page may take to see its new size before the answer goes out anyway.
const RESIZE_SETTLE: Duration = Duration::from_secs(1);

fn resize_page(cx: &mut Ctx, call: CallId, args: Value) {
    let width = args["width"].as_f64().unwrap_or(0.0).round() as i64;
    let height = args["height"].as_f64().unwrap_or(0.0).round() as i64;
    super::call::on_page(cx, call, page_arg(&args), move |cx, page| {
        let Some(target) = cx.browser.pages.get(page).map(|p| p.target_id.clone()) else {
            return fail(cx, call, pages::no_such_page(page));
        };
        browser::send_raw(
            cx,
            None,
            "Browser.getWindowForTarget",
            json!({"targetId": target}),
            Box::new(move |cx, r| {
                let window = match r {
                    Ok(v) => v,
                    Err(e) => return fail(cx, call, e),
                };
                let Some(id) = window["windowId"].as_i64() else {
                    return fail(
                        cx,
                        call,
                        "The browser did not say which window holds the page.",
                    );
                };
                // A maximised, minimised or fullscreen window ignores a new size.
                let state = window["bounds"]["windowState"].as_str().unwrap_or("normal");
                if state != "normal" {
                    let normal = json!({"windowId": id, "bounds": {"windowState": "normal"}});
                    browser::fire_raw(cx, None, "Browser.setWindowBounds", normal.clone());
                    if state == "fullscreen" {
                        // Leaving fullscreen can take two steps on some window managers.
                        browser::fire_raw(cx, None, "Browser.setWindowBounds", normal);
                    }
                }
                set_contents_size(cx, call, page, id, width, height);
            }),
        );
    });
}

fn set_contents_size(cx: &mut Ctx, call: CallId, page: u32, window: i64, width: i64, height: i64) {
    browser::send_raw(
        cx,
        None,
        "Browser.setContentsSize",
        json!({"windowId": window, "width": width, "height": height}),
        Box::new(move |cx, r| match r {
            Ok(_) => settle(cx, call, page, width, height),
            // Browsers before Browser.setContentsSize: size the window by the page's
            // surroundings (window chrome) instead.
            Err(Error::Cdp { message, .. }) if message.contains("wasn't found") => {
                resize_window(cx, call, page, window, width, height)
            }
            Err(e) => fail(cx, call, e),
        }),
    );
}

fn resize_window(cx: &mut Ctx, call: CallId, page: u32, window: i64, width: i64, height: i64) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    let expression = "[outerWidth - innerWidth, outerHeight - innerHeight]";
    super::screenshot::unless_dialog(
        cx,
        &session.clone(),
        RESIZE_SETTLE,
        "The page did not answer while resizing its window.".into(),
        Box::new(move |cx, done| {
            browser::send_raw(
                cx,
                Some(&session),
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
                done,
            );
        }),
        Box::new(move |cx, r: Result<Value, Error>| {
            let v = match r {
                Ok(v) => v,
                Err(e) => return fail(cx, call, e),
            };
            let extra = &v["result"]["value"];
            let dx = extra[0].as_i64().unwrap_or(0);
            let dy = extra[1].as_i64().unwrap_or(0);
            browser::send_raw(
                cx,
                None,
                "Browser.setWindowBounds",
                json!({"windowId": window, "bounds": {"width": width + dx, "height": height + dy}}),
                Box::new(move |cx, r| match r {
                    Ok(_) => settle(cx, call, page, width, height),
                    Err(e) => fail(cx, call, e),
                }),
            );
        }),
    );
}

/// The window changed size; the page hears of it a moment later. Waits (briefly) until the
/// page sees the new size, so the next call measures the page as resized. Skipped when an
/// emulated viewport hides the window's size, or a dialog keeps the page from answering.
fn settle(cx: &mut Ctx, call: CallId, page: u32, width: i64, height: i64) {
    let answer = move |cx: &mut Ctx| {
        let resp = Response {
            include_pages: true,
            ..Response::for_page(page)
        };
        finish(cx, call, resp);
    };
    let Some(p) = cx.browser.pages.get(page) else {
        return fail(cx, call, pages::no_such_page(page));
    };
    let emulated = cx.emulation.get(page).is_some_and(|e| e.viewport.is_some());
    if p.dialog.is_some() || emulated {
        return answer(cx);
    }
    let session = p.session.clone();
    let ms = RESIZE_SETTLE.as_millis();
    let expression = format!(
        "new Promise(resolve => {{
  const ok = () => innerWidth === {width} && innerHeight === {height};
  if (ok()) return resolve(true);
  const timer = setTimeout(() => {{ removeEventListener('resize', check); resolve(false); }}, {ms});
  function check() {{ if (ok()) {{ clearTimeout(timer); removeEventListener('resize', check); resolve(true); }} }}
  addEventListener('resize', check);
}})"
    );
    super::screenshot::unless_dialog(
        cx,
        &session.clone(),
        RESIZE_SETTLE + Duration::from_millis(500),
        String::new(),
        Box::new(move |cx, done| {
            browser::send_raw(
                cx,
                Some(&session),
                "Runtime.evaluate",
                json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
                done,
            );
        }),
        // Whatever the page said (or did not), the window has its new size.
        Box::new(move |cx, _r: Result<Value, Error>| answer(cx)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn numbers_print_like_javascript() {
        assert_eq!(js_number(2.0), "2");
        assert_eq!(js_number(2.5), "2.5");
        assert_eq!(js_number(-3.0), "-3");
        assert_eq!(js_number(-0.0), "0");
        assert_eq!(js_number(f64::NAN), "NaN");
        assert_eq!(js_number(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(1.5e-7), "1.5e-7");
        assert_eq!(js_number(0.000001), "0.000001");
        assert_eq!(js_number(0.1 + 0.2), "0.30000000000000004");
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

    #[test]
    fn arguments_replace_everything_but_headers() {
        let (state, headers) =
            settings(&json!({"colorScheme": "auto", "cpuThrottlingRate": 1})).unwrap();
        assert_eq!(state.color_scheme, None);
        assert_eq!(state.cpu_rate, Some(1.0));
        assert!(headers.is_none());
        let (_, headers) = settings(&json!({"extraHttpHeaders": ""})).unwrap();
        assert_eq!(headers, Some(Map::new()));
        let (state, _) = settings(&json!({"colorScheme": "dark", "userAgent": ""})).unwrap();
        assert_eq!(state.color_scheme.as_deref(), Some("dark"));
        assert_eq!(state.user_agent, None);
    }

    #[test]
    fn presets() {
        assert_eq!(network_preset("Slow 3G"), Some((50000.0, 50000.0, 2000.0)));
        assert_eq!(
            network_preset("Fast 4G"),
            Some((1012500.0, 168750.0, 165.0))
        );
        assert_eq!(network_preset("Slow 4G"), network_preset("Fast 3G"));
        assert_eq!(network_preset("Offline"), None);
    }
}
