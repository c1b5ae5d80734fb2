//! The CDP commands that take a page from one emulation [`State`] to the next, and sending
//! them as one batch.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{Map, Value};

use super::state::{State, Viewport};
use crate::browser;
use crate::cdp::generated::{browser as cdp_browser, emulation, network};
use crate::cdp::Command as CdpCommand;
use crate::error::Error;
use crate::tools::{Ctx, Done};

/// One CDP command, ready to send; it answers `done` with the command's outcome.
type Command = Box<dyn FnOnce(&mut Ctx, Done<()>)>;

/// `params` sent on `session` (browser-level when `None`).
fn command<C: CdpCommand + 'static>(session: Option<&str>, params: C) -> Command {
    let session = session.map(str::to_owned);
    Box::new(move |cx, done| {
        browser::send(cx, session.as_deref(), params, move |cx, r| {
            done(cx, r.map(|_| ()))
        });
    })
}

/// The throttling rule after the `--blockedUrlPattern`/`--allowedUrlPattern` rules: the
/// browser keeps one list per page, and the first match wins.
fn with_url_rules(
    session: Option<&str>,
    mut rule: network::EmulateNetworkConditionsByRuleParams,
) -> Command {
    let session = session.map(str::to_owned);
    Box::new(move |cx, done| {
        let mut all = browser::url_rules::conditions(&cx.settings.policies.url_rules);
        all.append(&mut rule.matched_network_conditions);
        rule.matched_network_conditions = all;
        browser::send(cx, session.as_deref(), rule, move |cx, r| {
            done(cx, r.map(|_| ()))
        });
    })
}

/// The page the commands are for.
pub(super) struct Target<'a> {
    /// Its session.
    pub(super) session: &'a str,
    /// Its browser context, when the server made it (else the default one).
    pub(super) context: Option<String>,
}

/// The commands that take the page from `previous` to `next`.
pub(super) fn commands(
    previous: &State,
    next: &State,
    headers: Option<&Map<String, Value>>,
    target: Target,
) -> Vec<Command> {
    let page = Some(target.session);
    let (state, rule) = network_params(next.network.as_deref());
    // The state navigator.onLine and navigator.connection report, then the throttling itself.
    let mut out = vec![command(page, state), with_url_rules(page, rule)];
    let rate = next.cpu_rate.unwrap_or(1.0);
    out.push(command(
        page,
        emulation::SetCPUThrottlingRateParams { rate },
    ));

    match next.geolocation {
        Some((latitude, longitude)) => {
            // Without the permission, navigator.geolocation refuses to answer in a headless
            // browser, and the override would be invisible to the page.
            // Granted in the page's own context: another agent's pages get nothing of it.
            let grant = cdp_browser::GrantPermissionsParams {
                permissions: vec![cdp_browser::PermissionType::Geolocation],
                browser_context_id: target.context,
                ..Default::default()
            };
            out.push(command(None, grant));
            let position = emulation::SetGeolocationOverrideParams {
                latitude: Some(latitude),
                longitude: Some(longitude),
                accuracy: Some(0.0),
                ..Default::default()
            };
            out.push(command(page, position));
        }
        None => out.push(command(page, emulation::ClearGeolocationOverrideParams {})),
    }

    // An empty user agent removes the override.
    let user_agent = emulation::SetUserAgentOverrideParams {
        user_agent: next.user_agent.clone().unwrap_or_default(),
        ..Default::default()
    };
    out.push(command(page, user_agent));
    out.push(command(page, media_params(next)));

    if let Some(headers) = headers {
        out.push(command(page, headers_params(headers)));
    }

    match &next.viewport {
        Some(v) => {
            out.push(command(page, metrics_params(v)));
            out.push(command(page, touch(v.touch)));
        }
        // Clearing an override that was never set would still relayout the page; skip it.
        None if previous.viewport.is_some() => {
            out.push(command(
                page,
                emulation::ClearDeviceMetricsOverrideParams {},
            ));
            out.push(command(page, touch(false)));
        }
        None => {}
    }
    out
}

