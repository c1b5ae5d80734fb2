//! Command-line flags, spelled as chrome-devtools-mcp spells them, so that a configuration
//! written for the reference keeps working when only the command is swapped.
//!
//! The reference parses with yargs, which accepts `--flag value`, `--flag=value`, bare boolean
//! switches, `--flag=false` and `--no-flag`. argh accepts only `--flag value`, so the argument
//! list is first normalised into that form; flags that only matter to the reference (telemetry,
//! CrUX, …) are accepted and ignored with a note on stderr.

use std::path::PathBuf;
use std::time::Duration;

use argh::FromArgs;

use crate::settings::{
    BrowserSource, Categories, Category, Settings, DEFAULT_MAX_RESULT_BYTES, DEFAULT_TOOL_TIMEOUT,
};

/// A small, fast MCP server that drives Chromium over the Chrome DevTools Protocol and runs
/// the developer tools a page exposes.
#[derive(FromArgs, Debug, Default)]
pub struct Flags {
    /// path to the Chromium or Chrome executable (default: CHROME_PATH, then when headless
    /// chromium-headless-shell or chrome-headless-shell, then chromium, chromium-browser,
    /// google-chrome, google-chrome-stable on PATH)
    #[argh(option, short = 'e')]
    pub executable_path: Option<String>,

    /// run the browser headless (default true)
    #[argh(option)]
    pub headless: Option<bool>,

    /// lean browser: true starts the headless shell, false full Chromium (default: the shell
    /// when headless and installed)
    #[argh(option)]
    pub headless_shell: Option<bool>,

    /// start the browser in the background right after initialize, not at the first tool
    /// call that needs it (default false)
    #[argh(option)]
    pub prelaunch: Option<bool>,

    /// use a fresh temporary profile, deleted on exit (default unless --userDataDir is given)
    #[argh(option)]
    pub isolated: Option<bool>,

    /// the browser profile directory to use
    #[argh(option)]
    pub user_data_dir: Option<String>,

    /// an extra Chromium switch (repeatable), e.g. --chromeArg=--no-sandbox
    #[argh(option)]
    pub chrome_arg: Vec<String>,

    /// initial viewport as <width>x<height>, e.g. 1280x720
    #[argh(option)]
    pub viewport: Option<String>,

    /// connect to a running browser through its debugging port, e.g. http://127.0.0.1:9222
    #[argh(option, short = 'u')]
    pub browser_url: Option<String>,

    /// connect to a running browser through its DevTools websocket URL (ws://…)
    #[argh(option, short = 'w')]
    pub ws_endpoint: Option<String>,

    /// also write the log to this file
    #[argh(option)]
    pub log_file: Option<String>,

    /// show or hide a category of tools, as the reference's --category<Name>[=false] (e.g.
    /// --categoryNetwork=false, --categoryExtensions); repeatable
    #[argh(option)]
    pub category: Vec<String>,

    /// only the reference's three slim tools: navigate, evaluate, screenshot (default false)
    #[argh(option)]
    pub slim: Option<bool>,

    /// also list each page tool as an MCP tool of its own (default false)
    #[argh(option)]
    pub expose_page_tools: Option<bool>,

    /// default timeout of a tool call that runs page code, in ms (default 25000)
    #[argh(option)]
    pub tool_timeout: Option<u64>,

    /// maximum text of one tool result before it is truncated, in bytes (default 1000000)
    #[argh(option)]
    pub max_result_bytes: Option<usize>,

    /// a directory tools may read and write files in (repeatable; alias --workspace); without
    /// any, and without client roots, only the temp directory
    #[argh(option)]
    pub filesystem_root: Vec<String>,

    /// let tools read and write files anywhere when the client offers no roots (default false)
    #[argh(option)]
    pub allow_unrestricted_paths: Option<bool>,

    // --- The reference's newer flags (issue 10 part 3) ---
    /// headers of the websocket handshake with --wsEndpoint/--browserUrl, as a JSON object
    #[argh(option)]
    pub ws_headers: Option<String>,

    /// proxy server of the launched browser (its --proxy-server)
    #[argh(option)]
    pub proxy_server: Option<String>,

    /// ignore certificate errors (self-signed, expired); use with caution (default false)
    #[argh(option)]
    pub accept_insecure_certs: Option<bool>,

