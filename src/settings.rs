//! What the server was told at start-up (from the flags, see `app::flags`), resolved once.
//! Plain data: every layer may read it.

use std::path::PathBuf;
use std::time::Duration;

/// How the browser is reached.
#[derive(Debug, Clone)]
pub(crate) enum BrowserSource {
    /// Start Chromium ourselves and speak over `--remote-debugging-pipe`.
    Launch,
    /// A running browser's debugging port (`http://host:port`).
    BrowserUrl(String),
    /// A running browser's websocket (`ws://…`).
    WsEndpoint(String),
}

#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub source: BrowserSource,
    pub executable_path: Option<String>,
    pub headless: bool,
    /// Lean browser: `Some(true)` starts the headless shell, `Some(false)` full Chromium,
    /// `None` the shell when headless and installed (see `browser::launch::find_executable`).
    pub headless_shell: Option<bool>,
    /// Start the browser right after the client's `initialized`, not at the first call.
    pub prelaunch: bool,
    /// A launched browser opens with one blank tab in its default context: stdio's first page.
    /// `--port` has none: each of its agents opens its pages in a context of its own, and a tab
    /// nobody uses would keep a renderer of its own.
    pub startup_tab: bool,
    /// `None`: a fresh temporary profile, deleted on exit.
    pub user_data_dir: Option<PathBuf>,
    pub chrome_args: Vec<String>,
    pub viewport: Option<(u32, u32)>,
    pub expose_page_tools: bool,
    /// The default time limit of a call that runs page code.
    pub tool_timeout: Duration,
    /// The longest tool result text sent inline; longer text is truncated with a marker.
    pub max_result_bytes: usize,
    /// Directories tools may read and write files in, besides the client's roots.
    pub file_roots: Vec<PathBuf>,
    /// Files anywhere, when the client offers no roots.
    pub unrestricted_paths: bool,
    /// Tool categories and --slim: the reference's three slim tools instead of the
    /// rest, and which categories of tools are shown.
    pub slim: bool,
    /// `--memoryDebugging`: the heap snapshot analysis tools are offered.
    pub memory_debugging: bool,
    pub categories: Categories,
    /// The reference's newer flags (what they take away from or require of the tools).
    pub policies: Policies,
    /// `--channel`: the installed Google Chrome of this channel, found where its packages put it.
    pub channel: Option<Channel>,
    /// `--experimentalStructuredContent`: answers carry `structuredContent` beside their text.
    pub structured_content: bool,
    /// `--experimentalIncludeAllPages`: background pages, service workers and webviews are
    /// listed as pages too.
    pub include_all_pages: bool,
    /// `--experimentalVision`: the coordinate-based `click_at` is offered.
    pub vision: bool,
}

#[cfg(test)]
impl Settings {
    /// The defaults of a launched browser, headless or not, the shell as given.
    pub(crate) fn for_tests(headless: bool, headless_shell: Option<bool>) -> Settings {
        Settings {
            source: BrowserSource::Launch,
            executable_path: None,
            headless,
            headless_shell,
            prelaunch: false,
            startup_tab: true,
            user_data_dir: None,
            chrome_args: Vec::new(),
            viewport: None,
            expose_page_tools: false,
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            file_roots: Vec::new(),
            unrestricted_paths: false,
            slim: false,
            memory_debugging: false,
            categories: Categories::default(),
            policies: Policies::default(),
            channel: None,
            structured_content: false,
            include_all_pages: false,
            vision: false,
        }
    }
}

/// Google Chrome's release channels, as `--channel` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    Stable,
    Beta,
    Dev,
    Canary,
}

impl Channel {
    pub(crate) fn named(name: &str) -> Option<Channel> {
        match name {
            "stable" => Some(Channel::Stable),
            "beta" => Some(Channel::Beta),
            "dev" => Some(Channel::Dev),
            "canary" => Some(Channel::Canary),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Channel::Stable => "stable",
            Channel::Beta => "beta",
            Channel::Dev => "dev",
            Channel::Canary => "canary",
        }
    }
}

/// Under the 30 s that clients commonly allow a request, so a hung call ends as an error the
/// client still sees rather than as the client giving up.
pub(crate) const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(25);
pub(crate) const DEFAULT_MAX_RESULT_BYTES: usize = 1_000_000;

// ---------------------------------------------------------------- tool categories and --slim

/// The reference's tool categories. Each has a `--category<Name>` flag (`--categoryNetwork=false`,
/// `--categoryExtensions`) that shows or hides its tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Category {
    Input,
    Navigation,
    Emulation,
    Performance,
    Network,
    Debugging,
    Extensions,
    ThirdParty,
    Memory,
    Webmcp,
    Pwa,
}

