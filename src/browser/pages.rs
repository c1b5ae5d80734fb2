//! Page targets: attaching to them, getting each ready (shim, binding, domains), the MCP page
//! ids agents see, and which page is selected.

use serde_json::{json, Value};

use crate::app::{App, Done, Owner};
use crate::browser::{self, fire, send};
use crate::cdp::generated::{page as cdp_page, runtime, target};
use crate::error::{Error, Result};
use crate::log::log;
use crate::thirdparty;

/// A JavaScript dialog that is open on a page.
#[derive(Debug, Clone)]
pub struct Dialog {
    pub kind: String,
    pub message: String,
    pub default_prompt: String,
}

pub struct Page {
    /// The id agents use (`pageId`), stable for the life of the target.
    pub id: u32,
    pub target_id: String,
    pub session: String,
    pub url: String,
    pub title: String,
    /// Shim, binding and domains are in place.
    pub initialized: bool,
    /// Counts committed main-frame documents; work tied to a document checks it.
    pub document: u64,
    /// The loader id of the main frame's last `load` lifecycle event.
    pub loaded_loader: Option<String>,
    /// The main frame's default execution context (where page scripts and the shim live).
    pub context: Option<i64>,
    pub crashed: bool,
    pub dialog: Option<Dialog>,
    /// Calls now running page code here, with what to do with a dialog it opens
    /// ("accept", "dismiss", or the text for a prompt): the dialog is answered at once.
    pub script_calls: Vec<(u64, String)>,
    /// What happened to dialogs opened while scripts ran, by call, for the calls' answers.
    pub dialog_notes: Vec<(u64, String)>,
    /// The page's third-party developer tools, for the current document.
    pub tools: thirdparty::table::Table,
    /// The latest accessibility snapshot, and the uid memory that keeps uids stable
    /// between snapshots of one document.
    pub snapshot: Option<browser::snapshot::Snapshot>,
    pub uids: browser::snapshot::UidMap,
    /// DOM elements (backend ids) a page tool returned: snapshots show them (this document).
    pub extra_elements: Vec<i64>,
    /// The main frame's current loader id (part of what makes a uid).
    pub loader_id: String,
    /// What the console, network and emulation tools keep per page.
    pub console: crate::tools::console::Log,
    pub network: crate::tools::network::Log,
    pub emulation: crate::tools::emulation::State,
}

#[derive(Default)]
pub struct Pages {
    list: Vec<Page>,
    next_id: u32,
    pub selected: Option<u32>,
    /// Snapshots are numbered across all pages (uids are `<snapshot>_<n>`).
    pub snapshot_counter: u64,
    /// Calls waiting for a page to be attached and initialised, by target id.
    waiting: Vec<(String, Owner, Done<u32>)>,
}

impl Pages {
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Page> {
        self.list.iter()
    }

