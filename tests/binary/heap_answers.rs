//! The heap snapshot tools against the reference's own answers: `tests/fixtures/heap/` keeps
//! two snapshots of a leaky page, one of a page of closures holding dead variables, and what
//! chrome-devtools-mcp 1.11.0 answered to a few hundred questions about them (`capture.py`
//! recorded them). Every question to a tool this server offers is asked again, in the same
//! order, and the texts must be identical. No browser: the tools read files.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{started_in, Mcp};

/// The tools whose every recorded answer is matched byte for byte.
const MATCHED: &[&str] = &[
    "get_heapsnapshot_summary",
    "get_heapsnapshot_details",
    "get_heapsnapshot_class_nodes",
    "get_heapsnapshot_object_details",
    "get_heapsnapshot_edges",
    "get_heapsnapshot_retainers",
    "get_heapsnapshot_retaining_paths",
    "get_heapsnapshot_dominators",
    "get_heapsnapshot_duplicate_strings",
    "compare_heapsnapshots",
    "query_heapsnapshot_objects",
    "analyze_heapsnapshot_contexts",
    "close_heapsnapshot",
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/heap")
}

/// The snapshots unpacked into a fresh folder (the server's temp directory).
fn unpacked() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("heap-answers-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    for name in ["before", "after", "closures"] {
        let gz = File::open(fixtures().join(format!("{name}.heapsnapshot.gz"))).unwrap();
        let mut out = File::create(dir.join(format!("{name}.heapsnapshot"))).unwrap();
        io::copy(&mut flate2::read::GzDecoder::new(gz), &mut out).unwrap();
    }
    fs::canonicalize(&dir).unwrap()
}

/// `{dir}` in the recorded arguments and texts, made this run's folder.
fn placed(v: &Value, dir: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("{dir}", dir)),
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), placed(v, dir))).collect(),
        other => other.clone(),
    }
}

fn ask(mcp: &Mcp, dir: &str, q: &Value) -> Option<String> {
    let tool = q["tool"].as_str().unwrap_or_default();
    let result = mcp.call(tool, placed(&q["args"], dir));
    let want = placed(&q["text"], dir);
    let same = result.text == want.as_str().unwrap_or_default()
        && result.is_error == q["isError"].as_bool().unwrap_or(false);
    (!same).then(|| {
        format!(
            "{tool} {}\n--- reference\n{}\n--- ours\n{}",
            q["args"],
            want.as_str().unwrap_or_default(),
            result.text
        )
    })
}

#[test]
fn heap_tools_answer_as_the_reference_does() {
    let dir = unpacked();
    let mcp = started_in(&dir, &["--memoryDebugging"]);
    mcp.initialize();
    let text = fs::read_to_string(fixtures().join("answers.json")).unwrap();
    let questions: Vec<Value> = serde_json::from_str(&text).unwrap();
    let dir_text = dir.to_str().unwrap();
    let mut asked = 0;
    let mut differ = Vec::new();
    for q in &questions {
        if !MATCHED.contains(&q["tool"].as_str().unwrap_or_default()) {
            continue;
        }
        asked += 1;
        differ.extend(ask(&mcp, dir_text, q));
    }
    let _ = fs::remove_dir_all(&dir);
    eprintln!("{asked} answers compared, {} differ", differ.len());
    assert!(asked >= 10, "only {asked} questions asked");
    assert!(
        differ.is_empty(),
        "{} of {asked} answers differ:\n{}",
        differ.len(),
        differ.join("\n\n")
    );
}

