//! Which script scheduled the task a request was sent from: DevTools names that script as
//! a request's initiator (its `getNetworkInitiator` reads the async parent of the JS stack
//! at the send). DevTools rebuilds whole call trees from the CPU profile; this keeps only
//! what the one question needs: the async task runs and their scheduling events (paired by
//! the trace's flow events) and, from the profile, the node V8 tagged for each scheduling
//! event's `sampleTraceId` with the profile's node tree.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::event::At;

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
struct ChunkData<'a> {
    #[serde(default, borrow)]
    cpu_profile: Option<CpuProfile<'a>>,
}

#[derive(Deserialize, Default)]
struct CpuProfile<'a> {
    #[serde(default, borrow)]
    nodes: Vec<Node<'a>>,
    #[serde(default)]
    trace_ids: HashMap<String, i64>,
}

#[derive(Deserialize)]
struct Node<'a> {
    id: i64,
    #[serde(default)]
    parent: Option<i64>,
    #[serde(default, rename = "callFrame", borrow)]
    call_frame: Option<CallFrame<'a>>,
}

#[derive(Deserialize)]
struct CallFrame<'a> {
    #[serde(default, borrow)]
    url: Option<Cow<'a, str>>,
}

/// A thread and a time on it: (pid, tid, ts as bits).
type Key = (i64, i64, u64);

/// A CPU profile: (pid, profile id).
type Profile = (i64, String);

/// The profile nodes kept, all profiles together. Nodes arrive with the trace and every
/// ancestor of a tagged node may be needed later, so they are kept compactly (16 bytes
/// each and the table's slack: URLs interned, ids as V8 writes them, in 32 bits) and only
/// up to this many: a hostile or huge trace cannot grow the analyser past ~3.5 MB here, and
/// a request whose scheduler's node came later keeps the initiator DevTools' other rules
/// give it.
const MAX_NODES: usize = 100_000;
/// Async task runs, scheduling slices, open flows and paired flows kept, each: a page that
/// schedules timers in a loop must not grow the analyser with its trace (~10 MB at most for
/// all four); a request sent from a task past the cap keeps DevTools' other initiator rules.
const MAX_TASKS: usize = 50_000;
/// Profiles kept: a real trace has one per profiled thread.
const MAX_PROFILES: usize = 256;
/// A node's parent when it has none, and a node's URL when it has none.
const NO_PARENT: u32 = u32::MAX;
const NO_URL: u32 = u32::MAX;

/// A profile's node as one 64-bit key.
fn node_key(profile: u32, node: u32) -> u64 {
    (u64::from(profile) << 32) | u64::from(node)
}

fn key(at: &At) -> Key {
    (at.pid, at.tid, at.ts.to_bits())
}

#[derive(Clone, Debug, Default)]
pub(super) struct AsyncStacks {
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
    /// Profiles by (pid, profile id), numbered in the order they came.
    profiles: HashMap<Profile, u32>,
    /// (profile, sample id) → node.
    trace_ids: HashMap<(u32, u64), u32>,
    /// `node_key(profile, node id)` → (parent or `NO_PARENT`, URL index or `NO_URL`).
    nodes: HashMap<u64, (u32, u32)>,
    urls: Vec<String>,
    url_index: HashMap<String, u32>,
}

