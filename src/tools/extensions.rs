//! Extensions (`--categoryExtensions`): install an unpacked extension, list, reload, trigger
//! the toolbar action of, and uninstall them, through the browser's Extensions domain. Full
//! Chromium is started for them (`browser::launch`): the headless shell cannot load
//! extensions. Each call is one [`ExtensionCall`], whose `next` tells its story; the browser
//! keeps the extensions, so the family keeps no state of its own.

use std::time::Duration;

use serde_json::{json, Value};

use crate::browser::{self, extension_worker, tabs, Flow, PageId};
use crate::cdp::generated::extensions::{
    ExtensionInfo, GetExtensionsParams, LoadUnpackedParams, TriggerActionParams, UninstallParams,
};
use crate::cdp::Command;
use crate::error::Error;
use crate::log::log;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::files::{self, Roots};
use crate::tools::response::{finish, Response};
use crate::tools::tool::Tool;

pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "install_extension",
        description: "Install an unpacked Chrome extension from a folder.",
        args: args::schema::<PathArgs>(),
        read_only: false,
        category: Category::Extensions,
        run: install_extension,
    },
    Tool {
        name: "uninstall_extension",
        description: "Uninstall a Chrome extension, given its ID.",
        args: args::schema::<IdArgs>(),
        read_only: false,
        category: Category::Extensions,
        run: uninstall_extension,
    },
    Tool {
        name: "list_extensions",
        description: "List the installed extensions: name, ID, version and whether enabled.",
        args: args::schema::<NoArgs>(),
        read_only: true,
        category: Category::Extensions,
        run: list_extensions,
    },
    Tool {
        name: "reload_extension",
        description: "Reload an unpacked Chrome extension from its folder, given its ID.",
        args: args::schema::<IdArgs>(),
        read_only: false,
        category: Category::Extensions,
        run: reload_extension,
    },
    Tool {
        name: "trigger_extension_action",
        description:
            "Run an extension's default (toolbar) action on the selected page, given its ID.",
        args: args::schema::<IdArgs>(),
        read_only: false,
        category: Category::Extensions,
        run: trigger_extension_action,
    },
];

/// As long as the reference lets an install or uninstall take.
const TIME_LIMIT: Duration = Duration::from_secs(30);

tool_args! {
    struct PathArgs {
        "path" path: String = {"type": "string", "maxLength": max::PATH, "description": "Absolute path of the unpacked extension's folder"},
    }
}

tool_args! {
    struct IdArgs {
        "id" id: String = {"type": "string", "maxLength": max::NAME, "description": "The extension's ID"},
    }
}

tool_args! {
    struct NoArgs {}
}

fn install_extension(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<PathArgs>(cx, call, args) else {
        return;
    };
    // A blank path names nothing to check: the browser says what is wrong with it. A browser
    // on another machine reads its own files, which our roots do not describe.
    let check = !args.path.trim().is_empty() && files::browser_is_local(&cx.settings.source);
    let path = if check {
        match files::for_browser(&Roots::of(cx, call), &args.path) {
            Ok(real) => real.to_string_lossy().into_owned(),
            Err(f) => return call::fail(cx, call, f.text(|e| e.to_string())),
        }
    } else {
        args.path
    };
    call::limit(cx, call, TIME_LIMIT, "Timeout installing extension".into());
    ExtensionCall::start(cx, call, Action::Install(path));
}

fn uninstall_extension(cx: &mut Ctx, call: CallId, args: Value) {
    if let Some(args) = call::args::<IdArgs>(cx, call, args) {
        call::limit(
            cx,
            call,
            TIME_LIMIT,
            "Timeout uninstalling extension".into(),
        );
        ExtensionCall::start(cx, call, Action::Uninstall(args.id));
    }
}

fn list_extensions(cx: &mut Ctx, call: CallId, args: Value) {
    if call::args::<NoArgs>(cx, call, args).is_some() {
        ExtensionCall::start(cx, call, Action::List);
    }
}

fn reload_extension(cx: &mut Ctx, call: CallId, args: Value) {
    if let Some(args) = call::args::<IdArgs>(cx, call, args) {
        call::limit(cx, call, TIME_LIMIT, "Timeout installing extension".into());
        ExtensionCall::start(cx, call, Action::Reload(args.id));
    }
}

