//! Page targets: attaching to them, getting each ready (shim, binding, domains), the MCP page
//! ids agents see, the agent each belongs to, and which page each agent has selected.

use super::agents::Agents;
use super::host::{Done, Host};
pub(crate) use super::ids::PageId;
use super::ids::{AgentId, Owner};
use super::{fire, send};
use crate::cdp::generated::{network, page as cdp_page, runtime, target};
use crate::error::{Error, Result};
use crate::log::log;

/// A JavaScript dialog that is open on a page.
#[derive(Debug, Clone)]
pub(crate) struct Dialog {
    pub kind: String,
    pub message: String,
    pub default_prompt: String,
}

pub(crate) struct Page {
    /// The id agents use (`pageId`), stable for the life of the target.
    pub id: PageId,
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
    /// The one report so far of the page's last crash (see [`CrashReport`]).
    pub unpaired_crash: Option<CrashReport>,
    pub dialog: Option<Dialog>,
    /// The main frame's current loader id (part of what makes a snapshot uid).
    pub loader_id: String,
    /// Its out-of-process iframes, nested ones included.
    pub frames: Vec<FrameSession>,
    /// The element our last click or fill focused, as (session, remote object): see
    /// `frames::focused`.
    pub focused: Option<(String, String)>,
    /// The browser context it lives in (`None` when the browser did not say).
    pub browser_context: Option<String>,
    /// The agent whose context it lives in: the only one that sees it.
    pub agent: AgentId,
}

/// Who reported a page's crash. The browser reports each crash twice, on the page's
/// session (`Inspector.targetCrashed`) and on its own (`Target.targetCrashed`), and the
/// second report may come after a navigation to recover has begun: it is the same crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CrashReport {
    PageSession,
    Browser,
}

/// One out-of-process iframe of a page: its own target and session.
pub(crate) struct FrameSession {
    /// The frame's target id, which is also its frame id.
    pub target_id: String,
    pub session: String,
    /// The session of the frame (page or iframe) that holds its `<iframe>` element.
    pub parent_session: String,
    pub crashed: bool,
}

/// Asks `session` (a page's or a frame's) to attach to its cross-site iframes.
pub(crate) fn auto_attach<H: Host>(cx: &mut H, session: &str) {
    let params = target::SetAutoAttachParams {
        auto_attach: true,
        wait_for_debugger_on_start: true,
        flatten: Some(true),
        ..Default::default()
    };
    fire(cx, Some(session), params);
}

pub(crate) struct Pages<H> {
    list: Vec<Page>,
    next_id: PageId,
    /// Calls waiting for a page to be attached and initialised, by target id.
    waiting: Vec<(String, Owner, Done<H, PageId>)>,
    /// Whose pages are whose, and what each agent selected.
    pub agents: Agents,
}

impl<H> Default for Pages<H> {
    fn default() -> Self {
        Pages {
            list: Vec::new(),
            next_id: PageId::NONE,
            waiting: Vec::new(),
            agents: Agents::default(),
        }
    }
}

impl<H> Pages<H> {
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &Page> {
        self.list.iter()
    }

    /// The pages `agent` sees, in the order they were attached.
    pub(crate) fn of(&self, agent: AgentId) -> impl Iterator<Item = &Page> {
        self.list.iter().filter(move |p| p.agent == agent)
    }

    /// The page `agent` has selected.
    pub(crate) fn selected(&self, agent: AgentId) -> Option<PageId> {
        self.agents.get(agent).and_then(|a| a.selected)
    }

    /// Selects one of `agent`'s pages.
    pub(crate) fn select(&mut self, agent: AgentId, page: PageId) {
        if let Some(a) = self.agents.get_mut(agent) {
            a.selected = Some(page);
        }
    }

    /// The name `new_page` gave the page's isolated context, if it has one.
    pub(crate) fn context_name(&self, page: &Page) -> Option<&str> {
        let id = page.browser_context.as_deref()?;
        self.agents.context_name(page.agent, id)
    }

    /// The context the page is in when the server made it; `None` for the browser's default
    /// context (and any the server did not make), which browser-wide commands reach by naming
    /// no context.
    pub(crate) fn made_context(&self, page: &Page) -> Option<String> {
        let id = page.browser_context.as_deref()?;
        self.agents.made(id).then(|| id.to_owned())
    }

    pub(crate) fn get(&self, id: PageId) -> Option<&Page> {
        self.list.iter().find(|p| p.id == id)
    }

