//! Agents: the part of the one browser each client sees. An agent owns browser contexts — its
//! home (the browser's default context for the default agent, an isolated context of its own
//! for any other) and the contexts `new_page` names for it — and with them the pages that open
//! in them (cookies, storage and cache stay inside a context), and it has a selected page.
//! A page in a context no agent owns belongs to the default agent. An agent reaches only its
//! own pages: the page lookups of `open.rs` and the lists above take the agent.

use std::collections::HashMap;

use super::host::Host;
use super::ids::{AgentId, PageId};
use crate::cdp::generated::target;

/// One agent's contexts and selection.
pub(crate) struct Agent {
    /// Whether its home is an isolated context of its own (else the default context).
    isolated: bool,
    /// Its isolated home context, once the browser made it.
    home: Option<String>,
    /// `new_page`'s `isolatedContext` names and the contexts made for them.
    named: Vec<(String, String)>,
    pub(crate) selected: Option<PageId>,
    /// Some of its pages went with a lost browser: the next start says so to it.
    lost_pages: bool,
    /// The browser started (or was reached) again after some of its pages were lost: its next
    /// answer says so, and what went with the old browser.
    restarted: bool,
}

/// Where a new tab of an agent opens.
#[derive(Clone, PartialEq)]
pub(crate) enum Place {
    /// The agent's home.
    Home,
    /// The isolated context of that name, the agent's own.
    Named(String),
}

/// Every agent, the default one always among them.
pub(crate) struct Agents {
    map: HashMap<AgentId, Agent>,
    next: u32,
}

impl Default for Agents {
    fn default() -> Self {
        let mut map = HashMap::new();
        map.insert(AgentId::DEFAULT, Agent::new(false));
        Agents { map, next: 0 }
    }
}

impl Agent {
    fn new(isolated: bool) -> Agent {
        Agent {
            isolated,
            home: None,
            named: Vec::new(),
            selected: None,
            lost_pages: false,
            restarted: false,
        }
    }

    fn contexts(&self) -> impl Iterator<Item = &String> {
        self.home.iter().chain(self.named.iter().map(|(_, id)| id))
    }
}

impl Agents {
    /// A new agent, in an isolated home of its own (made when it first opens a page).
    pub(crate) fn add(&mut self) -> AgentId {
        self.next += 1;
        let id = AgentId(self.next);
        self.map.insert(id, Agent::new(true));
        id
    }

    pub(crate) fn get(&self, agent: AgentId) -> Option<&Agent> {
        self.map.get(&agent)
    }

    pub(crate) fn get_mut(&mut self, agent: AgentId) -> Option<&mut Agent> {
        self.map.get_mut(&agent)
    }

    pub(crate) fn exists(&self, agent: AgentId) -> bool {
        self.map.contains_key(&agent)
    }

    /// The agent whose pages open in `context` (the default agent's, for the default context
    /// and any context no agent made).
    pub(crate) fn owner(&self, context: Option<&str>) -> AgentId {
        let Some(context) = context else {
            return AgentId::DEFAULT;
        };
        let owns = |a: &Agent| a.contexts().any(|c| c == context);
        let found = self.map.iter().find(|(_, a)| owns(a));
        found.map_or(AgentId::DEFAULT, |(id, _)| *id)
    }

    /// Whether the server made `context` (an agent's isolated home or a named context): the
    /// browser-wide commands about a page in it must name it, or they reach the default context.
    pub(crate) fn made(&self, context: &str) -> bool {
        self.map
            .values()
            .any(|a| a.contexts().any(|c| c == context))
    }

    /// The name `new_page` gave `context`, if it is one of the agent's named contexts.
    pub(crate) fn context_name(&self, agent: AgentId, context: &str) -> Option<&str> {
        let a = self.map.get(&agent)?;
        let named = a.named.iter().find(|(_, c)| c == context);
        named.map(|(name, _)| name.as_str())
    }

    /// The context a new tab of `agent` opens in at `place`: `Ok(None)` for the default
    /// context, `Err(())` when that context is still to be made.
    pub(crate) fn context_of(&self, agent: AgentId, place: &Place) -> Result<Option<String>, ()> {
        let Some(a) = self.map.get(&agent) else {
            return Err(());
        };
        match place {
            Place::Home if !a.isolated => Ok(None),
            Place::Home => a.home.clone().map(Some).ok_or(()),
            Place::Named(name) => {
                let found = a.named.iter().find(|(n, _)| n == name);
                found.map(|(_, id)| Some(id.clone())).ok_or(())
            }
        }
    }

    /// Records the context the browser made for `place`, unless one is there already (two
    /// calls made one each at once: the first wins, so the place's pages share its cookies).
    /// Returns the context to use and, when `made` is not kept, that it is to be disposed.
    pub(crate) fn keep(&mut self, agent: AgentId, place: Place, made: String) -> (String, bool) {
        let Some(a) = self.map.get_mut(&agent) else {
            // The agent ended while its context was being made.
            return (made, true);
        };
        let slot = match &place {
            Place::Home => a.home.as_ref(),
            Place::Named(name) => a.named.iter().find(|(n, _)| n == name).map(|(_, id)| id),
        };
        if let Some(kept) = slot {
            return (kept.clone(), true);
        }
        match place {
            Place::Home => a.home = Some(made.clone()),
            Place::Named(name) => a.named.push((name, made.clone())),
        }
        (made, false)
    }

    /// The browser is gone, and every context with it; the agents that had pages are told
    /// once it is back.
    pub(crate) fn browser_lost(&mut self, had_pages: impl Fn(AgentId) -> bool) {
        for (id, a) in &mut self.map {
            a.home = None;
            a.named.clear();
            a.selected = None;
            a.lost_pages |= had_pages(*id);
        }
    }

    /// The browser is up again.
    pub(crate) fn browser_back(&mut self) {
        for a in self.map.values_mut() {
            a.restarted |= std::mem::take(&mut a.lost_pages);
        }
    }

    /// Whether `agent` is still to hear that the browser was restarted (it hears it once).
    pub(crate) fn take_restarted(&mut self, agent: AgentId) -> bool {
        let a = self.map.get_mut(&agent);
        a.is_some_and(|a| std::mem::take(&mut a.restarted))
    }
}

/// Ends an agent: its contexts are disposed, and with them its pages, cookies and storage
/// (the browser closes the pages; their detach events tidy up as for any closed page). The
/// default agent lives as long as the server.
pub(crate) fn dispose<H: Host>(cx: &mut H, agent: AgentId) {
    if agent == AgentId::DEFAULT {
        return;
    }
    let Some(a) = cx.browser().pages.agents.map.remove(&agent) else {
        return;
    };
    for context in a.contexts() {
        let params = target::DisposeBrowserContextParams {
            browser_context_id: context.clone(),
        };
        cx.run_as(None, |cx| super::fire(cx, None, params));
    }
}
