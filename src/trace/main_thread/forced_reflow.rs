//! ForcedReflow (DevTools' `ForcedReflow` insight, from its Warnings handler): layouts and
//! style recalculations run inside JavaScript, counted when those of one top-level task
//! add up to 30 ms, grouped by the JavaScript frame that forced them and by the function
//! call they ran under.
//!
//! DevTools decides this on the events sorted by time, with one stack for all threads: a
//! layout is "inside JavaScript" when a JavaScript invocation that began before it has not
//! ended, and a task ends when an event begins after every earlier one has ended. Both
//! questions are answered here from the union of the events' time spans (one union of all
//! events, one of JavaScript invocations), merged as the trace streams: the unions hold one
//! span per stretch of activity, never the events.
//!
//! Only reflows inside JavaScript on their own thread are kept (DevTools' one stack would
//! also count a layout on one thread while another runs JavaScript).
//!
//! The function call a reflow ran under is the innermost event around it on its thread, if
//! that is a `FunctionCall` (DevTools walks up its call tree past the profile's samples;
//! this analyser reads no samples, so a reflow under another kind of event has no known
//! top-level function, and the detailed answer says it is not written).

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use serde::Deserialize;

use super::context::Context;
use crate::trace::event::{Bounds, Event};
use crate::trace::format::micros;

/// DevTools' `FORCED_REFLOW_THRESHOLD`: a task's reflows inside JavaScript count from 30 ms.
const THRESHOLD: f64 = 30_000.0;
/// Records of reflows inside JavaScript kept; a trace with more is analysed on its first.
const KEPT: usize = 10_000;

/// A JavaScript call frame as written in the trace.
#[derive(Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
struct CallFrame {
    #[serde(default)]
    function_name: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    line_number: i64,
    #[serde(default)]
    column_number: i64,
    #[serde(default)]
    script_id: Option<serde_json::Value>,
}

impl CallFrame {
    fn script(&self) -> String {
        match &self.script_id {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        }
    }

    /// DevTools' `getCallFrameId`.
    fn id(&self) -> String {
        format!(
            "{}:{}:{}",
            self.script(),
            self.line_number,
            self.column_number
        )
    }

    /// DevTools' `makeZeroBasedCallFrame` (trace payloads count lines and columns from 1).
    fn zero_based(mut self) -> Self {
        if self.line_number != 0 {
            self.line_number -= 1;
        }
        if self.column_number != 0 {
            self.column_number -= 1;
        }
        self
    }

    fn is_native(&self) -> bool {
        self.line_number == -1 && self.column_number == -1 && self.url.is_empty() && {
            self.script() == "0"
        }
    }
}