    pub fn get(&self, id: u32) -> Option<&Page> {
        self.list.iter().find(|p| p.id == id)
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut Page> {
        self.list.iter_mut().find(|p| p.id == id)
    }

    pub fn by_session(&self, session: &str) -> Option<&Page> {
        self.list.iter().find(|p| p.session == session)
    }

    pub fn by_session_mut(&mut self, session: &str) -> Option<&mut Page> {
        self.list.iter_mut().find(|p| p.session == session)
    }

    pub fn by_target(&self, target_id: &str) -> Option<&Page> {
        self.list.iter().find(|p| p.target_id == target_id)
    }

    pub fn forget_owner(&mut self, owner: Owner) {
        self.waiting.retain(|(_, o, _)| *o != owner);
    }

    fn remove(&mut self, session: &str) -> Option<Page> {
        let i = self.list.iter().position(|p| p.session == session)?;
        Some(self.list.remove(i))
    }
}

/// Target.attachedToTarget: a new page (or an existing one, at start) is ours to set up.
pub fn attached(app: &mut App, params: &Value) {
    let Some(session) = params["sessionId"].as_str() else {
        return;
    };
    let info = &params["targetInfo"];
    let kind = info["type"].as_str().unwrap_or("");
    if kind != "page" {
        // Workers and the like: let them run; we do not drive them.
        fire(
            app,
            Some(session),
            "Runtime.runIfWaitingForDebugger",
            json!({}),
        );
        return;
    }
    let target_id = info["targetId"].as_str().unwrap_or("").to_owned();
    if app.browser.pages.by_target(&target_id).is_some() {
        return;
    }
    app.browser.pages.next_id += 1;
    let id = app.browser.pages.next_id;
    app.browser.pages.list.push(Page {
        id,
        target_id,
        session: session.to_owned(),
        url: info["url"].as_str().unwrap_or("").to_owned(),
        title: info["title"].as_str().unwrap_or("").to_owned(),
        initialized: false,
        document: 0,
        loaded_loader: None,
        context: None,
        crashed: false,
        dialog: None,
        script_calls: Vec::new(),
        dialog_notes: Vec::new(),
        tools: thirdparty::table::Table::default(),
        snapshot: None,
        uids: browser::snapshot::UidMap::new(),
        extra_elements: Vec::new(),
        loader_id: String::new(),
        console: Default::default(),
        network: Default::default(),
        emulation: Default::default(),
    });
    if app.browser.pages.selected.is_none() {
        app.browser.pages.selected = Some(id);
    }
    let waiting = params["waitingForDebugger"].as_bool().unwrap_or(false);
    app.run_as(None, |app| initialize(app, id, session.to_owned(), waiting));
}

/// Enables what we need on a new page session, in one pipelined burst; the page counts as
/// ready when the last answer is in.
fn initialize(app: &mut App, id: u32, session: String, waiting_for_debugger: bool) {
    let s = Some(session.as_str());
    fire(app, s, "Page.enable", json!({}));
    fire(
        app,
        s,
        "Page.setLifecycleEventsEnabled",
        json!({"enabled": true}),
    );
    fire(app, s, "Runtime.enable", json!({}));
    fire(
        app,
        s,
        "Runtime.addBinding",
        json!({"name": thirdparty::BINDING}),
    );
    send(
        app,
        s,
        cdp_page::AddScriptToEvaluateOnNewDocumentParams {
            source: thirdparty::SHIM.to_owned(),
            ..Default::default()
        },
        |_, r| {
            if let Err(e) = r {
                log!("installing the discovery shim: {e}");
            }
        },
    );
    crate::tools::on_page_attached(app, &session);
    if !waiting_for_debugger {
        // A document that already exists did not run the new-document script.
        send(
            app,
            s,
            runtime::EvaluateParams {
                expression: thirdparty::SHIM.to_owned(),
                ..Default::default()
            },
            |_, _| {},
        );
    }
    send(
        app,
        s,
        runtime::RunIfWaitingForDebuggerParams {},
        move |app, r| {
            if let Err(e) = &r {
                log!("page {id}: {e}");
            }
            page_ready(app, id);
        },
    );
}

fn page_ready(app: &mut App, id: u32) {
    let Some(page) = app.browser.pages.get_mut(id) else {
        return;
    };
    page.initialized = true;
    let target_id = page.target_id.clone();
    let (ready, still): (Vec<_>, Vec<_>) = std::mem::take(&mut app.browser.pages.waiting)
        .into_iter()
        .partition(|(t, _, _)| *t == target_id);
    app.browser.pages.waiting = still;
    for (_, owner, done) in ready {
        if app.alive(owner) {
            app.run_as(owner, |app| done(app, Ok(id)));
        }
    }
}

/// Runs `done` with the page's id once the target is attached and initialised.
pub fn when_ready(app: &mut App, target_id: String, done: Done<u32>) {
    match app.browser.pages.by_target(&target_id) {
        Some(p) if p.initialized => {
            let id = p.id;
            done(app, Ok(id))
        }
        _ => app
            .browser
            .pages
            .waiting
            .push((target_id, app.current, done)),
    }
}

/// Target.detachedFromTarget: the page is gone (closed, or its target replaced).
pub fn detached(app: &mut App, session: &str) {
    let Some(page) = app.browser.pages.remove(session) else {
        return;
    };
    if app.browser.pages.selected == Some(page.id) {
        app.browser.pages.selected = app.browser.pages.list.first().map(|p| p.id);
    }
    browser::fail_session(
        app,
        session,
        Error::PageGone(format!("Page {} was closed.", page.id)),
    );
    crate::tools::page_tools_changed(app);
}

/// The browser is gone: so are its pages.
pub fn clear(app: &mut App, err: Error) {
    app.browser.pages.list.clear();
    app.browser.pages.selected = None;
    for (_, owner, done) in std::mem::take(&mut app.browser.pages.waiting) {
        if app.alive(owner) {
            let e = err.clone();
            app.run_as(owner, |app| app.resolve(done, Err(e)));
        }
    }
}

/// Runs `done` with the page a call works on: `requested` (a `pageId` argument) or the
/// selected page, starting the browser and opening a page if there is none.
pub fn with_page(app: &mut App, requested: Option<u32>, done: Done<u32>) {
    browser::ready(
        app,
        Box::new(move |app, r| {
            if let Err(e) = r {
                return done(app, Err(e));
            }
            let id = match requested {
                Some(id) => match app.browser.pages.get(id) {
                    Some(_) => id,
                    None => return done(app, Err(no_such_page(id))),
                },
                None => match app
                    .browser
                    .pages
                    .selected
                    .or_else(|| app.browser.pages.list.first().map(|p| p.id))
                {
                    Some(id) => id,
                    None => return open_blank(app, done),
                },
            };
            let Some(page) = app.browser.pages.get(id) else {
                return done(app, Err(no_such_page(id)));
            };
            if page.initialized {
                done(app, Ok(id))
            } else {
                let target = page.target_id.clone();
                when_ready(app, target, done)
            }
        }),
    );
}

/// Calls that run code in a page fail at once on a crashed one: until it is navigated, the
/// browser leaves such commands unanswered.
pub fn not_crashed(app: &App, id: u32) -> Result<()> {
    match app.browser.pages.get(id) {
        None => Err(no_such_page(id)),
        Some(p) if p.crashed => Err(Error::Crashed),
        Some(_) => Ok(()),
    }
}

/// An unknown page id, in the reference's words (the id is in the call for the agent to see).
pub fn no_such_page(_id: u32) -> Error {
    Error::Invalid("No page found".into())
}

/// Opens an about:blank tab and runs `done` when it is ready.
pub fn open_blank(app: &mut App, done: Done<u32>) {
    open(app, false, done)
}

/// Opens a new about:blank tab (navigation is the caller's) and runs `done` when ready.
pub fn open(app: &mut App, background: bool, done: Done<u32>) {
    send(
        app,
        None,
        target::CreateTargetParams {
            url: "about:blank".into(),
            background: Some(background),
            ..Default::default()
        },
        move |app, r| match r {
            Ok(created) => when_ready(app, created.target_id, done),
            Err(e) => done(app, Err(e)),
        },
    );
}

/// The page if it still exists, else the error a call should report.
pub fn session_of(app: &App, id: u32) -> Result<String> {
    app.browser
        .pages
        .get(id)
        .map(|p| p.session.clone())
        .ok_or_else(|| Error::PageGone(format!("Page {id} was closed.")))
}

/// Takes a target's current URL and title (Target.targetInfoChanged, Target.getTargets).
pub fn update_info(app: &mut App, info: &Value) {
    let target = info["targetId"].as_str().unwrap_or("");
    let Some(page) = app
        .browser
        .pages
        .list
        .iter_mut()
        .find(|p| p.target_id == target)
    else {
        return;
    };
    if let Some(url) = info["url"].as_str() {
        page.url = url.to_owned();
    }
    if let Some(title) = info["title"].as_str() {
        page.title = title.to_owned();
    }
}
