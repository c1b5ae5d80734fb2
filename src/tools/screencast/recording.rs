//! A page's screen recording, as `screencast_start` leaves it for `screencast_stop`. `Ctx`
//! holds one [`Recording`] per page.

use std::fs::File;
use std::path::PathBuf;

/// A page's recording: nothing, starting, or running into `path`.
#[derive(Default)]
pub(crate) enum Recording {
    #[default]
    Idle,
    Starting,
    Running {
        /// The browser's stream of the recording, read at the stop.
        stream: String,
        path: PathBuf,
        file: File,
    },
}
