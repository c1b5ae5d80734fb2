//! What `tools/list` costs a client, against chrome-devtools-mcp 1.11.0's list captured in
//! `tests/fixtures/reference/` (its README says how). The bytes are those of each tool object as
//! compact JSON; the bound is for the tools both servers have: ours at most 0.6× the
//! reference's. No browser is needed: `tools/list` answers without one.

use std::collections::HashMap;

use crate::support::started_with;
use serde_json::Value;

const BOUND: f64 = 0.6;

fn reference(file: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/reference/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let capture: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    capture["tools"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("{path} has no tools array"))
}

fn bytes(tool: &Value) -> usize {
    tool.to_string().len()
}

fn sizes(tools: &[Value]) -> HashMap<String, usize> {
    tools
        .iter()
        .map(|t| (t["name"].as_str().unwrap_or_default().to_owned(), bytes(t)))
        .collect()
}

fn total(tools: &[Value]) -> usize {
    tools.iter().map(bytes).sum()
}

/// Ours and the reference's bytes over the tools both lists have, each tool printed.
fn shared(ours: &[Value], theirs: &[Value]) -> (usize, usize) {
    let theirs = sizes(theirs);
    let (mut a, mut b) = (0, 0);
    for tool in ours {
        let (name, n) = (tool["name"].as_str().unwrap_or_default(), bytes(tool));
        match theirs.get(name) {
            Some(r) => {
                println!("{name:<28} {n:>6} {r:>6}");
                a += n;
                b += r;
            }
            None => println!("{name:<28} {n:>6}      -"),
        }
    }
    (a, b)
}

#[test]
fn the_shared_tools_cost_at_most_0_6_of_the_references_bytes() {
    let ours = started_with(&[]).list_tools();
    let theirs = reference("tools_list_1.11.0.json");
    println!("{:<28} {:>6} {:>6}", "tool", "ours", "ref");
    let (a, b) = shared(&ours, &theirs);
    let ratio = a as f64 / b as f64;
    println!(
        "shared tools: ours {a} bytes, reference {b} bytes ({ratio:.2}x); whole list: ours {} bytes for {} tools, reference {} bytes for {} tools",
        total(&ours),
        ours.len(),
        total(&theirs),
        theirs.len()
    );
    assert!(b > 10_000, "the capture lost tools: {b} bytes");
    assert!(
        ratio <= BOUND,
        "{a} bytes is {ratio:.3}x the reference's {b}, over {BOUND}x"
    );
    let text = Value::Array(ours).to_string();
    assert!(!text.contains("\"$schema\""), "a $schema key is listed");
}

#[test]
fn slim_and_every_category_are_measured_too() {
    for (flags, file) in [
        (&["--slim"][..], "tools_list_1.11.0_slim.json"),
        (
            &[
                "--categoryExtensions",
                "--categoryExperimentalWebmcp",
                "--categoryPwa",
            ][..],
            "tools_list_1.11.0_all_categories.json",
        ),
    ] {
        let ours = started_with(flags).list_tools();
        let theirs = reference(file);
        let (a, b) = shared(&ours, &theirs);
        println!(
            "{flags:?}: ours {} bytes for {} tools, reference {} bytes for {} tools; shared tools: ours {a}, reference {b}",
            total(&ours),
            ours.len(),
            total(&theirs),
            theirs.len()
        );
        assert!(a > 0 && a <= b, "{flags:?}: {a} bytes against {b}");
    }
}
