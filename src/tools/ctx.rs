//! `Ctx`: the one owner of the state tools work with — the browser, the calls in flight,
//! and each tool family's per-page state — and the browser layer's [`Host`]. Browser events
//! fan out from here to the families that keep state about pages.

use std::collections::HashMap;
use std::path::PathBuf;

use super::call::{Calls, Outcome};
use super::{console, css, emulation, memory, network, screencast, script, snapshot};
use crate::browser::{Browser, CallId, Host, PageId, RawEvent, Runtime};
use crate::pagetools::{self, PageHost, Tables};
use crate::settings::Settings;

pub struct Ctx {
    pub settings: Settings,
    pub browser: Browser<Ctx>,
    pub rt: Runtime<Ctx>,
    pub calls: Calls,
    /// Answers and notices for the MCP layer, which takes them after every event.
    pub outbox: Vec<super::call::Outcome>,
    /// The client's roots as last listed (`None`: never listed), kept by the MCP layer.
    pub client_roots: Option<Vec<PathBuf>>,
    /// Each page's third-party developer tools.
    pub tables: Tables,
    pub console: PerPage<console::Log>,
    pub network: PerPage<network::Log>,
    pub emulation: PerPage<emulation::State>,
    pub snapshots: snapshot::Snapshots,
    pub scripts: PerPage<script::PageScripts>,
    pub heap_captures: PerPage<memory::Captures>,
    pub recordings: PerPage<screencast::Recording>,
    pub css_sheets: PerPage<css::Sheets>,
    /// The one performance trace recording, and the last trace's report (issue 12).
    pub performance: super::performance::State,
}

impl Ctx {
    pub fn new(settings: Settings, browser: Browser<Ctx>) -> Ctx {
        Ctx {
            settings,
            browser,
            rt: Runtime::default(),
            calls: Calls::default(),
            outbox: Vec::new(),
            client_roots: None,
            tables: Tables::default(),
            console: PerPage::default(),
            network: PerPage::default(),
            emulation: PerPage::default(),
            snapshots: snapshot::Snapshots::default(),
            scripts: PerPage::default(),
            heap_captures: PerPage::default(),
            recordings: PerPage::default(),
            css_sheets: PerPage::default(),
            performance: Default::default(),
        }
    }
}

impl PageHost for Ctx {
    fn tables(&mut self) -> &mut Tables {
        &mut self.tables
    }

    fn tables_ref(&self) -> &Tables {
        &self.tables
    }

    fn tools_changed(&mut self) {
        // One notice per turn is enough (the server coalesces further over time).
        if !self
            .outbox
            .iter()
            .any(|o| matches!(o, Outcome::ToolsChanged))
        {
            self.outbox.push(Outcome::ToolsChanged);
        }
    }
}

/// What one tool family keeps per page, created on first use and dropped with the page.
pub struct PerPage<T>(HashMap<PageId, T>);

impl<T> Default for PerPage<T> {
    fn default() -> Self {
        PerPage(HashMap::new())
    }
}

impl<T: Default> PerPage<T> {
    pub fn get(&self, page: PageId) -> Option<&T> {
        self.0.get(&page)
    }

    pub fn get_mut(&mut self, page: PageId) -> Option<&mut T> {
        self.0.get_mut(&page)
    }

    /// The page's state, made empty the first time.
    pub fn entry(&mut self, page: PageId) -> &mut T {
        self.0.entry(page).or_default()
    }

    pub fn remove(&mut self, page: PageId) {
        self.0.remove(&page);
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
            self.tools_changed();
        }
    }

    fn page_closed(&mut self, page: PageId) {
        self.tables.remove(page);
        self.console.remove(page);
        self.network.remove(page);
        self.emulation.remove(page);
        self.snapshots.remove(page);
        self.scripts.remove(page);
        self.heap_captures.remove(page);
        self.recordings.remove(page);
        self.css_sheets.remove(page);
        self.tools_changed();
    }

    fn event(&mut self, page: Option<PageId>, event: &RawEvent) {
        let Some(page) = page else {
            return;
        };
        pagetools::on_event(self, page, event);
        script::on_event(self, page, event);
        console::on_event(self, page, event);
        network::on_event(self, page, event);
        memory::on_event(self, page, event);
        css::on_event(self, page, event);
    }
}