    /// block requests and navigations to URLs matching this URL pattern (repeatable)
    #[argh(option)]
    pub blocked_url_pattern: Vec<String>,

    /// allow only requests and navigations to URLs matching this URL pattern (repeatable)
    #[argh(option)]
    pub allowed_url_pattern: Vec<String>,

    /// false: no evaluate_script, no initScript, no javascript:/data:/vbscript: navigations
    #[argh(option)]
    pub javascript_evaluation: Option<bool>,

    /// false: no navigations to file: URLs (default true)
    #[argh(option)]
    pub file_navigations: Option<bool>,

    /// redact network header values that may be sensitive (default false)
    #[argh(option)]
    pub redact_network_headers: Option<bool>,

    /// take_screenshot's default format: png, jpeg or webp
    #[argh(option)]
    pub screenshot_format: Option<String>,

    /// take_screenshot's default quality for jpeg and webp (0-100)
    #[argh(option)]
    pub screenshot_quality: Option<String>,

    /// scale screenshots wider than this many pixels down
    #[argh(option)]
    pub screenshot_max_width: Option<String>,

    /// scale screenshots taller than this many pixels down
    #[argh(option)]
    pub screenshot_max_height: Option<String>,

    /// page tools require pageId (default false here; see README)
    #[argh(option)]
    pub page_id_routing: Option<bool>,

    /// a JSON file of these settings (camelCase keys); flags on the command line win
    #[argh(option)]
    pub config: Option<String>,

    /// print the version and exit
    #[argh(switch)]
    pub version: bool,
}

/// Flags that take a boolean: a bare `--flag` means true.
pub(crate) const BOOL_FLAGS: &[&str] = &[
    "headless",
    // Lean browser.
    "headlessShell",
    "prelaunch",
    "isolated",
    "exposePageTools",
    "slim",
    "allowUnrestrictedPaths",
    // issue 10 part 3
    "acceptInsecureCerts",
    "javascriptEvaluation",
    "fileNavigations",
    "redactNetworkHeaders",
    "pageIdRouting",
];

/// Flags that may be given more than once (arrays in a `--config` file).
pub(crate) const REPEATED_FLAGS: &[&str] = &[
    "chromeArg",
    "filesystemRoot",
    "blockedUrlPattern",
    "allowedUrlPattern",
];

