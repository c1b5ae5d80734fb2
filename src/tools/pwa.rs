//! Installed web apps (`--categoryPwa`): install an app by its manifest id, report what the
//! operating system shows of it (badge, file handlers), launch it into a new page, and
//! uninstall it, through the browser's PWA domain. Each call is one [`AppCall`], whose `next`
//! tells its story; the browser keeps the apps, so the family keeps no state of its own.

use std::time::Duration;

use serde_json::{json, Value};

use crate::browser::{self, pages, tabs, waiters, Flow, PageId};
use crate::cdp::generated::page as cdp_page;
use crate::cdp::generated::pwa::{
    ChangeAppUserSettingsParams, DisplayMode, GetOsAppStateParams, GetOsAppStateReturns,
    InstallParams, LaunchParams, UninstallParams,
};
use crate::cdp::Command;
use crate::error::{Error, Fault};
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::files::{self, Roots};
use crate::tools::response::{finish, Response};
use crate::tools::tool::Tool;

pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "install_pwa",
        description: "Install a Progressive Web App by its manifest ID, without an install dialog or user gesture; it opens as a tab unless displayMode is standalone.",
        args: args::schema::<InstallArgs>(),
        read_only: false,
        category: Category::Pwa,
        run: install_pwa,
    },
    Tool {
        name: "uninstall_pwa",
        description: "Uninstall a Progressive Web App by its manifest ID; its app windows close.",
        args: args::schema::<ManifestArgs>(),
        read_only: false,
        category: Category::Pwa,
        run: uninstall_pwa,
    },
    Tool {
        name: "launch_pwa",
        description: "Launch an installed Progressive Web App in its saved display mode, at its start URL or another URL of the app.",
        args: args::schema::<LaunchArgs>(),
        read_only: false,
        category: Category::Pwa,
        run: launch_pwa,
    },
    Tool {
        name: "get_os_app_state",
        description: "An installed web app's OS integration (badge count, registered file handlers), by its manifest ID.",
        args: args::schema::<ManifestArgs>(),
        read_only: true,
        category: Category::Pwa,
        run: get_os_app_state,
    },
];

/// The `manifestId` every PWA tool takes.
fn manifest_id() -> Value {
    json!({"type": "string", "maxLength": max::URL, "description": "The app's manifest ID: its manifest's resolved `id`, else its resolved `start_url` (e.g. https://example.com/)"})
}

tool_args! {
    struct InstallArgs {
        "manifestId" manifest_id: String = (manifest_id()),
        "installUrlOrBundleUrl" install_url: String = {"type": "string", "maxLength": max::URL, "description": "The site's page URL, or for an Isolated Web App the file:// or http(s):// URL of its signed bundle"},
        "displayMode" display_mode: Option<String> = {"type": "string", "enum": ["standalone", "browser"], "description": "Set after installing: standalone (its own window) or browser (a tab, the default without an install dialog)"},
    }
}

tool_args! {
    struct ManifestArgs {
        "manifestId" manifest_id: String = (manifest_id()),
    }
}

tool_args! {
    struct LaunchArgs {
        "manifestId" manifest_id: String = (manifest_id()),
        "url" url: Option<String> = {"type": "string", "maxLength": max::URL, "description": "A URL of the app to open instead of its start URL"},
    }
}

/// How long a launched app's page may take to name its URL (the reference's default
/// navigation time limit); past it the answer shows the page as it is.
const LAUNCH_NAVIGATION: Duration = Duration::from_secs(10);

fn install_pwa(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<InstallArgs>(cx, call, args) else {
        return;
    };
    let location = match bundle_location(cx, call, &args.install_url) {
        Ok(location) => location,
        Err(message) => return call::fail(cx, call, message),
    };
    let display = args.display_mode.as_deref().map(DisplayMode::from_wire);
    let action = Action::Install { location, display };
    AppCall::start(cx, call, args.manifest_id, action);
}

fn uninstall_pwa(cx: &mut Ctx, call: CallId, args: Value) {
    if let Some(args) = call::args::<ManifestArgs>(cx, call, args) {
        AppCall::start(cx, call, args.manifest_id, Action::Uninstall);
    }
}

fn launch_pwa(cx: &mut Ctx, call: CallId, args: Value) {
    if let Some(args) = call::args::<LaunchArgs>(cx, call, args) {
        AppCall::start(cx, call, args.manifest_id, Action::Launch(args.url));
    }
}

fn get_os_app_state(cx: &mut Ctx, call: CallId, args: Value) {
    if let Some(args) = call::args::<ManifestArgs>(cx, call, args) {
        AppCall::start(cx, call, args.manifest_id, Action::State);
    }
}

