//! The heap snapshot analysis tools (`--memoryDebugging`): questions about a `.heapsnapshot`
//! file, answered from the `heap` building block's analysis without any browser. Each file
//! is read once and kept (`cache`); `close_heapsnapshot` forgets it.

mod bytes;
pub(super) mod cache;
mod classes;
mod compare;
mod contexts;
mod graph;
pub(super) mod loads;
mod query;
mod strings;
mod text;

use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::Value;

use crate::browser::Host;
use crate::heap::Snapshot;
use crate::log::log;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::files::{self, Roots};
use crate::tools::result::ToolResult;
use crate::tools::tool::Tool;
use loads::Waiter;

pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "get_heapsnapshot_summary",
        description: "Loads and caches a memory heapsnapshot and returns snapshot summary stats, \
including native contexts and their sizes, and retained by context summary.",
        args: args::schema::<SummaryArgs>(),
        category: Category::Memory,
        read_only: true,
        run: get_summary,
    },
    Tool {
        name: "get_heapsnapshot_details",
        description: "Loads and caches a memory heapsnapshot and returns all available \
information including statistics, static data, and aggregated node information. Supports \
pagination for aggregates.",
        args: args::schema::<classes::DetailsArgs>(),
        category: Category::Memory,
        read_only: true,
        run: classes::details,
    },
    Tool {
        name: "get_heapsnapshot_class_nodes",
        description: "Loads and caches a memory heapsnapshot and returns instances of a \
specific class with their IDs.",
        args: args::schema::<classes::ClassNodesArgs>(),
        category: Category::Memory,
        read_only: true,
        run: classes::class_nodes,
    },
    Tool {
        name: "get_heapsnapshot_object_details",
        description: "Loads and caches a memory heapsnapshot and returns detailed information \
about a specific object by its node ID, including size, type, distance, and DOM detachedness.",
        args: args::schema::<classes::ObjectArgs>(),
        category: Category::Memory,
        read_only: true,
        run: classes::object_details,
    },
    Tool {
        name: "get_heapsnapshot_edges",
        description: "Loads and caches a memory heapsnapshot and returns outgoing edges \
(references) for a specific node ID.",
        args: args::schema::<graph::EdgesArgs>(),
        category: Category::Memory,
        read_only: true,
        run: graph::edges,
    },
    Tool {
        name: "get_heapsnapshot_retainers",
        description: "Loads and caches a memory heapsnapshot and returns retainers for a \
specific node ID.",
        args: args::schema::<graph::RetainersArgs>(),
        category: Category::Memory,
        read_only: true,
        run: graph::retainers,
    },
    Tool {
        name: "get_heapsnapshot_retaining_paths",
        description: "Loads and caches a memory heapsnapshot and returns retaining paths for \
a specific node ID. This helps to understand why a node is not being garbage collected.",
        args: args::schema::<graph::PathsArgs>(),
        category: Category::Memory,
        read_only: true,
        run: graph::retaining_paths,
    },
    Tool {
        name: "get_heapsnapshot_dominators",
        description: "Loads and caches a memory heapsnapshot and returns the dominator chain \
for a specific node ID. This helps to identify which objects are keeping the target node \
alive.",
        args: args::schema::<graph::DominatorsArgs>(),
        category: Category::Memory,
        read_only: true,
        run: graph::dominators,
    },
    Tool {
        name: "get_heapsnapshot_duplicate_strings",
        description: "Loads and caches a memory heapsnapshot and returns duplicate strings \
grouped by their value.",
        args: args::schema::<strings::DuplicatesArgs>(),
        category: Category::Memory,
        read_only: true,
        run: strings::duplicate_strings,
    },
    Tool {
        name: "query_heapsnapshot_objects",
        description: "Loads and caches a memory heapsnapshot and queries objects matching \
specific filters (className, propertyName, nodeType, retainedSize, selfSize, isDetached, \
sortBy).",
        args: args::schema::<query::QueryArgs>(),
        category: Category::Memory,
        read_only: true,
        run: query::query,
    },
    Tool {
        name: "analyze_heapsnapshot_contexts",
        description: "Loads and caches a memory heapsnapshot to identify and rank closure \
contexts holding dead captured fields—variables no remaining live closure can read. Scopes are \
ranked globally by the retained size of these dead values to provide a prioritizing heuristic, \
rather than an exact measure of reclaimable bytes.",
        args: args::schema::<contexts::ContextsArgs>(),
        category: Category::Memory,
        read_only: true,
        run: contexts::contexts,
    },
    Tool {
        name: "compare_heapsnapshots",
        description: "Loads and caches two memory heapsnapshots and returns the comparison. If \
classIndex is provided, returns detailed diff for that class, otherwise returns summary diff.",
        args: args::schema::<compare::CompareArgs>(),
        category: Category::Memory,
        read_only: true,
        run: compare::compare,
    },
    Tool {
        name: "close_heapsnapshot",
        description: "Closes a previously loaded and cached memory heapsnapshot, freeing its \
memory.",
        args: args::schema::<CloseArgs>(),
        category: Category::Memory,
        read_only: false,
        run: close,
    },
];

pub(crate) use compare::report as comparison;

/// What `devtools-mcp heap` prints: the summary as `get_heapsnapshot_summary` answers it.
pub(crate) fn summary(s: &Snapshot) -> String {
    text::summary(s, None)
}

/// Whether `tool` is one of these, which `--memoryDebugging` offers.
pub(super) fn needs_memory_debugging(tool: &Tool) -> bool {
    TOOLS.iter().any(|t| t.name == tool.name)
}

tool_args! {
    struct SummaryArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to a .heapsnapshot file to read."},
        "maxNameLength" max_name_length: Option<f64> = (max_name_length()),
    }
}

