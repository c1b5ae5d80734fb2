//! The reference's newer flags (websocket headers, proxy, certificates, URL patterns, what page
//! code may do, screenshot defaults, `pageId` routing): their values checked, with the
//! reference's complaints, into `settings::Policies`.

use serde_json::Value;

use super::command_line::Flags;
use crate::browser::url_rules;
use crate::settings::{Policies, ScreenshotDefaults, UrlRules};

/// What the newer flags mean, or the reference's complaint about a bad value.
pub(super) fn policies(flags: &Flags) -> Result<Policies, String> {
    if !flags.blocked_url_pattern.is_empty() && !flags.allowed_url_pattern.is_empty() {
        return Err(
            "Arguments blockedUrlPattern and allowedUrlPattern are mutually exclusive".into(),
        );
    }
    url_rules::validate(&flags.blocked_url_pattern, "--blockedUrlPattern")?;
    url_rules::validate(&flags.allowed_url_pattern, "--allowedUrlPattern")?;
    if flags.ws_headers.is_some() && flags.ws_endpoint.is_none() && flags.browser_url.is_none() {
        return Err("Implications failed:\n  wsHeaders -> wsEndpoint".into());
    }
    Ok(Policies {
        ws_headers: match &flags.ws_headers {
            Some(text) => ws_headers(text)?,
            None => Vec::new(),
        },
        proxy_server: flags.proxy_server.clone().filter(|p| !p.is_empty()),
        accept_insecure_certs: flags.accept_insecure_certs.unwrap_or(false),
        url_rules: UrlRules {
            blocked: flags.blocked_url_pattern.clone(),
            allowed: flags.allowed_url_pattern.clone(),
        },
        javascript_evaluation: flags.javascript_evaluation.unwrap_or(true),
        file_navigations: flags.file_navigations.unwrap_or(true),
        source_maps: flags.source_maps.unwrap_or(true),
        redact_network_headers: flags.redact_network_headers.unwrap_or(false),
        screenshot: screenshot(flags)?,
        page_id_routing: flags.page_id_routing.unwrap_or(false),
    })
}

/// `--wsHeaders`: a JSON object of header names and (string) values.
fn ws_headers(text: &str) -> Result<Vec<(String, String)>, String> {
    let invalid = |why: &str| format!("Invalid JSON for wsHeaders: {why}");
    let value: Value = serde_json::from_str(text).map_err(|e| invalid(&e.to_string()))?;
    let Value::Object(map) = value else {
        return Err(invalid("Headers must be a JSON object"));
    };
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    map.into_iter()
        .map(|(name, value)| {
            if name.is_empty() || !name.chars().all(token) {
                return Err(invalid(&format!("{name:?} is not a header name")));
            }
            let value = match value {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                _ => return Err(invalid(&format!("the value of {name} must be a string"))),
            };
            // The values go into the request head as they are: no line breaks.
            if value.chars().any(|c| c.is_control() && c != '\t') {
                return Err(invalid(&format!(
                    "the value of {name} has a control character"
                )));
            }
            Ok((name, value))
        })
        .collect()
}

fn screenshot(flags: &Flags) -> Result<ScreenshotDefaults, String> {
    let format = match flags.screenshot_format.as_deref() {
        None => None,
        Some(f @ ("png" | "jpeg" | "webp")) => Some(f.to_owned()),
        Some(f) => {
            return Err(format!(
                "Invalid values:\n  Argument: screenshotFormat, Given: \"{f}\", Choices: \"jpeg\", \"png\", \"webp\""
            ))
        }
    };
    let quality = match flags.screenshot_quality.as_deref() {
        None => None,
        Some(q) => match q.parse::<u32>() {
            Ok(n) if n <= 100 => Some(n),
            _ => {
                return Err(format!(
                    "Invalid screenshotQuality {q}. Expected an integer between 0 and 100."
                ))
            }
        },
    };
    let bound = |name: &str, v: &Option<String>| match v.as_deref() {
        None => Ok(None),
        Some(text) => match text.parse::<u32>() {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => Err(format!(
                "Invalid {name} {text}. Expected a positive integer."
            )),
        },
    };
    Ok(ScreenshotDefaults {
        format,
        quality,
        max_width: bound("screenshotMaxWidth", &flags.screenshot_max_width)?,
        max_height: bound("screenshotMaxHeight", &flags.screenshot_max_height)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(args: &[&str]) -> Flags {
        let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match Flags::parse("devtools-mcp", &owned) {
            Ok((f, _)) => f,
            Err(e) => panic!("{}", e.output),
        }
    }

    #[test]
    fn defaults_are_the_references() {
        let p = policies(&Flags::default()).unwrap();
        assert_eq!(p, Policies::default());
        assert!(p.javascript_evaluation && p.file_navigations && !p.redact_network_headers);
    }

    #[test]
    fn newer_flags_parse() {
        let f = flags(&[
            "--wsEndpoint=ws://127.0.0.1:1/x",
            "--wsHeaders",
            r#"{"Authorization":"Bearer t"}"#,
            "--proxy-server=http://127.0.0.1:3128",
            "--acceptInsecureCerts",
            "--no-javascript-evaluation",
            "--fileNavigations=false",
            "--redactNetworkHeaders",
            "--screenshotFormat=jpeg",
            "--screenshotQuality",
            "40",
            "--screenshot-max-width=800",
            "--pageIdRouting",
            "--blockedUrlPattern=*://*/ads/*",
            "--blockedUrlPattern",
            "https://tracker.example/*",
        ]);
        let p = policies(&f).unwrap();
        assert_eq!(
            p.ws_headers,
            vec![("Authorization".into(), "Bearer t".into())]
        );
        assert_eq!(p.proxy_server.as_deref(), Some("http://127.0.0.1:3128"));
        assert!(p.accept_insecure_certs && p.redact_network_headers && p.page_id_routing);
        assert!(!p.javascript_evaluation && !p.file_navigations);
        assert_eq!(p.screenshot.format.as_deref(), Some("jpeg"));
        assert_eq!(p.screenshot.quality, Some(40));
        assert_eq!(p.screenshot.max_width, Some(800));
        assert_eq!(p.screenshot.max_height, None);
        assert_eq!(p.url_rules.blocked.len(), 2);
    }

    #[test]
    fn bad_values_are_named() {
        let err = |args: &[&str]| policies(&flags(args)).unwrap_err();
        assert_eq!(
            err(&["--screenshotQuality=101"]),
            "Invalid screenshotQuality 101. Expected an integer between 0 and 100."
        );
        assert_eq!(
            err(&["--screenshotMaxHeight=0"]),
            "Invalid screenshotMaxHeight 0. Expected a positive integer."
        );
        assert!(err(&["--screenshotFormat=gif"]).contains("Choices"));
        assert!(err(&["--wsEndpoint=ws://h/x", "--wsHeaders=[1]"])
            .contains("Headers must be a JSON object"));
        assert!(err(&["--wsHeaders={}"]).contains("wsHeaders -> wsEndpoint"));
        let ws = |h: &str| err(&["--wsEndpoint=ws://h/x", &format!("--wsHeaders={h}")]);
        assert!(ws(r#"{"a b": "x"}"#).contains("is not a header name"));
        assert!(ws(r#"{"X": "a\r\nEvil: 1"}"#).contains("control character"));
        assert!(
            err(&["--blockedUrlPattern=*://a/*", "--allowedUrlPattern=*://b/*"])
                .contains("mutually exclusive")
        );
        assert!(err(&["--allowedUrlPattern=*://10.0.0.*/*"]).contains("partial IPv4"));
    }
}
