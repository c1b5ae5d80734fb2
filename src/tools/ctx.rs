//! `Ctx`: the state of the tools layer — the browser, the calls in flight and what is ready
//! for the MCP layer, what each agent has, and each tool family's per-page state. This module holds data only:
//! what works on it (a call's life, the families' tools, the fan-out of browser events)
//! lives in the modules above it, so none of the families' state types names `Ctx`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use super::console::record::Log as ConsoleLog;
use super::css::sheets::Sheets;
use super::emulation::state::State as Emulation;
use super::extension_workers::Workers as ExtensionWorkers;
use super::heap::cache::HeapSnapshots;
use super::heap::loads::{Loads, Waiter};
use super::memory::state::Captures;
use super::network::record::Log as NetworkLog;
pub(crate) use super::per_page::PerPage;
use super::performance::state::State as Performance;
use super::result::ToolResult;
use super::screencast::recording::Recording;
use super::snapshot::Snapshots;
use crate::browser::{AgentId, Browser, CallId, PageId, Runtime};
use crate::pagetools::Tables;
use crate::settings::Settings;
use crate::timers::TimerId;

/// A continuation of tool code.
pub(crate) type Done<T> = crate::browser::Done<Ctx, T>;
/// A continuation that several outcomes race for.
pub(crate) type Once<T> = crate::browser::Once<Ctx, T>;

pub(crate) struct Ctx {
    pub settings: Settings,
    pub browser: Browser<Ctx>,
    pub rt: Runtime<Ctx>,
    pub calls: Calls,
    /// Answers and notices for the MCP layer, which takes them after every event.
    pub outbox: Vec<Outcome>,
    /// What the tools layer keeps for each agent (the browser layer keeps its contexts,
    /// pages and selection).
    pub agents: HashMap<AgentId, Agent>,
    /// Each page's third-party developer tools.
    pub tables: Tables,
    pub console: PerPage<ConsoleLog>,
    pub network: PerPage<NetworkLog>,
    pub emulation: PerPage<Emulation>,
    pub snapshots: Snapshots,
    pub heap_captures: PerPage<Captures>,
    /// The heap snapshot files analysed so far.
    pub heap_snapshots: HeapSnapshots,
    /// The heap snapshot files being read, and the calls waiting on them.
    pub heap_loads: Loads<Waiter<Ctx>>,
    pub recordings: PerPage<Recording>,
    pub css_sheets: PerPage<Sheets>,
    /// The one performance trace recording, and the last trace's report.
    pub performance: Performance,
    /// The extensions' service workers answers list (with `--categoryExtensions`).
    pub extension_workers: ExtensionWorkers,
}

impl Ctx {
    pub(crate) fn new(settings: Settings, browser: Browser<Ctx>) -> Ctx {
        Ctx {
            settings,
            browser,
            rt: Runtime::default(),
            calls: Calls::default(),
            outbox: Vec::new(),
            agents: HashMap::from([(AgentId::DEFAULT, Agent::default())]),
            tables: Tables::default(),
            console: PerPage::default(),
            network: PerPage::default(),
            emulation: PerPage::default(),
            snapshots: Snapshots::default(),
            heap_captures: PerPage::default(),
            heap_snapshots: HeapSnapshots::default(),
            heap_loads: Loads::default(),
            recordings: PerPage::default(),
            css_sheets: PerPage::default(),
            performance: Default::default(),
            extension_workers: ExtensionWorkers::default(),
        }
    }

    /// Every family's state of `page`, dropped with the page.
    pub(crate) fn forget_page(&mut self, page: PageId) {
        self.tables.remove(page);
        self.console.remove(page);
        self.network.remove(page);
        self.emulation.remove(page);
        self.snapshots.remove(page);
        self.heap_captures.remove(page);
        self.recordings.remove(page);
        self.css_sheets.remove(page);
    }
}

/// One agent's own state in the tools layer.
#[derive(Default)]
pub(crate) struct Agent {
    /// Its client's roots as last listed (`None`: never listed), kept by the MCP layer.
    pub roots: Option<Vec<PathBuf>>,
}

/// What the tools layer has for the MCP layer, in the order it happened.
pub(crate) enum Outcome {
    /// A call's answer.
    Answer(CallId, ToolResult),
    /// The set of the agent's page tools changed (one of its pages registered, lost or
    /// changed tools): its clients that show them should list tools again.
    ToolsChanged(AgentId),
}

/// The calls in flight.
#[derive(Default)]
pub(crate) struct Calls {
    pub(super) next_id: u64,
    pub(super) calls: HashMap<CallId, Call>,
    /// Counts the calls that started running page code, in that order.
    pub(super) page_code_seq: u64,
}

impl Calls {
    pub(crate) fn contains(&self, id: CallId) -> bool {
        self.calls.contains_key(&id)
    }
}

/// One call in flight.
pub(crate) struct Call {
    pub tool: &'static str,
    /// The agent it works for: it reaches that agent's pages and files only.
    pub agent: AgentId,
    pub started: Instant,
    /// The call's time limit, when it has one.
    pub(super) timer: Option<TimerId>,
    /// The page code this call runs, so that a timeout can stop a busy page and a dialog
    /// the code opens is answered for it.
    pub(super) page_code: Option<PageCode>,
    /// The WebMCP invocation this call waits for (session, invocation id), cancelled in the
    /// page when the call ends without its answer.
    pub(super) invocation: Option<(String, String)>,
    /// What happened to dialogs this call's page code opened, for its answer.
    pub(super) dialog_notes: Vec<String>,
}

/// The page code a call runs.
pub(super) struct PageCode {
    /// The page session whose JavaScript it runs.
    pub session: String,
    pub page: PageId,
    /// How a dialog it opens is answered; `None`: it is left open.
    pub policy: Option<DialogPolicy>,
    /// Its place among the calls that ran page code: the earliest one answers a dialog.
    pub seq: u64,
}

/// What to do with a dialog that page code opens while a call runs it: the dialog would
/// block the page's main thread, and so the call, so it is answered at once.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DialogPolicy {
    Accept,
    Dismiss,
    /// Accept a prompt with this text.
    AcceptWith(String),
}

impl DialogPolicy {
    /// `dialogAction`: "accept" (the default), "dismiss", or the text to answer a prompt with.
    pub(crate) fn parse(action: Option<&str>) -> DialogPolicy {
        match action {
            None | Some("accept") => DialogPolicy::Accept,
            Some("dismiss") => DialogPolicy::Dismiss,
            Some(text) => DialogPolicy::AcceptWith(text.to_owned()),
        }
    }
}
