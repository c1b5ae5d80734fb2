//! `--config`: a JSON file of the same settings as the flags, read into more command-line
//! arguments, so that one parser and one set of checks serve both.

use std::collections::HashSet;

use serde_json::Value;

use super::spellings::{
    canonical, category_named, BOOL_FLAGS, IGNORED_FLAGS, REPEATED_FLAGS, VALUED_FLAGS,
};

/// Every name a `--config` file may use: the options' own names and the reference's aliases,
/// never kebab-case (the reference reads the file without expanding names).
fn known(name: &str) -> bool {
    let name = canonical(name);
    BOOL_FLAGS.contains(&name)
        || REPEATED_FLAGS.contains(&name)
        || VALUED_FLAGS.contains(&name)
        || category_named(name).is_some()
        || IGNORED_FLAGS.iter().any(|(n, _)| *n == name)
}

/// The settings of a `--config` file as command-line arguments, leaving out those the command
/// line sets itself (`given`: camelCase names), since the command line wins. Unknown keys are
/// an error that names them all, as the reference's.
pub(super) fn as_args(text: &str, given: &HashSet<String>) -> Result<Vec<String>, String> {
    let invalid = |why: String| format!("Invalid JSON config file: {why}");
    let value: Value = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
    let Value::Object(map) = value else {
        return Err(invalid("Config must be a JSON object".into()));
    };
    let unknown: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|k| !known(k))
        .collect();
    match unknown.len() {
        0 => {}
        1 => return Err(invalid(format!("Unknown argument: {}", unknown[0]))),
        _ => {
            return Err(invalid(format!(
                "Unknown arguments: {}",
                unknown.join(", ")
            )))
        }
    }
    let mut args = Vec::new();
    for (name, value) in map {
        if given.contains(canonical(&name)) || name == "config" {
            continue;
        }
        let items = match value {
            Value::Array(items) => items,
            Value::Null => continue,
            one => vec![one],
        };
        for item in items {
            let text = match item {
                Value::String(s) => s,
                Value::Bool(_) | Value::Number(_) => item.to_string(),
                _ => {
                    return Err(invalid(format!(
                        "{name} must be a string, number or boolean"
                    )))
                }
            };
            args.push(format!("--{name}={text}"));
        }
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_files() {
        let given: HashSet<String> = ["headless".to_string()].into();
        let args = as_args(
            r#"{"headless": false, "chromeArg": ["--a", "--b"], "screenshotMaxWidth": 640,
                "usageStatistics": false, "workspace": "/w"}"#,
            &given,
        )
        .unwrap();
        assert_eq!(
            args,
            vec![
                "--chromeArg=--a",
                "--chromeArg=--b",
                "--screenshotMaxWidth=640",
                "--usageStatistics=false",
                "--workspace=/w"
            ]
        );
        assert_eq!(
            as_args(r#"{"bogus": 1, "alsoBogus": 2}"#, &given).unwrap_err(),
            "Invalid JSON config file: Unknown arguments: bogus, alsoBogus"
        );
        assert_eq!(
            as_args("[]", &given).unwrap_err(),
            "Invalid JSON config file: Config must be a JSON object"
        );
    }
}