    /// Page `id` when `agent` may reach it.
    pub(crate) fn get_for(&self, agent: AgentId, id: PageId) -> Option<&Page> {
        self.get(id).filter(|p| p.agent == agent)
    }

    pub(crate) fn get_mut(&mut self, id: PageId) -> Option<&mut Page> {
        self.list.iter_mut().find(|p| p.id == id)
    }

    pub(crate) fn by_session(&self, session: &str) -> Option<&Page> {
        self.list.iter().find(|p| p.session == session)
    }

    pub(crate) fn by_session_mut(&mut self, session: &str) -> Option<&mut Page> {
        self.list.iter_mut().find(|p| p.session == session)
    }

    pub(crate) fn by_target(&self, target_id: &str) -> Option<&Page> {
        self.list.iter().find(|p| p.target_id == target_id)
    }

    pub(crate) fn forget_owner(&mut self, owner: Owner) {
        self.waiting.retain(|(_, o, _)| *o != owner);
    }

    fn remove(&mut self, session: &str) -> Option<Page> {
        let i = self.list.iter().position(|p| p.session == session)?;
        Some(self.list.remove(i))
    }
}

/// Target.attachedToTarget: a new page (or an existing one, at start) is ours to set up.
pub(crate) fn attached<H: Host>(cx: &mut H, e: target::AttachedToTargetEvent) {
    let session = e.session_id;
    let info = e.target_info;
    // --experimentalIncludeAllPages: extensions' background pages and apps' webviews are
    // pages too, as in the reference.
    let also_pages = cx.settings().include_all_pages;
    let page_like = matches!(info.r#type.as_str(), "background_page" | "webview");
    if info.r#type != "page" && !(also_pages && page_like) {
        // Workers and the like: let them run; we do not drive them. Their requests follow
        // the URL rules too (as in the reference).
        if info.r#type.ends_with("worker") {
            apply_url_rules(cx, &session, true);
        }
        fire(
            cx,
            Some(&session),
            runtime::RunIfWaitingForDebuggerParams {},
        );
        return;
    }
    // A page already open on a URL the rules forbid, when we connect: left alone, unseen
    // (as the reference leaves it).
    let starting = cx.browser().phase == super::Phase::Starting;
    if starting && !super::url_rules::allowed(&cx.settings().policies.url_rules, &info.url) {
        fire(
            cx,
            Some(&session),
            runtime::RunIfWaitingForDebuggerParams {},
        );
        let detach = target::DetachFromTargetParams {
            session_id: Some(session),
            ..Default::default()
        };
        fire(cx, None, detach);
        return;
    }
    let pages = &mut cx.browser().pages;
    if pages.by_target(&info.target_id).is_some() {
        return;
    }
    pages.next_id = pages.next_id.next();
    let id = pages.next_id;
    let agent = pages.agents.owner(info.browser_context_id.as_deref());
    pages.list.push(Page {
        id,
        agent,
        target_id: info.target_id,
        session: session.clone(),
        browser_context: info.browser_context_id,
        url: info.url,
        title: info.title,
        initialized: false,
        document: 0,
        loaded_loader: None,
        context: None,
        crashed: false,
        unpaired_crash: None,
        dialog: None,
        loader_id: String::new(),
        frames: Vec::new(),
        focused: None,
    });
    if pages.selected(agent).is_none() {
        pages.select(agent, id);
    }
    let paused = e.waiting_for_debugger;
    cx.run_as(None, |cx| initialize(cx, id, session, paused));
}

/// Enables what we need on a new page session, in one pipelined burst; the page counts as
/// ready when the last answer is in. The layers above add their own commands to the burst
/// (`Host::page_attached`) while the page is still paused before its first script.
fn initialize<H: Host>(cx: &mut H, id: PageId, session: String, paused: bool) {
    let s = Some(session.as_str());
    fire(cx, s, cdp_page::EnableParams::default());
    let lifecycle = cdp_page::SetLifecycleEventsEnabledParams { enabled: true };
    fire(cx, s, lifecycle);
    fire(cx, s, runtime::EnableParams {});
    auto_attach(cx, &session);
    cx.page_attached(id, &session, paused);
    apply_url_rules(cx, &session, false);
    send(
        cx,
        s,
        runtime::RunIfWaitingForDebuggerParams {},
        move |cx, r| {
            if let Err(e) = &r {
                log!("page {id}: {e}");
            }
            page_ready(cx, id);
        },
    );
}

