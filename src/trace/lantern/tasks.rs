//! Lantern's CPU nodes, gathered while the trace streams: each thread's top-level tasks
//! (`RunTask` and its aliases) with what their events say about the page's dependencies.
//!
//! Lantern reads a task's "children" as the events after it in the file, on its thread,
//! that begin before it ends (a nested task ends it early). Only what links a task to
//! other nodes is kept, with URLs interned; a task with no link, no layout, paint or HTML
//! parse and shorter than 10 ms is dropped, since Lantern prunes such a task from its
//! graph without changing anything else.
//!
//! Only tasks up to FCP make the FCP graph. Once a thread's main-frame navigation has its
//! FCP, a later task keeps only what can still matter: the scripts it evaluates (Lantern
//! maps each script to the first task evaluating it) and the timers it fires that an
//! earlier task installed (they count as that task's dependents when Lantern prunes it).
//! So a long trace keeps its tasks up to each FCP, not all of them.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

/// Lantern keeps tasks from this long whatever they did (µs).
pub(super) const SIGNIFICANT_DUR: f64 = 10_000.0;

const SCHEDULABLE: [&str; 4] = [
    "RunTask",
    "ThreadControllerImpl::RunTask",
    "ThreadControllerImpl::DoWork",
    "TaskQueueManager::ProcessTaskFromWorkQueue",
];

/// What a task's events link it to (interned strings).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Link {
    /// Depends on the request for this URL that ended last before the task.
    Url(u32),
    /// Evaluates this script: a dependency on its URL, and Lantern's script-to-task map.
    Evaluates(u32),
    /// Evaluates the module compiled with this script id.
    Module(u32),
    /// Sends this request (a dependent, for script and XHR/fetch requests).
    Sends(u32),
    /// Runs in this frame: a dependency on the frame's document request.
    Frame(u32),
    TimerInstall(u32),
    TimerFire(u32),
}

/// One top-level task (times in µs).
#[derive(Clone, Debug)]
pub(super) struct Task {
    pub(super) ts: f64,
    pub(super) end: f64,
    pub(super) layout: bool,
    pub(super) paint: bool,
    pub(super) parse_html: bool,
    pub(super) links: Vec<Link>,
}

impl Task {
    pub(super) fn duration(&self) -> f64 {
        self.end - self.ts
    }

    fn kept(&self) -> bool {
        self.duration() >= SIGNIFICANT_DUR
            || self.layout
            || self.paint
            || self.parse_html
            || !self.links.is_empty()
    }
}

/// A thread's tasks, and the one still open.
#[derive(Default)]
struct Thread {
    tasks: Vec<Task>,
    open: Option<Task>,
    /// `v8.compileModule`'s script ids, to the module's URL.
    modules: HashMap<u32, u32>,
    /// The main-frame navigation under way on this thread, and its FCP once seen.
    navigation: Option<String>,
    fcp: Option<f64>,
    /// Timers installed by tasks before FCP.
    early_timers: HashSet<u32>,
}

/// The tasks of every thread, as the stream leaves them.
#[derive(Default)]
pub(crate) struct Tasks {
    threads: HashMap<(i64, i64), Thread>,
    strings: Vec<String>,
    ids: HashMap<String, u32>,
}

