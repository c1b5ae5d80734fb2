//! A bounded fuzz run of the protocol layer against the real binary: a few thousand mutated
//! messages (a seeded generator, the same every run), each followed by a `ping` that must be
//! answered. No crash, no hang, and nothing but JSON-RPC messages on stdout.

use std::time::{Duration, Instant};

use crate::support::raw::{id_text, next, Raw};
use serde_json::Value;

const INPUTS: usize = 3000;
const SEED: u64 = 0x5eed_d3f7_00c5_2026;

/// xorshift64*: enough randomness for mutations, and no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SEEDS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"tools/list"}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_pages","arguments":{}}}"#,
    r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"evaluate_script","arguments":{"function":"() => 1","filePath":"/tmp/x.json"}}}"#,
    r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool"}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"x"}}"#,
    r#"{"jsonrpc":"2.0","id":"devtools-mcp-roots-1","result":{"roots":[{"uri":"file:///tmp"}]}}"#,
    r#"{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
    r#"[{"jsonrpc":"2.0","id":8,"method":"ping"}]"#,
];

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "null",
    "\\u0000",
    "\\ud800",
    "1e999999",
    "18446744073709551616",
    "-0.0",
    ",\"id\":{}",
    ",\"params\":7",
    "\u{0}",
    "\u{feff}",
    "é",
];

fn mutate(rng: &mut Rng, message: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        let len = message.len();
        let at = rng.below(len + 1);
        match rng.below(6) {
            0 if len > 0 => message[at.min(len - 1)] = rng.next() as u8,
            1 => message.insert(at, rng.next() as u8),
            2 if len > 0 => {
                let end = (at + 1 + rng.below(8)).min(len);
                message.drain(at.min(end)..end);
            }
            3 => {
                let end = (at + rng.below(16)).min(len);
                let copy = message[at..end].to_vec();
                message.splice(at..at, copy);
            }
            4 => message.truncate(at),
            _ => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                message.splice(at..at, token.iter().copied());
            }
        }
    }
}

/// A line the server may write: a JSON-RPC 2.0 object with an id or a method.
fn is_protocol(line: &str) -> bool {
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(m)) => {
            m.get("jsonrpc") == Some(&Value::from("2.0"))
                && (m.contains_key("id") || m.contains_key("method"))
        }
        _ => false,
    }
}

#[test]
fn mutated_messages_never_stop_the_server() {
    let began = Instant::now();
    let mut rng = Rng(SEED);
    let mut server = Raw::spawn(&[]);
    let lines = server.lines();
    let (mut non_protocol, mut hangs, mut crashes) = (Vec::new(), 0, 0);
    let mut sent = 0;
    for n in 0..INPUTS {
        let mut message = SEEDS[rng.below(SEEDS.len())].as_bytes().to_vec();
        mutate(&mut rng, &mut message);
        message.push(b'\n');
        message.extend_from_slice(
            format!("{{\"jsonrpc\":\"2.0\",\"id\":\"fuzz-{n}\",\"method\":\"ping\"}}\n").as_bytes(),
        );
        server.write(&message);
        sent += 1;
        let want = format!("\"fuzz-{n}\"");
        let answered = loop {
            let Some(line) = next(&lines, Duration::from_secs(5)) else {
                break false;
            };
            if !is_protocol(&line) {
                non_protocol.push(line.clone());
            }
            if id_text(&line).as_deref() == Some(want.as_str()) {
                break true;
            }
        };
        if !answered {
            match server.child.try_wait() {
                Ok(Some(_)) => crashes += 1,
                _ => hangs += 1,
            }
            eprintln!(
                "no answer after input {n}: {:?}",
                String::from_utf8_lossy(&message)
            );
            break;
        }
    }
    eprintln!(
        "fuzz: {sent} inputs, {crashes} crashes, {hangs} hangs, {} non-protocol stdout lines, {:?}",
        non_protocol.len(),
        began.elapsed()
    );
    assert_eq!((crashes, hangs), (0, 0));
    assert!(non_protocol.is_empty(), "{non_protocol:?}");
    assert!(
        began.elapsed() < Duration::from_secs(40),
        "took {:?}",
        began.elapsed()
    );
}