/// Where the browser fetches the app from: a web URL as given; a `file:` URL or a path (a
/// signed bundle on this machine) only inside the roots, while the browser is on this
/// machine, as the reference checks them; an empty one not at all (the manifest id says).
fn bundle_location(cx: &Ctx, call: CallId, given: &str) -> Result<Option<String>, String> {
    if given.trim().is_empty() {
        return Ok(None);
    }
    let scheme = given.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    let web = ["http", "https", "ws", "wss"];
    if scheme.as_deref().is_some_and(|s| web.contains(&s))
        || !files::browser_is_local(&cx.settings.source)
    {
        return Ok(Some(given.to_owned()));
    }
    let roots = Roots::of(cx, call);
    let refused = |f: files::Failure| f.text(|e| e.to_string());
    if scheme.as_deref() == Some("file") {
        let path = file_url_path(given).ok_or_else(|| format!("Invalid file URL: {given}"))?;
        let real = files::for_browser(&roots, &path).map_err(refused)?;
        return Ok(Some(file_url(&real.to_string_lossy())));
    }
    let real = files::for_browser(&roots, given).map_err(refused)?;
    Ok(Some(real.to_string_lossy().into_owned()))
}

/// The path of a `file:` URL on this machine (no host, or `localhost`), percent-decoded.
fn file_url_path(url: &str) -> Option<String> {
    let rest = url.get("file://".len()..)?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The `file:` URL of an absolute path, every byte but the unreserved ones and `/` escaped.
fn file_url(path: &str) -> String {
    let mut url = String::from("file://");
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// What the call does with the app.
enum Action {
    Install {
        location: Option<String>,
        display: Option<DisplayMode>,
    },
    Uninstall,
    /// Launch it, at this URL of the app or its start URL.
    Launch(Option<String>),
    State,
}

/// One call of a PWA tool: the browser up, then its PWA domain asked; a launch then finds
/// the page the app opened in and waits for its URL.
struct AppCall {
    call: CallId,
    manifest_id: String,
    action: Action,
    /// Whether the install was tried again already.
    retried: bool,
    /// The page a launched app opened in, once found.
    page: PageId,
}

enum Step {
    /// The browser is up (started if it was not).
    Ready(Result<(), Error>),
    /// The browser installed the app.
    Installed(Result<(), Error>),
    /// The browser did the rest (set the display mode, uninstalled).
    Done(Result<(), Error>),
    /// The app was launched into this tab target.
    Launched(Result<String, Error>),
    /// The page target in that tab.
    PageTarget(Result<String, Error>),
    /// That page, attached and set up.
    Page(Result<PageId, Error>),
    /// It loaded its document (or did not within the time allowed).
    Navigated,
    /// The operating system's state of the app.
    State(Result<GetOsAppStateReturns, Error>),
}

impl Flow<Ctx> for AppCall {
    type Step = Step;

    fn next(mut self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Ready(Ok(())) => self.ask(cx),
            Step::Installed(Err(e)) if e_is(&e, Fault::NoInstallInfo) && !self.retried => {
                // The reference tries once more: the first fetch of a page can fail so.
                self.retried = true;
                self.ask(cx)
            }
            Step::Installed(Ok(())) => self.installed(cx),
            Step::Done(Ok(())) => self.answer(cx),
            Step::Launched(Ok(tab)) => tabs::page_in_tab(cx, tab, self.then(Step::PageTarget)),
            Step::PageTarget(Ok(target)) => pages::when_ready(cx, target, self.then(Step::Page)),
            Step::Page(Ok(page)) => {
                self.page = page;
                self.await_url(cx)
            }
            Step::Navigated => self.answer(cx),
            Step::State(Ok(state)) => self.state(cx, state),
            Step::Ready(Err(e))
            | Step::Installed(Err(e))
            | Step::Done(Err(e))
            | Step::Launched(Err(e))
            | Step::PageTarget(Err(e))
            | Step::Page(Err(e))
            | Step::State(Err(e)) => call::fail(cx, self.call, e.in_reference_words()),
        }
    }
}

fn e_is(e: &Error, fault: Fault) -> bool {
    matches!(e, Error::Cdp { fault: f, .. } if *f == fault)
}

impl AppCall {
    fn start(cx: &mut Ctx, call: CallId, manifest_id: String, action: Action) {
        // As the reference: its network restrictions would not cover what these commands
        // fetch and open.
        if !cx.settings.policies.url_rules.is_empty() {
            let refused = "PWA APIs are not supported when network restrictions are configured.";
            return call::fail(cx, call, refused);
        }
        let flow = AppCall {
            call,
            manifest_id,
            action,
            retried: false,
            page: PageId::NONE,
        };
        browser::ready(cx, flow.then(Step::Ready));
    }

    /// The command the action starts with.
    fn ask(self, cx: &mut Ctx) {
        let manifest_id = self.manifest_id.clone();
        match &self.action {
            Action::Install { location, .. } => {
                let install = InstallParams {
                    manifest_id,
                    install_url_or_bundle_url: location.clone(),
                };
                self.send(cx, install, |r| Step::Installed(r.map(drop)))
            }
            Action::Uninstall => {
                let uninstall = UninstallParams { manifest_id };
                self.send(cx, uninstall, |r| Step::Done(r.map(drop)))
            }
            Action::Launch(url) => {
                let launch = LaunchParams {
                    manifest_id,
                    url: url.clone(),
                };
                self.send(cx, launch, |r| Step::Launched(r.map(|l| l.target_id)))
            }
            Action::State => {
                let state = GetOsAppStateParams { manifest_id };
                self.send(cx, state, Step::State)
            }
        }
    }

    /// Installed: the display mode set when one was asked for.
    fn installed(self, cx: &mut Ctx) {
        let Action::Install {
            display: Some(display),
            ..
        } = &self.action
        else {
            return self.answer(cx);
        };
        let settings = ChangeAppUserSettingsParams {
            manifest_id: self.manifest_id.clone(),
            display_mode: Some(display.clone()),
            link_capturing: None,
        };
        self.send(cx, settings, |r| Step::Done(r.map(drop)))
    }

    /// The app's page gets a moment to load its document (as the reference waits for its
    /// navigation), so that the answer lists it with its URL and title; one that has loaded
    /// is answered at once.
    fn await_url(self, cx: &mut Ctx) {
        let Some(page) = cx.browser.pages.get(self.page) else {
            return self.answer(cx);
        };
        let blank = page.url.is_empty() || page.url == "about:blank";
        let loaded =
            !page.loader_id.is_empty() && page.loaded_loader.as_ref() == Some(&page.loader_id);
        if loaded && !blank {
            return self.answer(cx);
        }
        let (session, frame) = (page.session.clone(), page.target_id.clone());
        let main_load =
            move |e: &cdp_page::LifecycleEventEvent| e.name == "load" && e.frame_id == frame;
        let message = String::new();
        let navigated =
            self.then(|_: Result<cdp_page::LifecycleEventEvent, Error>| Step::Navigated);
        waiters::wait(
            cx,
            &session,
            main_load,
            LAUNCH_NAVIGATION,
            message,
            navigated,
        );
    }

    /// The answer once the browser did it, in the reference's words.
    fn answer(self, cx: &mut Ctx) {
        let id = &self.manifest_id;
        let mut resp = Response::default();
        match &self.action {
            Action::Install { display, .. } => {
                resp.line(format!("Installed PWA with manifest ID: {id}"));
                if let Some(mode) = display {
                    resp.line(format!("Display mode set to: {mode}"));
                }
            }
            Action::Uninstall => {
                resp.line(format!("Uninstalled PWA with manifest ID: {id}"));
                resp.include_pages = true;
            }
            Action::Launch(_) => {
                let url = cx.browser.pages.get(self.page).map(|p| p.url.clone());
                let url = url.unwrap_or_default();
                resp.line(format!("Launched PWA with manifest ID: {id} ({url})"));
                resp.include_pages = true;
            }
            Action::State => {}
        }
        finish(cx, self.call, resp)
    }

    /// The app's badge and file handlers, the handlers as the browser gave them (JSON).
    fn state(self, cx: &mut Ctx, state: GetOsAppStateReturns) {
        let handlers = serde_json::to_string(&state.file_handlers).unwrap_or_default();
        let mut resp = Response::default();
        resp.line(format!(
            "OS app state for manifest ID: {}",
            self.manifest_id
        ));
        resp.line(format!("Badge count: {}", state.badge_count));
        resp.line(format!("File handlers: {handlers}"));
        let structured =
            json!({"badgeCount": state.badge_count, "fileHandlers": state.file_handlers});
        resp.structured.insert("osAppState".into(), structured);
        finish(cx, self.call, resp)
    }

    /// Sends a browser-level command; its answer comes back as `step`.
    fn send<C: Command>(self, cx: &mut Ctx, command: C, step: fn(Result<C::Returns, Error>) -> Step)
    where
        C::Returns: 'static,
    {
        browser::send_then(cx, None, command, self, step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_are_read_and_written_byte_for_byte() {
        assert_eq!(
            file_url_path("file:///tmp/a%20b.swbn").as_deref(),
            Some("/tmp/a b.swbn")
        );
        assert_eq!(file_url_path("file://localhost/x").as_deref(), Some("/x"));
        assert_eq!(file_url_path("file://host/x"), None);
        assert_eq!(
            file_url_path("file:///%2e%2e/etc").as_deref(),
            Some("/../etc")
        );
        assert_eq!(file_url("/tmp/a b%.swbn"), "file:///tmp/a%20b%25.swbn");
    }
}
