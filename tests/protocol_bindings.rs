//! The generated CDP bindings: (a) src/cdp/generated.rs matches what protocol/codegen.rs makes
//! from the vendored JSON and protocol/used.txt — or is rewritten when UPDATE_BINDINGS=1 — and
//! (b) the generated types tolerate what a newer browser may send.

#[path = "../protocol/codegen.rs"]
mod codegen;

// The bindings as the crate compiles them (the generator, not part of the crate, is included
// above by path).
use devtools_mcp::cdp::{self, generated};

use std::collections::{BTreeMap, BTreeSet};
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
             UPDATE_BINDINGS=1 cargo test --test protocol_bindings):\n  {}\n",
            unlisted.join("\n  ")
        ));
    }
    if !unused.is_empty() {
        problems.push_str(&format!(
            "protocol/used.txt lists entries that no file in src/ uses (remove them, then \
             UPDATE_BINDINGS=1 cargo test --test protocol_bindings):\n  {}\n",
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

/// A used.txt entry, written the way used.txt spells it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    event: bool,
    /// `Domain.name`
    name: String,
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.event {
            write!(f, "event {}", self.name)
        } else {
            f.write_str(&self.name)
        }
    }
}

/// The entries of used.txt, with their line numbers (its syntax is checked by the generator).
fn used_entries(text: &str) -> BTreeMap<Entry, usize> {
    let mut entries = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        let entry = match line.strip_prefix("event ") {
            _ if line.is_empty() => continue,
            Some(name) => Entry {
                event: true,
                name: name.trim().to_string(),
            },
            None => Entry {
                event: false,
                name: line.to_string(),
            },
        };
        entries.insert(entry, index + 1);
    }
    entries
}

/// Every `.rs` file under `dir`, in a stable order.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// One place in the source that names a command or event.
struct Mention {
    line: usize,
    /// As written: `"Domain.name"` or the (qualified) type name.
    text: String,
    /// The used.txt entries it may stand for; empty: a protocol domain, but no such member.
    candidates: Vec<Entry>,
}

/// The names the protocol JSON defines.
struct ProtocolNames {
    /// Domain → (commands, events).
    domains: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>,
}

impl ProtocolNames {
    fn new(files: &[String]) -> ProtocolNames {
        let mut domains = BTreeMap::new();
        for text in files {
            let root: serde_json::Value = serde_json::from_str(text).expect("protocol JSON");
            for domain in root["domains"].as_array().into_iter().flatten() {
                let names = |list: &str| -> BTreeSet<String> {
                    domain[list]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|m| m["name"].as_str().map(String::from))
                        .collect()
                };
                let name = domain["domain"].as_str().unwrap_or_default().to_string();
                domains.insert(name, (names("commands"), names("events")));
            }
        }
        ProtocolNames { domains }
    }

    /// The domain whose generated module is `module` (`dom_debugger` → `DOMDebugger`).
    fn domain_of_module(&self, module: &str) -> Option<&str> {
        self.domains
            .keys()
            .find(|d| codegen_module_name(d) == module)
            .map(String::as_str)
    }

    /// Where `source` names commands or events: `"Domain.name"` literals and generated
    /// `<Method>Params` / `<Name>Event` types (qualified by their module, a `use … as` alias
    /// of it, or not at all — then any domain's type of that name).
    fn mentions(&self, source: &Lexed) -> Vec<Mention> {
        let mut found = Vec::new();
        for (line, literal) in &source.literals {
            let Some((domain, member)) = literal.split_once('.') else {
                continue;
            };
            let Some((commands, events)) = self.domains.get(domain) else {
                continue;
            };
            let looks_like_member = member.starts_with(|c: char| c.is_ascii_lowercase())
                && member.chars().all(|c| c.is_ascii_alphanumeric());
            if !looks_like_member {
                continue;
            }
            let mut candidates = Vec::new();
            if commands.contains(member) {
                candidates.push(Entry {
                    event: false,
                    name: literal.clone(),
                });
            }
            if events.contains(member) {
                candidates.push(Entry {
                    event: true,
                    name: literal.clone(),
                });
            }
            found.push(Mention {
                line: *line,
                text: format!("\"{literal}\""),
                candidates,
            });
        }

        let tokens = identifiers(&source.code);
        let between = |a: &Token, b: &Token| -> String {
            source.code[a.end..b.start]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect()
        };
        // `use crate::cdp::generated::{page as cdp_page}`
        let mut aliases: BTreeMap<&str, &str> = BTreeMap::new();
        for w in tokens.windows(3) {
            let adjacent = between(&w[0], &w[1]).is_empty() && between(&w[1], &w[2]).is_empty();
            if w[1].text == "as" && adjacent {
                if let Some(domain) = self.domain_of_module(w[0].text) {
                    aliases.insert(w[2].text, domain);
                }
            }
        }
        for (k, token) in tokens.iter().enumerate() {
            let (stem, event) = if let Some(stem) = token.text.strip_suffix("Params") {
                (stem, false)
            } else if let Some(stem) = token.text.strip_suffix("Event") {
                (stem, true)
            } else {
                continue;
            };
            let qualifier = k
                .checked_sub(1)
                .map(|p| &tokens[p])
                .filter(|q| between(q, token) == "::");
            let only = qualifier.and_then(|q| {
                self.domain_of_module(q.text)
                    .or_else(|| aliases.get(q.text).copied())
            });
            let mut candidates = Vec::new();
            for (domain, (commands, events)) in &self.domains {
                if only.is_some_and(|d| d != domain) {
                    continue;
                }
                let members = if event { events } else { commands };
                for member in members {
                    if codegen_upper_first(member) == stem {
                        candidates.push(Entry {
                            event,
                            name: format!("{domain}.{member}"),
                        });
                    }
                }
            }
            // Not a generated type (a type of our own that happens to end so).
            if candidates.is_empty() {
                continue;
            }
            let text = match qualifier {
                Some(q) => format!("{}::{}", q.text, token.text),
                None => token.text.to_string(),
            };
            found.push(Mention {
                line: token.line,
                text,
                candidates,
            });
        }
        found
    }
}

