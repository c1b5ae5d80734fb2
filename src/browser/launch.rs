//! Starting Chromium: finding the executable, the switches, the profile, the pipes on fds 3
//! and 4, and making sure nothing of it outlives us.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mio::unix::pipe::{Receiver, Sender};

use crate::log::log;
use crate::settings::Settings;

/// A browser process we started, and the temporary profile to delete after it.
pub struct Process {
    pub child: Child,
    temp_profile: Option<PathBuf>,
}

/// Full Chromium or Chrome, looked for on PATH in this order.
const FULL_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
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

/// Switches that keep an automated browser quiet and deterministic: no first-run UI, no
/// background traffic of its own (on machines without a network these connections would
/// fail, many at a time), no throttling of background pages.
const DEFAULT_SWITCHES: &[&str] = &[
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-domain-reliability",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    // Lean browser: the GPU thread in the browser process (with the network service, see
    // DEFAULT_FEATURES), two fewer processes and ~10-15 MB less PSS (measured, see
    // ARCHITECTURE.md "Lean browser"), with no change a page or a CDP client can see.
    "--in-process-gpu",
    // Lean browser: no zygote for unsandboxed helpers. With the GPU and network service in
    // the browser process it has little left to start (full Chromium's storage service, on
    // demand the audio service), which are then started directly; one process and ~10 MB
    // (shell) to ~16 MB (full) PSS less, browser start no slower (measured, see
    // ARCHITECTURE.md "Lean browser"). Renderers still fork from the zygote.
    "--no-unsandboxed-zygote",
    "--metrics-recording-only",
    "--no-service-autorun",
    "--password-store=basic",
    "--use-mock-keychain",
    "--enable-automation",
    "--force-color-profile=srgb",
    "--mute-audio",
];

/// How to get a browser, for every "no browser" error.
const INSTALL_HINT: &str =
    "Install Chromium (Debian/Ubuntu: apt-get install chromium chromium-headless-shell) or point \
to a Chrome or Chromium executable with --executablePath /path/to/chrome or the CHROME_PATH variable.";

/// The browser to start, and why it was chosen (for the log).
#[derive(Debug, PartialEq)]
pub(crate) struct Executable {
    pub path: PathBuf,
    pub why: &'static str,
}

