//! The one trace recording, server-wide (the agent that started it alone stops it), and each
//! agent's last trace report, which `performance_analyze_insight` reads. `Ctx` holds one
//! [`State`].

use std::collections::HashMap;

use crate::browser::{AgentId, CallId};
use crate::trace;

/// The one recording, and each agent's last trace's report.
#[derive(Default)]
pub(crate) struct State {
    pub(super) running: Option<Running>,
    pub(super) last: HashMap<AgentId, trace::Report>,
}

/// A recording in progress.
pub(super) struct Running {
    /// The page session it records.
    pub(super) session: String,
    /// The call that records and will stop it itself (autoStop), while it runs.
    pub(super) owner: Option<CallId>,
    /// The agent whose trace it is.
    pub(super) agent: AgentId,
}
