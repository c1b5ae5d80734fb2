//! Starting Chromium: finding the executable, the switches, the profile, the pipes on fds 3
//! and 4, and making sure nothing of it outlives us.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mio::unix::pipe::{Receiver, Sender};

use crate::log::log;
use crate::settings::{Category, Settings};

pub(crate) use super::executable::{find_executable, Executable};

/// A browser process we started, and the temporary profile to delete after it.
pub struct Process {
    pub child: Child,
    temp_profile: Option<PathBuf>,
}

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
    NO_EXTENSIONS,
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

const NO_EXTENSIONS: &str = "--disable-extensions";

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
    // The Extensions domain loads extensions only where they are not switched off.
    let extensions = settings.categories.on(Category::Extensions);
    let switches = DEFAULT_SWITCHES
        .iter()
        .filter(|s| !extensions || **s != NO_EXTENSIONS);
    args.extend(switches.map(OsString::from));
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
    // Our features and V8 flags join the user's, one switch each (Chromium keeps only the
    // last value of a switch, so theirs would otherwise drop ours; theirs come after ours).
    let mut merged =
        MERGED_SWITCHES.map(|(switch, separator, ours)| (switch, separator, ours.to_vec()));
    for arg in &settings.chrome_args {
        let theirs = merged
            .iter_mut()
            .find_map(|(switch, _, values)| Some((arg.strip_prefix(*switch)?, values)));
        match theirs {
            Some((value, values)) => values.push(value),
            None => args.push(arg.into()),
        }
    }
    for (switch, separator, values) in merged {
        args.push(format!("{switch}{}", values.join(separator)).into());
    }
    if settings.startup_tab {
        args.push("about:blank".into());
    } else {
        // Without a URL full Chromium would open its new-tab page; with this switch neither
        // browser opens a tab, and both keep running with none (the pipe keeps them up).
        args.push("--no-startup-window".into());
    }
    args
}

const ENABLE_FEATURES: &str = "--enable-features=";
const DISABLE_FEATURES: &str = "--disable-features=";
const JS_FLAGS: &str = "--js-flags=";

/// The switches whose values we merge with the user's: the features we turn on and off and
/// the flags we give V8, each with the separator of its list, ours first.
const MERGED_SWITCHES: [(&str, &str, &[&str]); 3] = [
    // WebMCP, so pages may register tools with `document.modelContext` (off by default in
    // Chromium); the network service in the browser process (lean browser).
    (
        ENABLE_FEATURES,
        ",",
        &["WebMCP", "NetworkServiceInProcess2"],
    ),
    (
        DISABLE_FEATURES,
        ",",
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
            // Lean browser over a long session: V8 puts off starting a GC while a page loads
            // (its loading mode, set from the scheduler's RAIL mode) for seconds after each
            // navigation starts, and a tab navigated back to back never leaves it. Blink's GC
            // heap then grew to ~100 MB of dead documents between GCs and kept the pages it
            // freed; without the mode V8 collects as it does once a page has loaded: a quarter
            // to a third less memory on a heavier page, page code and navigations no slower
            // (measured, see ARCHITECTURE.md "Lean browser").
            "LoadingModeFromRAILMode",
        ],
    ),
    // Lean browser over a long session: with Chromium's default start for V8's
    // old-generation limit, the documents a tab navigates away from (each with the discovery
    // shim it ran) piled up as garbage for ~150 navigations before a full GC; from 4 MB V8
    // collects them every few dozen, its own incremental GC, and the renderer stays flat (measured, see ARCHITECTURE.md "Lean
    // browser"; 8 MB was enough only while the loading mode above put GCs off). Only the
    // starting limit: after a GC V8 sizes it from what is live.
    (JS_FLAGS, " ", &["--initial-old-space-size=4"]),
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

    fn settings(headless: bool, headless_shell: Option<bool>) -> Settings {
        Settings::for_tests(headless, headless_shell)
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
            .filter(|a| {
                [ENABLE_FEATURES, DISABLE_FEATURES, JS_FLAGS]
                    .iter()
                    .any(|switch| a.starts_with(switch))
            })
            .cloned()
            .collect()
    }

    #[test]
    fn our_features_and_v8_flags_are_merged_with_the_users() {
        let ours = "Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,\
            AutofillServerCommunication,CertificateTransparencyComponentUpdater,\
            InterestFeedContentSuggestions,BackForwardCache,WebUIOmniboxPopup,WebUIOmniboxAimPopup,\
            LoadingModeFromRAILMode";
        let plain = arguments_with(&[]);
        assert_eq!(
            features(&plain),
            [
                "--enable-features=WebMCP,NetworkServiceInProcess2".to_owned(),
                format!("--disable-features={ours}"),
                "--js-flags=--initial-old-space-size=4".to_owned(),
            ]
        );
        let theirs = arguments_with(&[
            "--enable-features=A,B",
            "--mute-audio",
            "--js-flags=--expose-gc --initial-old-space-size=64",
            "--disable-features=D",
            "--enable-features=C",
        ]);
        // V8 takes the last value of a flag: the user's own limit wins over ours.
        assert_eq!(
            features(&theirs),
            [
                "--enable-features=WebMCP,NetworkServiceInProcess2,A,B,C".to_owned(),
                format!("--disable-features={ours},D"),
                "--js-flags=--initial-old-space-size=4 --expose-gc --initial-old-space-size=64"
                    .to_owned(),
            ]
        );
        assert_eq!(theirs.iter().filter(|a| *a == "--mute-audio").count(), 2);
    }

    #[test]
    fn extensions_are_allowed_only_with_their_tools() {
        let has_switch = |s: &Settings| {
            let args = arguments(s, Path::new("/tmp/p"));
            args.iter().any(|a| a == NO_EXTENSIONS)
        };
        let mut with_extensions = settings(true, None);
        with_extensions
            .categories
            .given
            .push((Category::Extensions, true));
        assert!(has_switch(&settings(true, None)));
        assert!(!has_switch(&with_extensions));
    }

    #[test]
    fn the_blank_first_tab_is_opened_only_when_asked_for() {
        let args = |s: &Settings| {
            let args = arguments(s, Path::new("/tmp/p"));
            args.iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        let with_tab = args(&settings(true, None));
        assert_eq!(with_tab.last().map(String::as_str), Some("about:blank"));
        assert!(!with_tab.iter().any(|a| a == "--no-startup-window"));
        let without = args(&Settings {
            startup_tab: false,
            ..settings(true, None)
        });
        assert!(without.iter().any(|a| a == "--no-startup-window"));
        assert!(!without.iter().any(|a| a == "about:blank"));
    }
}