tool_args! {
    struct CloseArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH, "description": "A path to the .heapsnapshot file to close."},
    }
}

fn page_idx() -> Value {
    serde_json::json!({"type": "integer", "minimum": 0, "maximum": max::COUNT,
        "description": "The page index for pagination."})
}

fn page_size() -> Value {
    serde_json::json!({"type": "integer", "exclusiveMinimum": 0, "maximum": max::COUNT,
        "description": "The page size for pagination."})
}

/// `maxNameLength` as a count of characters (the schema makes it a whole number from 1).
fn max_name(given: Option<f64>) -> Option<usize> {
    given.map(|m| m as usize)
}

fn max_name_length() -> Value {
    serde_json::json!({"type": "integer", "minimum": 1, "maximum": max::COUNT,
        "description": "Maximum length of names before truncation. Defaults to 100."})
}

fn get_summary(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<SummaryArgs>(cx, call, args) else {
        return;
    };
    let max = max_name(a.max_name_length);
    answer_with(cx, call, &a.file_path, move |s| Ok(text::summary(s, max)));
}

fn close(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = call::args::<CloseArgs>(cx, call, args) else {
        return;
    };
    let answer = if cx
        .heap_snapshots
        .close(&files::lexical(Path::new(&a.file_path)))
    {
        Ok(format!("Closed heap snapshot: {}", a.file_path))
    } else {
        Err(format!(
            "Failed to close heap snapshot: {} was not loaded.",
            a.file_path
        ))
    };
    reply(cx, call, answer);
}

pub(super) fn reply(cx: &mut Ctx, call: CallId, answer: Result<String, String>) {
    match answer {
        Ok(text) => call::finish(cx, call, ToolResult::text(text)),
        Err(e) => call::fail(cx, call, e),
    }
}

/// Answers `call` with what `answer` makes of the snapshot `given` names, once it is loaded.
pub(super) fn answer_with(
    cx: &mut Ctx,
    call: CallId,
    given: &str,
    answer: impl FnOnce(&Snapshot) -> Result<String, String> + 'static,
) {
    with_snapshot(cx, call, given, move |cx, call, s| {
        let text = answer(&s);
        reply(cx, call, text);
    });
}

/// Runs `then` with the snapshot `given` names: from the cache at once, else once it is read
/// (on a worker thread, the loop serving meanwhile). A file that cannot be read fails the call.
pub(super) fn with_snapshot(
    cx: &mut Ctx,
    call: CallId,
    given: &str,
    then: impl FnOnce(&mut Ctx, CallId, Rc<Snapshot>) + 'static,
) {
    if ![".heapsnapshot", ".heaptimeline"]
        .iter()
        .any(|ext| given.ends_with(ext))
    {
        let e = format!("File {given} must have a .heapsnapshot or .heaptimeline extension.");
        return reply(cx, call, Err(e));
    }
    let key = files::lexical(Path::new(given));
    if let Some(s) = cx.heap_snapshots.get(&key) {
        return then(cx, call, s);
    }
    let waiter = Waiter {
        call,
        given: given.to_string(),
        then: Box::new(then),
    };
    let Err(waiter) = cx.heap_loads.join(&key, waiter) else {
        return;
    };
    let opened =
        files::open_read(&Roots::of(cx, call), given).map_err(|f| f.text(|e| io_error(e, &key)));
    let file = match opened {
        Ok((_, file)) => file,
        Err(e) => return reply(cx, call, Err(e)),
    };
    let size = file.metadata().ok().map(|m| m.len());
    if cx.heap_loads.threaded() {
        cx.heap_loads.start(key, file, size, waiter);
    } else {
        let read = loads::read(file, size);
        loaded(cx, key, read, vec![waiter]);
    }
}

/// From now on snapshot files are read beside the loop; `waker` wakes it when one is read
/// (and [`on_wake`] is then called on the loop).
pub(crate) fn use_waker(cx: &mut Ctx, waker: mio::Waker) {
    cx.heap_loads.use_waker(waker);
}

/// The loop was woken for the snapshot files read meanwhile: the calls waiting on them go on.
pub(crate) fn on_wake(cx: &mut Ctx) {
    for (key, read, waiters) in cx.heap_loads.finished() {
        loaded(cx, key, read, waiters);
    }
}

/// A file was read: cached, and each call still waiting on it goes on (a call cancelled or
/// timed out meanwhile has ended and is skipped).
fn loaded(cx: &mut Ctx, key: PathBuf, read: loads::Read, waiters: Vec<Waiter<Ctx>>) {
    let how = if read.is_ok() { "read" } else { "unreadable" };
    log!("heap snapshot {} {how}", key.display());
    let snapshot = match read {
        Ok(s) => Ok(cx.heap_snapshots.insert(key, s)),
        Err(e) => Err(e),
    };
    for w in waiters {
        if !cx.calls.contains(w.call) {
            continue;
        }
        match &snapshot {
            Ok(s) => {
                let s = s.clone();
                cx.run_as(Some(w.call), |cx| (w.then)(cx, w.call, s));
            }
            Err(e) => {
                let e = format!("The heap snapshot {} could not be read: {e}", w.given);
                reply(cx, w.call, Err(e));
            }
        }
    }
}

/// An I/O error worded as Node words it (`ENOENT: no such file or directory, open '…'`).
fn io_error(e: &io::Error, path: &Path) -> String {
    let path = path.display();
    match e.kind() {
        io::ErrorKind::NotFound => format!("ENOENT: no such file or directory, open '{path}'"),
        io::ErrorKind::PermissionDenied => format!("EACCES: permission denied, open '{path}'"),
        _ => format!("{e}, open '{path}'"),
    }
}