/// The generator's module name for a domain (protocol/codegen.rs `snake_case`).
fn codegen_module_name(domain: &str) -> String {
    let chars: Vec<char> = domain.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// `navigate` → `Navigate`, as the generator names `NavigateParams`.
fn codegen_upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// An identifier in code, by byte offsets.
struct Token<'a> {
    text: &'a str,
    start: usize,
    end: usize,
    line: usize,
}

fn identifiers(code: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut start = None;
    for (i, c) in code.char_indices().chain([(code.len(), ' ')]) {
        if c.is_alphanumeric() || c == '_' {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            tokens.push(Token {
                text: &code[s..i],
                start: s,
                end: i,
                line,
            });
        }
        if c == '\n' {
            line += 1;
        }
    }
    tokens
}

/// A Rust source split into its string literals (with their lines) and the rest of the code,
/// with comments dropped and each literal left as `""` (line breaks are kept, so lines match).
struct Lexed {
    literals: Vec<(usize, String)>,
    code: String,
}

impl Lexed {
    fn new(text: &str) -> Lexed {
        let chars: Vec<char> = text.chars().collect();
        let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
        let mut literals = Vec::new();
        let mut code = String::new();
        let mut line = 1;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '/' && at(i + 1) == '/' {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            } else if c == '/' && at(i + 1) == '*' {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if chars[i] == '\n' {
                            code.push('\n');
                            line += 1;
                        }
                        i += 1;
                    }
                }
            } else if c.is_alphabetic() || c == '_' {
                let start = i;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let mut hashes = 0;
                while at(i + hashes) == '#' {
                    hashes += 1;
                }
                let raw = matches!(word.as_str(), "r" | "br" | "cr") && at(i + hashes) == '"';
                if raw {
                    // r#"…"#: up to a quote followed by as many hashes.
                    let start_line = line;
                    let mut j = i + hashes + 1;
                    let mut literal = String::new();
                    while j < chars.len()
                        && !(chars[j] == '"' && (1..=hashes).all(|h| at(j + h) == '#'))
                    {
                        literal.push(chars[j]);
                        j += 1;
                    }
                    i = j + 1 + hashes;
                    line += literal.matches('\n').count();
                    code.push_str("\"\"");
                    code.extend(std::iter::repeat_n('\n', line - start_line));
                    literals.push((start_line, literal));
                } else if !(matches!(word.as_str(), "b" | "c") && at(i) == '"') {
                    code.push_str(&word);
                }
                // b"…" and c"…": the quote is read next, as a plain string.
            } else if c == '"' {
                let start_line = line;
                let mut literal = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        literal.push(chars[i]);
                        i += 1;
                    }
                    if let Some(&ch) = chars.get(i) {
                        literal.push(ch);
                    }
                    i += 1;
                }
                i += 1;
                line += literal.matches('\n').count();
                code.push_str("\"\"");
                code.extend(std::iter::repeat_n('\n', line - start_line));
                literals.push((start_line, literal));
            } else if c == '\'' && (at(i + 1) == '\\' || at(i + 2) == '\'') {
                // A char literal ('x', '"', '\n', '\''); a lifetime has no closing quote.
                i += if at(i + 1) == '\\' { 3 } else { 2 };
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                code.push_str("' '");
            } else {
                if c == '\n' {
                    line += 1;
                }
                code.push(c);
                i += 1;
            }
        }
        Lexed { literals, code }
    }
}
