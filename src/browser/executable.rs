//! Which browser to start: `--executablePath`, `CHROME_PATH`, `--channel`'s Google Chrome, or
//! the headless shell or full Chromium where users have them on Linux. PATH comes first; the
//! folders packages install into are looked in too, since an MCP client often starts its
//! servers with a PATH of its own.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::settings::{Category, Channel, Settings};

/// Full Chromium or Chrome, looked for on PATH in this order.
const FULL_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// Where the packages put full Chromium or Chrome when their folder is not on PATH: Debian's
/// chromium, older Ubuntu's chromium-browser, Ubuntu's snap, Google's own package.
const FULL_PLACES: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/lib/chromium/chromium",
    "/usr/bin/chromium-browser",
    "/usr/lib/chromium-browser/chromium-browser",
    "/snap/bin/chromium",
    "/usr/bin/google-chrome",
    "/opt/google/chrome/chrome",
];

/// The headless shell (Chromium's headless-only build: no UI code, a third fewer processes
/// and megabytes, a faster start), looked for on PATH in this order.
const SHELL_NAMES: &[&str] = &["chromium-headless-shell", "chrome-headless-shell"];

/// Where Debian's `chromium-headless-shell` package puts the shell itself. Its
/// `/usr/bin/chromium-headless-shell` is a `sh` script that runs this binary without `exec`:
/// started through it, the browser would be our grandchild, and `PR_SET_PDEATHSIG` (which
/// ends the browser if we are killed) would reach only the shell script.
const DEBIAN_SHELL: &str = "/usr/lib/chromium/chromium-headless-shell";
const DEBIAN_SHELL_WRAPPER: &str = "/usr/bin/chromium-headless-shell";

/// How to get a browser, for every "no browser" error.
pub(super) const INSTALL_HINT: &str =
    "Install Chromium (Debian/Ubuntu: apt-get install chromium chromium-headless-shell) or point \
to a Chrome or Chromium executable with --executablePath /path/to/chrome or the CHROME_PATH variable.";

/// Google Chrome of a channel: where its Linux package installs it (the place the reference
/// looks in), then the command the package puts on PATH.
fn channel_places(channel: Channel) -> (&'static str, &'static [&'static str]) {
    match channel {
        Channel::Stable => (
            "/opt/google/chrome/chrome",
            &["google-chrome-stable", "google-chrome"],
        ),
        Channel::Beta => ("/opt/google/chrome-beta/chrome", &["google-chrome-beta"]),
        Channel::Dev => (
            "/opt/google/chrome-unstable/chrome",
            &["google-chrome-unstable"],
        ),
        Channel::Canary => (
            "/opt/google/chrome-canary/chrome",
            &["google-chrome-canary"],
        ),
    }
}

/// The browser to start, and why it was chosen (for the log).
#[derive(Debug, PartialEq)]
pub(crate) struct Executable {
    pub path: PathBuf,
    pub why: &'static str,
}

/// Where to look: PATH, and the root the fixed places hang from (`/`; a folder of stand-ins
/// in tests).
struct Places<'a> {
    path: &'a OsStr,
    root: &'a Path,
}

impl Places<'_> {
    /// A fixed place (`/opt/google/chrome/chrome`) under the root, if a file is there.
    fn fixed(&self, place: &str) -> Option<PathBuf> {
        let p = self.root.join(place.trim_start_matches('/'));
        p.is_file().then_some(p)
    }

    /// The first of `names` in the directories of PATH, directory by directory.
    fn on_path(&self, names: &[&str]) -> Option<PathBuf> {
        std::env::split_paths(self.path)
            .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
            .find(|p| p.is_file())
    }
}

/// The browser the server starts: `--executablePath`, else `CHROME_PATH`, else `--channel`'s
/// Chrome, else the headless shell when headless (unless `--headlessShell=false`) and
/// installed, else full Chromium.
pub(crate) fn find_executable(settings: &Settings) -> Result<Executable, String> {
    if let Some(path) = &settings.executable_path {
        return given(PathBuf::from(path), "given by --executablePath", || {
            format!("--executablePath {path}")
        });
    }
    if let Some(path) = std::env::var_os("CHROME_PATH").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(&path);
        let named = p.display().to_string();
        return given(p, "given by CHROME_PATH", || format!("CHROME_PATH {named}"));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    choose(
        settings,
        &Places {
            path: &path,
            root: Path::new("/"),
        },
    )
}

fn given(
    path: PathBuf,
    why: &'static str,
    named: impl Fn() -> String,
) -> Result<Executable, String> {
    if path.is_file() {
        Ok(Executable { path, why })
    } else {
        Err(format!("{} does not exist. {INSTALL_HINT}", named()))
    }
}