/// Reference flags that change nothing here. `true` when the flag takes a value.
pub(crate) const IGNORED_FLAGS: &[(&str, bool)] = &[
    ("usageStatistics", false),
    ("performanceCrux", false),
    ("experimentalStructuredContent", false),
    ("experimentalIncludeAllPages", false),
    ("autoConnect", false),
    ("sourceMaps", false),
    ("experimentalVision", false),
    ("experimentalScreencast", false),
    ("experimentalInteropTools", false),
    ("experimentalDevtools", false),
    ("devtoolsComments", false),
    ("memoryDebugging", false),
    ("channel", true),
    ("ignoreDefaultChromeArg", true),
    ("experimentalDataFormat", true),
    // issue 10 part 3: the rest of the reference's telemetry and recording switches
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
fn camel(name: &str) -> String {
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
pub fn normalize(args: &[String]) -> (Vec<String>, Vec<String>) {
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
        // The reference's alias.
        let name = if name == "workspace" {
            "filesystemRoot".to_string()
        } else {
            name
        };
        // `--no-flag` → `--flag false`
        let (name, negated) = match name.strip_prefix("no") {
            Some(rest)
                if rest.starts_with(|c: char| c.is_ascii_uppercase())
                    && inline.is_none()
                    && is_boolean_name(&lower_first(rest)) =>
            {
                (lower_first(rest), true)
            }
            _ => (name, false),
        };
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
fn category_named(flag: &str) -> Option<Category> {
    let suffix = flag.strip_prefix("category")?;
    Category::ALL
        .into_iter()
        .find(|c| c.flag_suffix() == suffix)
}

/// `--category` values (`Network=false`) as the categories they show or hide.
fn categories(given: &[String]) -> Result<Categories, String> {
    let parse = |v: &String| {
        let (name, on) = v.split_once('=').unwrap_or((v.as_str(), "true"));
        let bad = || format!("unknown tool category or value: --category{name}={on}");
        let c = Category::ALL
            .into_iter()
            .find(|c| c.flag_suffix().eq_ignore_ascii_case(name))
            .ok_or_else(bad)?;
        let on = on.parse::<bool>().map_err(|_| bad())?;
        Ok((c, on))
    };
    let given = given.iter().map(parse).collect::<Result<_, String>>()?;
    Ok(Categories { given })
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

impl Flags {
    /// Parses the process arguments (without the program name).
    pub fn parse(program: &str, args: &[String]) -> Result<(Flags, Vec<String>), argh::EarlyExit> {
        let (mut normalized, mut notes) = normalize(args);
        let refs: Vec<&str> = normalized.iter().map(String::as_str).collect();
        let flags = Flags::from_args(&[program], &refs)?;
        let Some(path) = &flags.config else {
            return Ok((flags, notes));
        };
        // `--config` (issue 10 part 3): the file's settings join the command line's, which win.
        let refuse = |output: String| argh::EarlyExit {
            output,
            status: Err(()),
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| refuse(format!("Invalid JSON config file: cannot read {path}: {e}")))?;
        let given = normalized
            .iter()
            .filter_map(|a| a.strip_prefix("--"))
            .map(camel)
            .collect();
        let (more, more_notes) =
            normalize(&super::policies::config_args(&text, &given).map_err(refuse)?);
        normalized.extend(more);
        notes.extend(more_notes);
        let refs: Vec<&str> = normalized.iter().map(String::as_str).collect();
        Flags::from_args(&[program], &refs).map(|f| (f, notes))
    }
}

/// What the flags mean.
pub fn settings(flags: &Flags) -> Result<Settings, String> {
    let source = match (&flags.browser_url, &flags.ws_endpoint) {
        (Some(_), Some(_)) => {
            return Err("give either --browserUrl or --wsEndpoint, not both".into())
        }
        (Some(url), None) => BrowserSource::BrowserUrl(url.clone()),
        (None, Some(ws)) => BrowserSource::WsEndpoint(ws.clone()),
        (None, None) => BrowserSource::Launch,
    };
    let viewport = match &flags.viewport {
        None => None,
        Some(v) => Some(parse_viewport(v)?),
    };
    let isolated = flags.isolated.unwrap_or(flags.user_data_dir.is_none());
    // Lean browser: the shell has no window to show.
    let headless = flags.headless.unwrap_or(true);
    if flags.headless_shell == Some(true) && !headless {
        return Err("--headlessShell runs only headless; drop it or --headless=false".into());
    }
    Ok(Settings {
        source,
        executable_path: flags.executable_path.clone(),
        headless,
        headless_shell: flags.headless_shell,
        prelaunch: flags.prelaunch.unwrap_or(false),
        user_data_dir: if isolated {
            None
        } else {
            flags.user_data_dir.as_ref().map(PathBuf::from)
        },
        chrome_args: flags.chrome_arg.clone(),
        viewport,
        expose_page_tools: flags.expose_page_tools.unwrap_or(false),
        tool_timeout: flags
            .tool_timeout
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TOOL_TIMEOUT),
        max_result_bytes: flags.max_result_bytes.unwrap_or(DEFAULT_MAX_RESULT_BYTES),
        file_roots: flags.filesystem_root.iter().map(PathBuf::from).collect(),
        unrestricted_paths: flags.allow_unrestricted_paths.unwrap_or(false),
        slim: flags.slim.unwrap_or(false),
        categories: categories(&flags.category)?,
        policies: super::policies::policies(flags)?,
    })
}

fn parse_viewport(v: &str) -> Result<(u32, u32), String> {
    let bad = || format!("--viewport must look like 1280x720 (got {v})");
    let (w, h) = v.split_once('x').ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if w == 0 || h == 0 {
        return Err(bad());
    }
    Ok((w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Flags {
        let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match Flags::parse("devtools-mcp", &owned) {
            Ok((f, _)) => f,
            Err(e) => panic!("{}", e.output),
        }
    }

    #[test]
    fn reference_forms() {
        let f = parse(&[
            "--executablePath=/usr/bin/chromium",
            "--headless",
            "--isolated",
            "--categoryExperimentalThirdParty=true",
            "--no-page-id-routing",
            "--no-usage-statistics",
            "--chromeArg=--no-sandbox",
            "--chromeArg",
            "--disable-gpu",
            "--viewport",
            "800x600",
        ]);
        assert_eq!(f.executable_path.as_deref(), Some("/usr/bin/chromium"));
        assert_eq!(f.headless, Some(true));
        assert_eq!(f.isolated, Some(true));
        assert_eq!(f.category, vec!["ExperimentalThirdParty=true"]);
        assert_eq!(f.chrome_arg, vec!["--no-sandbox", "--disable-gpu"]);
        assert_eq!(f.viewport.as_deref(), Some("800x600"));
    }

    #[test]
    fn file_roots_and_their_alias() {
        let f = parse(&[
            "--filesystemRoot=/a",
            "--workspace",
            "/b",
            "--allowUnrestrictedPaths",
        ]);
        assert_eq!(f.filesystem_root, vec!["/a", "/b"]);
        assert_eq!(f.allow_unrestricted_paths, Some(true));
        assert_eq!(
            parse(&["--no-allow-unrestricted-paths"]).allow_unrestricted_paths,
            Some(false)
        );
    }

    #[test]
    fn booleans_with_values() {
        assert_eq!(parse(&["--headless=false"]).headless, Some(false));
        assert_eq!(parse(&["--headless", "false"]).headless, Some(false));
        assert_eq!(parse(&["--no-headless"]).headless, Some(false));
        assert_eq!(parse(&["--headless", "--isolated"]).isolated, Some(true));
        assert_eq!(parse(&["--headlessShell"]).headless_shell, Some(true));
        assert_eq!(parse(&["--no-headless-shell"]).headless_shell, Some(false));
        let window_and_shell = parse(&["--headless=false", "--headlessShell"]);
        assert!(settings(&window_and_shell).is_err());
    }

    #[test]
    fn short_and_kebab_forms() {
        let f = parse(&["-u", "http://127.0.0.1:9222", "--user-data-dir", "/tmp/p"]);
        assert_eq!(f.browser_url.as_deref(), Some("http://127.0.0.1:9222"));
        assert_eq!(f.user_data_dir.as_deref(), Some("/tmp/p"));
    }

    #[test]
    fn ignored_flags_swallow_their_values() {
        let owned: Vec<String> = [
            "--channel",
            "stable",
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
    fn slim_and_tool_categories() {
        let f = parse(&[
            "--slim",
            "--categoryEmulation=false",
            "--no-category-network",
            "--categoryExtensions",
            "--categoryPerformance",
            "false",
            "--categoryExperimentalThirdParty=false",
        ]);
        assert_eq!(f.slim, Some(true));
        let s = settings(&f).unwrap();
        assert!(s.slim);
        let on = |c| s.categories.on(c);
        assert!(!on(Category::Emulation) && !on(Category::Network));
        assert!(!on(Category::Performance) && !on(Category::ThirdParty));
        assert!(on(Category::Extensions) && on(Category::Input));
        // Off by default, as in the reference.
        assert!(!on(Category::Pwa) && !on(Category::Webmcp));
        let d = settings(&Flags::default()).unwrap();
        assert!(!d.slim && d.categories.on(Category::ThirdParty));
        assert!(settings(&parse(&["--category", "Nope=false"])).is_err());
    }

    #[test]
    fn unknown_flags_are_errors() {
        let owned = vec!["--bogusFlag".to_string()];
        assert!(Flags::parse("devtools-mcp", &owned).is_err());
    }

    #[test]
    fn viewport() {
        assert_eq!(parse_viewport("1280x720"), Ok((1280, 720)));
        assert!(parse_viewport("1280").is_err());
        assert!(parse_viewport("0x5").is_err());
    }

    #[test]
    fn isolated_unless_a_profile_is_given() {
        let mut f = Flags::default();
        assert!(settings(&f).unwrap().user_data_dir.is_none());
        f.user_data_dir = Some("/tmp/p".into());
        assert!(settings(&f).unwrap().user_data_dir.is_some());
        f.isolated = Some(true);
        assert!(settings(&f).unwrap().user_data_dir.is_none());
    }
}
