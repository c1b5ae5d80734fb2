//! The generated CDP bindings: (a) src/cdp/generated.rs matches what the generator
//! (`protocol_bindings/codegen.rs`) makes from the vendored JSON and protocol/used.txt — or is
//! rewritten when UPDATE_BINDINGS=1 — and (b) the generated types tolerate what a newer browser
//! may send.

// The generator of src/cdp/generated.rs: part of no crate but this one, which is also the one
// way to run it (protocol/README.md).
mod codegen;
// The source scanner behind the used.txt tests.
mod scan;

// The bindings as the crate compiles them.
use devtools_mcp::cdp::{self, generated};

use scan::{rust_files, used_entries, Entry, Lexed, ProtocolNames};
use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn generated_bindings_are_current() {
    let fresh = codegen::generate(
        &read("protocol/browser_protocol.json"),
        &read("protocol/js_protocol.json"),
        &read("protocol/used.txt"),
    )
    .unwrap_or_else(|e| panic!("the generator failed: {e}"));
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
            "stale: run UPDATE_BINDINGS=1 cargo test --test tests protocol_bindings \
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

/// Payloads as Chromium 156 sent them (captured over the pipe), for events and answers whose
/// fields the server reads.
#[test]
fn chromium_156_payloads_decode() {
    use generated::{page, runtime, target};
    let attached: target::AttachedToTargetEvent = serde_json::from_str(
        r#"{"sessionId": "77038DAF37B42D3CDA714A9907533395", "targetInfo": {"targetId":
        "C91187D763E2D4CF0697931119858DF8", "type": "page", "title": "", "url": "about:blank",
        "attached": true, "canAccessOpener": false, "browserContextId":
        "3FFBB0CE7E4674987284B01C98A91139"}, "waitingForDebugger": false}"#,
    )
    .expect("decodes");
    assert_eq!(attached.session_id, "77038DAF37B42D3CDA714A9907533395");
    assert_eq!(attached.target_info.r#type, "page");
    assert!(!attached.waiting_for_debugger);

    let requested: page::FrameRequestedNavigationEvent = serde_json::from_str(
        r#"{"frameId": "AA7B277D9BB359D7107D2FEEF46293A1", "reason": "initialFrameNavigation",
        "url": "http://127.0.0.1:36341/frame.html", "disposition": "currentTab"}"#,
    )
    .expect("decodes");
    assert_eq!(
        requested.disposition,
        page::ClientNavigationDisposition::CurrentTab
    );
    let started: page::FrameStartedNavigatingEvent = serde_json::from_str(
        r#"{"frameId": "CD814B6F5C611B9AAA0244BB0FBB6BB9", "url":
        "http://127.0.0.1:36341/index.html#frag", "loaderId": "910CEA970B0AB3DEB25F3E173CA548D4",
        "navigationType": "sameDocument"}"#,
    )
    .expect("decodes");
    assert_eq!(
        started.navigation_type,
        page::FrameStartedNavigatingNavigationType::SameDocument
    );

    // `null` as a value arrives as `None`; the subtype still tells it apart from `undefined`.
    let logged: runtime::ConsoleAPICalledEvent = serde_json::from_str(
        r#"{"type": "log", "args": [{"type": "string", "value": "plain"}, {"type": "object",
        "subtype": "null", "value": null}, {"type": "undefined"}, {"type": "bigint",
        "unserializableValue": "10n", "description": "10n"}], "executionContextId": 2,
        "timestamp": 1796139060506.955, "stackTrace": {"callFrames": [{"functionName": "",
        "scriptId": "4", "url": "http://127.0.0.1:36341/index.html", "lineNumber": 9,
        "columnNumber": 8}]}}"#,
    )
    .expect("decodes");
    assert_eq!(logged.args.len(), 4);
    assert_eq!(
        logged.args[1].subtype,
        Some(runtime::RemoteObjectSubtype::Null)
    );
    assert_eq!(logged.args[1].value, None);
    assert_eq!(logged.args[3].unserializable_value.as_deref(), Some("10n"));

    let details: runtime::GetExceptionDetailsReturns = serde_json::from_str(
        r#"{"exceptionDetails": {"exceptionId": 4, "text": "Error: obj", "lineNumber": 0,
        "columnNumber": 0, "scriptId": "11", "stackTrace": {"callFrames": [{"functionName": "",
        "scriptId": "11", "url": "", "lineNumber": 0, "columnNumber": 0}]}, "exception": {"type":
        "object", "subtype": "error", "className": "Error", "description":
        "Error: obj\n    at <anonymous>:1:1", "objectId": "-789355891537432608.2.16"}}}"#,
    )
    .expect("decodes");
    let exception = details.exception_details.and_then(|d| d.exception);
    assert_eq!(
        exception.and_then(|e| e.class_name).as_deref(),
        Some("Error")
    );
}

// ---------------------------------------------------------------------------------------
// protocol/used.txt lists exactly the commands and events that src/ uses