fn trigger_extension_action(cx: &mut Ctx, call: CallId, args: Value) {
    if let Some(args) = call::args::<IdArgs>(cx, call, args) {
        ExtensionCall::start(cx, call, Action::Trigger(args.id));
    }
}

/// What the call does.
enum Action {
    /// Load the extension in this (resolved) folder.
    Install(String),
    List,
    /// Load again, from where it was loaded, the extension with this ID.
    Reload(String),
    /// Run the action of the extension with this ID on the selected page.
    Trigger(String),
    Uninstall(String),
}

/// One call of an extension tool: the browser up (and, to trigger an action, the selected
/// page found), then the browser's Extensions domain asked, in one or two commands.
struct ExtensionCall {
    call: CallId,
    action: Action,
    /// The page an action is triggered on, once found.
    page: PageId,
    /// The folder an extension is loaded from, once known.
    folder: String,
    /// The ID of the extension loaded.
    loaded: String,
}

enum Step {
    /// The browser is up (started if it was not).
    Ready(Result<(), Error>),
    /// The selected page, for an action (the browser started first if needed).
    Page(Result<PageId, Error>),
    /// The installed extensions.
    Listed(Result<Vec<ExtensionInfo>, Error>),
    /// An extension was loaded from this folder: its ID.
    Loaded(Result<String, Error>),
    /// Its service worker has run its script (or did not start in time).
    WorkerReady(Result<(), Error>),
    /// The tab target that holds the page an action runs on.
    Tab(Result<String, Error>),
    /// The browser did what was asked (uninstalled, or ran the action).
    Done(Result<(), Error>),
}

impl Flow<Ctx> for ExtensionCall {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Ready(Ok(())) => self.ask(cx),
            Step::Page(Ok(page)) => ExtensionCall { page, ..self }.ask(cx),
            Step::Listed(Ok(list)) => self.listed(cx, list),
            Step::Tab(Ok(tab)) => {
                let Action::Trigger(id) = &self.action else {
                    return self.fail(cx, Error::Invalid("no action to trigger".into()));
                };
                let params = TriggerActionParams {
                    id: id.clone(),
                    target_id: tab,
                };
                self.send(cx, params, |r| Step::Done(r.map(drop)))
            }
            Step::Loaded(Ok(id)) => self.await_worker(cx, id),
            // An extension whose worker did not start in time is installed all the same.
            Step::WorkerReady(r) => {
                if let Err(e) = r {
                    log!("extension {}: {e}", self.loaded);
                }
                self.answer(cx)
            }
            Step::Done(Ok(())) => self.answer(cx),
            Step::Ready(Err(e))
            | Step::Page(Err(e))
            | Step::Listed(Err(e))
            | Step::Loaded(Err(e))
            | Step::Tab(Err(e))
            | Step::Done(Err(e)) => self.fail(cx, e),
        }
    }
}

impl ExtensionCall {
    fn start(cx: &mut Ctx, call: CallId, action: Action) {
        let flow = ExtensionCall {
            call,
            action,
            page: PageId::NONE,
            folder: String::new(),
            loaded: String::new(),
        };
        if matches!(flow.action, Action::Trigger(_)) {
            call::page(cx, call, None, flow.then(Step::Page));
        } else {
            browser::ready(cx, flow.then(Step::Ready));
        }
    }

    /// The first command to the Extensions domain.
    fn ask(self, cx: &mut Ctx) {
        match &self.action {
            Action::Install(path) => {
                let path = path.clone();
                self.load(cx, path)
            }
            Action::Uninstall(id) => {
                let uninstall = UninstallParams { id: id.clone() };
                self.send(cx, uninstall, |r| Step::Done(r.map(drop)))
            }
            Action::List | Action::Reload(_) | Action::Trigger(_) => {
                let list = GetExtensionsParams {};
                self.send(cx, list, |r| Step::Listed(r.map(|l| l.extensions)))
            }
        }
    }

