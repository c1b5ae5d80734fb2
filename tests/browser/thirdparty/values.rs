//! `execute_3p_developer_tool` results against the real binary and real headless
//! Chromium: odd JavaScript values as readable JSON, a page that broke its built-ins, results
//! too deep or too large (truncated with a marker, or written whole to `filePath`).
//!
//! Pages come from `tests/fixtures/thirdparty/` (its README says what each one registers) and,
//! for one-off registrations, from inline pages on the fixture server; the helpers are in
//! `support/thirdparty.rs`.

use std::fs;
use std::time::{Duration, Instant};

use crate::support::calls::returned;
use crate::support::thirdparty::{exec, exec_ok, json_body, open, EXECUTE};
use crate::support::{started, Fixtures, Mcp};
use serde_json::json;

// ---------------------------------------------------------------- execute: results

#[test]
fn odd_values_come_back_as_readable_json() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let text = exec_ok(&mcp, "odd_values", None);
    odd_values_are_readable(&text);
    top_level_odd_values(&mcp);
    what_goes_in_comes_out(&mcp);
}

/// How the text of `odd_values` starts in the reference's layout: JSON.stringify(value, null, 2).
/// (Out here because its braces never close, which the layers test's brace count would read
/// as the function going on.)
const ODD_VALUES_START: &str = "{\n  \"cycle\": {\n    \"name\": \"root\",\n";

/// The text of `odd_values`: each odd value readable.
fn odd_values_are_readable(text: &str) {
    // The reference's layout: JSON.stringify(value, null, 2).
    assert!(text.starts_with(ODD_VALUES_START), "{text}");
    let v = json_body(text);
    assert_eq!(v["cycle"]["self"], "<Circular reference>");
    assert_eq!(v["cycle"]["list"][0], "<Circular reference>");
    assert_eq!(v["cycle"]["list"][1]["back"], "<Circular reference>");
    assert_eq!(v["shared"], json!([{"shared": true}, {"shared": true}]));
    assert_eq!(v["fn"], "<Function object>");
    assert_eq!(v["arrow"], "<Function object>");
    assert_eq!(v["klass"], "<Function object>");
    assert_eq!(v["instance"], "<Point instance>");
    assert_eq!(
        v["map"],
        json!({"<Map>": [["a", 1], [{"key": "object"}, {"<Set>": [1, 2]}]]})
    );
    assert_eq!(v["set"], json!({"<Set>": [1, "two", [3]]}));
    assert_eq!(v["date"], "2024-01-02T03:04:05.006Z");
    assert_eq!(v["invalidDate"], "Invalid Date");
    assert_eq!(v["regexp"], "/a+b/gi");
    assert_eq!(v["bigint"], "123n");
    assert_eq!(v["negativeBigint"], "-45n");
    assert_eq!(v["symbol"], "Symbol(x)");
    assert_eq!(v["anonymousSymbol"], "Symbol()");
    assert!(
        v.get("undef").is_none(),
        "undefined properties are left out: {v}"
    );
    assert_eq!(v["arrayWithUndefined"], json!([1, null, 3]));
    assert_eq!(v["sparse"], json!([1, null, 3]));
    assert_eq!(v["nan"], "NaN");
    assert_eq!(v["infinity"], "Infinity");
    assert_eq!(v["negativeInfinity"], "-Infinity");
    assert_eq!(v["negativeZero"], "-0");
    assert_eq!(v["zero"], 0);
    assert_eq!(v["loneHigh"], "a\u{FFFD}b");
    assert_eq!(v["loneLow"], "\u{FFFD}end");
    assert_eq!(v["key\u{FFFD}"], "lone surrogate in a key");
    assert_eq!(v["emoji"], "😀");
    assert_eq!(v["error"]["name"], "TypeError");
    assert_eq!(v["error"]["message"], "bad type");
    assert_eq!(v["errorWithCause"]["cause"]["message"], "inner");
    assert_eq!(
        v["getterThrows"],
        json!({"ok": 1, "boom": "<Getter threw: getter says no>"})
    );
    assert!(
        v["revokedProxy"]
            .as_str()
            .is_some_and(|s| s.starts_with("<Unreadable object")),
        "{v}"
    );
    assert_eq!(v["promise"], "<Promise instance>");
    assert_eq!(v["nested"]["deeper"]["deepest"][2]["three"], 3);
}