#[derive(Deserialize)]
struct Args {
    data: Option<Data>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Data {
    navigation_id: Option<String>,
    is_loading_main_frame: Option<bool>,
    frame: Option<String>,
    #[serde(rename = "documentLoaderURL")]
    document_loader_url: Option<String>,
    url: Option<String>,
    style_sheet_url: Option<String>,
    request_id: Option<String>,
    script_id: Option<serde_json::Value>,
    timer_id: Option<serde_json::Value>,
    ready_state: Option<i64>,
    #[serde(default)]
    stack_trace: Vec<Frame>,
}

#[derive(Deserialize, Default)]
struct Frame {
    #[serde(default)]
    url: String,
}

/// The events Lantern links to their frame's document.
const FRAMED: [&str; 10] = [
    "InvalidateLayout",
    "ScheduleStyleRecalculation",
    "EvaluateScript",
    "v8.evaluateModule",
    "ModuleEvaluated",
    "FunctionCall",
    "v8.compile",
    "v8.compileModule",
    "ParseAuthorStyleSheet",
    "ResourceSendRequest",
];

/// The names whose data Lantern reads.
const LINKING: [&str; 13] = [
    "TimerInstall",
    "TimerFire",
    "InvalidateLayout",
    "ScheduleStyleRecalculation",
    "EvaluateScript",
    "v8.evaluateModule",
    "ModuleEvaluated",
    "XHRReadyStateChange",
    "FunctionCall",
    "v8.compile",
    "v8.compileModule",
    "ParseAuthorStyleSheet",
    "ResourceSendRequest",
];

impl Tasks {
    /// Takes one event of the stream, in file order.
    pub(crate) fn take(&mut self, e: &super::super::event::Event) {
        let (name, ts) = (e.name, e.at.ts);
        let schedulable = SCHEDULABLE.contains(&name) && e.dur.is_some_and(|d| d != 0.0);
        let flag = matches!(name, "Layout" | "Paint" | "ParseHTML");
        let mark = matches!(name, "navigationStart" | "firstContentfulPaint");
        let key = (e.at.pid, e.at.tid);
        let relevant = schedulable || flag || mark || LINKING.contains(&name);
        if !relevant && !self.threads.contains_key(&key) {
            return;
        }
        let thread = self.threads.entry(key).or_default();
        if mark {
            return thread.paint_mark(name, ts, e.args);
        }
        let inside = thread.open.as_ref().is_some_and(|o| ts < o.end);
        if inside && !schedulable {
            if LINKING.contains(&name) || flag {
                thread.child(name, e.args, &mut self.ids, &mut self.strings);
            }
            return;
        }
        if let Some(mut done) = thread.open.take() {
            if inside {
                // A nested task ends this one just before it (Lantern's corrected end).
                done.end = (ts - 1.0).max(done.ts);
            }
            let late = thread.fcp.is_some_and(|f| done.ts > f);
            if (late && !done.links.is_empty()) || (!late && done.kept()) {
                thread.tasks.push(done);
            }
        }
        if let (true, Some(dur)) = (schedulable, e.dur) {
            thread.open = Some(Task {
                ts,
                end: ts + dur,
                layout: false,
                paint: false,
                parse_html: false,
                links: Vec::new(),
            });
        }
    }

    /// Closes the open tasks.
    pub(crate) fn finish(mut self) -> Finished {
        for thread in self.threads.values_mut() {
            if let Some(done) = thread.open.take().filter(Task::kept) {
                thread.tasks.push(done);
            }
        }
        let threads = self
            .threads
            .into_iter()
            .map(|(key, t)| {
                let (tasks, modules) = (t.tasks, t.modules);
                (key, ThreadTasks { tasks, modules })
            })
            .collect();
        Finished {
            threads,
            strings: self.strings,
        }
    }
}

impl Thread {
    /// A main-frame navigation starts afresh; its FCP marks where tasks stop mattering.
    fn paint_mark(&mut self, name: &str, ts: f64, args: Option<&str>) {
        let data = args
            .and_then(|a| serde_json::from_str::<Args>(a).ok())
            .and_then(|a| a.data)
            .unwrap_or_default();
        // As the navigations the report keeps: the main frame's, with a document URL.
        let loads = data
            .document_loader_url
            .as_deref()
            .is_some_and(|u| !u.is_empty());
        if name == "navigationStart" && data.is_loading_main_frame == Some(true) && loads {
            self.navigation = data.navigation_id;
            self.fcp = None;
            self.early_timers.clear();
        } else if name == "firstContentfulPaint"
            && data.navigation_id.is_some()
            && data.navigation_id == self.navigation
        {
            self.fcp = Some(ts);
        }
    }

