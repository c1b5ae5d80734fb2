//! What the flags mean, resolved once at start-up.

use std::path::PathBuf;
use std::time::Duration;

use crate::flags::Flags;

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

impl Settings {
    pub fn from_flags(flags: &Flags) -> Result<Settings, String> {
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
        Ok(Settings {
            source,
            executable_path: flags.executable_path.clone(),
            headless: flags.headless.unwrap_or(true),
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
        })
    }
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

    #[test]
    fn viewport() {
        assert_eq!(parse_viewport("1280x720"), Ok((1280, 720)));
        assert!(parse_viewport("1280").is_err());
        assert!(parse_viewport("0x5").is_err());
    }

    #[test]
    fn isolated_unless_a_profile_is_given() {
        let mut f = Flags::default();
        assert!(Settings::from_flags(&f).unwrap().user_data_dir.is_none());
        f.user_data_dir = Some("/tmp/p".into());
        assert!(Settings::from_flags(&f).unwrap().user_data_dir.is_some());
        f.isolated = Some(true);
        assert!(Settings::from_flags(&f).unwrap().user_data_dir.is_none());
    }
}
