//! Reaching a page: the page a call works on ([`with_page`]: the browser ready, the agent's
//! page named or selected, a blank one opened when it has none), and new tabs ([`open`],
//! [`open_isolated`]: in the agent's home context or in a named isolated one of its own,
//! made on first use). Each is a flow; a page counts as reached once it is attached and set
//! up.

use super::agents::Place;
use super::host::{Done, Flow, Host};
use super::ids::{AgentId, PageId};
use super::pages::{no_such_page, when_ready};
use super::{fire, send_then};
use crate::cdp::generated::target;
use crate::error::Error;

/// Runs `done` with the page a call of `agent` works on: `requested` (a `pageId` argument,
/// which must name one of the agent's pages) or its selected page, starting the browser and
/// opening a page if it has none.
pub(crate) fn with_page<H: Host>(
    cx: &mut H,
    agent: AgentId,
    requested: Option<PageId>,
    done: Done<H, PageId>,
) {
    let find = FindPage {
        agent,
        requested,
        done,
    };
    super::ready(cx, find.then(Found::Ready));
}

/// Opens an about:blank tab in the agent's home and runs `done` when it is ready.
pub(crate) fn open_blank<H: Host>(cx: &mut H, agent: AgentId, done: Done<H, PageId>) {
    open(cx, agent, false, Place::Home, done)
}

/// Opens a new about:blank tab of `agent` in the isolated context named `name` (cookies and
/// storage shared with its other pages only; the name is the agent's own), or in its home
/// without a name. Navigation is the caller's; `done` runs when the tab is ready.
pub(crate) fn open_isolated<H: Host>(
    cx: &mut H,
    agent: AgentId,
    background: bool,
    name: Option<String>,
    done: Done<H, PageId>,
) {
    let place = name.map_or(Place::Home, Place::Named);
    open(cx, agent, background, place, done)
}

/// Opens the tab at `place`, making its context first when the agent has none there yet.
fn open<H: Host>(
    cx: &mut H,
    agent: AgentId,
    background: bool,
    place: Place,
    done: Done<H, PageId>,
) {
    if !cx.browser().pages.agents.exists(agent) {
        return done(cx, Err(agent_gone()));
    }
    let known = cx.browser().pages.agents.context_of(agent, &place);
    let tab = NewTab {
        agent,
        background,
        place,
        done,
    };
    match known {
        Ok(context) => tab.create_target(cx, context),
        Err(()) => {
            let params = target::CreateBrowserContextParams::default();
            send_then(cx, None, params, tab, |r| {
                Opened::Context(r.map(|c| c.browser_context_id))
            });
        }
    }
}

fn agent_gone() -> Error {
    Error::Invalid("This agent's session has ended.".into())
}

/// Finding the page a call works on.
struct FindPage<H> {
    agent: AgentId,
    requested: Option<PageId>,
    done: Done<H, PageId>,
}

enum Found {
    /// The browser is up (started if it was not).
    Ready(Result<(), Error>),
}

impl<H: Host> Flow<H> for FindPage<H> {
    type Step = Found;

    fn next(self, cx: &mut H, step: Found) {
        let Found::Ready(ready) = step;
        if let Err(e) = ready {
            return (self.done)(cx, Err(e));
        }
        let (pages, agent) = (&cx.browser().pages, self.agent);
        let id = match self.requested {
            Some(id) => match pages.get_for(agent, id) {
                Some(_) => id,
                None => return (self.done)(cx, Err(no_such_page(id))),
            },
            None => match pages
                .selected(agent)
                .or_else(|| pages.of(agent).next().map(|p| p.id))
            {
                Some(id) => id,
                None => return open_blank(cx, agent, self.done),
            },
        };
        let Some(page) = cx.browser().pages.get(id) else {
            return (self.done)(cx, Err(no_such_page(id)));
        };
        if page.initialized {
            (self.done)(cx, Ok(id))
        } else {
            let target = page.target_id.clone();
            when_ready(cx, target, self.done)
        }
    }
}

/// A new tab being opened.
struct NewTab<H> {
    agent: AgentId,
    background: bool,
    /// Where it opens.
    place: Place,
    done: Done<H, PageId>,
}

enum Opened {
    /// The browser made a context for the place.
    Context(Result<String, Error>),
    /// The browser made the tab's target.
    Target(Result<String, Error>),
}

impl<H: Host> Flow<H> for NewTab<H> {
    type Step = Opened;

    fn next(self, cx: &mut H, step: Opened) {
        match step {
            Opened::Context(Ok(made)) => match keep_context(cx, self.agent, &self.place, made) {
                Some(context) => self.create_target(cx, Some(context)),
                None => (self.done)(cx, Err(agent_gone())),
            },
            Opened::Target(Ok(target)) => when_ready(cx, target, self.done),
            Opened::Context(Err(e)) | Opened::Target(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

impl<H: Host> NewTab<H> {
    /// Opens the tab, an about:blank target, in `context` (or the default one).
    fn create_target(self, cx: &mut H, context: Option<String>) {
        let params = target::CreateTargetParams {
            url: "about:blank".into(),
            background: Some(self.background),
            browser_context_id: context,
            ..Default::default()
        };
        send_then(cx, None, params, self, |r| {
            Opened::Target(r.map(|c| c.target_id))
        });
    }
}

/// Records the context made for the agent's `place` and returns the one its pages go to
/// (`None`: the agent ended meanwhile). Two calls that name the same new context may both be
/// making it at once: the first answer wins, and the later context is disposed.
fn keep_context<H: Host>(
    cx: &mut H,
    agent: AgentId,
    place: &Place,
    made: String,
) -> Option<String> {
    let agents = &mut cx.browser().pages.agents;
    let alive = agents.exists(agent);
    let (context, dispose) = agents.keep(agent, place.clone(), made.clone());
    if dispose {
        let params = target::DisposeBrowserContextParams {
            browser_context_id: made,
        };
        fire(cx, None, params);
    }
    alive.then_some(context)
}