impl std::fmt::Display for CallFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let name = match self.function_name.as_str() {
            "" => "(anonymous)",
            name => name,
        };
        if self.url.is_empty() {
            write!(f, "{name} @ unknown location")
        } else {
            let (url, line, column) = (&self.url, self.line_number, self.column_number);
            write!(f, "{name} @ {url}:{line}:{column}")
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Begin {
    #[serde(default)]
    frame: Option<String>,
    #[serde(default)]
    stack_trace: Option<Vec<CallFrame>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Args {
    #[serde(default)]
    begin_data: Option<Begin>,
    #[serde(default)]
    data: Option<serde_json::Value>,
}

/// The function call a reflow ran under: its call frame and span.
#[derive(Clone, Debug)]
struct Call {
    frame: Rc<CallFrame>,
    ts: f64,
    dur: f64,
}

/// Layouts and style recalculations in a row, with what the insight reads of them: one
/// thread's, in one task, forced by one frame under one function call (so that one record
/// stands for a loop's thousands).
#[derive(Clone, Debug)]
struct Reflow {
    ts: f64,
    /// Their time together.
    dur: f64,
    /// When the last ended.
    end: f64,
    /// The thread and the start of its outermost event around them.
    task: (i64, i64, f64),
    frame: Rc<str>,
    /// The JavaScript frame that forced it (the payload's top frame), if any.
    bottom: Option<Rc<CallFrame>>,
    /// `None` when the innermost event around it is not a `FunctionCall`.
    call: Option<Call>,
}

/// An event open on a thread while the trace streams (events of a thread come in the
/// order they began).
struct Open {
    ts: f64,
    end: f64,
    call: Option<Call>,
    javascript: bool,
}

/// Disjoint closed spans, merged as spans are added; the span last added to is kept aside,
/// as most events fall inside it.
#[derive(Default)]
struct Spans(BTreeMap<i64, (f64, f64)>, Option<(f64, f64)>);

impl Spans {
    fn key(ts: f64) -> i64 {
        (ts * 1000.0).floor() as i64
    }

    fn add(&mut self, start: f64, end: f64) {
        if self.1.is_some_and(|(s, e)| s <= start && end <= e) {
            return;
        }
        let (mut start, mut end) = (start, end);
        if let Some((&k, &(s, e))) = self.0.range(..=Self::key(start)).next_back() {
            if e >= start {
                self.0.remove(&k);
                start = s.min(start);
                end = e.max(end);
            }
        }
        while let Some((&k, &(s, e))) = self.0.range(Self::key(start)..).next() {
            if s > end {
                break;
            }
            self.0.remove(&k);
            end = e.max(end);
        }
        self.0.insert(Self::key(start), (start, end));
        self.1 = Some((start, end));
    }

    /// The span holding `ts`, and whether a span follows it.
    fn around(&self, ts: f64) -> Option<((f64, f64), bool)> {
        let (&k, &(s, e)) = self.0.range(..=Self::key(ts)).next_back()?;
        let later = self.0.range(k + 1..).next().is_some();
        (s <= ts && ts <= e).then_some(((s, e), later))
    }
}

/// What the stream leaves for this insight.
#[derive(Default)]
pub(super) struct Evidence {
    all: Spans,
    javascript: Spans,
    open: HashMap<(i64, i64), Vec<Open>>,
    reflows: Vec<Reflow>,
    frames: HashMap<String, Rc<str>>,
}

/// DevTools' `isJSInvocationEvent`.
fn is_javascript(name: &str) -> bool {
    matches!(
        name,
        "RunMicrotasks" | "FunctionCall" | "EvaluateScript" | "EventDispatch"
    ) || name.starts_with("v8")
        || name.starts_with("V8")
}

impl Evidence {
    pub(super) fn take(&mut self, e: &Event) {
        let dur = e.dur.unwrap_or(0.0);
        let end = e.at.ts + dur;
        self.all.add(e.at.ts, end);
        if is_javascript(e.name) {
            self.javascript.add(e.at.ts, end);
        }
        if e.ph != "X" {
            return;
        }
        let open = self.open.entry((e.at.pid, e.at.tid)).or_default();
        while open.last().is_some_and(|o| end > o.end) {
            open.pop();
        }
        let around = open.last().map(|o| o.call.clone());
        // Only a reflow inside its own thread's JavaScript is kept: the layouts of the
        // rendering lifecycle, most of them, never count.
        let in_javascript = open.iter().any(|o| o.javascript);
        let call = (e.name == "FunctionCall")
            .then(|| function_call(e, dur))
            .flatten();
        let javascript = is_javascript(e.name);
        let task = (e.at.pid, e.at.tid, open.first().map_or(e.at.ts, |o| o.ts));
        open.push(Open {
            ts: e.at.ts,
            end,
            call,
            javascript,
        });
        if matches!(e.name, "Layout" | "UpdateLayoutTree") && in_javascript {
            self.reflow(e, dur, task, around.flatten());
        }
    }

    fn reflow(&mut self, e: &Event, dur: f64, task: (i64, i64, f64), call: Option<Call>) {
        let args = e.args.and_then(|a| serde_json::from_str::<Args>(a).ok());
        let Some(begin) = args.and_then(|a| a.begin_data) else {
            return;
        };
        let frame = begin.frame.unwrap_or_default();
        let frame = self
            .frames
            .entry(frame.clone())
            .or_insert_with(|| frame.into())
            .clone();
        let stack: Vec<CallFrame> = begin.stack_trace.unwrap_or_default();
        let top = stack.first().cloned().map(CallFrame::zero_based);
        let bottom = stack
            .into_iter()
            .map(CallFrame::zero_based)
            .find(|f| !f.is_native())
            .or(top)
            .map(Rc::new);
        let id = |f: &Option<Rc<CallFrame>>| f.as_ref().map(|f| f.id());
        let call_id = call.as_ref().map(|c| (c.frame.id(), c.ts.to_bits()));
        if let Some(last) = self.reflows.last_mut().filter(|r| {
            r.task == task
                && r.frame == frame
                && id(&r.bottom) == id(&bottom)
                && r.call.as_ref().map(|c| (c.frame.id(), c.ts.to_bits())) == call_id
        }) {
            last.dur += dur;
            last.end = last.end.max(e.at.ts + dur);
            return;
        }
        if self.reflows.len() < KEPT {
            self.reflows.push(Reflow {
                ts: e.at.ts,
                dur,
                end: e.at.ts + dur,
                task,
                frame,
                bottom,
                call,
            });
        }
    }

    /// The reflows DevTools warns about: those inside JavaScript, of tasks whose reflows
    /// add up to the threshold. A task still open when the trace ends is never judged.
    pub(super) fn finish(mut self) -> Warnings {
        self.reflows.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        let mut by_task: BTreeMap<i64, (Vec<Reflow>, bool)> = BTreeMap::new();
        for reflow in self.reflows {
            if self.javascript.around(reflow.ts).is_none() {
                continue;
            }
            let Some(((start, _), later)) = self.all.around(reflow.ts) else {
                continue;
            };
            let task = by_task.entry(Spans::key(start)).or_default();
            task.0.push(reflow);
            task.1 = later;
        }
        let reflows = by_task
            .into_values()
            .filter(|(r, judged)| *judged && r.iter().map(|r| r.dur).sum::<f64>() >= THRESHOLD)
            .flat_map(|(r, _)| r)
            .collect();
        Warnings { reflows }
    }
}

fn function_call(e: &Event, dur: f64) -> Option<Call> {
    let args = serde_json::from_str::<Args>(e.args?).ok()?;
    let data = args.data?;
    let complete = [
        "functionName",
        "scriptId",
        "columnNumber",
        "lineNumber",
        "url",
    ]
    .iter()
    .all(|k| data.get(k).is_some());
    let frame: CallFrame = serde_json::from_value(data).ok().filter(|_| complete)?;
    Some(Call {
        frame: Rc::new(frame),
        ts: e.at.ts,
        dur,
    })
}

/// The forced reflows of the whole trace, in time order.
#[derive(Default)]
pub(super) struct Warnings {
    reflows: Vec<Reflow>,
}

/// Reflow time by the frame that forced it.
#[derive(Clone, Debug)]
struct Cause {
    frame: Option<Rc<CallFrame>>,
    time: f64,
}

/// ForcedReflow for one insight set.
#[derive(Clone, Debug, Default)]
pub(crate) struct Model {
    causes: Vec<Cause>,
    /// The function call with the most reflow time, that time, and the spans of its calls.
    top: Option<(Rc<CallFrame>, f64, Vec<Bounds>)>,
    spans: Vec<Bounds>,
    /// A reflow ran under something other than a function call.
    unknown_calls: bool,
}

impl Warnings {
    pub(super) fn model(&self, cx: &Context) -> Model {
        let mut model = Model::default();
        let mut causes: Vec<(String, Cause)> = Vec::new();
        let mut calls: Vec<(String, Rc<CallFrame>, f64, Vec<Bounds>)> = Vec::new();
        for r in self
            .reflows
            .iter()
            .filter(|r| *r.frame == *cx.frame && cx.bounds.holds(r.ts, r.end - r.ts))
        {
            let id = r.bottom.as_ref().map_or("UNATTRIBUTED".into(), |f| f.id());
            match causes.iter_mut().find(|(k, _)| *k == id) {
                Some((_, cause)) => cause.time += r.dur,
                None => causes.push((
                    id,
                    Cause {
                        frame: r.bottom.clone(),
                        time: r.dur,
                    },
                )),
            }
            model.spans.push(Bounds {
                min: r.ts,
                max: r.end,
            });
            let Some(call) = &r.call else {
                model.unknown_calls = true;
                continue;
            };
            let span = Bounds {
                min: call.ts,
                max: call.ts + call.dur,
            };
            let id = call.frame.id();
            match calls.iter_mut().find(|(k, ..)| *k == id) {
                Some((_, _, time, spans)) => {
                    *time += r.dur;
                    spans.push(span);
                }
                None => calls.push((id, call.frame.clone(), r.dur, vec![span])),
            }
        }
        model.causes = causes.into_iter().map(|(_, c)| c).collect();
        for (_, frame, time, spans) in calls {
            if model.top.as_ref().is_none_or(|(_, t, _)| time > *t) {
                model.top = Some((frame, time, spans));
            }
        }
        model
    }
}

impl Model {
    /// Listed when a reflow was forced; about the top function's calls and the reflows
    /// (the set's bounds without a top function).
    pub(crate) fn listed(&self, set: Bounds) -> Option<Bounds> {
        if self.causes.is_empty() {
            return None;
        }
        let Some((_, _, calls)) = &self.top else {
            return Some(set);
        };
        Bounds::union(calls.iter().chain(&self.spans).copied())
    }

    /// `performance_analyze_insight`'s detailed analysis (DevTools'
    /// `formatForcedReflowInsight`); `None` when a reflow's top-level function is unknown.
    pub(crate) fn details(&self) -> Option<String> {
        if self.unknown_calls {
            return None;
        }
        let mut out = format!("{DESCRIPTION}\n\n");
        if self.top.is_none() && self.causes.is_empty() {
            out.push_str("The forced reflow checks revealed no problems.");
            return Some(out);
        }
        out.push_str("The forced reflow checks revealed one or more problems.\n\n");
        match &self.top {
            Some((frame, time, _)) => out.push_str(&format!(
                "The following is the top function call that caused forced reflow(s):\n\n - {frame}\n\nTotal reflow time: {}\n",
                micros(*time)
            )),
            None => out.push_str("No top-level functions causing forced reflows were identified.\n"),
        }
        if self.causes.is_empty() {
            out.push_str("\nNo aggregated bottom-up causes of forced reflows were identified.");
            return Some(out);
        }
        out.push_str("\nCall frames that trigger reflow (including total time):\n");
        for cause in &self.causes {
            let frame = cause
                .frame
                .as_ref()
                .map_or("[unattributed]".into(), |f| f.to_string());
            out.push_str(&format!("\n - {} in {frame}", micros(cause.time)));
        }
        Some(out)
    }
}

pub(crate) const DESCRIPTION: &str = "A forced reflow occurs when JavaScript queries geometric properties (such as `offsetWidth`) after styles have been invalidated by a change to the DOM state. This can result in poor performance. Learn more about [forced reflows](https://developer.chrome.com/docs/performance/insights/forced-reflow) and possible mitigations.";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::event::At;
    use std::collections::HashSet;

    const STACK: &str = r#"{"beginData":{"frame":"F","stackTrace":[{"functionName":"read","url":"u.js","lineNumber":5,"columnNumber":3,"scriptId":"9"}]}}"#;
    const CALL: &str = r#"{"data":{"functionName":"loop","url":"u.js","lineNumber":2,"columnNumber":1,"scriptId":"9","frame":"F"}}"#;

    fn feed(evidence: &mut Evidence, name: &str, ts: f64, dur: f64, args: &str) {
        evidence.take(&Event {
            at: At {
                index: 0,
                ts,
                pid: 1,
                tid: 1,
            },
            name,
            ph: "X",
            dur: Some(dur),
            args: Some(args),
        });
    }

    /// A task with `reflows` layouts of 10 ms under `parent`, then an event after it.
    fn model(parent: &str, args: &str, reflows: u32) -> Model {
        let mut evidence = Evidence::default();
        feed(&mut evidence, "RunTask", 1000.0, 100_000.0, "{}");
        feed(&mut evidence, parent, 1010.0, 90_000.0, args);
        for i in 0..reflows {
            feed(
                &mut evidence,
                "Layout",
                2000.0 + f64::from(i) * 11_000.0,
                10_000.0,
                STACK,
            );
        }
        feed(&mut evidence, "RunTask", 200_000.0, 10.0, "{}");
        let (threads, renderers) = (HashSet::new(), HashSet::new());
        let cx = Context {
            frame: "F".into(),
            bounds: Bounds {
                min: 0.0,
                max: 300_000.0,
            },
            navigation_pid: Some(1),
            main_tid: Some(1),
            main_threads: &threads,
            renderers: &renderers,
        };
        evidence.finish().model(&cx)
    }

    #[test]
    fn reflows_count_from_30_ms_a_task_and_name_their_function_call() {
        let set = Bounds {
            min: 0.0,
            max: 300_000.0,
        };
        assert!(model("FunctionCall", CALL, 2).listed(set).is_none());
        let m = model("FunctionCall", CALL, 3);
        let listed = m.listed(set);
        assert_eq!(
            listed,
            Some(Bounds {
                min: 1010.0,
                max: 91_010.0
            })
        );
        let details = m.details().unwrap_or_default();
        assert!(details.contains(" - loop @ u.js:2:1\n\nTotal reflow time: 30\u{a0}ms"));
        assert!(
            details.contains(" - 30\u{a0}ms in read @ u.js:4:2"),
            "{details}"
        );
    }

    #[test]
    fn a_reflow_outside_a_function_call_is_listed_but_not_written() {
        let m = model("EvaluateScript", r#"{"data":{"url":"u.js"}}"#, 3);
        let set = Bounds {
            min: 0.0,
            max: 300_000.0,
        };
        assert_eq!(m.listed(set), Some(set));
        assert!(m.details().is_none());
    }

    #[test]
    fn spans_merge_what_overlaps_or_touches() {
        let mut s = Spans::default();
        s.add(10.0, 20.0);
        s.add(30.0, 40.0);
        s.add(20.0, 25.0);
        s.add(50.0, 50.0);
        assert_eq!(s.around(22.0), Some(((10.0, 25.0), true)));
        assert_eq!(s.around(27.0), None);
        s.add(5.0, 35.0);
        assert_eq!(s.around(38.0), Some(((5.0, 40.0), true)));
        assert_eq!(s.around(50.0), Some(((50.0, 50.0), false)));
    }
}
