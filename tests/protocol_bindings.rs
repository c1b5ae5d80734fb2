//! The generated CDP bindings: (a) src/cdp/generated.rs matches what protocol/codegen.rs makes
//! from the vendored JSON and protocol/used.txt — or is rewritten when UPDATE_BINDINGS=1 — and
//! (b) the generated types tolerate what a newer browser may send.

#[path = "../protocol/codegen.rs"]
mod codegen;

// The generated code names `crate::cdp::{Command, Event}`. An integration test cannot reach the
// binary crate's module, so the two traits are mirrored here exactly as src/cdp/mod.rs has them.
mod cdp {
    pub trait Command: serde::Serialize {
        const METHOD: &'static str;
        type Returns: serde::de::DeserializeOwned;
    }

    pub trait Event: serde::de::DeserializeOwned {
        const NAME: &'static str;
    }
}

#[path = "../src/cdp/generated.rs"]
mod generated;

use std::path::Path;

#[test]
fn generated_bindings_are_current() {
    let fresh = codegen::generate(
        &read("protocol/browser_protocol.json"),
        &read("protocol/js_protocol.json"),
        &read("protocol/used.txt"),
    )
    .unwrap_or_else(|e| panic!("protocol/codegen.rs failed: {e}"));
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cdp/generated.rs");
    if std::env::var_os("UPDATE_BINDINGS").is_some_and(|v| v == "1") {
        std::fs::write(&target, &fresh)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
        eprintln!("wrote {}", target.display());
        return;
    }
    let current = read("src/cdp/generated.rs");
    if current != fresh {
        let line = current
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| current.lines().count().min(fresh.lines().count()))
            + 1;
        panic!(
            "stale: run UPDATE_BINDINGS=1 cargo test --test protocol_bindings \
             (src/cdp/generated.rs differs from the generator's output from line {line})"
        );
    }
}

/// A file of this package, by its path from the package root.
fn read(relative: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(relative))
        .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

#[test]
fn mirrored_traits_match_src_cdp() {
    let source = read("src/cdp/mod.rs");
    let flat = source.split_whitespace().collect::<Vec<_>>().join(" ");
    let expected = [
        concat!(
            "pub trait Command: serde::Serialize { const METHOD: &'static str; ",
            "type Returns: serde::de::DeserializeOwned; }"
        ),
        "pub trait Event: serde::de::DeserializeOwned { const NAME: &'static str; }",
    ];
    for item in expected {
        assert!(
            flat.contains(item),
            "src/cdp/mod.rs no longer has `{item}`: update the mirror in tests/protocol_bindings.rs"
        );
    }
}

#[test]
fn generator_rejects_bad_used_lists() {
    let browser = read("protocol/browser_protocol.json");
    let js = read("protocol/js_protocol.json");
    let malformed = codegen::generate(&browser, &js, "# fine\nPage.navigate\nnot a method\n");
    let message = malformed.err().unwrap_or_default();
    assert!(message.contains("line 3"), "{message}");

    let unknown = codegen::generate(&browser, &js, "Page.noSuchMethod\n");
    let message = unknown.err().unwrap_or_default();
    assert!(message.contains("Page.noSuchMethod"), "{message}");

    let twice = codegen::generate(
        &browser,
        &js,
        "event Page.loadEventFired\nevent Page.loadEventFired\n",
    );
    let message = twice.err().unwrap_or_default();
    assert!(message.contains("twice"), "{message}");
}

#[test]
fn method_and_event_names_are_the_wire_names() {
    use cdp::{Command, Event};
    use generated::{emulation, page, runtime};
    assert_eq!(page::NavigateParams::METHOD, "Page.navigate");
    assert_eq!(
        emulation::SetCPUThrottlingRateParams::METHOD,
        "Emulation.setCPUThrottlingRate"
    );
    assert_eq!(runtime::BindingCalledEvent::NAME, "Runtime.bindingCalled");
    assert_eq!(
        runtime::ConsoleAPICalledEvent::NAME,
        "Runtime.consoleAPICalled"
    );
}