    /// With the installed extensions: the list answered, or the one named found and loaded
    /// again, or the tab of the page its action runs on looked up.
    fn listed(self, cx: &mut Ctx, list: Vec<ExtensionInfo>) {
        let id = match &self.action {
            Action::Reload(id) | Action::Trigger(id) => id.clone(),
            _ => return self.list(cx, list),
        };
        let Some(found) = list.into_iter().find(|e| e.id == id) else {
            return self.fail(
                cx,
                Error::Invalid(format!("Extension with ID {id} not found.")),
            );
        };
        if matches!(self.action, Action::Reload(_)) {
            return self.load(cx, found.path);
        }
        let Some(page) = cx.browser.pages.get(self.page) else {
            let gone = browser::pages::no_such_page(self.page);
            return self.fail(cx, gone);
        };
        let (target, url) = (page.target_id.clone(), page.url.clone());
        let context = page.browser_context.clone();
        tabs::tab_of_page(cx, target, url, context, self.then(Step::Tab));
    }

    /// Loads (or loads again) the extension in `folder`.
    fn load(mut self, cx: &mut Ctx, folder: String) {
        let load = LoadUnpackedParams {
            path: folder.clone(),
            enable_in_incognito: Some(false),
        };
        self.folder = folder;
        self.send(cx, load, |r| Step::Loaded(r.map(|l| l.id)))
    }

    /// Loaded: answered once the extension's service worker, if its manifest names one, is
    /// ready for the events the next calls send it (an action triggered at once).
    fn await_worker(mut self, cx: &mut Ctx, id: String) {
        let has_worker = declares_worker(cx, self.call, &self.folder);
        self.loaded = id.clone();
        if has_worker {
            extension_worker::ready(cx, &id, self.then(Step::WorkerReady));
        } else {
            self.answer(cx)
        }
    }

    /// `## Extensions`, one line each, as the reference lists them.
    fn list(self, cx: &mut Ctx, list: Vec<ExtensionInfo>) {
        let mut resp = Response::default();
        resp.line("## Extensions");
        if list.is_empty() {
            resp.line("No extensions installed.");
        }
        for e in &list {
            let state = if e.enabled { "Enabled" } else { "Disabled" };
            resp.line(format!("id={} \"{}\" v{} {state}", e.id, e.name, e.version));
        }
        let structured: Vec<Value> = list
            .iter()
            .map(|e| json!({"id": e.id, "name": e.name, "version": e.version, "path": e.path, "enabled": e.enabled}))
            .collect();
        resp.structured
            .insert("extensions".into(), json!(structured));
        finish(cx, self.call, resp)
    }

    /// The answer once the browser did it, in the reference's words.
    fn answer(self, cx: &mut Ctx) {
        let line = match &self.action {
            Action::Install(_) => format!("Extension installed. Id: {}", self.loaded),
            Action::Reload(_) => "Extension reloaded.".to_owned(),
            Action::Uninstall(id) => format!("Extension uninstalled. Id: {id}"),
            Action::Trigger(id) => format!("Extension action triggered for ID {id}"),
            Action::List => String::new(),
        };
        let mut resp = Response::default();
        resp.line(line);
        finish(cx, self.call, resp)
    }

    /// The browser's errors as the reference words them.
    fn fail(self, cx: &mut Ctx, e: Error) {
        call::fail(cx, self.call, e.in_reference_words())
    }

    /// Sends a browser-level command; its answer comes back as `step`.
    fn send<C: Command>(self, cx: &mut Ctx, command: C, step: fn(Result<C::Returns, Error>) -> Step)
    where
        C::Returns: 'static,
    {
        browser::send_then(cx, None, command, self, step);
    }
}

/// Whether the manifest in `folder` names a background service worker. Read only where the
/// browser's files are ours; the browser has just accepted the manifest, so it is JSON.
fn declares_worker(cx: &Ctx, call: CallId, folder: &str) -> bool {
    if !files::browser_is_local(&cx.settings.source) {
        return false;
    }
    let manifest = std::path::Path::new(folder).join("manifest.json");
    let Ok(text) = files::read_text(
        &Roots::of(cx, call),
        &manifest.to_string_lossy(),
        MANIFEST_LIMIT,
    ) else {
        return false;
    };
    let parsed: Option<Value> = serde_json::from_str(&text).ok();
    parsed.is_some_and(|m| m["background"]["service_worker"].is_string())
}

/// More than any manifest needs.
const MANIFEST_LIMIT: u64 = 1 << 20;
