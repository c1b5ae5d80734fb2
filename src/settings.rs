//! What the server was told at start-up (from the flags, see `app::flags`), resolved once.
//! Plain data: every layer may read it.

use std::path::PathBuf;
use std::time::Duration;

/// How the browser is reached.
#[derive(Debug, Clone)]
pub enum BrowserSource {
    /// Start Chromium ourselves and speak over `--remote-debugging-pipe`.
    Launch,
    /// A running browser's debugging port (`http://host:port`).
    BrowserUrl(String),
    /// A running browser's websocket (`ws://…`).
    WsEndpoint(String),
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub source: BrowserSource,
    pub executable_path: Option<String>,
    pub headless: bool,
    /// `None`: a fresh temporary profile, deleted on exit.
    pub user_data_dir: Option<PathBuf>,
    pub chrome_args: Vec<String>,
    pub viewport: Option<(u32, u32)>,
    pub expose_page_tools: bool,
    /// WebMCP: serve list_webmcp_tools and execute_webmcp_tool (--categoryExperimentalWebmcp).
    pub webmcp_tools: bool,
    /// The default time limit of a call that runs page code.
    pub tool_timeout: Duration,
    /// The longest tool result text sent inline; longer text is truncated with a marker.
    pub max_result_bytes: usize,
    /// Directories tools may read and write files in, besides the client's roots.
    pub file_roots: Vec<PathBuf>,
    /// Files anywhere, when the client offers no roots.
    pub unrestricted_paths: bool,
}

/// Under the 30 s that clients commonly allow a request, so a hung call ends as an error the
/// client still sees rather than as the client giving up.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(25);
pub const DEFAULT_MAX_RESULT_BYTES: usize = 1_000_000;