/// The network state the page reports and the throttling of its requests, for a preset.
fn network_params(
    preset: Option<&str>,
) -> (
    network::OverrideNetworkStateParams,
    network::EmulateNetworkConditionsByRuleParams,
) {
    let (offline, down, up, latency) = match preset {
        Some("Offline") => (true, 0.0, 0.0, 0.0),
        Some(name) => match network_preset(name) {
            Some((down, up, latency)) => (false, down, up, latency),
            None => (false, -1.0, -1.0, 0.0),
        },
        None => (false, -1.0, -1.0, 0.0),
    };
    let state = network::OverrideNetworkStateParams {
        offline,
        latency,
        download_throughput: down,
        upload_throughput: up,
        connection_type: None,
    };
    let conditions = network::NetworkConditions {
        url_pattern: String::new(),
        offline: Some(offline),
        latency,
        download_throughput: down,
        upload_throughput: up,
        ..Default::default()
    };
    let rule = network::EmulateNetworkConditionsByRuleParams {
        matched_network_conditions: vec![conditions],
        ..Default::default()
    };
    (state, rule)
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

/// Every media feature `emulate` controls, each one set: an empty value clears it.
fn media_params(next: &State) -> emulation::SetEmulatedMediaParams {
    let feature = |name: &str, value: &Option<String>| emulation::MediaFeature {
        name: name.to_owned(),
        value: value.clone().unwrap_or_default(),
    };
    emulation::SetEmulatedMediaParams {
        media: None,
        features: Some(vec![
            feature("prefers-color-scheme", &next.color_scheme),
            feature("forced-colors", &next.forced_colors),
            feature("prefers-contrast", &next.prefers_contrast),
            feature("prefers-reduced-motion", &next.prefers_reduced_motion),
        ]),
    }
}

fn headers_params(headers: &Map<String, Value>) -> network::SetExtraHTTPHeadersParams {
    // Header names are case-insensitive; the browser wants them lower-cased.
    let lower: Map<String, Value> = headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
        .collect();
    network::SetExtraHTTPHeadersParams {
        headers: Value::Object(lower),
    }
}

fn metrics_params(v: &Viewport) -> emulation::SetDeviceMetricsOverrideParams {
    let (angle, kind) = if v.landscape {
        (90, emulation::ScreenOrientationType::LandscapePrimary)
    } else {
        (0, emulation::ScreenOrientationType::PortraitPrimary)
    };
    emulation::SetDeviceMetricsOverrideParams {
        mobile: v.mobile,
        // The protocol takes whole pixels.
        width: v.width.round() as i64,
        height: v.height.round() as i64,
        device_scale_factor: v.device_scale_factor.unwrap_or(1.0),
        screen_orientation: Some(emulation::ScreenOrientation {
            r#type: kind,
            angle,
        }),
        ..Default::default()
    }
}

fn touch(enabled: bool) -> emulation::SetTouchEmulationEnabledParams {
    emulation::SetTouchEmulationEnabledParams {
        enabled,
        max_touch_points: None,
    }
}

/// Sends every command at once (the browser runs a session's commands in order) and calls
/// `done` when all have answered, with the first error if any failed.
pub(super) fn send_all(cx: &mut Ctx, commands: Vec<Command>, done: Done<()>) {
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
    for command in commands {
        let batch = batch.clone();
        command(
            cx,
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

#[cfg(test)]
mod tests {
    use super::super::args::parse_viewport;
    use super::*;
    use serde_json::json;

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

    fn wire<T: serde::Serialize>(params: &T) -> Value {
        serde_json::to_value(params).unwrap()
    }

    /// The typed commands carry what the browser was always sent.
    #[test]
    fn commands_on_the_wire() {
        let (state, rule) = network_params(Some("Slow 3G"));
        assert_eq!(
            wire(&state),
            json!({"offline": false, "latency": 2000.0, "downloadThroughput": 50000.0, "uploadThroughput": 50000.0})
        );
        assert_eq!(
            wire(&rule),
            json!({"matchedNetworkConditions": [{"urlPattern": "", "offline": false, "latency": 2000.0,
                "downloadThroughput": 50000.0, "uploadThroughput": 50000.0}]})
        );
        let (state, _) = network_params(None);
        assert_eq!(wire(&state)["downloadThroughput"], json!(-1.0));
        let v = parse_viewport("400x800x2,mobile,landscape")
            .unwrap()
            .unwrap();
        assert_eq!(
            wire(&metrics_params(&v)),
            json!({"mobile": true, "width": 400, "height": 800, "deviceScaleFactor": 2.0,
                "screenOrientation": {"angle": 90, "type": "landscapePrimary"}})
        );
        let next = State {
            color_scheme: Some("dark".into()),
            ..State::default()
        };
        assert_eq!(
            wire(&media_params(&next)),
            json!({"features": [
                {"name": "prefers-color-scheme", "value": "dark"},
                {"name": "forced-colors", "value": ""},
                {"name": "prefers-contrast", "value": ""},
                {"name": "prefers-reduced-motion", "value": ""},
            ]})
        );
        let mut headers = Map::new();
        headers.insert("X-Test".into(), json!("1"));
        assert_eq!(
            wire(&headers_params(&headers)),
            json!({"headers": {"x-test": "1"}})
        );
    }
}
