//! The reference's flag spellings. chrome-devtools-mcp parses with yargs, which accepts
//! `--flag value`, `--flag=value`, bare boolean switches, `--flag=false` and `--no-flag`;
//! argh accepts only `--flag value`, so the argument list is first normalised into that form.
//! Flags that only matter to the reference (telemetry, CrUX, …) are accepted and ignored with
//! a note on stderr.

use crate::settings::Category;

/// Flags that take a boolean: a bare `--flag` means true.
pub(super) const BOOL_FLAGS: &[&str] = &[
    "headless",
    // Lean browser.
    "headlessShell",
    "prelaunch",
    "isolated",
    "exposePageTools",
    "slim",
    "allowUnrestrictedPaths",
    "memoryDebugging",
    // Switches of the reference's newer flags, checked into `settings::Policies`.
    "acceptInsecureCerts",
    "javascriptEvaluation",
    "fileNavigations",
    "sourceMaps",
    "redactNetworkHeaders",
    "pageIdRouting",
    // What the reference's experimental switches change here too.
    "experimentalStructuredContent",
    "experimentalIncludeAllPages",
    "experimentalVision",
];

/// Flags that take one value.
pub(super) const VALUED_FLAGS: &[&str] = &[
    "executablePath",
    "channel",
    "experimentalDataFormat",
    "userDataDir",
    "viewport",
    "browserUrl",
    "wsEndpoint",
    "logFile",
    "toolTimeout",
    "maxResultBytes",
    "wsHeaders",
    "proxyServer",
    "screenshotFormat",
    "screenshotQuality",
    "screenshotMaxWidth",
    "screenshotMaxHeight",
    "config",
];

/// The reference's other names of its options (`-e` and the like argh reads itself).
pub(super) const ALIASES: &[(&str, &str)] = &[
    ("workspace", "filesystemRoot"),
    ("experimentalMemory", "memoryDebugging"),
    ("experimentalScreencastFps", "screencastFps"),
    ("e", "executablePath"),
    ("u", "browserUrl"),
    ("w", "wsEndpoint"),
];

/// The option an alias names, or `name` itself.
pub(super) fn canonical(name: &str) -> &str {
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, option)| option)
}

/// Flags that may be given more than once (arrays in a `--config` file).
pub(super) const REPEATED_FLAGS: &[&str] = &[
    "chromeArg",
    "filesystemRoot",
    "blockedUrlPattern",
    "allowedUrlPattern",
];

/// Reference flags that change nothing here. `true` when the flag takes a value.
pub(super) const IGNORED_FLAGS: &[(&str, bool)] = &[
    ("usageStatistics", false),
    ("performanceCrux", false),
    ("autoConnect", false),
    ("experimentalScreencast", false),
    ("experimentalInteropTools", false),
    ("experimentalDevtools", false),
    ("devtoolsComments", false),
    ("ignoreDefaultChromeArg", true),
    // The rest of the reference's telemetry and recording switches.
    ("experimentalToonFormat", false),
    ("clearcutIncludePidHeader", false),
    ("viaCli", false),
    ("clearcutEndpoint", true),
    ("clearcutForceFlushIntervalMs", true),
    ("experimentalFfmpegPath", true),
    ("screencastFps", true),
    // added in the reference's 1.12: config reloading, and how many navigations' requests it keeps
    ("watchConfig", false),
    ("maxNavigationSaved", true),
];

/// kebab-case for argh: `executablePath` → `executable-path`.
fn kebab(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// camelCase for lookups: accepts both `executable-path` and `executablePath`.
pub(super) fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '-' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn is_bool_word(s: &str) -> bool {
    matches!(s, "true" | "false")
}

/// Rewrites the reference's flag forms into argh's `--kebab-name value`.
/// Returns the arguments for argh and notes about ignored flags.
pub(super) fn normalize(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(body) = arg.strip_prefix("--") else {
            out.push(arg.clone());
            continue;
        };
        if body.is_empty() || body == "help" || body == "version" {
            out.push(arg.clone());
            continue;
        }
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (camel(n), Some(v.to_string())),
            None => (camel(body), None),
        };
        // `--no-flag` → `--flag false`, then the reference's aliases.
        let (name, negated) = match name.strip_prefix("no") {
            Some(rest)
                if rest.starts_with(|c: char| c.is_ascii_uppercase())
                    && inline.is_none()
                    && is_boolean_name(canonical(&lower_first(rest))) =>
            {
                (lower_first(rest), true)
            }
            _ => (name, false),
        };
        let name = canonical(&name).to_owned();
        if let Some((_, takes_value)) = IGNORED_FLAGS.iter().find(|(n, _)| *n == name) {
            // Swallow the flag's value: always for a valued flag, "true"/"false" for a switch.
            if inline.is_none() && i < args.len() && (*takes_value || is_bool_word(&args[i])) {
                i += 1;
            }
            notes.push(format!("--{name} has no effect in devtools-mcp; ignored"));
            continue;
        }
        // Tool categories: `--categoryNetwork=false` → `--category Network=false`.
        if let Some(c) = category_named(&name) {
            let value = bool_value(negated, inline, args, &mut i);
            out.push("--category".into());
            out.push(format!("{}={value}", c.flag_suffix()));
            continue;
        }
        out.push(format!("--{}", kebab(&name)));
        if BOOL_FLAGS.contains(&name.as_str()) {
            out.push(bool_value(negated, inline, args, &mut i));
        } else if let Some(v) = inline {
            out.push(v);
        }
    }
    (out, notes)
}

/// A boolean flag's value: `--no-flag`, `--flag=v`, `--flag true|false` or a bare `--flag`.
fn bool_value(negated: bool, inline: Option<String>, args: &[String], i: &mut usize) -> String {
    if negated {
        "false".to_string()
    } else if let Some(v) = inline {
        v
    } else if *i < args.len() && is_bool_word(&args[*i]) {
        *i += 1;
        args[*i - 1].clone()
    } else {
        "true".to_string()
    }
}

/// The category a `--category<Name>` flag names.
pub(super) fn category_named(flag: &str) -> Option<Category> {
    let suffix = flag.strip_prefix("category")?;
    Category::ALL
        .into_iter()
        .find(|c| c.flag_suffix() == suffix)
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_ascii_lowercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

fn is_boolean_name(name: &str) -> bool {
    BOOL_FLAGS.contains(&name)
        || category_named(name).is_some()
        || IGNORED_FLAGS.iter().any(|(n, v)| *n == name && !*v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_flags_swallow_their_values() {
        let owned: Vec<String> = [
            "--clearcutEndpoint",
            "https://example.invalid/",
            "--performanceCrux=false",
            "--isolated",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (out, notes) = normalize(&owned);
        assert_eq!(out, vec!["--isolated", "true"]);
        assert_eq!(notes.len(), 2);
    }

    #[test]
    fn aliases_and_their_negations() {
        let owned: Vec<String> = [
            "--experimental-memory",
            "--no-experimental-memory",
            "--experimentalScreencastFps=5",
            "--workspace",
            "/w",
            "--e",
            "/c",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (out, notes) = normalize(&owned);
        assert_eq!(
            out,
            vec![
                "--memory-debugging",
                "true",
                "--memory-debugging",
                "false",
                "--filesystem-root",
                "/w",
                "--executable-path",
                "/c"
            ]
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("--screencastFps"), "{notes:?}");
    }
}
