//! What the reference's newer flags change about the tools themselves:
//! `--javascriptEvaluation=false` takes `evaluate_script` and `initScript` away and refuses
//! script and data URLs, `--fileNavigations=false` refuses `file:` URLs, and `--pageIdRouting`
//! makes `pageId` required on page tools.

use serde_json::{json, Value};

use super::tool::Tool;
use crate::settings::{Category, Policies, Settings};

/// Whether the flags leave the tool in the list.
pub(super) fn enabled(tool: &Tool, settings: &Settings) -> bool {
    // --slim's `evaluate` runs page code as much as `evaluate_script` does.
    let evaluates = matches!(tool.name, "evaluate_script" | "evaluate");
    // Coordinates are for models that read screenshots: offered, as by the reference, only
    // with --experimentalVision.
    let vision = tool.name == "click_at";
    (settings.policies.javascript_evaluation || !evaluates) && (settings.vision || !vision)
}

/// The tool's listing as the flags shape it.
pub(super) fn shape(tool: &Tool, mut listed: Value, p: &Policies) -> Value {
    let schema = &mut listed["inputSchema"];
    if p.page_id_routing && tool.page_scoped() {
        match schema.get_mut("required").and_then(Value::as_array_mut) {
            Some(required) => required.insert(0, json!("pageId")),
            None => schema["required"] = json!(["pageId"]),
        }
    }
    if let (Some(format), "take_screenshot") = (&p.screenshot.format, tool.name) {
        schema["properties"]["format"]["default"] = json!(format);
    }
    if !p.javascript_evaluation {
        if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            props.remove("initScript");
        }
    }
    listed
}

/// What is wrong with the arguments under the flags (in the schema check's words), beyond what
/// the tool's own schema says.
pub(super) fn problems(tool: &Tool, args: &Value, p: &Policies) -> Option<String> {
    if p.page_id_routing && tool.page_scoped() && args.get("pageId").is_none() {
        return Some("\"pageId\" is a required property".into());
    }
    if !p.javascript_evaluation && tool.name == "navigate_page" && args.get("initScript").is_some()
    {
        return Some("Additional properties are not allowed ('initScript' was unexpected)".into());
    }
    None
}

/// Why the settings refuse a navigation to `url`, if they do ([`refused_navigation`] with
/// the server's flags and categories).
pub(super) fn refused_url(settings: &Settings, url: &str) -> Option<String> {
    let extensions = settings.categories.on(Category::Extensions);
    refused_navigation(url, &settings.policies, extensions)
}

/// The reference's checks on a URL before any navigation, in its order: the URL must parse,
/// then the flags' refusals, then browser pages (`chrome:` except the new-tab page and
/// `chrome://inspect`, `chrome-untrusted:`) and, unless the extensions category is on,
/// extension pages.
fn refused_navigation(url: &str, p: &Policies, extensions: bool) -> Option<String> {
    let Some(scheme) = scheme(url).filter(|s| parses(url, s)) else {
        return Some(format!(
            "Invalid URL: \"{url}\". URLs must be valid according to the URL standard."
        ));
    };
    if !p.javascript_evaluation && matches!(scheme.as_str(), "javascript" | "data" | "vbscript") {
        return Some(format!(
            "Navigating to {scheme}: URLs is not allowed when JavaScript evaluation is disabled."
        ));
    }
    if !p.file_navigations && targets_file(url) {
        return Some(
            "Navigating to file: URLs is not allowed when --file-navigations is disabled.".into(),
        );
    }
    let rest = after_scheme(url, &scheme)
        .trim_start_matches('/')
        .to_ascii_lowercase();
    let allowed =
        match scheme.as_str() {
            "chrome" => ["newtab", "new-tab-page", "inspect"]
                .iter()
                .any(|page| rest.starts_with(page)),
            "chrome-untrusted" => false,
            "chrome-extension" if !extensions => return Some(
                "Navigating to chrome-extension: URLs is not allowed without --categoryExtensions."
                    .into(),
            ),
            _ => true,
        };
    (!allowed).then(|| format!("Navigating to {scheme}: URLs is not allowed."))
}

/// What follows the scheme and its colon.
fn after_scheme<'a>(url: &'a str, scheme: &str) -> &'a str {
    let trimmed = url.trim_matches(|c: char| c <= ' ');
    trimmed.get(scheme.len() + 1..).unwrap_or("")
}

