//! Heap snapshot files are read beside the loop: while a large one loads, the server answers
//! other calls; calls on the same file share one read; a call cancelled meanwhile is never
//! answered.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::support::calls::{call_async, tool_result};
use crate::support::mcp_http::HttpServer;
use crate::support::started_in;

/// Objects in the generated snapshot: tens of megabytes of JSON, seconds of analysis.
const OBJECTS: usize = 600_000;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("heap-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    fs::canonicalize(&dir).unwrap()
}

/// A snapshot of a root holding `objects` objects of class `Leak`, each holding the next.
fn large_snapshot(path: &Path, objects: usize) -> io::Result<()> {
    let mut out = BufWriter::new(File::create(path)?);
    write!(
        out,
        r#"{{"snapshot":{{"meta":{{"node_fields":["type","name","id","self_size","edge_count","detachedness"],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic"],"string","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]}},"node_count":{},"edge_count":{}}},"nodes":[9,0,1,0,1,0"#,
        objects + 1,
        objects * 2 - 1
    )?;
    for i in 1..=objects {
        let edges = if i < objects { 1 } else { 0 };
        write!(out, ",3,1,{},32,{edges},0", i * 2 + 1)?;
    }
    write!(out, r#"],"edges":[1,0,6"#)?;
    for i in 1..objects {
        write!(out, ",2,2,{}", (i + 1) * 6)?;
    }
    write!(out, r#"],"locations":[],"strings":["","Leak","next"]}}"#)?;
    out.flush()
}

/// The fixtures' small snapshot, unpacked into `dir`.
fn small_snapshot(dir: &Path) -> PathBuf {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/heap/before.heapsnapshot.gz");
    let path = dir.join("small.heapsnapshot");
    let mut out = File::create(&path).unwrap();
    let gz = File::open(fixture).unwrap();
    io::copy(&mut flate2::read::GzDecoder::new(gz), &mut out).unwrap();
    path
}

#[test]
fn the_server_answers_while_a_large_snapshot_loads_and_shares_the_load() {
    let dir = folder("loading");
    let large = dir.join("large.heapsnapshot");
    large_snapshot(&large, OBJECTS).unwrap();
    let small = small_snapshot(&dir);
    let mcp = started_in(&dir, &["--memoryDebugging"]);
    mcp.initialize();
    let summary = "get_heapsnapshot_summary";
    let cached = mcp.call(summary, json!({"filePath": small}));
    assert!(!cached.is_error, "{}", cached.text);

    let first = call_async(&mcp, summary, json!({"filePath": large}));
    let second = call_async(&mcp, summary, json!({"filePath": large}));
    let quick = call_async(&mcp, summary, json!({"filePath": small}));
    let quick = tool_result(&mcp.wait_response(quick));
    let (first_done, second_done) = (mcp.answered(first), mcp.answered(second));
    assert_eq!(quick.text, cached.text);
    assert!(
        !first_done && !second_done,
        "the cached file's answer waited for the large file's load"
    );
    let first = tool_result(&mcp.wait_response(first));
    let second = tool_result(&mcp.wait_response(second));
    let nodes = format!("\"nodeCount\": {}", OBJECTS + 1);
    assert!(first.text.contains(&nodes), "{}", first.text);
    assert_eq!(first.text, second.text);
    let reads = mcp.stderr_log().matches("large.heapsnapshot read").count();
    assert_eq!(reads, 1, "two calls on one file read it {reads} times");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_call_cancelled_while_its_snapshot_loads_is_never_answered() {
    let dir = folder("cancelled");
    let large = dir.join("large.heapsnapshot");
    large_snapshot(&large, OBJECTS).unwrap();
    let mcp = started_in(&dir, &["--memoryDebugging"]);
    mcp.initialize();
    let summary = "get_heapsnapshot_summary";
    let cancelled = call_async(&mcp, summary, json!({"filePath": large}));
    mcp.cancel(cancelled, "no longer needed");
    // Asked after the cancellation, answered from the same read (or the cache after it).
    let after = mcp.call(summary, json!({"filePath": large}));
    assert!(!after.is_error, "{}", after.text);
    let nodes = format!("\"nodeCount\": {}", OBJECTS + 1);
    assert!(after.text.contains(&nodes), "{}", after.text);
    assert!(!mcp.answered(cancelled), "a cancelled call was answered");
    let _ = fs::remove_dir_all(&dir);
}

/// Over `--port` the loop is woken the same way: a session's question on a file is answered
/// once it is read.
#[test]
fn a_snapshot_read_beside_the_http_loop_answers_the_session() {
    let dir = folder("http");
    let small = small_snapshot(&dir);
    let tmp = dir.to_str().unwrap();
    let server = HttpServer::start(&["--memoryDebugging"], &[("TMPDIR", tmp)]);
    let session = server.session("/mcp");
    let r = session.call("get_heapsnapshot_summary", json!({"filePath": small}));
    assert!(r.text.contains("\"nodeCount\": 46431"), "{}", r.text);
    let _ = fs::remove_dir_all(&dir);
}
