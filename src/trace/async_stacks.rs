//! Which script scheduled the task a request was sent from: DevTools names that script as
//! a request's initiator (its `getNetworkInitiator` reads the async parent of the JS stack
//! at the send). DevTools rebuilds whole call trees from the CPU profile; this keeps only
//! what the one question needs: the async task runs and their scheduling events (paired by
//! the trace's flow events) and, from the profile, the node V8 tagged for each scheduling
//! event's `sampleTraceId` with the profile's node tree.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::events::At;

#[derive(Deserialize)]
struct Args<T> {
    data: Option<T>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct TaskData {
    #[serde(default)]
    sample_trace_id: Option<u64>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ChunkData {
    #[serde(default)]
    cpu_profile: Option<CpuProfile>,
}

#[derive(Deserialize, Default)]
struct CpuProfile {
    #[serde(default)]
    nodes: Vec<Node>,
    #[serde(default)]
    trace_ids: HashMap<String, i64>,
}

#[derive(Deserialize)]
struct Node {
    id: i64,
    #[serde(default)]
    parent: Option<i64>,
    #[serde(default, rename = "callFrame")]
    call_frame: Option<CallFrame>,
}

#[derive(Deserialize)]
struct CallFrame {
    #[serde(default)]
    url: Option<String>,
}

/// A thread and a time on it: (pid, tid, ts as bits).
type Key = (i64, i64, u64);

/// A CPU profile: (pid, profile id).
type Profile = (i64, String);

/// A profile's nodes: id → (parent, script URL).
type Nodes = HashMap<i64, (Option<i64>, Option<String>)>;

fn key(at: &At) -> Key {
    (at.pid, at.tid, at.ts.to_bits())
}

#[derive(Clone, Debug, Default)]
pub struct AsyncStacks {
    /// `AsyncTaskRun` slices: (pid, tid, ts, dur).
    runs: Vec<(i64, i64, f64, f64)>,
    /// `AsyncTaskScheduled` slices' sample ids, by where they start.
    scheduled: HashMap<Key, u64>,
    /// The same sample ids: the profile's other tagged samples (one per user-timing mark,
    /// for one) are not kept. A profile chunk comes after the events it tags.
    wanted: HashSet<u64>,
    /// Open scheduling flows by id: where they started.
    flows: HashMap<String, Key>,
    /// Each run's scheduling slice, by where the run starts.
    schedulers: HashMap<Key, Key>,
    /// (pid, profile) → sample id → node.
    trace_ids: HashMap<Profile, HashMap<u64, i64>>,
    nodes: HashMap<Profile, Nodes>,
}

impl AsyncStacks {
    /// Takes an event this reads; false when its args are malformed.
    pub fn take(
        &mut self,
        name: &str,
        ph: &str,
        at: At,
        dur: f64,
        id: Option<&RawValue>,
        args: &str,
    ) -> bool {
        let id = id.map(|v| v.get().trim_matches('"').to_owned());
        match (name, ph) {
            ("v8::Debugger::AsyncTaskRun", "X") => self.runs.push((at.pid, at.tid, at.ts, dur)),
            ("v8::Debugger::AsyncTaskScheduled", "X") => {
                let Ok(parsed) = serde_json::from_str::<Args<TaskData>>(args) else {
                    return false;
                };
                if let Some(sample) = parsed.data.and_then(|d| d.sample_trace_id) {
                    self.scheduled.insert(key(&at), sample);
                    self.wanted.insert(sample);
                }
            }
            ("v8::Debugger::AsyncTaskScheduled", "s") => {
                if let Some(id) = id {
                    self.flows.insert(id, key(&at));
                }
            }
            ("v8::Debugger::AsyncTaskScheduled", "f") => {
                if let Some(start) = id.and_then(|id| self.flows.remove(&id)) {
                    self.schedulers.insert(key(&at), start);
                }
            }
            ("ProfileChunk", _) => return self.chunk(at.pid, id.unwrap_or_default(), args),
            _ => {}
        }
        true
    }

    fn chunk(&mut self, pid: i64, profile: String, args: &str) -> bool {
        let Ok(parsed) = serde_json::from_str::<Args<ChunkData>>(args) else {
            return false;
        };
        let Some(cpu) = parsed.data.and_then(|d| d.cpu_profile) else {
            return true;
        };
        let nodes = self.nodes.entry((pid, profile.clone())).or_default();
        for node in cpu.nodes {
            let url = node
                .call_frame
                .and_then(|f| f.url)
                .filter(|u| !u.is_empty());
            nodes.insert(node.id, (node.parent, url));
        }
        let ids = self.trace_ids.entry((pid, profile)).or_default();
        for (sample, node) in cpu.trace_ids {
            match sample.parse() {
                Ok(sample) if self.wanted.contains(&sample) => {
                    ids.insert(sample, node);
                }
                _ => {}
            }
        }
        true
    }

    /// The script that scheduled the innermost task run around `at`: the first frame with
    /// a URL from the node sampled at the scheduling, up its callers.
    pub fn scheduler_url(&self, at: &At) -> Option<&str> {
        let (pid, tid, ts, _) = self
            .runs
            .iter()
            .filter(|(p, t, ts, dur)| {
                *p == at.pid && *t == at.tid && *ts <= at.ts && at.ts <= ts + dur
            })
            .max_by(|a, b| a.2.total_cmp(&b.2))?;
        let start = self.schedulers.get(&(*pid, *tid, ts.to_bits()))?;
        let sample = self.scheduled.get(start)?;
        for ((p, profile), ids) in &self.trace_ids {
            let (Some(node), true) = (ids.get(sample), *p == at.pid) else {
                continue;
            };
            let nodes = self.nodes.get(&(*p, profile.clone()))?;
            let mut current = Some(*node);
            // A profile's tree has no cycles; the bound guards a malformed one.
            for _ in 0..nodes.len() {
                let (parent, url) = nodes.get(&current?)?;
                if let Some(url) = url {
                    return Some(url);
                }
                current = *parent;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::value::RawValue;

    use super::{AsyncStacks, At};

    fn at(ts: f64) -> At {
        At {
            index: 0,
            ts,
            pid: 1,
            tid: 2,
        }
    }

    /// A timer scheduled from a page script (sample 7 → node 3 → node 2, `a.js`) runs
    /// later; a request sent inside the run is named after `a.js`, one sent after it is not.
    #[test]
    fn a_run_is_named_after_the_script_that_scheduled_it() {
        let mut stacks = AsyncStacks::default();
        let flow = RawValue::from_string("\"0x1\"".into()).unwrap();
        let profile = RawValue::from_string("\"0x9\"".into()).unwrap();
        let scheduled = "v8::Debugger::AsyncTaskScheduled";
        let sample = r#"{"data":{"sampleTraceId":7}}"#;
        assert!(stacks.take(scheduled, "X", at(10.0), 1.0, None, sample));
        assert!(stacks.take(scheduled, "s", at(10.0), 0.0, Some(&flow), "{}"));
        let chunk = r#"{"data":{"cpuProfile":{"nodes":[
            {"id":1,"callFrame":{"url":""}},
            {"id":2,"parent":1,"callFrame":{"url":"http://a.test/a.js"}},
            {"id":3,"parent":2,"callFrame":{"url":""}}],
            "trace_ids":{"7":3,"8":1}}}}"#;
        assert!(stacks.take("ProfileChunk", "P", at(20.0), 0.0, Some(&profile), chunk));
        assert!(stacks.take(scheduled, "f", at(100.0), 0.0, Some(&flow), "{}"));
        let run = "v8::Debugger::AsyncTaskRun";
        assert!(stacks.take(run, "X", at(100.0), 50.0, None, "{}"));
        assert_eq!(stacks.scheduler_url(&at(120.0)), Some("http://a.test/a.js"));
        assert_eq!(stacks.scheduler_url(&at(200.0)), None);
        // Sample 8 tagged no scheduling event: it is not kept.
        assert!(stacks.trace_ids.values().all(|ids| !ids.contains_key(&8)));
    }
}
