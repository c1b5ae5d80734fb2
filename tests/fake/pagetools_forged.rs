//! Binding calls that do not carry the shim's secret are dropped, against a scripted browser
//! (`support::wire`, as in `dispatch.rs`): 50,000 forged `Runtime.bindingCalled` reports
//! (the first ones with big schemas full of patterns) change no table, are handled quickly,
//! and cause no `list_changed`; the real tool's schema still validates its arguments.

use std::time::{Duration, Instant};

use crate::support::fake::{Rig, SESSION};
use serde_json::{json, Value};

const LIST_CHANGED: &str = "notifications/tools/list_changed";

/// The secret in the new-document shim the server installed.
fn secret(rig: &Rig) -> String {
    let install = rig
        .browser
        .requests()
        .into_iter()
        .find(|r| r.method == "Page.addScriptToEvaluateOnNewDocument")
        .expect("the shim is installed");
    let source = install.params["source"].as_str().unwrap_or_default();
    let Some(at) = source.find("var SECRET = '") else {
        return String::new();
    };
    let rest = &source[at + "var SECRET = '".len()..];
    rest.split('\'').next().unwrap_or_default().to_owned()
}

fn binding_called(rig: &Rig, payload: &str) {
    let e = json!({"name": "__dtmcp_notify", "payload": payload, "executionContextId": 1});
    rig.browser.event(Some(SESSION), "Runtime.bindingCalled", e);
}

/// A report of one group `Real` with one tool `echo` whose schema is `schema`, and `extra`
/// more tools with 20 patterns each.
fn report(seq: u64, description: &str, schema: Value, extra: usize) -> String {
    let mut tools =
        vec![json!({"name": "echo", "description": description, "inputSchema": schema})];
    for t in 0..extra {
        let props: serde_json::Map<String, Value> = (0..20)
            .map(|p| (format!("p{p}"), json!({"type": "string", "pattern": format!("^(a+)+[0-9]{{1,{}}}$", t + p + 1)})))
            .collect();
        tools.push(json!({"name": format!("forged_{t}"), "inputSchema": {"type": "object", "properties": props}}));
    }
    let report = json!({"seq": seq, "url": "about:blank", "errors": [], "duplicates": [], "pending": 0,
        "groups": [{"name": "Real", "description": null, "tools": tools}]});
    json!({"type": "groups", "report": report}).to_string()
}

#[test]
fn forged_binding_calls_change_nothing_and_cost_little() {
    let mut rig = Rig::new(&[]);
    rig.client(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    rig.client(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    rig.client(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    rig.client(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "list_pages", "arguments": {}}}));
    rig.boot();
    let secret = secret(&rig);
    let real =
        json!({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]});
    binding_called(&rig, &format!("{secret}\n{}", report(1, "real", real, 0)));
    rig.deliver();
    rig.output();

    let forged =
        json!({"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]});
    let big = report(1, "FORGED", forged.clone(), 200);
    let began = Instant::now();
    let mut slowest = Duration::ZERO;
    let mut handling = Duration::ZERO;
    let small: Vec<String> = (0..10)
        .map(|i| report(1, &format!("FORGED {i}"), forged.clone(), 0))
        .collect();
    for batch in 0..50 {
        for i in 0..1000 {
            let payload = if batch == 0 && i < 30 {
                &big
            } else {
                &small[i % 10]
            };
            binding_called(&rig, payload);
        }
        // What the server spends on them (the fake's own work is not counted).
        let turn = Instant::now();
        rig.deliver();
        slowest = slowest.max(turn.elapsed());
        handling += turn.elapsed();
    }
    eprintln!(
        "50,000 forged binding calls: server busy {handling:?} (slowest 1,000: {slowest:?}); test total {:?}",
        began.elapsed()
    );
    assert!(
        slowest < Duration::from_secs(5),
        "1,000 forged calls took {slowest:?}"
    );
    rig.client(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    let out = rig.output();
    let notices = out.iter().filter(|m| m["method"] == LIST_CHANGED).count();
    assert_eq!(notices, 0, "forged reports announced changes");
    assert!(out.iter().any(|m| m["id"] == 3), "{out:?}");

    // The real schema checks the arguments: the forged one (`s` required) would pass these.
    rig.client(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "execute_3p_developer_tool", "arguments": {"toolName": "echo", "params": "{\"s\":\"x\"}"}}}));
    let out = rig.output();
    let answer = out
        .iter()
        .find(|m| m["id"] == 4)
        .unwrap_or_else(|| panic!("{out:?}"));
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("Invalid parameters for tool echo") && text.contains("\"n\""),
        "{text}"
    );
    assert_eq!(secret.len(), 32, "{secret}");
}