/// Whether a URL with this scheme parses: for the schemes with hosts (http, https, ws, wss,
/// ftp) the URL standard needs a host free of forbidden characters and a numeric port below
/// 65536; other schemes take any rest.
fn parses(url: &str, scheme: &str) -> bool {
    if !matches!(scheme, "http" | "https" | "ws" | "wss" | "ftp") {
        return true;
    }
    let rest = after_scheme(url, scheme).trim_start_matches(['/', '\\']);
    let authority = rest.split(['/', '\\', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match host_port.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, tail)) if !addr.is_empty() => (addr, tail.strip_prefix(':')),
            _ => return false,
        },
        None => match host_port.rsplit_once(':') {
            Some((h, port)) => (h, Some(port)),
            None => (host_port, None),
        },
    };
    let forbidden = |c: char| c <= ' ' || "#/:<>?@[\\]^|".contains(c);
    let port_ok = port.is_none_or(|p| {
        p.is_empty()
            || (p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u32>().is_ok_and(|n| n < 65536))
    });
    !host.is_empty() && (host_port.starts_with('[') || !host.contains(forbidden)) && port_ok
}

/// A URL's scheme as the URL standard reads it: surrounding spaces and controls and any tab
/// or newline ignored, case folded.
fn scheme(url: &str) -> Option<String> {
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (scheme, _) = cleaned.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| scheme.to_ascii_lowercase())
}

/// Whether the URL loads a `file:` URL, itself or through `view-source:` (the browser shows
/// the source of the URL inside).
fn targets_file(url: &str) -> bool {
    let mut current = url.trim_matches(|c: char| c <= ' ').to_owned();
    // Bounded, as the reference bounds it, against a pathological chain.
    for _ in 0..5 {
        match scheme(&current).as_deref() {
            Some("view-source") => {
                let inner = current.split_once(':').map(|(_, rest)| rest.to_owned());
                current = inner.unwrap_or_default();
            }
            Some("file") => return true,
            _ => return false,
        }
    }
    scheme(&current).as_deref() == Some("file")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn off() -> Policies {
        Policies {
            javascript_evaluation: false,
            file_navigations: false,
            ..Default::default()
        }
    }

    #[test]
    fn navigations_the_flags_refuse() {
        let p = off();
        let refused = |url: &str| refused_navigation(url, &p, false);
        assert_eq!(
            refused(" JavaScript:alert(1)").as_deref(),
            Some("Navigating to javascript: URLs is not allowed when JavaScript evaluation is disabled.")
        );
        assert!(refused("data:text/html,x").is_some());
        assert!(refused("vbscript:x").is_some());
        assert_eq!(
            refused("view-source:FILE:///etc/passwd").as_deref(),
            Some("Navigating to file: URLs is not allowed when --file-navigations is disabled.")
        );
        assert!(refused("file:///etc/passwd").is_some());
        assert!(refused("fi\tle:///etc/passwd").is_some());
        assert!(refused("http://127.0.0.1/file:x").is_none());
        assert!(refused_navigation("file:///x", &Policies::default(), false).is_none());
    }

    #[test]
    fn urls_are_checked_as_the_reference_checks_them() {
        let refused = |url: &str, ext: bool| refused_navigation(url, &Policies::default(), ext);
        for ok in [
            "http://127.0.0.1:1/",
            "about:blank",
            "chrome://newtab/",
            "chrome://inspect/#devices",
            "localhost:8080",
            "http://[::1]:9/x",
            "https://user:pw@example.com:443/?q#h",
            "data:text/html,<p>x",
        ] {
            assert_eq!(refused(ok, false), None, "{ok}");
        }
        for bad in [
            "nope",
            "127.0.0.1:8080",
            "/path",
            "http://",
            "http://a b/",
            "http://x:99999/",
            "http://x:8o/",
            "http://[::1/",
        ] {
            assert_eq!(
                refused(bad, false),
                Some(format!(
                    "Invalid URL: \"{bad}\". URLs must be valid according to the URL standard."
                )),
                "{bad}"
            );
        }
        assert_eq!(
            refused("chrome://settings", false).as_deref(),
            Some("Navigating to chrome: URLs is not allowed.")
        );
        assert_eq!(
            refused("chrome-untrusted://x/", true).as_deref(),
            Some("Navigating to chrome-untrusted: URLs is not allowed.")
        );
        assert!(refused("chrome-extension://abc/x.html", false).is_some());
        assert_eq!(refused("chrome-extension://abc/x.html", true), None);
    }
}
