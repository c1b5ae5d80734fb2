//! `Flags`: the command line as argh reads it, once the reference's spellings are normalised
//! and a `--config` file's settings joined. The field docs are `--help`'s text.

use argh::FromArgs;

use super::{config, spellings};

/// A small, fast MCP server that drives Chromium over the Chrome DevTools Protocol and runs
/// the developer tools a page exposes.
#[derive(FromArgs, Debug, Default)]
pub(crate) struct Flags {
    /// path to the Chromium or Chrome executable (default: CHROME_PATH, then when headless
    /// chromium-headless-shell or chrome-headless-shell, then chromium, chromium-browser,
    /// google-chrome, google-chrome-stable on PATH)
    #[argh(option, short = 'e')]
    pub(crate) executable_path: Option<String>,

    /// the installed Google Chrome of this channel: stable, beta, dev or canary
    #[argh(option)]
    pub(crate) channel: Option<String>,

    /// run the browser headless (default true)
    #[argh(option)]
    pub(crate) headless: Option<bool>,

    /// lean browser: true starts the headless shell, false full Chromium (default: the shell
    /// when headless and installed)
    #[argh(option)]
    pub(crate) headless_shell: Option<bool>,

    /// start the browser in the background right after initialize, not at the first tool
    /// call that needs it (default false)
    #[argh(option)]
    pub(crate) prelaunch: Option<bool>,

    /// use a fresh temporary profile, deleted on exit (default unless --userDataDir is given)
    #[argh(option)]
    pub(crate) isolated: Option<bool>,

    /// the browser profile directory to use
    #[argh(option)]
    pub(crate) user_data_dir: Option<String>,

    /// an extra Chromium switch (repeatable), e.g. --chromeArg=--no-sandbox
    #[argh(option)]
    pub(crate) chrome_arg: Vec<String>,

    /// initial viewport as <width>x<height>, e.g. 1280x720
    #[argh(option)]
    pub(crate) viewport: Option<String>,

    /// connect to a running browser through its debugging port, e.g. http://127.0.0.1:9222
    #[argh(option, short = 'u')]
    pub(crate) browser_url: Option<String>,

    /// connect to a running browser through its DevTools websocket URL (ws://…)
    #[argh(option, short = 'w')]
    pub(crate) ws_endpoint: Option<String>,

    /// serve MCP's Streamable HTTP transport on this port at /mcp instead of stdio (0: any
    /// free port; the log says which)
    #[argh(option)]
    pub(crate) port: Option<u16>,

    /// the address --port listens on (default 127.0.0.1); any other than a loopback one needs
    /// DEVTOOLS_MCP_TOKEN set
    #[argh(option)]
    pub(crate) host: Option<String>,

    /// with --port: seconds an agent may be idle before its browser context is disposed
    /// (default 1800)
    #[argh(option)]
    pub(crate) agent_idle_timeout: Option<u64>,

    /// also write the log to this file
    #[argh(option)]
    pub(crate) log_file: Option<String>,

    /// show or hide a category of tools, as the reference's --category<Name>[=false] (e.g.
    /// --categoryNetwork=false, --categoryExtensions); repeatable
    #[argh(option)]
    pub(crate) category: Vec<String>,

    /// only the reference's three slim tools: navigate, evaluate, screenshot (default false)
    #[argh(option)]
    pub(crate) slim: Option<bool>,

    /// the heap snapshot analysis tools (get_heapsnapshot_summary, …; alias
    /// --experimentalMemory; default false)
    #[argh(option)]
    pub(crate) memory_debugging: Option<bool>,

    /// also list each page tool as an MCP tool of its own (default false)
    #[argh(option)]
    pub(crate) expose_page_tools: Option<bool>,

    /// default timeout of a tool call that runs page code, in ms (default 25000)
    #[argh(option)]
    pub(crate) tool_timeout: Option<u64>,

    /// maximum text of one tool result before it is truncated, in bytes (default 1000000)
    #[argh(option)]
    pub(crate) max_result_bytes: Option<usize>,

    /// a directory tools may read and write files in (repeatable; alias --workspace); without
    /// any, and without client roots, only the temp directory
    #[argh(option)]
    pub(crate) filesystem_root: Vec<String>,

    /// let tools read and write files anywhere when the client offers no roots (default false)
    #[argh(option)]
    pub(crate) allow_unrestricted_paths: Option<bool>,

    // --- The reference's newer flags, checked into `settings::Policies` by `policies` ---
    /// headers of the websocket handshake with --wsEndpoint/--browserUrl, as a JSON object
    #[argh(option)]
    pub(crate) ws_headers: Option<String>,

    /// proxy server of the launched browser (its --proxy-server)
    #[argh(option)]
    pub(crate) proxy_server: Option<String>,

    /// ignore certificate errors (self-signed, expired); use with caution (default false)
    #[argh(option)]
    pub(crate) accept_insecure_certs: Option<bool>,

    /// block requests and navigations to URLs matching this URL pattern (repeatable)
    #[argh(option)]
    pub(crate) blocked_url_pattern: Vec<String>,

    /// allow only requests and navigations to URLs matching this URL pattern (repeatable)
    #[argh(option)]
    pub(crate) allowed_url_pattern: Vec<String>,