impl AsyncStacks {
    /// Takes an event this reads; false when its args are malformed.
    pub(super) fn take(
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
            ("v8::Debugger::AsyncTaskRun", "X") if self.runs.len() < MAX_TASKS => {
                self.runs.push((at.pid, at.tid, at.ts, dur))
            }
            ("v8::Debugger::AsyncTaskScheduled", "X") if self.scheduled.len() < MAX_TASKS => {
                let Ok(parsed) = serde_json::from_str::<Args<TaskData>>(args) else {
                    return false;
                };
                if let Some(sample) = parsed.data.and_then(|d| d.sample_trace_id) {
                    self.scheduled.insert(key(&at), sample);
                    self.wanted.insert(sample);
                }
            }
            ("v8::Debugger::AsyncTaskScheduled", "s") if self.flows.len() < MAX_TASKS => {
                if let Some(id) = id {
                    self.flows.insert(id, key(&at));
                }
            }
            ("v8::Debugger::AsyncTaskScheduled", "f") if self.schedulers.len() < MAX_TASKS => {
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
        let count = self.profiles.len();
        let profile = match self.profiles.get(&(pid, profile.clone())) {
            Some(&n) => n,
            None if count < MAX_PROFILES => {
                let n = count as u32;
                self.profiles.insert((pid, profile), n);
                n
            }
            None => return true,
        };
        for node in cpu.nodes {
            if self.nodes.len() >= MAX_NODES {
                break;
            }
            // Ids outside 32 bits are not V8's: such a node is not kept.
            let Ok(id) = u32::try_from(node.id) else {
                continue;
            };
            let parent = node
                .parent
                .map_or(Some(NO_PARENT), |p| u32::try_from(p).ok());
            let url = node.call_frame.and_then(|f| f.url);
            let url = url
                .filter(|u| !u.is_empty())
                .map_or(NO_URL, |u| self.intern(u));
            if let Some(parent) = parent {
                self.nodes.insert(node_key(profile, id), (parent, url));
            }
        }
        for (sample, node) in cpu.trace_ids {
            match (sample.parse(), u32::try_from(node)) {
                (Ok(sample), Ok(node)) if self.wanted.contains(&sample) => {
                    self.trace_ids.insert((profile, sample), node);
                }
                _ => {}
            }
        }
        true
    }

    fn intern(&mut self, url: Cow<str>) -> u32 {
        if let Some(&n) = self.url_index.get(url.as_ref()) {
            return n;
        }
        let n = self.urls.len() as u32;
        self.urls.push(url.clone().into_owned());
        self.url_index.insert(url.into_owned(), n);
        n
    }

    /// The script that scheduled the innermost task run around `at`: the first frame with
    /// a URL from the node sampled at the scheduling, up its callers.
    pub(super) fn scheduler_url(&self, at: &At) -> Option<&str> {
        let (pid, tid, ts, _) = self
            .runs
            .iter()
            .filter(|(p, t, ts, dur)| {
                *p == at.pid && *t == at.tid && *ts <= at.ts && at.ts <= ts + dur
            })
            .max_by(|a, b| a.2.total_cmp(&b.2))?;
        let start = self.schedulers.get(&(*pid, *tid, ts.to_bits()))?;
        let sample = self.scheduled.get(start)?;
        let mut profiles: Vec<(&Profile, &u32)> = self.profiles.iter().collect();
        profiles.sort_by_key(|(_, n)| **n);
        for ((p, _), profile) in profiles {
            let (Some(node), true) = (self.trace_ids.get(&(*profile, *sample)), *p == at.pid)
            else {
                continue;
            };
            let mut current = *node;
            // A profile's tree has no cycles; the bound guards a malformed one.
            for _ in 0..self.nodes.len() {
                let &(parent, url) = self.nodes.get(&node_key(*profile, current))?;
                if url != NO_URL {
                    return self.urls.get(url as usize).map(String::as_str);
                }
                if parent == NO_PARENT {
                    return None;
                }
                current = parent;
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
        assert!(stacks.trace_ids.keys().all(|(_, sample)| *sample != 8));
    }

    /// A trace with more profiles, nodes and async tasks than are kept grows nothing past
    /// the caps, and what was kept before still answers.
    #[test]
    fn profiles_nodes_and_tasks_past_the_caps_are_not_kept() {
        let mut stacks = AsyncStacks::default();
        let scheduled = "v8::Debugger::AsyncTaskScheduled";
        let flow = RawValue::from_string("\"0x1\"".into()).unwrap();
        let sample = r#"{"data":{"sampleTraceId":7}}"#;
        assert!(stacks.take(scheduled, "X", at(10.0), 1.0, None, sample));
        assert!(stacks.take(scheduled, "s", at(10.0), 0.0, Some(&flow), "{}"));
        let first = r#"{"data":{"cpuProfile":{"nodes":[
            {"id":1,"callFrame":{"url":"http://a.test/a.js"}}],"trace_ids":{"7":1}}}}"#;
        let profile = RawValue::from_string("\"0x0\"".into()).unwrap();
        assert!(stacks.take("ProfileChunk", "P", at(20.0), 0.0, Some(&profile), first));
        for n in 1..=super::MAX_PROFILES + 10 {
            let id = RawValue::from_string(format!("\"0x{n:x}\"")).unwrap();
            let nodes: Vec<String> = (0..1_000)
                .map(|i| {
                    format!(
                        r#"{{"id":{},"callFrame":{{"url":"http://p.test/{i}.js"}}}}"#,
                        n * 1_000 + i
                    )
                })
                .collect();
            let chunk = format!(
                r#"{{"data":{{"cpuProfile":{{"nodes":[{}]}}}}}}"#,
                nodes.join(",")
            );
            assert!(stacks.take("ProfileChunk", "P", at(30.0), 0.0, Some(&id), &chunk));
        }
        assert_eq!(stacks.profiles.len(), super::MAX_PROFILES);
        assert_eq!(stacks.nodes.len(), super::MAX_NODES);
        assert!(stacks.urls.len() <= super::MAX_NODES + 1);
        assert!(stacks.take(scheduled, "f", at(100.0), 0.0, Some(&flow), "{}"));
        let run = "v8::Debugger::AsyncTaskRun";
        assert!(stacks.take(run, "X", at(100.0), 50.0, None, "{}"));
        assert_eq!(stacks.scheduler_url(&at(120.0)), Some("http://a.test/a.js"));
        // A page that schedules and runs tasks without end grows nothing past the cap.
        for n in 0..super::MAX_TASKS + 10 {
            let t = 1_000.0 + n as f64;
            let id = RawValue::from_string(format!("\"0x{n:x}\"")).unwrap();
            assert!(stacks.take(scheduled, "X", at(t), 1.0, None, sample));
            assert!(stacks.take(scheduled, "s", at(t), 0.0, Some(&id), "{}"));
            assert!(stacks.take(run, "X", at(t), 1.0, None, "{}"));
        }
        assert!(stacks.runs.len() <= super::MAX_TASKS && stacks.flows.len() <= super::MAX_TASKS);
        assert!(stacks.scheduled.len() <= super::MAX_TASKS);
    }
}