/// Odd values returned at the top level.
fn top_level_odd_values(mcp: &Mcp) {
    // Top-level odd values.
    assert_eq!(
        exec_ok(mcp, "undefined_result", None),
        "Tool returned no result."
    );
    assert_eq!(exec_ok(mcp, "null_result", None), "null");
    assert_eq!(
        exec_ok(mcp, "string_result", None),
        "\"hello \\\"world\\\"\\nline 2\""
    );
    assert_eq!(exec_ok(mcp, "nan_result", None), "\"NaN\"");
    assert_eq!(
        exec_ok(mcp, "function_result", None),
        "\"<Function object>\""
    );
}

/// Params echoed back as they went in.
fn what_goes_in_comes_out(mcp: &Mcp) {
    // What goes in comes out.
    let echoed = exec_ok(
        mcp,
        "echo",
        Some(r#"{"s":"é😀","n":-1.5,"list":[true,null]}"#),
    );
    assert_eq!(
        json_body(&echoed),
        json!({"s": "é😀", "n": -1.5, "list": [true, null]})
    );
    // A "__proto__" key is an ordinary property, as JSON.parse makes it.
    let echoed = exec_ok(mcp, "echo", Some(r#"{"__proto__":{"x":1},"y":"\u2028"}"#));
    assert_eq!(
        json_body(&echoed),
        json!({"__proto__": {"x": 1}, "y": "\u{2028}"})
    );
}

#[test]
fn plain_data_reads_the_same_as_any_other_result() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    // Plain data is printed by the page's native JSON.stringify, other values by the shim's
    // walk; both must read the same: undefined dropped or null.
    let plain = "{
  \"list\": [
    1,
    null,
    \"x\",
    {
      \"deeper\": []
    },
    {}
  ],
  \"noProto\": {
    \"a\": 1
  },
  \"emptyKeyed\": {
    \"\": 0
  }
}";
    assert_eq!(exec_ok(&mcp, "plain_edges", None), plain);
    // What JSON gets wrong is still put right: lone surrogates replaced, -0 kept (and a
    // text backslash that looks like an escaped surrogate stays as it is).
    let edges = format!(
        "{},\n  \"backslash\": \"\\\\ud800 is text here\",\n  \"loneHigh\": \"a\u{FFFD}b\",\n  \"key\u{FFFD}\": \"lone\",\n  \"negativeZero\": \"-0\",\n  \"zeros\": [\n    \"-0\",\n    0\n  ]\n}}",
        &plain[..plain.len() - 2]
    );
    assert_eq!(
        exec_ok(&mcp, "plain_edges", Some(r#"{"edges":true}"#)),
        edges
    );
    assert_eq!(
        exec_ok(&mcp, "plain_edges", Some(r#"{"ownToJSON":true}"#)),
        "{\n  \"list\": [\n    1,\n    2\n  ]\n}"
    );
}

#[test]
fn a_page_that_sabotages_its_built_ins_changes_nothing() {
    let fx = Fixtures::start();
    let mcp = started();
    // The page breaks JSON, Array, Object, Promise, Map, Reflect.apply, timers and more
    // after registering its tool (see the fixture); the shim captured them before.
    let opened = open(&mcp, &fx, "hostile.html");
    assert!(
        opened
            .text
            .contains("Hostile: A page that broke its built-ins."),
        "{}",
        opened.text
    );
    assert_eq!(
        json_body(&exec_ok(&mcp, "hostile_values", Some(r#"{"n":1}"#))),
        json!({"list": [1, 2, 3], "map": {"<Map>": [["k", "v"]]}, "date": "1970-01-01T00:00:00.000Z", "text": "fine"})
    );
    // Object.prototype.toJSON does not turn evaluate_script's answer into the page's text.
    let answer = mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => ({a: [1, {b: 2}], t: document.title})"}),
    );
    assert_eq!(
        answer.text,
        returned(r#"{"a":[1,{"b":2}],"t":"Hostile page"}"#)
    );
    let composed = mcp.call_ok(
        "evaluate_script",
        json!({"function": "async () => (await window.__dtmcp.executeTool('hostile_values', {})).list"}),
    );
    assert_eq!(composed.text, returned("[1,2,3]"));
}

#[test]
fn deep_results_come_back_whole_or_truncated_never_crashing() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    // 1,000 levels: whole (serde_json alone would stop at 128).
    let text = exec_ok(&mcp, "deep", Some(r#"{"depth":1000}"#));
    assert_eq!(text.matches("\"child\"").count(), 1000, "{}", &text[..200]);
    assert!(text.contains("\"bottom\""));
    assert!(
        text.ends_with(&"}".repeat(1000)),
        "{}",
        &text[text.len() - 200..]
    );
    let arrays = exec_ok(&mcp, "deep", Some(r#"{"depth":1000,"array":true}"#));
    assert_eq!(arrays.matches('[').count(), 1000);
    assert!(arrays.contains("\"bottom\""));

    // 100,000 levels: cut with a marker at 5000, and the server carries on.
    for array in [false, true] {
        let params = format!(r#"{{"depth":100000,"array":{array}}}"#);
        let r = exec(&mcp, "deep", Some(&params));
        // The shim's depth limit is 5000 levels: the container at that depth becomes the marker.
        let (open, close) = if array {
            ("[", "]")
        } else {
            ("{\"child\":", "}")
        };
        let expected = format!(
            "{}\"<Nested too deep>\"{}",
            open.repeat(5000),
            close.repeat(5000)
        );
        assert!(
            !r.is_error,
            "array={array}: {}",
            &r.text[..r.text.len().min(300)]
        );
        assert!(
            r.text == expected,
            "array={array}: {}…",
            &r.text[..r.text.len().min(300)]
        );
    }
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
    assert_eq!(exec_ok(&mcp, "number_result", None), "42");
}

#[test]
fn a_large_result_is_truncated_with_a_marker_or_written_whole_to_file_path() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let r = exec_ok(&mcp, "big_string", Some(r#"{"chars":1500000}"#));
    let (body, marker) = r.rsplit_once('\n').expect("a marker line");
    assert_eq!(
        marker,
        "[Result truncated: showing the first 1000000 of 1500002 characters. Pass filePath to get the whole result.]"
    );
    assert_eq!(body.len(), 1_000_000);
    assert!(body.starts_with("\"xxxx"));

    let dir = std::env::temp_dir().join(format!("dtmcp-3p-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("big.json");
    let saved = mcp.call_ok(
        EXECUTE,
        json!({"toolName": "big_string", "params": r#"{"chars":1500000}"#, "filePath": path}),
    );
    assert_eq!(
        saved.text,
        format!("Tool result saved to {}.", path.display())
    );
    let whole = fs::read_to_string(&path).expect("the saved result");
    assert_eq!(whole.len(), 1_500_002);
    assert_eq!(whole, format!("\"{}\"", "x".repeat(1_500_000)));

    // Surrogate pairs across every piece boundary survive the trip to the file.
    let emoji_path = dir.join("emoji.json");
    mcp.call_ok(
        EXECUTE,
        json!({"toolName": "emoji_string", "params": r#"{"count":2600001}"#, "filePath": emoji_path}),
    );
    let emoji = fs::read_to_string(&emoji_path).expect("the saved result");
    assert_eq!(emoji, format!("\"{}\"", "😀".repeat(2_600_001)));
    // Inline, a pair is never cut in half.
    let inline = exec_ok(&mcp, "emoji_string", Some(r#"{"count":600000}"#));
    assert!(inline.contains("[Result truncated: showing the first 1000000 of 1200002 characters."));
    // A small result with filePath is written as shown inline.
    let small = dir.join("small.json");
    mcp.call_ok(
        EXECUTE,
        json!({"toolName": "number_result", "filePath": small}),
    );
    assert_eq!(fs::read_to_string(&small).expect("saved"), "42");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_100_mb_result_is_truncated_and_the_server_keeps_serving() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let began = Instant::now();
    let r = mcp.call_timeout(
        EXECUTE,
        json!({"toolName": "big_string", "params": r#"{"chars":100000000}"#, "timeout": 120000}),
        Duration::from_secs(150),
    );
    assert!(!r.is_error, "{}", &r.text[..r.text.len().min(300)]);
    assert!(
        r.text.ends_with("[Result truncated: showing the first 1000000 of 100000002 characters. Pass filePath to get the whole result.]"),
        "{}",
        &r.text[r.text.len().saturating_sub(300)..]
    );
    assert!(r.text.len() < 1_100_000);
    eprintln!("100 MB result, inline: {:?}", began.elapsed());
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));

    // Whole, to a file.
    let path = std::env::temp_dir().join(format!("dtmcp-3p-100mb-{}.json", std::process::id()));
    let began = Instant::now();
    let saved = mcp.call_timeout(
        EXECUTE,
        json!({"toolName": "big_string", "params": r#"{"chars":100000000}"#, "filePath": path, "timeout": 120000}),
        Duration::from_secs(150),
    );
    eprintln!("100 MB result, to a file: {:?}", began.elapsed());
    assert!(!saved.is_error, "{}", saved.text);
    let size = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let _ = fs::remove_file(&path);
    assert_eq!(size, 100_000_002);
    assert_eq!(exec_ok(&mcp, "number_result", None), "42");
}