/// `--blockedUrlPattern` / `--allowedUrlPattern`: the browser refuses
/// matching requests (navigations and subresources) by taking them offline, set before the
/// target runs.
fn apply_url_rules<H: Host>(cx: &mut H, session: &str, enable_network: bool) {
    let rules = &cx.settings().policies.url_rules;
    if rules.is_empty() {
        return;
    }
    let rule = network::EmulateNetworkConditionsByRuleParams {
        matched_network_conditions: super::url_rules::conditions(rules),
        ..Default::default()
    };
    if enable_network {
        fire(cx, Some(session), network::EnableParams::default());
    }
    fire(cx, Some(session), rule);
}

fn page_ready<H: Host>(cx: &mut H, id: PageId) {
    let pages = &mut cx.browser().pages;
    let Some(page) = pages.get_mut(id) else {
        return;
    };
    page.initialized = true;
    let target_id = page.target_id.clone();
    let (ready, still): (Vec<_>, Vec<_>) = std::mem::take(&mut pages.waiting)
        .into_iter()
        .partition(|(t, _, _)| *t == target_id);
    pages.waiting = still;
    for (_, owner, done) in ready {
        if cx.alive(owner) {
            cx.run_as(owner, |cx| done(cx, Ok(id)));
        }
    }
}

/// Runs `done` with the page's id once the target is attached and initialised.
pub(crate) fn when_ready<H: Host>(cx: &mut H, target_id: String, done: Done<H, PageId>) {
    match cx.browser().pages.by_target(&target_id) {
        Some(p) if p.initialized => {
            let id = p.id;
            done(cx, Ok(id))
        }
        _ => {
            let owner = cx.current();
            cx.browser().pages.waiting.push((target_id, owner, done))
        }
    }
}

/// Target.detachedFromTarget: the page is gone (closed, or its target replaced).
pub(crate) fn detached<H: Host>(cx: &mut H, session: &str) {
    let pages = &mut cx.browser().pages;
    let Some(page) = pages.remove(session) else {
        return;
    };
    if pages.selected(page.agent) == Some(page.id) {
        let first = pages.of(page.agent).next().map(|p| p.id);
        if let Some(a) = pages.agents.get_mut(page.agent) {
            a.selected = first;
        }
    }
    let err = Error::PageGone(format!("Page {} was closed.", page.id));
    for f in &page.frames {
        super::fail_session(cx, &f.session, err.clone());
    }
    super::fail_session(cx, session, err);
    cx.page_closed(page.id, page.agent);
}

/// The browser is gone: so are its pages.
pub(crate) fn clear<H: Host>(cx: &mut H, err: Error) {
    let gone: Vec<(PageId, AgentId)> = (cx.browser().pages.list.drain(..))
        .map(|p| (p.id, p.agent))
        .collect();
    let had_pages = |agent| gone.iter().any(|(_, a)| *a == agent);
    cx.browser().pages.agents.browser_lost(had_pages);
    for (_, owner, done) in std::mem::take(&mut cx.browser().pages.waiting) {
        if cx.alive(owner) {
            let e = err.clone();
            cx.run_as(owner, |cx| cx.resolve(done, Err(e)));
        }
    }
    for (id, agent) in gone {
        cx.page_closed(id, agent);
    }
}

/// Calls that run code in a page fail at once on a crashed one: until it is navigated, the
/// browser leaves such commands unanswered.
pub(crate) fn not_crashed<H>(pages: &Pages<H>, id: PageId) -> Result<()> {
    match pages.get(id) {
        None => Err(no_such_page(id)),
        Some(p) if p.crashed => Err(Error::Crashed),
        Some(_) => Ok(()),
    }
}

/// An unknown page id, in the reference's words (the id is in the call for the agent to see).
pub(crate) fn no_such_page(_id: PageId) -> Error {
    Error::Invalid("No page found".into())
}

/// The page's session if it still exists, else the error a call should report.
pub(crate) fn session_of<H>(pages: &Pages<H>, id: PageId) -> Result<String> {
    pages
        .get(id)
        .map(|p| p.session.clone())
        .ok_or_else(|| Error::PageGone(format!("Page {id} was closed.")))
}

/// Takes a target's current URL and title (Target.targetInfoChanged, Target.getTargets).
pub(crate) fn update_info<H>(pages: &mut Pages<H>, info: &target::TargetInfo) {
    let Some(page) = pages
        .list
        .iter_mut()
        .find(|p| p.target_id == info.target_id)
    else {
        return;
    };
    page.url = info.url.clone();
    page.title = info.title.clone();
}
