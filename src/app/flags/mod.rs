//! Command-line flags, spelled as chrome-devtools-mcp spells them, so that a configuration
//! written for the reference keeps working when only the command is swapped; and what they
//! mean, `Settings`. Each part uses only those listed before it: `spellings` (the reference's
//! forms normalised for argh), `config` (`--config` files read into more arguments),
//! `command_line` (`Flags`, parsed), `policies` (the reference's newer flags checked).

mod command_line;
mod config;
mod policies;
mod spellings;

use std::path::PathBuf;
use std::time::Duration;

use crate::settings::{
    BrowserSource, Categories, Category, Channel, Settings, DEFAULT_MAX_RESULT_BYTES,
    DEFAULT_TOOL_TIMEOUT,
};

pub(super) use command_line::Flags;

/// What the flags mean.
pub(super) fn settings(flags: &Flags) -> Result<Settings, String> {
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
    data_format(flags)?;
    Ok(Settings {
        source,
        executable_path: flags.executable_path.clone(),
        headless,
        headless_shell: flags.headless_shell,
        prelaunch: flags.prelaunch.unwrap_or(false),
        startup_tab: true,
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
        memory_debugging: flags.memory_debugging.unwrap_or(false),
        categories: categories(&flags.category)?,
        policies: policies::policies(flags)?,
        channel: channel(flags)?,
        structured_content: flags.experimental_structured_content.unwrap_or(false),
        include_all_pages: flags.experimental_include_all_pages.unwrap_or(false),
        vision: flags.experimental_vision.unwrap_or(false),
    })
}

/// `--channel`, one of the reference's choices, and only where the browser is found by it.
fn channel(flags: &Flags) -> Result<Option<Channel>, String> {
    let Some(name) = &flags.channel else {
        return Ok(None);
    };
    let channel = Channel::named(name).ok_or_else(|| {
        format!("Invalid values:\n  Argument: channel, Given: \"{name}\", Choices: \"canary\", \"dev\", \"beta\", \"stable\"")
    })?;
    let other = [
        ("executablePath", flags.executable_path.is_some()),
        ("browserUrl", flags.browser_url.is_some()),
        ("wsEndpoint", flags.ws_endpoint.is_some()),
    ];
    match other.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(format!(
            "Arguments channel and {name} are mutually exclusive"
        )),
        None => Ok(Some(channel)),
    }
}

/// `--experimentalDataFormat`, one of the reference's choices. Only checked: answers here are
/// in the default format (the others need the reference's npm packages; see `Flags`).
fn data_format(flags: &Flags) -> Result<(), String> {
    match flags.experimental_data_format.as_deref() {
        None | Some("default" | "toon" | "gcf") => Ok(()),
        Some(given) => Err(format!("Invalid values:\n  Argument: experimentalDataFormat, Given: \"{given}\", Choices: \"default\", \"toon\", \"gcf\"")),
    }
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
        command_line::parsed(args)
    }

    #[test]
    fn data_formats_are_the_references_choices() {
        for format in ["default", "toon", "gcf"] {
            let flags = parse(&["--experimental-data-format", format]);
            assert!(settings(&flags).is_ok(), "{format}");
        }
        let err = settings(&parse(&["--experimentalDataFormat=yaml"])).unwrap_err();
        assert_eq!(err, "Invalid values:\n  Argument: experimentalDataFormat, Given: \"yaml\", Choices: \"default\", \"toon\", \"gcf\"");
        let args = ["--experimentalDataFormat=toon".to_owned()];
        let (_, notes) = Flags::parse("devtools-mcp", &args).unwrap();
        assert_eq!(notes, ["--experimentalDataFormat=toon has no effect in devtools-mcp: answers use the default format"]);
        let args = ["--experimentalDataFormat=default".to_owned()];
        assert!(Flags::parse("devtools-mcp", &args).unwrap().1.is_empty());
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
    fn viewport() {
        assert_eq!(parse_viewport("1280x720"), Ok((1280, 720)));
        assert!(parse_viewport("1280").is_err());
        assert!(parse_viewport("0x5").is_err());
    }

    #[test]
    fn isolated_unless_a_profile_is_given() {
        let mut f = Flags::default();
        assert!(settings(&f).unwrap().user_data_dir.is_none());
        f.user_data_dir = Some("/profiles/p".into());
        assert!(settings(&f).unwrap().user_data_dir.is_some());
        f.isolated = Some(true);
        assert!(settings(&f).unwrap().user_data_dir.is_none());
    }
}