/// A hostile file is an error naming what is wrong, and the server answers the next question.
#[test]
fn a_malformed_snapshot_is_refused_and_the_server_keeps_serving() {
    let dir = std::env::temp_dir().join(format!("heap-malformed-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let dir = fs::canonicalize(&dir).unwrap();
    let bad = dir.join("bad.heapsnapshot");
    let meta = r#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","object","synthetic"]],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["property","weak"]]},"node_count":1,"edge_count":1},"#;
    fs::write(
        &bad,
        format!(r#"{meta}"nodes":[2,0,1,0,1],"edges":[0,0,35],"strings":[""]}}"#),
    )
    .unwrap();
    let truncated = dir.join("cut.heapsnapshot");
    fs::write(&truncated, format!(r#"{meta}"nodes":[2,0,1"#)).unwrap();
    let mcp = started_in(&dir, &["--memoryDebugging"]);
    mcp.initialize();
    let summary = |path: &Path| {
        mcp.call(
            "get_heapsnapshot_summary",
            serde_json::json!({"filePath": path}),
        )
    };
    let r = summary(&bad);
    assert!(
        r.is_error && r.text.contains("edge 0 points to 35, which is not a node"),
        "{}",
        r.text
    );
    let r = summary(&truncated);
    assert!(
        r.is_error && r.text.contains("could not be read") && r.text.contains("EOF"),
        "{}",
        r.text
    );
    let outside = mcp.call(
        "get_heapsnapshot_summary",
        serde_json::json!({"filePath": "/etc/x.heapsnapshot"}),
    );
    assert!(
        outside.is_error && outside.text.contains("not within"),
        "{}",
        outside.text
    );
    let gz = File::open(fixtures().join("before.heapsnapshot.gz")).unwrap();
    let good = dir.join("good.heapsnapshot");
    io::copy(
        &mut flate2::read::GzDecoder::new(gz),
        &mut File::create(&good).unwrap(),
    )
    .unwrap();
    let r = summary(&good);
    assert!(
        !r.is_error && r.text.contains("\"nodeCount\": 46431"),
        "{}",
        r.text
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A page's heap written by hand: a script whose function list holds a scope info (scope id
/// 10), and a context of that scope holding `big`, an array of 400 bytes. `scopes` is what
/// the meta and the file add about the scopes V8 embeds (before `strings`, where V8 writes
/// them and DevTools' reader looks for them).
fn one_context(scopes: (&str, &str)) -> String {
    format!(
        r#"{{"snapshot":{{"meta":{{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic"]],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"]]{}}},"node_count":8,"edge_count":8}},
"nodes":[9,0,1,0,2, 4,1,3,10,1, 1,2,5,4,1, 4,3,7,20,1, 3,4,9,24,2, 7,5,11,0,1, 3,6,13,400,0, 2,7,15,0,0],
"edges":[1,1,5, 1,2,20, 3,8,10, 3,9,15, 3,10,25, 3,11,15, 0,12,30, 3,13,35]{},
"strings":["","system / Script / http://a.test/app.js","(infos)","system / ScopeInfo","system / Context","int","Array","10","infos","0","scope_id","scope_info","big","value"]}}"#,
        scopes.0, scopes.1
    )
}

/// What the recorded answers do not reach: a script without embedded scopes, a scope without
/// offsets (the texts are what the reference answered for these files); and scopes that are
/// wrong, which fail this tool alone (the reference fails it with a `RangeError`).
#[test]
fn contexts_without_scopes_are_counted_and_wrong_scopes_are_named() {
    let dir = std::env::temp_dir().join(format!("heap-contexts-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let dir = fs::canonicalize(&dir).unwrap();
    let meta = r#","scope_fields":["script_node_index","scope_id","depth","scope_context_vars_count","scope_uses_count"],"scope_context_var_fields":["name"],"scope_use_fields":["declaring_scope_id","slot_index"]"#;
    let sections =
        r#","scopes":[5,-2,0,0,0, 5,10,1,1,0],"scope_context_vars":[12],"scope_uses":[]"#;
    let files = [
        ("none", one_context(("", ""))),
        ("some", one_context((meta, sections))),
        (
            "bad",
            one_context((&meta.replace("\"depth\",", ""), sections)),
        ),
    ];
    for (name, text) in &files {
        fs::write(dir.join(format!("{name}.heapsnapshot")), text).unwrap();
    }
    let mcp = started_in(&dir, &["--memoryDebugging"]);
    mcp.initialize();
    let ask = |name: &str, tool: &str| {
        let path = dir.join(format!("{name}.heapsnapshot"));
        mcp.call(tool, serde_json::json!({"filePath": path}))
    };
    let contexts = "analyze_heapsnapshot_contexts";
    let head = "## Heap Snapshot Data\n### Context Analysis\n";
    let r = ask("none", contexts);
    assert_eq!(
        (r.is_error, r.text.as_str()),
        (false, &*format!("{head}Showing 0-0 of 0 (Page 1 of 1).\nNo live contexts with dead fields were found.\n\nScripts without scope metadata could not be analyzed:\n- `http://a.test/app.js` (@3) — 1 context"))
    );
    let r = ask("some", contexts);
    assert_eq!(
        (r.is_error, r.text.as_str()),
        (false, &*format!("{head}Showing 1-1 of 1 (Page 1 of 1).\n#### Context @9 in `http://a.test/app.js` — 0.4\u{a0}kB\nScript @3, ScopeInfo @7, offsets 0-0, 1 context field\n- `big` (Array @13) — 0.4\u{a0}kB"))
    );
    let r = ask("bad", contexts);
    assert!(
        r.is_error
            && r.text.contains("contexts could not be analysed")
            && r.text
                .contains("snapshot.meta.scope_fields has no \"depth\""),
        "{}",
        r.text
    );
    let r = ask("bad", "get_heapsnapshot_summary");
    assert!(
        !r.is_error && r.text.contains("\"nodeCount\": 8"),
        "{}",
        r.text
    );
    let _ = fs::remove_dir_all(&dir);
}
