//! Agents as the tools layer sees them: made and ended here, for the MCP layer, which gives
//! each client session (or each name a client chose) one. An agent's calls reach its own pages
//! only (`call::page`), its files are judged against its own client's roots, and its trace
//! report is its own; the browser layer keeps its contexts and selection
//! (`browser::agents`).

use std::path::PathBuf;

use super::call;
use super::ctx::{Agent, Ctx};
use super::performance;
use crate::browser::{agents, AgentId};

/// A new agent, in an isolated browser context of its own (made when it first needs a page).
pub(crate) fn open(cx: &mut Ctx) -> AgentId {
    let agent = cx.browser.pages.agents.add();
    cx.agents.insert(agent, Agent::default());
    agent
}

/// Ends `agent`: its calls in flight are cancelled (unanswered: the MCP layer has no one to
/// answer), its trace dropped, and its browser contexts disposed, with its pages, cookies and
/// storage.
pub(crate) fn close(cx: &mut Ctx, agent: AgentId) {
    if agent == AgentId::DEFAULT || cx.agents.remove(&agent).is_none() {
        return;
    }
    let calls: Vec<_> = (cx.calls.calls.iter())
        .filter(|(_, c)| c.agent == agent)
        .map(|(id, _)| *id)
        .collect();
    for id in calls {
        call::cancel(cx, id);
    }
    performance::forget_agent(cx, agent);
    agents::dispose(cx, agent);
}

/// The agent's client listed its roots (`None`: it could not, or they no longer apply).
pub(crate) fn set_roots(cx: &mut Ctx, agent: AgentId, roots: Option<Vec<PathBuf>>) {
    if let Some(a) = cx.agents.get_mut(&agent) {
        a.roots = roots;
    }
}

/// How many calls the agent has in flight.
pub(crate) fn busy(cx: &Ctx, agent: AgentId) -> usize {
    cx.calls.calls.values().filter(|c| c.agent == agent).count()
}
