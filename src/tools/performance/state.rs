//! The one trace recording, server-wide, and the last trace's report that
//! `performance_analyze_insight` reads. `Ctx` holds one [`State`].

use crate::browser::CallId;
use crate::trace;

/// The one recording, and the last trace's report.
#[derive(Default)]
pub(crate) struct State {
    pub(super) running: Option<Running>,
    pub(super) last: Option<trace::Report>,
}

/// A recording in progress.
pub(super) struct Running {
    /// The page session it records.
    pub(super) session: String,
    /// The call that records and will stop it itself (autoStop), while it runs.
    pub(super) owner: Option<CallId>,
}