#[test]
fn events_tolerate_unknown_fields_and_enum_values() {
    use generated::runtime::{ConsoleAPICalledEvent, ConsoleAPICalledType, RemoteObjectType};
    let json = r#"{
        "type": "someFutureKind",
        "args": [{"type": "string", "value": "hi", "brandNewField": [1, 2]},
                 {"type": "futureType", "description": "?"}],
        "executionContextId": 3,
        "timestamp": 1700000000000.5,
        "stackTrace": {"callFrames": [], "parent": {"callFrames": [], "description": "async"}},
        "fieldFromANewerChromium": {"nested": true}
    }"#;
    let event: ConsoleAPICalledEvent = serde_json::from_str(json).expect("event decodes");
    assert_eq!(
        event.r#type,
        ConsoleAPICalledType::Unrecognized("someFutureKind".to_string())
    );
    assert_eq!(event.args[0].r#type, RemoteObjectType::String);
    assert_eq!(event.args[0].value, Some(serde_json::json!("hi")));
    assert_eq!(event.args[1].r#type.as_str(), "futureType");
    assert_eq!(event.execution_context_id, 3);
    let parent = event.stack_trace.and_then(|s| s.parent);
    assert_eq!(parent.and_then(|p| p.description).as_deref(), Some("async"));

    // A known value decodes to its variant; both kinds encode back to the wire spelling.
    let known: ConsoleAPICalledType = serde_json::from_str(r#""startGroup""#).expect("decodes");
    assert_eq!(known, ConsoleAPICalledType::StartGroup);
    assert_eq!(
        serde_json::to_string(&known).ok().as_deref(),
        Some(r#""startGroup""#)
    );
    let unknown = ConsoleAPICalledType::from_wire("later");
    assert_eq!(
        serde_json::to_string(&unknown).ok().as_deref(),
        Some(r#""later""#)
    );
}

#[test]
fn events_without_params_and_with_missing_fields_decode() {
    use generated::{page, runtime};
    let cleared: Result<runtime::ExecutionContextsClearedEvent, _> =
        serde_json::from_str(r#"{"unexpected": 1}"#);
    assert!(cleared.is_ok());
    // Required fields left out fall back to their defaults rather than failing.
    let navigated: page::FrameNavigatedEvent =
        serde_json::from_str(r#"{"frame": {"id": "F1"}}"#).expect("decodes");
    assert_eq!(navigated.frame.id, "F1");
    assert_eq!(navigated.frame.url, "");
}

#[test]
fn returns_decode_from_an_empty_object() {
    use generated::{dom, page, runtime, target};
    let navigate: page::NavigateReturns = serde_json::from_str("{}").expect("decodes");
    assert_eq!(navigate.frame_id, "");
    assert!(navigate.error_text.is_none());
    let evaluate: runtime::EvaluateReturns = serde_json::from_str("{}").expect("decodes");
    assert!(evaluate.exception_details.is_none());
    let _: target::SetAutoAttachReturns = serde_json::from_str("{}").expect("decodes");
    let _: dom::GetDocumentReturns = serde_json::from_str("{}").expect("decodes");
}

#[test]
fn params_leave_out_unset_optional_fields() {
    use generated::{input, page, runtime};
    let navigate = page::NavigateParams {
        url: "http://127.0.0.1/".to_string(),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&navigate).ok(),
        Some(serde_json::json!({"url": "http://127.0.0.1/"}))
    );
    assert_eq!(
        serde_json::to_value(runtime::EnableParams {}).ok(),
        Some(serde_json::json!({}))
    );
    let evaluate = runtime::EvaluateParams {
        expression: "1 + 1".to_string(),
        return_by_value: Some(true),
        context_id: Some(7),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&evaluate).ok(),
        Some(serde_json::json!({"expression": "1 + 1", "returnByValue": true, "contextId": 7}))
    );
    let click = input::DispatchMouseEventParams {
        r#type: input::DispatchMouseEventType::MousePressed,
        x: 10.0,
        y: 20.5,
        button: Some(input::MouseButton::Left),
        click_count: Some(1),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&click).ok(),
        Some(serde_json::json!({
            "type": "mousePressed", "x": 10.0, "y": 20.5, "button": "left", "clickCount": 1
        }))
    );
}

#[test]
fn recursive_types_decode() {
    use generated::dom::Node;
    let json = r##"{"nodeId": 1, "backendNodeId": 2, "nodeType": 9, "nodeName": "#document",
        "children": [{"nodeId": 3, "nodeName": "IFRAME",
                      "contentDocument": {"nodeId": 4, "nodeName": "#document"}}]}"##;
    let node: Node = serde_json::from_str(json).expect("decodes");
    let inner = node
        .children
        .as_ref()
        .and_then(|c| c[0].content_document.as_ref());
    assert_eq!(inner.map(|n| n.node_id), Some(4));
}