/// (a) Every CDP command or event that src/ names — as a `"Domain.name"` string literal whose
/// `Domain` is a protocol domain, or as a generated `<Method>Params` / `<Name>Event` type — is
/// listed in protocol/used.txt, and (b) every entry of used.txt is named somewhere in src/.
/// src/cdp/generated.rs is left out, and so are comments.
#[test]
fn used_list_is_exactly_what_src_uses() {
    let protocol = ProtocolNames::new(&[
        read("protocol/browser_protocol.json"),
        read("protocol/js_protocol.json"),
    ]);
    let used = used_entries(&read("protocol/used.txt"));
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut unlisted = Vec::new();
    let mut named = BTreeSet::new();
    for path in files {
        let relative = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        if relative == "src/cdp/generated.rs" {
            continue;
        }
        let source = Lexed::new(&read(&relative));
        for mention in protocol.mentions(&source) {
            let listed: Vec<&Entry> = mention
                .candidates
                .iter()
                .filter(|e| used.contains_key(*e))
                .collect();
            if mention.candidates.is_empty() {
                unlisted.push(format!(
                    "{relative}:{}: {} names no command or event of protocol/*.json",
                    mention.line, mention.text
                ));
            } else if listed.is_empty() {
                let wanted: Vec<String> = mention.candidates.iter().map(Entry::to_string).collect();
                unlisted.push(format!(
                    "{relative}:{}: {} is not listed (add `{}`)",
                    mention.line,
                    mention.text,
                    wanted.join("` or `")
                ));
            }
            named.extend(listed.into_iter().cloned());
        }
    }
    let unused: Vec<String> = used
        .iter()
        .filter(|(entry, _)| !named.contains(*entry))
        .map(|(entry, line)| format!("protocol/used.txt:{line}: {entry}"))
        .collect();
    let mut problems = String::new();
    if !unlisted.is_empty() {
        problems.push_str(&format!(
            "src/ uses CDP names that protocol/used.txt does not list (add them, then \
             UPDATE_BINDINGS=1 cargo test --test tests protocol_bindings):\n  {}\n",
            unlisted.join("\n  ")
        ));
    }
    if !unused.is_empty() {
        problems.push_str(&format!(
            "protocol/used.txt lists entries that no file in src/ uses (remove them, then \
             UPDATE_BINDINGS=1 cargo test --test tests protocol_bindings):\n  {}\n",
            unused.join("\n  ")
        ));
    }
    assert!(problems.is_empty(), "{problems}");
}

/// The scanner behind the test above: literals and identifiers of code, never of comments.
#[test]
fn the_source_scan_sees_code_only() {
    let text = r####"
        // "Page.inComment" and /* "Page.inBlock" /* nested */ "Page.stillBlock" */
        /// `Runtime.evaluate` in a doc comment, page::NavigateParams too
        let a = "Page.enable"; let b = 'x'; let c = '"'; let d: &'static str = "Log.enable";
        let e = r#"a "quoted" string // not a comment"#; let f = b"Network.enable";
        let g = "http://example.com/"; let h = "Target.createTarget";
        use crate::cdp::generated::{page as cdp_page, runtime};
        let i = cdp_page::ReloadParams::default(); let j = runtime::EnableParams {};
        let k: Option<BindingCalledEvent> = None; let l = "Page.notAThing";
        let m = "Page.Frame"; let n = "NotADomain.enable"; let o = r#type;
    "####;
    let lexed = Lexed::new(text);
    let literals: Vec<&str> = lexed.literals.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(
        literals,
        [
            "Page.enable",
            "Log.enable",
            r#"a "quoted" string // not a comment"#,
            "Network.enable",
            "http://example.com/",
            "Target.createTarget",
            "Page.notAThing",
            "Page.Frame",
            "NotADomain.enable",
        ]
    );
    assert!(!lexed.code.contains("inComment") && !lexed.code.contains("stillBlock"));
    let protocol = ProtocolNames::new(&[
        read("protocol/browser_protocol.json"),
        read("protocol/js_protocol.json"),
    ]);
    let found: Vec<(usize, String, Vec<String>)> = protocol
        .mentions(&lexed)
        .into_iter()
        .map(|m| {
            let candidates = m.candidates.iter().map(Entry::to_string).collect();
            (m.line, m.text, candidates)
        })
        .collect();
    let expected = [
        (4, "\"Page.enable\"", vec!["Page.enable"]),
        (4, "\"Log.enable\"", vec!["Log.enable"]),
        (5, "\"Network.enable\"", vec!["Network.enable"]),
        (6, "\"Target.createTarget\"", vec!["Target.createTarget"]),
        (9, "\"Page.notAThing\"", vec![]),
        (8, "cdp_page::ReloadParams", vec!["Page.reload"]),
        (8, "runtime::EnableParams", vec!["Runtime.enable"]),
        (9, "BindingCalledEvent", vec!["event Runtime.bindingCalled"]),
    ];
    let expected: Vec<(usize, String, Vec<String>)> = expected
        .into_iter()
        .map(|(line, text, c)| {
            (
                line,
                text.to_string(),
                c.into_iter().map(String::from).collect(),
            )
        })
        .collect();
    assert_eq!(found, expected);
}
