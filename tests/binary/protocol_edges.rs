//! Protocol edges against the real binary (no browser needed): ids come back exactly as
//! sent, only the answer to our own `roots/list` sets the roots, an over-long line is dropped
//! whole, and a client that stops reading holds the server's memory down instead of growing it.
//! (Cancellation by exact id runs page code: `browser/protocol_edges.rs`.)

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::support::raw::{id_text, next, Raw};
use proptest::prelude::*;
use serde_json::{json, Value};

pub(crate) const PROMPT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------- ids

/// JSON numbers of any size and form, and strings with escapes, as text.
fn id() -> impl Strategy<Value = String> {
    let digits = "[0-9]{1,40}";
    let number = (
        any::<bool>(),
        digits,
        prop::option::of("[0-9]{1,10}"),
        prop::option::of((
            prop_oneof![Just("e"), Just("E")],
            prop_oneof![Just(""), Just("+"), Just("-")],
            "[0-9]{1,3}",
        )),
    )
        .prop_map(|(neg, int, frac, exp)| {
            let int = int.trim_start_matches('0');
            let int = if int.is_empty() { "0" } else { int };
            let mut s = format!("{}{int}", if neg { "-" } else { "" });
            if let Some(f) = frac {
                s += &format!(".{f}");
            }
            if let Some((e, sign, x)) = exp {
                s += &format!("{e}{sign}{x}");
            }
            s
        });
    let string = prop::collection::vec(
        prop_oneof![
            Just("\\\"".to_owned()),
            Just("\\\\".to_owned()),
            Just("\\/".to_owned()),
            Just("\\n".to_owned()),
            Just("\\u00e9".to_owned()),
            Just("\\ud83d\\ude00".to_owned()),
            Just("é".to_owned()),
            "[a-z0-9 ]{1,4}",
        ],
        0..6,
    )
    .prop_map(|parts| format!("\"{}\"", parts.concat()));
    prop_oneof![number, string, Just("null".to_owned())]
}

#[test]
fn ids_come_back_exactly_as_sent() {
    let mut server = Raw::spawn(&[]);
    let answers = server.lines();
    let server = Mutex::new(server);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(300));
    let result = runner.run(&id(), |id| {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        server.lock().unwrap().write(line.as_bytes());
        let answer = next(&answers, PROMPT).expect("an answer");
        prop_assert_eq!(id_text(&answer), Some(id.clone()), "{}", answer);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn error_answers_to_unparseable_lines_have_a_null_id() {
    let mut server = Raw::spawn(&[]);
    let answers = server.lines();
    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":18446744073709551616,\"method\":\n");
    let answer = next(&answers, PROMPT).expect("an answer");
    assert_eq!(id_text(&answer).as_deref(), Some("null"), "{answer}");
    server.write(b"{\"jsonrpc\":\"1.0\",\"id\":1e2,\"method\":\"ping\"}\n");
    let answer = next(&answers, PROMPT).expect("an answer");
    assert_eq!(id_text(&answer).as_deref(), Some("1e2"), "{answer}");
}

// ---------------------------------------------------------------- roots

fn parse(line: &str) -> Value {
    serde_json::from_str(line).expect("JSON")
}

/// The line answering `id`, skipping notifications and requests from the server.
fn answer_to(answers: &std::sync::mpsc::Receiver<String>, id: &str) -> Value {
    loop {
        let line = next(answers, PROMPT).expect("an answer");
        if id_text(&line).as_deref() == Some(id) && parse(&line).get("method").is_none() {
            return parse(&line);
        }
    }
}

#[test]
fn a_response_to_no_request_of_ours_does_not_change_the_roots() {
    let folder = std::env::temp_dir().join(format!("hproto-roots-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("scratch folder");
    let mut server = Raw::spawn(&[]);
    let answers = server.lines();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
        "clientInfo": {"name": "t", "version": "1"}}});
    server.write(format!("{init}\n").as_bytes());
    answer_to(&answers, "1");
    server.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    let ask = parse(&next(&answers, PROMPT).expect("roots/list"));
    assert_eq!(ask["method"], "roots/list", "{ask}");
    let uri = format!("file://{}", folder.display());
    let ours = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": uri}]}});
    server.write(format!("{ours}\n").as_bytes());
    // A numeric id while no roots/list is in flight: not an answer to anything.
    let stray = json!({"jsonrpc": "2.0", "id": 7, "result": {"roots": [{"uri": "file:///"}]}});
    server.write(format!("{stray}\n").as_bytes());

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "evaluate_script",
        "arguments": {"function": "() => 1", "filePath": "/nonexistent-hproto/a.json"}}});
    server.write(format!("{call}\n").as_bytes());
    let answer = answer_to(&answers, "2");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("Access denied: path /nonexistent-hproto/a.json"),
        "the roots were widened by a stray response: {answer}"
    );
}

// ---------------------------------------------------------------- framing

#[test]
fn the_tail_of_an_over_long_line_is_not_run() {
    let mut server = Raw::spawn(&[]);
    let answers = server.lines();
    // 64 MiB of padding, then what would be a request if the line's start were forgotten.
    let mut line = vec![b' '; (64 << 20) + 1];
    line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":\"tail\",\"method\":\"ping\"}\n");
    line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":\"next\",\"method\":\"ping\"}\n");
    server.write(&line);
    let first = next(&answers, PROMPT).expect("the rejection");
    assert!(first.contains("the line is too long"), "{first}");
    let second = next(&answers, PROMPT).expect("the next line's answer");
    assert_eq!(id_text(&second).as_deref(), Some("\"next\""), "{second}");
}

// ---------------------------------------------------------------- backpressure

#[test]
fn a_client_that_stops_reading_holds_the_server_memory_down() {
    const REQUESTS: usize = 1500;
    let mut server = Raw::spawn(&[]);
    let mut stdin = server.stdin.take().expect("stdin");
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let writer = thread::spawn(move || {
        use std::io::Write;
        for i in 0..REQUESTS {
            let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/list\"}}\n");
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
            counter.fetch_add(1, Ordering::Relaxed);
        }
        stdin
    });
    // Until the server has stopped (it read all, or it waits for us to read), and its
    // memory then.
    wait_until_idle(&server, &sent);
    let rss = server.rss_kb();
    let written = sent.load(Ordering::Relaxed);
    eprintln!("{rss} kB resident while not reading; {written} of {REQUESTS} requests written");
    assert!(
        rss < 30 * 1024,
        "the server holds {rss} kB for a client that does not read"
    );

    // Reading starts: every answer arrives, once.
    let answers = server.lines();
    let mut seen = vec![0u32; REQUESTS];
    while seen.contains(&0) {
        let line = next(&answers, PROMPT).expect("all answers arrive");
        let id: usize = id_text(&line)
            .and_then(|t| t.parse().ok())
            .expect("a numeric id");
        seen[id] += 1;
    }
    drop(writer.join());
    assert!(seen.iter().all(|n| *n == 1), "some answer came twice");
}

/// Waits until neither the writer nor the server has made progress for a while (the
/// server's CPU time stands still).
fn wait_until_idle(server: &Raw, sent: &AtomicUsize) {
    let began = Instant::now();
    let mut last = (0, 0, Instant::now());
    while last.2.elapsed() < Duration::from_millis(800) && began.elapsed() < Duration::from_secs(60)
    {
        let now = (sent.load(Ordering::Relaxed), server.cpu_ticks());
        if now != (last.0, last.1) {
            last = (now.0, now.1, Instant::now());
        }
        thread::sleep(Duration::from_millis(20));
    }
}
