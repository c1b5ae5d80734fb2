//! What the browser layer tells the tools layer ([`Host`], [`PageHost`] for [`Ctx`]): the
//! browser's events fanned out to the families that keep state about pages, in one place.

use super::ctx::{Ctx, Outcome};
use super::{console, css, dialogs, memory, network};
use crate::browser::{AgentId, Browser, CallId, Host, PageId, RawEvent, Runtime};
use crate::pagetools::{self, PageHost, Tables};
use crate::settings::Settings;

impl PageHost for Ctx {
    fn tables(&mut self) -> &mut Tables {
        &mut self.tables
    }

    fn tables_ref(&self) -> &Tables {
        &self.tables
    }

    fn tools_changed(&mut self, page: PageId) {
        if let Some(agent) = self.browser.pages.get(page).map(|p| p.agent) {
            self.agent_tools_changed(agent);
        }
    }
}

impl Ctx {
    /// The set of the agent's page tools changed (or, with `--exposePageTools`, which of its
    /// pages is selected).
    pub(crate) fn agent_tools_changed(&mut self, agent: AgentId) {
        // One notice per turn is enough (the server coalesces further over time).
        let told = |o: &Outcome| matches!(o, Outcome::ToolsChanged(a) if *a == agent);
        if !self.outbox.iter().any(told) {
            self.outbox.push(Outcome::ToolsChanged(agent));
        }
    }
}

impl Host for Ctx {
    fn browser(&mut self) -> &mut Browser<Ctx> {
        &mut self.browser
    }

    fn browser_ref(&self) -> &Browser<Ctx> {
        &self.browser
    }

    fn rt(&mut self) -> &mut Runtime<Ctx> {
        &mut self.rt
    }

    fn rt_ref(&self) -> &Runtime<Ctx> {
        &self.rt
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn call_alive(&self, call: CallId) -> bool {
        self.calls.contains(call)
    }

    fn page_attached(&mut self, page: PageId, session: &str, paused: bool) {
        pagetools::attach(self, page, session, paused);
        console::attach(self, session);
        network::attach(self, session);
    }

    fn frame_attached(&mut self, _page: PageId, session: &str) {
        network::attach(self, session);
    }

    fn frame_event(&mut self, page: PageId, event: &RawEvent) {
        console::on_frame_event(self, page, event);
        network::on_event(self, page, event);
    }

    fn document_changed(&mut self, page: PageId) {
        self.snapshots.new_document(page);
        pagetools::webmcp::document_changed(self, page);
        if self.tables.reset(page) {
            self.tools_changed(page);
        }
    }

    fn page_closed(&mut self, page: PageId, agent: AgentId) {
        self.forget_page(page);
        self.agent_tools_changed(agent);
    }

    fn event(&mut self, page: Option<PageId>, event: &RawEvent) {
        let Some(page) = page else {
            return;
        };
        pagetools::on_event(self, page, event);
        dialogs::on_event(self, page, event);
        console::on_event(self, page, event);
        network::on_event(self, page, event);
        memory::on_event(self, page, event);
        css::on_event(self, page, event);
    }
}