/// The choice by channel, or between the headless shell and full Chromium.
fn choose(settings: &Settings, places: &Places) -> Result<Executable, String> {
    if let Some(channel) = settings.channel {
        return by_channel(channel, places);
    }
    let forced = settings.headless_shell;
    // The headless shell has neither extensions nor installed apps (no Extensions or PWA
    // domain): with their tools on, full Chromium, unless the shell is asked for by name.
    let needs_full = full_only_tools(settings).filter(|_| forced.is_none());
    if forced.unwrap_or(settings.headless) && needs_full.is_none() {
        if let Some(p) = find_shell(places) {
            let why = if forced == Some(true) {
                "the headless shell, as --headlessShell asks"
            } else {
                "the headless shell: headless, and it is installed (--headlessShell=false starts full Chromium)"
            };
            return Ok(Executable { path: p, why });
        }
        if forced == Some(true) {
            return Err(format!(
                "--headlessShell: no {} found on PATH. Install it (Debian/Ubuntu: apt-get install \
chromium-headless-shell) or drop the flag to use full Chromium.",
                SHELL_NAMES.join(" or "),
            ));
        }
    }
    let why = match (forced, settings.headless, needs_full) {
        (Some(false), _, _) => "full Chromium, as --headlessShell=false asks",
        (_, false, _) => "full Chromium: --headless=false needs a window",
        (_, true, Some(why)) => why,
        _ => "full Chromium: no headless shell is installed",
    };
    let found = places
        .on_path(FULL_NAMES)
        .or_else(|| FULL_PLACES.iter().find_map(|p| places.fixed(p)));
    match found {
        Some(p) => Ok(Executable { path: p, why }),
        None => Err(format!(
            "no Chromium or Chrome found (looked for {} on PATH, and in {}). {INSTALL_HINT}",
            FULL_NAMES.join(", "),
            FULL_PLACES.join(", ")
        )),
    }
}

/// Why full Chromium must start, when tools that the headless shell cannot serve are on.
fn full_only_tools(settings: &Settings) -> Option<&'static str> {
    let on = |c| settings.categories.on(c);
    if on(Category::Extensions) {
        Some("full Chromium: --categoryExtensions needs it (the headless shell cannot load extensions)")
    } else if on(Category::Pwa) {
        Some("full Chromium: --categoryPwa needs it (the headless shell cannot install web apps)")
    } else {
        None
    }
}

/// `--channel`: Google Chrome of that channel where its package installs it, else its
/// command on PATH; never another browser in its place.
fn by_channel(channel: Channel, places: &Places) -> Result<Executable, String> {
    let (place, names) = channel_places(channel);
    let why = "Google Chrome of the channel --channel names";
    match places.fixed(place).or_else(|| places.on_path(names)) {
        Some(path) => Ok(Executable { path, why }),
        None => Err(format!(
            "Could not find Google Chrome executable for channel '{}' at:\n - {place}\n - {} on PATH. \
{INSTALL_HINT}",
            channel.name(),
            names.join(" or ")
        )),
    }
}