    /// false: no evaluate_script, no initScript, no javascript:/data:/vbscript: navigations
    #[argh(option)]
    pub(crate) javascript_evaluation: Option<bool>,

    /// false: no navigations to file: URLs (default true)
    #[argh(option)]
    pub(crate) file_navigations: Option<bool>,

    /// false: console stack traces keep generated positions (default true: source-mapped)
    #[argh(option)]
    pub(crate) source_maps: Option<bool>,

    /// redact network header values that may be sensitive (default false)
    #[argh(option)]
    pub(crate) redact_network_headers: Option<bool>,

    /// take_screenshot's default format: png, jpeg or webp
    #[argh(option)]
    pub(crate) screenshot_format: Option<String>,

    /// take_screenshot's default quality for jpeg and webp (0-100)
    #[argh(option)]
    pub(crate) screenshot_quality: Option<String>,

    /// scale screenshots wider than this many pixels down
    #[argh(option)]
    pub(crate) screenshot_max_width: Option<String>,

    /// scale screenshots taller than this many pixels down
    #[argh(option)]
    pub(crate) screenshot_max_height: Option<String>,

    /// page tools require pageId (default false here; see README)
    #[argh(option)]
    pub(crate) page_id_routing: Option<bool>,

    /// answers carry `structuredContent` beside their text (default false)
    #[argh(option)]
    pub(crate) experimental_structured_content: Option<bool>,

    /// list every page-like target (background pages, service workers, webviews) as a page
    /// (default false)
    #[argh(option)]
    pub(crate) experimental_include_all_pages: Option<bool>,

    /// offer the coordinate-based click_at (default false)
    #[argh(option)]
    pub(crate) experimental_vision: Option<bool>,

    /// how answers write structured data: default (toon and gcf, which need the reference's
    /// npm packages, are taken and answered in the default format)
    #[argh(option)]
    pub(crate) experimental_data_format: Option<String>,

    /// a JSON file of these settings (camelCase keys); flags on the command line win
    #[argh(option)]
    pub(crate) config: Option<String>,

    /// print the version and exit
    #[argh(switch)]
    pub(crate) version: bool,
}

impl Flags {
    /// Parses the process arguments (without the program name).
    pub(crate) fn parse(
        program: &str,
        args: &[String],
    ) -> Result<(Flags, Vec<String>), argh::EarlyExit> {
        let (mut normalized, mut notes) = spellings::normalize(args);
        let refs: Vec<&str> = normalized.iter().map(String::as_str).collect();
        let flags = Flags::from_args(&[program], &refs)?;
        let Some(path) = &flags.config else {
            notes.extend(flags.data_format_note());
            return Ok((flags, notes));
        };
        // `--config`: the file's settings join the command line's, which win.
        let refuse = |output: String| argh::EarlyExit {
            output,
            status: Err(()),
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| refuse(format!("Invalid JSON config file: cannot read {path}: {e}")))?;
        let given = normalized
            .iter()
            .filter_map(|a| match a.strip_prefix("--") {
                Some(long) => Some(spellings::camel(long)),
                // `-e`, `-u`, `-w`
                None => a
                    .strip_prefix('-')
                    .map(|short| spellings::canonical(short).to_owned()),
            })
            .collect();
        let (mut more, more_notes) =
            spellings::normalize(&config::as_args(&text, &given).map_err(refuse)?);
        // The file's settings first: of a flag given in both (a category), the later wins.
        more.append(&mut normalized);
        normalized = more;
        notes.extend(more_notes);
        let refs: Vec<&str> = normalized.iter().map(String::as_str).collect();
        let flags = Flags::from_args(&[program], &refs)?;
        notes.extend(flags.data_format_note());
        Ok((flags, notes))
    }

    /// `--experimentalDataFormat` other than `default`: the encodings come from npm packages
    /// the reference loads; here answers keep the default format.
    fn data_format_note(&self) -> Option<String> {
        match self.experimental_data_format.as_deref() {
            Some(format @ ("toon" | "gcf")) => Some(format!(
                "--experimentalDataFormat={format} has no effect in devtools-mcp: answers use the default format"
            )),
            _ => None,
        }
    }
}

/// The flags of `args`, for tests (a parse error fails the test with argh's message).
#[cfg(test)]
pub(super) fn parsed(args: &[&str]) -> Flags {
    let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    match Flags::parse("devtools-mcp", &owned) {
        Ok((f, _)) => f,
        Err(e) => panic!("{}", e.output),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Flags {
        parsed(args)
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
    fn short_and_kebab_forms() {
        let f = parse(&[
            "-u",
            "http://127.0.0.1:9222",
            "--user-data-dir",
            "/profiles/p",
        ]);
        assert_eq!(f.browser_url.as_deref(), Some("http://127.0.0.1:9222"));
        assert_eq!(f.user_data_dir.as_deref(), Some("/profiles/p"));
    }

    #[test]
    fn unknown_flags_are_errors() {
        let owned = vec!["--bogusFlag".to_string()];
        assert!(Flags::parse("devtools-mcp", &owned).is_err());
    }
}