    /// An event inside the open task.
    fn child(
        &mut self,
        name: &str,
        args: Option<&str>,
        ids: &mut HashMap<String, u32>,
        strings: &mut Vec<String>,
    ) {
        let Some(open) = &mut self.open else { return };
        let late = self.fcp.is_some_and(|f| open.ts > f);
        open.layout |= name == "Layout";
        open.paint |= name == "Paint";
        open.parse_html |= name == "ParseHTML";
        if !LINKING.contains(&name) {
            return;
        }
        // After FCP only evaluations, module compiles and timer fires are read: interning
        // every later URL and timer would keep what the tasks no longer do.
        const LATE: [&str; 4] = [
            "EvaluateScript",
            "v8.evaluateModule",
            "ModuleEvaluated",
            "v8.compileModule",
        ];
        let mut links = match (late, name) {
            (true, "TimerFire") => late_timer_fire(args, ids),
            (true, _) if !LATE.contains(&name) => Vec::new(),
            _ => child_links(name, args, ids, strings, &mut self.modules),
        };
        if late {
            let early = &self.early_timers;
            links.retain(|l| match l {
                Link::Evaluates(_) | Link::Module(_) => true,
                Link::TimerFire(t) => early.contains(t),
                _ => false,
            });
        } else {
            for link in &links {
                if let Link::TimerInstall(t) = link {
                    self.early_timers.insert(*t);
                }
            }
        }
        for link in links {
            if !open.links.contains(&link) {
                open.links.push(link);
            }
        }
    }
}

/// What the stream left: every thread's tasks and module URLs, and the interned strings.
#[derive(Default, Clone, Debug)]
pub(crate) struct Finished {
    threads: HashMap<(i64, i64), ThreadTasks>,
    strings: Vec<String>,
}

#[derive(Default, Clone, Debug)]
struct ThreadTasks {
    tasks: Vec<Task>,
    modules: HashMap<u32, u32>,
}

impl Finished {
    /// The tasks of one thread that start in `[from, to)`, in file order.
    pub(super) fn tasks(&self, pid: i64, tid: i64, from: f64, to: f64) -> Vec<&Task> {
        self.threads
            .get(&(pid, tid))
            .map(|t| {
                t.tasks
                    .iter()
                    .filter(|t| t.ts >= from && t.ts < to)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(super) fn string(&self, id: u32) -> &str {
        self.strings.get(id as usize).map_or("", String::as_str)
    }

    /// The URL of the module compiled on the thread with this script id.
    pub(super) fn module_url(&self, pid: i64, tid: i64, script: u32) -> Option<&str> {
        let thread = self.threads.get(&(pid, tid))?;
        thread.modules.get(&script).map(|&u| self.string(u))
    }
}

fn intern(ids: &mut HashMap<String, u32>, strings: &mut Vec<String>, s: &str) -> u32 {
    if let Some(&id) = ids.get(s) {
        return id;
    }
    let id = strings.len() as u32;
    strings.push(s.to_owned());
    ids.insert(s.to_owned(), id);
    id
}

/// A JSON number or string id, as text.
fn id_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A timer fired after FCP, if its id is known (only an earlier install matters).
fn late_timer_fire(args: Option<&str>, ids: &HashMap<String, u32>) -> Vec<Link> {
    let data = args
        .and_then(|a| serde_json::from_str::<Args>(a).ok())
        .and_then(|a| a.data);
    let id = data.and_then(|d| d.timer_id).map(|t| id_text(&t));
    id.and_then(|t| ids.get(&t).copied())
        .map(Link::TimerFire)
        .into_iter()
        .collect()
}

/// The links one child event makes, in the order Lantern adds them.
fn child_links(
    name: &str,
    args: Option<&str>,
    ids: &mut HashMap<String, u32>,
    strings: &mut Vec<String>,
    modules: &mut HashMap<u32, u32>,
) -> Vec<Link> {
    let Some(data) = args
        .and_then(|a| serde_json::from_str::<Args>(a).ok())
        .and_then(|a| a.data)
    else {
        return Vec::new();
    };
    let mut intern = |s: &str| intern(ids, strings, s);
    let url = data
        .url
        .as_deref()
        .filter(|u| !u.is_empty())
        .map(&mut intern);
    let stack: Vec<Link> = data
        .stack_trace
        .iter()
        .filter(|f| !f.url.is_empty())
        .map(|f| Link::Url(intern(&f.url)))
        .collect();
    // Lantern links these to their frame's document first.
    let frame = data
        .frame
        .as_deref()
        .filter(|f| !f.is_empty() && FRAMED.contains(&name));
    let mut out: Vec<Link> = frame.map(|f| Link::Frame(intern(f))).into_iter().collect();
    // Only timer events carry a timer id.
    let timer = data.timer_id.as_ref().map(|t| intern(&id_text(t)));
    match name {
        "TimerInstall" => {
            out.extend(timer.map(Link::TimerInstall));
            out.extend(stack);
        }
        "TimerFire" => out.extend(timer.map(Link::TimerFire)),
        "InvalidateLayout" | "ScheduleStyleRecalculation" => out.extend(stack),
        "EvaluateScript" | "v8.evaluateModule" => {
            out.extend(url.map(Link::Evaluates));
            out.extend(stack);
        }
        "ModuleEvaluated" => {
            out.extend(
                data.script_id
                    .as_ref()
                    .map(|s| Link::Module(intern(&id_text(s)))),
            );
        }
        "XHRReadyStateChange" if data.ready_state == Some(4) => {
            out.extend(url.map(Link::Url));
            out.extend(stack);
        }
        "FunctionCall" | "v8.compile" | "v8.compileModule" => {
            if name == "v8.compileModule" {
                if let (Some(script), Some(url)) = (data.script_id.as_ref(), url) {
                    modules.insert(intern(&id_text(script)), url);
                }
            }
            out.extend(url.map(Link::Url));
        }
        "ParseAuthorStyleSheet" => {
            let sheet = data.style_sheet_url.as_deref().filter(|u| !u.is_empty());
            out.extend(sheet.map(|u| Link::Url(intern(u))));
        }
        "ResourceSendRequest" => {
            out.extend(data.request_id.as_deref().map(|r| Link::Sends(intern(r))));
            out.extend(stack);
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::event::{At, Event};
    use super::{Link, Tasks};

    /// Feeds `(ts, name, dur, args)` events on thread (1, 1), in order.
    fn feed(events: &[(f64, &str, Option<f64>, &str)]) -> super::Finished {
        let mut tasks = Tasks::default();
        for (i, (ts, name, dur, args)) in events.iter().enumerate() {
            tasks.take(&Event {
                at: At {
                    index: i as u64,
                    ts: *ts,
                    pid: 1,
                    tid: 1,
                },
                name,
                ph: "X",
                dur: *dur,
                args: Some(args),
            });
        }
        tasks.finish()
    }

    #[test]
    fn tasks_keep_what_links_them_and_short_idle_ones_go() {
        let finished = feed(&[
            (100.0, "RunTask", Some(50_000.0), "{}"),
            (110.0, "ParseHTML", Some(10.0), "{}"),
            (
                120.0,
                "EvaluateScript",
                Some(10.0),
                r#"{"data":{"url":"http://a.test/a.js","stackTrace":[{"url":"http://a.test/b.js"}]}}"#,
            ),
            (
                130.0,
                "FunctionCall",
                Some(1.0),
                r#"{"data":{"url":"http://a.test/b.js"}}"#,
            ),
            // A short task that links nothing is dropped.
            (60_000.0, "RunTask", Some(1_000.0), "{}"),
            (70_000.0, "RunTask", Some(1_000.0), "{}"),
            (
                70_010.0,
                "ResourceSendRequest",
                None,
                r#"{"data":{"requestId":"9"}}"#,
            ),
        ]);
        let tasks = finished.tasks(1, 1, 0.0, f64::INFINITY);
        assert_eq!(tasks.len(), 2);
        assert!(tasks[0].parse_html && !tasks[0].paint);
        let urls = tasks[0]
            .links
            .iter()
            .map(|l| match l {
                Link::Evaluates(u) => format!("eval {}", finished.string(*u)),
                Link::Url(u) => format!("url {}", finished.string(*u)),
                other => format!("{other:?}"),
            })
            .collect::<Vec<String>>();
        // The FunctionCall's URL is the stack's, already linked.
        assert_eq!(urls, ["eval http://a.test/a.js", "url http://a.test/b.js"]);
        assert_eq!(tasks[1].links, [Link::Sends(2)]);
        assert_eq!(finished.string(2), "9");
        assert!(finished.tasks(1, 2, 0.0, f64::INFINITY).is_empty());
    }

    #[test]
    fn a_nested_task_ends_its_parent_and_starts_anew() {
        let finished = feed(&[
            (100.0, "RunTask", Some(30_000.0), "{}"),
            (200.0, "Layout", Some(10.0), "{}"),
            (5_000.0, "RunTask", Some(20_000.0), "{}"),
            (5_100.0, "Paint", Some(10.0), "{}"),
        ]);
        let tasks = finished.tasks(1, 1, 0.0, f64::INFINITY);
        assert_eq!(tasks.len(), 2);
        assert_eq!((tasks[0].ts, tasks[0].end), (100.0, 4_999.0));
        assert!(tasks[0].layout && !tasks[0].paint);
        assert!(tasks[1].paint);
        // Bounded by start: [from, to).
        assert_eq!(finished.tasks(1, 1, 100.0, 5_000.0).len(), 1);
    }

    #[test]
    fn after_fcp_tasks_keep_only_evaluations_and_early_timers() {
        let nav = r#"{"data":{"navigationId":"N","isLoadingMainFrame":true,"documentLoaderURL":"http://a.test/"}}"#;
        let url = |u: &str| format!(r#"{{"data":{{"url":"{u}"}}}}"#);
        let timer = |t: u32| format!(r#"{{"data":{{"timerId":{t}}}}}"#);
        let (a, b) = (url("http://a.test/a.js"), url("http://a.test/b.js"));
        let (one, two) = (timer(1), timer(2));
        let finished = feed(&[
            (100.0, "RunTask", Some(50.0), "{}"),
            (110.0, "navigationStart", None, nav),
            (200.0, "RunTask", Some(50.0), "{}"),
            (210.0, "TimerInstall", None, &one),
            (
                1_000.0,
                "firstContentfulPaint",
                None,
                r#"{"data":{"navigationId":"N"}}"#,
            ),
            // Before FCP in time, though written after it: kept whole.
            (900.0, "RunTask", Some(50.0), "{}"),
            (910.0, "FunctionCall", None, &a),
            (2_000.0, "RunTask", Some(50_000.0), "{}"),
            (2_010.0, "FunctionCall", None, &a),
            (2_020.0, "TimerInstall", None, &two),
            (60_000.0, "RunTask", Some(50.0), "{}"),
            (60_010.0, "EvaluateScript", None, &b),
            (61_000.0, "RunTask", Some(50.0), "{}"),
            (61_010.0, "TimerFire", None, &one),
            (62_000.0, "RunTask", Some(50.0), "{}"),
            (62_010.0, "TimerFire", None, &two),
        ]);
        let tasks = finished.tasks(1, 1, 0.0, f64::INFINITY);
        let starts: Vec<f64> = tasks.iter().map(|t| t.ts).collect();
        assert_eq!(starts, [200.0, 900.0, 60_000.0, 61_000.0]);
        assert!(matches!(tasks[2].links[..], [Link::Evaluates(_)]));
        assert!(matches!(tasks[3].links[..], [Link::TimerFire(_)]));
    }
}