/// The shell on PATH; Debian's wrapper script is replaced by the binary it runs.
fn find_shell(places: &Places) -> Option<PathBuf> {
    let found = places.on_path(SHELL_NAMES)?;
    if found
        == places
            .root
            .join(DEBIAN_SHELL_WRAPPER.trim_start_matches('/'))
    {
        if let Some(binary) = places.fixed(DEBIAN_SHELL) {
            return Some(binary);
        }
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    fn settings(headless: bool, headless_shell: Option<bool>) -> Settings {
        Settings::for_tests(headless, headless_shell)
    }

    /// A folder of this test's own, holding empty executables at these paths (relative).
    fn stand_ins(tag: &str, files: &[&str]) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("devtools-mcp-exe-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for file in files {
            let p = dir.join(file);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, "").unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        }
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn pick(settings: &Settings, path: &[&Path], root: &Path) -> Result<Executable, String> {
        let path = std::env::join_paths(path).unwrap();
        choose(settings, &Places { path: &path, root })
    }

    #[test]
    fn headless_prefers_the_shell_and_a_window_needs_full_chromium() {
        let dir = stand_ins("shell", &["full/chromium", "shell/chrome-headless-shell"]);
        let (full, shell, nothing) = (dir.join("full"), dir.join("shell"), dir.join("none"));
        // The full browser comes first on PATH, and still the shell is taken when headless.
        let both: &[&Path] = &[&full, &shell];
        let path_of =
            |headless, forced| pick(&settings(headless, forced), both, &nothing).map(|e| e.path);
        assert_eq!(path_of(true, None), Ok(shell.join("chrome-headless-shell")));
        assert_eq!(
            path_of(true, Some(true)),
            Ok(shell.join("chrome-headless-shell"))
        );
        assert_eq!(path_of(true, Some(false)), Ok(full.join("chromium")));
        assert_eq!(path_of(false, None), Ok(full.join("chromium")));

        // Without a shell, headless falls back to full Chromium unless the shell is forced.
        let fallback = pick(&settings(true, None), &[&full], &nothing).unwrap();
        assert_eq!(fallback.path, full.join("chromium"));
        assert!(
            fallback.why.contains("no headless shell"),
            "{}",
            fallback.why
        );
        let forced = pick(&settings(true, Some(true)), &[&full], &nothing).unwrap_err();
        assert!(
            forced.contains("apt-get install chromium-headless-shell"),
            "{forced}"
        );
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn extension_and_app_tools_start_full_chromium_unless_the_shell_is_named() {
        let dir = stand_ins("ext", &["full/chromium", "shell/chrome-headless-shell"]);
        let (full, shell, nothing) = (dir.join("full"), dir.join("shell"), dir.join("none"));
        let both: &[&Path] = &[&full, &shell];
        let with = |category, forced| {
            let mut s = settings(true, forced);
            s.categories.given.push((category, true));
            s
        };
        for (category, flag) in [
            (Category::Extensions, "--categoryExtensions"),
            (Category::Pwa, "--categoryPwa"),
        ] {
            let chosen = pick(&with(category, None), both, &nothing).unwrap();
            assert_eq!(chosen.path, full.join("chromium"));
            assert!(chosen.why.contains(flag), "{}", chosen.why);
            // Asked for by name, the shell is still what starts.
            let named = pick(&with(category, Some(true)), both, &nothing).unwrap();
            assert_eq!(named.path, shell.join("chrome-headless-shell"));
        }
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn browsers_off_path_are_found_where_their_packages_put_them() {
        let empty = stand_ins("empty", &[]);
        for place in FULL_PLACES {
            let root = stand_ins("place", &[place.trim_start_matches('/')]);
            let found = pick(&settings(true, None), &[&empty], &root).unwrap();
            assert_eq!(
                found.path,
                root.join(place.trim_start_matches('/')),
                "{place}"
            );
            let _ = fs::remove_dir_all(root);
        }
        // PATH first: a chromium on PATH wins over Google's package.
        let root = stand_ins("both", &["opt/google/chrome/chrome", "bin/chromium"]);
        let found = pick(&settings(false, None), &[&root.join("bin")], &root).unwrap();
        assert_eq!(found.path, root.join("bin/chromium"));
        let none = pick(&settings(true, None), &[&empty], &empty).unwrap_err();
        assert!(none.contains("/opt/google/chrome/chrome") && none.contains(INSTALL_HINT));
        // Debian's shell wrapper is replaced by the binary it runs.
        let debian = stand_ins(
            "debian",
            &[
                "usr/bin/chromium-headless-shell",
                "usr/lib/chromium/chromium-headless-shell",
            ],
        );
        let found = pick(&settings(true, None), &[&debian.join("usr/bin")], &debian).unwrap();
        assert_eq!(
            found.path,
            debian.join("usr/lib/chromium/chromium-headless-shell")
        );
        for dir in [empty, root, debian] {
            let _ = fs::remove_dir_all(dir);
        }
    }

    #[test]
    fn a_channel_is_googles_chrome_of_that_channel_and_nothing_else() {
        let root = stand_ins(
            "channels",
            &[
                "opt/google/chrome/chrome",
                "opt/google/chrome-beta/chrome",
                "opt/google/chrome-unstable/chrome",
                "bin/google-chrome-canary",
                "bin/chromium",
                "bin/chrome-headless-shell",
            ],
        );
        let bin = root.join("bin");
        let with = |channel| {
            let mut s = settings(true, None);
            s.channel = Some(channel);
            pick(&s, &[&bin], &root)
        };
        let path = |channel| with(channel).map(|e| e.path);
        assert_eq!(
            path(Channel::Stable),
            Ok(root.join("opt/google/chrome/chrome"))
        );
        assert_eq!(
            path(Channel::Beta),
            Ok(root.join("opt/google/chrome-beta/chrome"))
        );
        assert_eq!(
            path(Channel::Dev),
            Ok(root.join("opt/google/chrome-unstable/chrome"))
        );
        // Canary is not in its folder here, but its command is on PATH.
        assert_eq!(path(Channel::Canary), Ok(bin.join("google-chrome-canary")));
        // A channel that is not installed is an error naming where it was looked for, not
        // the Chromium or the shell that are there.
        fs::remove_file(root.join("opt/google/chrome-beta/chrome")).unwrap();
        let err = with(Channel::Beta).unwrap_err();
        assert_eq!(
            err,
            format!(
                "Could not find Google Chrome executable for channel 'beta' at:\n - \
                 /opt/google/chrome-beta/chrome\n - google-chrome-beta on PATH. {INSTALL_HINT}"
            )
        );
        let _ = fs::remove_dir_all(root);
    }
}
