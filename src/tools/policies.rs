//! What the reference's newer flags change about the tools themselves (issue 10 part 3):
//! `--javascriptEvaluation=false` takes `evaluate_script` and `initScript` away and refuses
//! script and data URLs, `--fileNavigations=false` refuses `file:` URLs, and `--pageIdRouting`
//! makes `pageId` required on page tools.

use serde_json::{json, Value};

use super::Tool;
use crate::settings::Policies;

/// Whether the flags leave the tool in the list.
pub fn enabled(tool: &Tool, p: &Policies) -> bool {
    // --slim's `evaluate` runs page code as much as `evaluate_script` does.
    p.javascript_evaluation || !matches!(tool.name, "evaluate_script" | "evaluate")
}

/// The tool's listing as the flags shape it.
pub fn shape(tool: &Tool, mut listed: Value, p: &Policies) -> Value {
    let schema = &mut listed["inputSchema"];
    if p.page_id_routing && tool.page_scoped {
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
pub fn problems(tool: &Tool, args: &Value, p: &Policies) -> Option<String> {
    if p.page_id_routing && tool.page_scoped && args.get("pageId").is_none() {
        return Some("\"pageId\" is a required property".into());
    }
    if !p.javascript_evaluation && tool.name == "navigate_page" && args.get("initScript").is_some()
    {
        return Some("Additional properties are not allowed ('initScript' was unexpected)".into());
    }
    None
}

/// The reference's refusal of a navigation to `url` the flags forbid.
pub fn refused_navigation(url: &str, p: &Policies) -> Option<String> {
    let scheme = scheme(url)?;
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
    None
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
        let refused = |url: &str| refused_navigation(url, &p);
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
        assert!(refused_navigation("file:///x", &Policies::default()).is_none());
    }
}