/// The browser the server starts: `--executablePath`, else `CHROME_PATH`, else the headless
/// shell when headless (unless `--headlessShell=false`) and installed, else full Chromium.
pub(crate) fn find_executable(settings: &Settings) -> Result<Executable, String> {
    if let Some(path) = &settings.executable_path {
        let p = PathBuf::from(path);
        return if p.is_file() {
            Ok(Executable {
                path: p,
                why: "given by --executablePath",
            })
        } else {
            Err(format!(
                "--executablePath {path} does not exist. {INSTALL_HINT}"
            ))
        };
    }
    if let Some(path) = std::env::var_os("CHROME_PATH").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(&path);
        return if p.is_file() {
            Ok(Executable {
                path: p,
                why: "given by CHROME_PATH",
            })
        } else {
            Err(format!(
                "CHROME_PATH {} does not exist. {INSTALL_HINT}",
                p.display()
            ))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    choose(settings, &path)
}

/// The choice between the headless shell and full Chromium, on the given PATH.
fn choose(settings: &Settings, path: &OsStr) -> Result<Executable, String> {
    let forced = settings.headless_shell;
    if forced.unwrap_or(settings.headless) {
        if let Some(p) = find_shell(path) {
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
    let why = match (forced, settings.headless) {
        (Some(false), _) => "full Chromium, as --headlessShell=false asks",
        (_, false) => "full Chromium: --headless=false needs a window",
        _ => "full Chromium: no headless shell is installed",
    };
    match on_path(path, FULL_NAMES) {
        Some(p) => Ok(Executable { path: p, why }),
        None => Err(format!(
            "no Chromium or Chrome found (looked for {} on PATH). {INSTALL_HINT}",
            FULL_NAMES.join(", ")
        )),
    }
}

/// The shell on PATH; Debian's wrapper script is replaced by the binary it runs.
fn find_shell(path: &OsStr) -> Option<PathBuf> {
    let found = on_path(path, SHELL_NAMES)?;
    let binary = Path::new(DEBIAN_SHELL);
    if found == Path::new(DEBIAN_SHELL_WRAPPER) && binary.is_file() {
        return Some(binary.to_path_buf());
    }
    Some(found)
}

/// The first of `names` in the directories of `path`, directory by directory.
fn on_path(path: &OsStr, names: &[&str]) -> Option<PathBuf> {
    std::env::split_paths(path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|p| p.is_file())
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A pipe whose ends are closed on exec (the child gets its ends by dup2 to 3 and 4).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid array of two ints.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both are fresh descriptors we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn unique_profile_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::env::temp_dir().join(format!(
        "devtools-mcp-profile-{}-{nanos}",
        std::process::id()
    ))
}

pub(crate) fn arguments(settings: &Settings, profile: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["--remote-debugging-pipe".into()];
    let mut profile_arg = OsString::from("--user-data-dir=");
    profile_arg.push(profile);
    args.push(profile_arg);
    if settings.headless {
        args.push("--headless".into());
    }
    args.extend(DEFAULT_SWITCHES.iter().map(OsString::from));
    if let Some((w, h)) = settings.viewport {
        args.push(format!("--window-size={w},{h}").into());
    }
    // --proxyServer, before --chromeArg as in the reference.
    if let Some(proxy) = &settings.policies.proxy_server {
        args.push(format!("--proxy-server={proxy}").into());
    }
    let has = |switch: &str| settings.chrome_args.iter().any(|a| a == switch);
    if is_root() && !has("--no-sandbox") {
        log!("running as root: starting the browser with --no-sandbox");
        args.push("--no-sandbox".into());
    }
    // Our features join the ones the user enables or disables, one switch each (Chromium
    // keeps only the last value of a switch, so theirs would otherwise drop ours).
    let mut merged = FEATURE_SWITCHES.map(|(switch, ours)| (switch, ours.to_vec()));
    for arg in &settings.chrome_args {
        let theirs = merged
            .iter_mut()
            .find_map(|(switch, values)| Some((arg.strip_prefix(*switch)?, values)));
        match theirs {
            Some((value, values)) => values.push(value),
            None => args.push(arg.into()),
        }
    }
    for (switch, values) in merged {
        args.push(format!("{switch}{}", values.join(",")).into());
    }
    args.push("about:blank".into());
    args
}

const ENABLE_FEATURES: &str = "--enable-features=";
const DISABLE_FEATURES: &str = "--disable-features=";

/// The features we turn on and off, before the user's.
const FEATURE_SWITCHES: [(&str, &[&str]); 2] = [
    // WebMCP, so pages may register tools with `document.modelContext` (off by default in
    // Chromium); the network service in the browser process (lean browser).
    (ENABLE_FEATURES, &["WebMCP", "NetworkServiceInProcess2"]),
    (
        DISABLE_FEATURES,
        &[
            "Translate",
            "OptimizationHints",
            "MediaRouter",
            "DialMediaRouteProvider",
            "AutofillServerCommunication",
            "CertificateTransparencyComponentUpdater",
            "InterestFeedContentSuggestions",
            "BackForwardCache",
            // Lean browser: these keep full Chromium from preloading its address-bar popups
            // (two `chrome://omnibox-popup.top-chrome/` pages that a headless browser never
            // shows) in a renderer of their own: one process and ~45-50 MB PSS less
            // (measured, see ARCHITECTURE.md "Lean browser"); the shell has no such UI.
            "WebUIOmniboxPopup",
            "WebUIOmniboxAimPopup",
        ],
    ),
];

/// Starts the browser. Returns the process and our ends of its pipes.
pub(crate) fn launch(settings: &Settings) -> Result<(Process, Sender, Receiver), String> {
    let Executable { path: exe, why } = find_executable(settings)?;
    let (profile, temp_profile) = match &settings.user_data_dir {
        Some(dir) => (dir.clone(), None),
        None => {
            let dir = unique_profile_dir();
            fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create a profile in {}: {e}", dir.display()))?;
            (dir.clone(), Some(dir))
        }
    };
    let cleanup = |e: String| {
        if let Some(dir) = &temp_profile {
            let _ = fs::remove_dir_all(dir);
        }
        e
    };
    let mut cmd = Command::new(&exe);
    cmd.args(arguments(settings, &profile));
    let (child, we_write, we_read) =
        spawn_piped(&mut cmd).map_err(|e| cleanup(format!("cannot run {}: {e}", exe.display())))?;
    let sender = Sender::from(we_write);
    let receiver = Receiver::from(we_read);
    sender
        .set_nonblocking(true)
        .and_then(|_| receiver.set_nonblocking(true))
        .map_err(|e| format!("cannot make the browser pipes non-blocking: {e}"))?;
    log!("started {} (pid {}): {why}", exe.display(), child.id());
    Ok((
        Process {
            child,
            temp_profile,
        },
        sender,
        receiver,
    ))
}

/// Runs `cmd` (a browser with `--remote-debugging-pipe`) with the pipe on its fds 3 (it
/// reads) and 4 (it writes), its output discarded, in a process group of its own (so that
/// its helpers can be ended with it), and killed if we die first. Returns the child and our
/// blocking ends: the one to write commands to, the one to read its messages from.
pub fn spawn_piped(cmd: &mut Command) -> io::Result<(Child, OwnedFd, OwnedFd)> {
    let (browser_reads, we_write) = pipe()?;
    let (we_read, browser_writes) = pipe()?;
    let child_in = std::os::fd::AsRawFd::as_raw_fd(&browser_reads);
    let child_out = std::os::fd::AsRawFd::as_raw_fd(&browser_writes);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    // SAFETY: only async-signal-safe calls (fcntl, dup2, prctl) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            // Move both ends above fd 4 first, so neither dup2 clobbers the other.
            let a = libc::fcntl(child_in, libc::F_DUPFD, 10);
            let b = libc::fcntl(child_out, libc::F_DUPFD, 10);
            if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                return Err(io::Error::last_os_error());
            }
            // If we die without cleaning up, the browser goes too.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    // The child's ends are its own now; ours would keep the pipes open after it exits.
    drop(browser_reads);
    drop(browser_writes);
    Ok((child, we_write, we_read))
}

impl Process {
    /// A browser started with [`spawn_piped`], and the profile to delete after it.
    pub fn new(child: Child, temp_profile: Option<PathBuf>) -> Process {
        Process {
            child,
            temp_profile,
        }
    }

    /// Ends the browser and every process it started, then deletes the temporary profile.
    /// Bounded: a browser that ignores SIGTERM is killed after a short grace.
    pub fn terminate(&mut self, grace: Duration) {
        let pgid = self.child.id() as i32;
        // SAFETY: signalling our own child's process group.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break;
                }
            }
        }
        // Helpers (zygote, GPU, renderers) are in the same process group.
        // SAFETY: as above.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        self.remove_profile();
    }

    /// Reaps an exited browser and cleans up after it.
    pub fn reap(&mut self) {
        let pgid = self.child.id() as i32;
        // SAFETY: signalling our own child's process group.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = self.child.wait();
        self.remove_profile();
    }

    fn remove_profile(&mut self) {
        if let Some(dir) = self.temp_profile.take() {
            // The browser's helpers may still be writing for a moment after it exits.
            for _ in 0..20 {
                if fs::remove_dir_all(&dir).is_ok() || !dir.exists() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            log!("could not delete the temporary profile {}", dir.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn settings(headless: bool, headless_shell: Option<bool>) -> Settings {
        Settings {
            source: crate::settings::BrowserSource::Launch,
            executable_path: None,
            headless,
            headless_shell,
            prelaunch: false,
            user_data_dir: None,
            chrome_args: Vec::new(),
            viewport: None,
            expose_page_tools: false,
            tool_timeout: crate::settings::DEFAULT_TOOL_TIMEOUT,
            max_result_bytes: crate::settings::DEFAULT_MAX_RESULT_BYTES,
            file_roots: Vec::new(),
            unrestricted_paths: false,
            slim: false,
            memory_debugging: false,
            categories: Default::default(),
            policies: Default::default(),
        }
    }

    fn arguments_with(chrome_args: &[&str]) -> Vec<String> {
        let mut settings = settings(true, None);
        settings.chrome_args = chrome_args.iter().map(|a| a.to_string()).collect();
        arguments(&settings, Path::new("/tmp/p"))
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    fn features(args: &[String]) -> Vec<String> {
        args.iter()
            .filter(|a| a.starts_with(ENABLE_FEATURES) || a.starts_with(DISABLE_FEATURES))
            .cloned()
            .collect()
    }

    #[test]
    fn our_features_are_merged_with_the_users_enabled_and_disabled_ones() {
        let ours = "Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,\
            AutofillServerCommunication,CertificateTransparencyComponentUpdater,\
            InterestFeedContentSuggestions,BackForwardCache,WebUIOmniboxPopup,WebUIOmniboxAimPopup";
        let plain = arguments_with(&[]);
        assert_eq!(
            features(&plain),
            [
                "--enable-features=WebMCP,NetworkServiceInProcess2".to_owned(),
                format!("--disable-features={ours}")
            ]
        );
        let theirs = arguments_with(&[
            "--enable-features=A,B",
            "--mute-audio",
            "--disable-features=D",
            "--enable-features=C",
        ]);
        assert_eq!(
            features(&theirs),
            [
                "--enable-features=WebMCP,NetworkServiceInProcess2,A,B,C".to_owned(),
                format!("--disable-features={ours},D")
            ]
        );
        assert_eq!(theirs.iter().filter(|a| *a == "--mute-audio").count(), 2);
    }

    /// A directory holding empty executables with these names.
    fn bin_dir(tag: &str, names: &[&str]) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("devtools-mcp-launch-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        for name in names {
            let p = dir.join(name);
            fs::write(&p, "").unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        }
        dir
    }

    #[test]
    fn headless_prefers_the_shell_and_a_window_needs_full_chromium() {
        let full = bin_dir("full", &["chromium"]);
        let shell = bin_dir("shell", &["chrome-headless-shell"]);
        // The full browser comes first on PATH, and still the shell is taken when headless.
        let path = std::env::join_paths([&full, &shell]).unwrap();
        let pick = |headless, forced| choose(&settings(headless, forced), &path).map(|e| e.path);
        assert_eq!(pick(true, None), Ok(shell.join("chrome-headless-shell")));
        assert_eq!(
            pick(true, Some(true)),
            Ok(shell.join("chrome-headless-shell"))
        );
        assert_eq!(pick(true, Some(false)), Ok(full.join("chromium")));
        assert_eq!(pick(false, None), Ok(full.join("chromium")));

        // Without a shell, headless falls back to full Chromium unless the shell is forced.
        let only_full = std::env::join_paths([&full]).unwrap();
        let pick = |forced| choose(&settings(true, forced), &only_full);
        let fallback = pick(None).unwrap();
        assert_eq!(fallback.path, full.join("chromium"));
        assert!(
            fallback.why.contains("no headless shell"),
            "{}",
            fallback.why
        );
        let forced = pick(Some(true)).unwrap_err();
        assert!(
            forced.contains("apt-get install chromium-headless-shell"),
            "{forced}"
        );
        let _ = fs::remove_dir_all(full);
        let _ = fs::remove_dir_all(shell);
    }
}
