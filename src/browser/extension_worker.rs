//! An extension's service worker, waited for until it has run its script. The browser answers
//! `Extensions.loadUnpacked` before the extension's worker has started, and an event sent to
//! the extension before the worker registered its listeners (its toolbar action, say) is
//! lost without a word. So a load is complete once a new worker of the extension has been
//! attached (the server attaches every worker) and an evaluation in it has answered: the
//! worker's thread runs it after the script's top level, where listeners are registered.

use std::time::Duration;

use super::host::{Done, Flow, Host};
use super::{send_then, waiters};
use crate::cdp::generated::{runtime, target};
use crate::error::Error;

/// How long a worker may take to start. Past it the extension is still installed; only its
/// first events may be missed, as they would be without this wait.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs `done` once a new service worker of the extension `id` has run its script, or none
/// started within [`START_TIMEOUT`] (then with the timeout's error, for the caller to judge).
/// Called as soon as the load is answered.
pub(crate) fn ready<H: Host>(cx: &mut H, id: &str, done: Done<H, ()>) {
    let workers = target::GetTargetsParams {
        filter: Some(vec![target::FilterEntry {
            r#type: Some("service_worker".into()),
            exclude: None,
        }]),
    };
    let flow = WorkerReady {
        prefix: format!("chrome-extension://{id}/"),
        done,
    };
    send_then(cx, None, workers, flow, |r| {
        Worker::Listed(r.map(|t| t.target_infos))
    });
}

struct WorkerReady<H> {
    /// The start of every URL of the extension's pages and workers.
    prefix: String,
    done: Done<H, ()>,
}

enum Worker {
    /// The service workers running now.
    Listed(Result<Vec<target::TargetInfo>, Error>),
    /// A new worker of the extension was attached.
    Started(Result<target::AttachedToTargetEvent, Error>),
    /// The worker answered an evaluation.
    Ran(Result<(), Error>),
}

impl<H: Host> Flow<H> for WorkerReady<H> {
    type Step = Worker;

    fn next(self, cx: &mut H, step: Worker) {
        match step {
            Worker::Listed(Ok(list)) => {
                // A worker running now is the one a reload replaces, about to stop.
                let old: Vec<String> = list
                    .into_iter()
                    .filter(|t| t.url.starts_with(&self.prefix))
                    .map(|t| t.target_id)
                    .collect();
                self.await_start(cx, old)
            }
            Worker::Started(Ok(e)) => {
                let nothing = runtime::EvaluateParams {
                    expression: "0".into(),
                    ..Default::default()
                };
                let session = e.session_id;
                send_then(cx, Some(&session), nothing, self, |r| {
                    Worker::Ran(r.map(drop))
                })
            }
            Worker::Ran(r) => (self.done)(cx, r),
            Worker::Listed(Err(e)) | Worker::Started(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

impl<H: Host> WorkerReady<H> {
    /// Waits for the server's attachment to a worker of the extension not in `old`, which
    /// lets it run.
    fn await_start(self, cx: &mut H, old: Vec<String>) {
        let prefix = self.prefix.clone();
        let wanted = move |e: &target::AttachedToTargetEvent| {
            let t = &e.target_info;
            t.r#type == "service_worker"
                && t.url.starts_with(&prefix)
                && !old.contains(&t.target_id)
        };
        let message = "The extension's service worker did not start.".to_owned();
        let started = self.then(Worker::Started);
        waiters::wait(cx, "", wanted, START_TIMEOUT, message, started);
    }
}