impl Category {
    pub(crate) const ALL: [Category; 11] = [
        Category::Input,
        Category::Navigation,
        Category::Emulation,
        Category::Performance,
        Category::Network,
        Category::Debugging,
        Category::Extensions,
        Category::ThirdParty,
        Category::Memory,
        Category::Webmcp,
        Category::Pwa,
    ];

    /// The name in the reference's flag, after `category`: `Emulation` in `--categoryEmulation`.
    pub(crate) fn flag_suffix(self) -> &'static str {
        match self {
            Category::Input => "Input",
            Category::Navigation => "Navigation",
            Category::Emulation => "Emulation",
            Category::Performance => "Performance",
            Category::Network => "Network",
            Category::Debugging => "Debugging",
            Category::Extensions => "Extensions",
            Category::ThirdParty => "ExperimentalThirdParty",
            Category::Memory => "Memory",
            Category::Webmcp => "ExperimentalWebmcp",
            Category::Pwa => "Pwa",
        }
    }

    /// Shown unless its flag says otherwise. As in the reference, except third-party developer
    /// tools: they are this server's headline feature, so on unless turned off.
    pub(crate) fn on_by_default(self) -> bool {
        !matches!(
            self,
            Category::Extensions | Category::Webmcp | Category::Pwa
        )
    }
}

/// Which categories are shown: the defaults, changed by the flags given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Categories {
    /// The flags given, in order; a later one wins.
    pub given: Vec<(Category, bool)>,
}

impl Categories {
    pub(crate) fn on(&self, c: Category) -> bool {
        self.given
            .iter()
            .rev()
            .find(|(g, _)| *g == c)
            .map_or(c.on_by_default(), |(_, on)| *on)
    }
}

// --- The reference's newer flags ---

/// `--blockedUrlPattern` / `--allowedUrlPattern`: URL patterns (URLPattern syntax, the subset
/// without groups that `browser::url_rules` matches), at most one of the two lists non-empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct UrlRules {
    pub blocked: Vec<String>,
    pub allowed: Vec<String>,
}

impl UrlRules {
    pub(crate) fn is_empty(&self) -> bool {
        self.blocked.is_empty() && self.allowed.is_empty()
    }
}

/// `--screenshotFormat/Quality/MaxWidth/MaxHeight`: `take_screenshot`'s defaults and bounds.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ScreenshotDefaults {
    /// `png`, `jpeg` or `webp`; `None` is png.
    pub format: Option<String>,
    /// 0–100, for jpeg and webp when the call names none.
    pub quality: Option<u32>,
    /// Device pixels; a larger capture is scaled down, keeping its aspect ratio.
    pub max_width: Option<u32>,
    pub max_height: Option<u32>,
}

/// What the reference's newer flags set; all off (the reference's defaults) in `Default`,
/// except where a field says otherwise.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Policies {
    /// `--wsHeaders`: extra headers of the websocket handshake.
    pub ws_headers: Vec<(String, String)>,
    /// `--proxyServer`: the launched browser's `--proxy-server`.
    pub proxy_server: Option<String>,
    /// `--acceptInsecureCerts`: certificate errors are ignored.
    pub accept_insecure_certs: bool,
    pub url_rules: UrlRules,
    /// `--javascriptEvaluation` (default true): false removes `evaluate_script` and
    /// `initScript`, and refuses `javascript:`, `data:` and `vbscript:` navigations.
    pub javascript_evaluation: bool,
    /// `--fileNavigations` (default true): false refuses `file:` navigations.
    pub file_navigations: bool,
    /// `--sourceMaps` (default true): console stack traces show original positions and
    /// names from the scripts' source maps.
    pub source_maps: bool,
    /// `--redactNetworkHeaders`: header values outside a known-harmless list are redacted.
    pub redact_network_headers: bool,
    pub screenshot: ScreenshotDefaults,
    /// `--pageIdRouting`: page tools require `pageId`.
    pub page_id_routing: bool,
}

impl Default for Policies {
    fn default() -> Self {
        Policies {
            ws_headers: Vec::new(),
            proxy_server: None,
            accept_insecure_certs: false,
            url_rules: UrlRules::default(),
            javascript_evaluation: true,
            file_navigations: true,
            source_maps: true,
            redact_network_headers: false,
            screenshot: ScreenshotDefaults::default(),
            page_id_routing: false,
        }
    }
}
