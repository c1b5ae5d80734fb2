//! What the reference's newer flags change about the tools themselves:
//! `--javascriptEvaluation=false` takes `evaluate_script` and `initScript` away and refuses
//! script and data URLs, `--fileNavigations=false` refuses `file:` URLs, and `--pageIdRouting`
//! makes `pageId` required on page tools.

use serde_json::{json, Value};
use url::Url;

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

/// The reference's checks on a URL before any navigation, in its order: the URL must parse
/// (by the URL standard: the `url` crate's parser, as the reference's `new URL` and the
/// browser read it), then the flags' refusals, then browser pages (`chrome:` except the
/// new-tab page and `chrome://inspect`, `chrome-untrusted:`) and, unless the extensions
/// category is on, extension pages.
fn refused_navigation(url: &str, p: &Policies, extensions: bool) -> Option<String> {
    let Ok(parsed) = Url::parse(url) else {
        return Some(format!(
            "Invalid URL: \"{url}\". URLs must be valid according to the URL standard."
        ));
    };
    let scheme = parsed.scheme();
    if !p.javascript_evaluation && matches!(scheme, "javascript" | "data" | "vbscript") {
        return Some(format!(
            "Navigating to {scheme}: URLs is not allowed when JavaScript evaluation is disabled."
        ));
    }
    if !p.file_navigations && targets_file(&parsed) {
        return Some(
            "Navigating to file: URLs is not allowed when --file-navigations is disabled.".into(),
        );
    }
    match scheme {
        "chrome" if browser_page_allowed(&parsed) => None,
        "chrome" | "chrome-untrusted" => {
            Some(format!("Navigating to {scheme}: URLs is not allowed."))
        }
        "chrome-extension" if !extensions => Some(
            "Navigating to chrome-extension: URLs is not allowed without --categoryExtensions."
                .into(),
        ),
        _ => None,
    }
}

/// The `chrome:` pages a navigation may open: the new-tab page and `chrome://inspect`, named
/// by the host (`chrome://newtab/`) or, without one, by the path (`chrome:inspect`).
fn browser_page_allowed(url: &Url) -> bool {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let path = url.path().to_ascii_lowercase();
    match host.as_str() {
        "newtab" | "new-tab-page" | "inspect" => true,
        "" => matches!(path.as_str(), "newtab" | "new-tab-page") || path.starts_with("inspect"),
        _ => false,
    }
}

/// Whether the URL loads a `file:` URL, itself or through `view-source:` (the browser shows
/// the source of the URL inside, which is parsed again as a URL of its own).
fn targets_file(url: &Url) -> bool {
    let mut current = url.clone();
    // Bounded, as the reference bounds it, against a pathological chain.
    for _ in 0..5 {
        if current.scheme() != "view-source" {
            break;
        }
        match Url::parse(current.path()) {
            Ok(inner) => current = inner,
            Err(_) => return false,
        }
    }
    current.scheme() == "file"
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

    /// URLs where a naive reading and the URL standard differ, each with what the reference
    /// (its `validateUrl`, run on Node's WHATWG `URL`) answers with every refusal on.
    #[test]
    fn urls_are_read_as_the_standard_reads_them() {
        let (file, js) = (
            "Navigating to file: URLs is not allowed when --file-navigations is disabled.",
            "Navigating to javascript: URLs is not allowed when JavaScript evaluation is disabled.",
        );
        let chrome = "Navigating to chrome: URLs is not allowed.";
        let p = off();
        for (url, expected) in [
            ("fi\tle:///etc/passwd", Some(file)),
            ("\nfile:///etc/passwd", Some(file)),
            ("\u{1} file:///etc/passwd", Some(file)),
            ("file:\\\\\\etc\\passwd", Some(file)),
            ("file://host/x", Some(file)),
            ("view-source:view-source:file:///etc/passwd", Some(file)),
            ("view-source:fi\nle:///x", Some(file)),
            ("view-source:fi%6ce:///x", None),
            ("view-source:http://a/", None),
            ("java\tscript:alert(1)", Some(js)),
            ("\u{0}javascript:alert(1)", Some(js)),
            ("chrome://newtab@settings/", Some(chrome)),
            ("chrome://settings/newtab", Some(chrome)),
            ("chrome:/inspect", Some(chrome)),
            ("chrome:\\\\settings", Some(chrome)),
            ("chrome://inspect/../settings", None),
            ("chrome:inspect", None),
            ("chrome://NewTab/", None),
            ("http://[::1]:9/x", None),
            ("http://user:pw@[::1]/", None),
            ("http://a/%zz", None),
            ("http://%41/", None),
            ("http://\\\\a/", None),
            ("https:example.com", None),
            ("http:/a/x", None),
        ] {
            assert_eq!(
                refused_navigation(url, &p, false).as_deref(),
                expected,
                "{url:?}"
            );
        }
        let chain = format!("{}file:///x", "view-source:".repeat(6));
        assert_eq!(
            refused_navigation(&chain, &p, false),
            None,
            "bounded as the reference"
        );
        assert_eq!(
            refused_navigation("http://[::1]x/", &p, false).as_deref(),
            Some("Invalid URL: \"http://[::1]x/\". URLs must be valid according to the URL standard.")
        );
        assert_eq!(
            refused_navigation("CHROME-EXTENSION://abc/", &p, false).as_deref(),
            Some(
                "Navigating to chrome-extension: URLs is not allowed without --categoryExtensions."
            )
        );
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
