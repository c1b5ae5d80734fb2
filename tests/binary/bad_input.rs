//! Bad input answered well: a name the client wrote comes back in an error cut short, as the
//! schema errors cut the values they quote, and params that are valid JSON but hold a number
//! no float can hold are refused for that, not for whatever the server failed to find in them.

use crate::support::raw::{exchange, session, NO_BROWSER};
use serde_json::{json, Value};

fn answers(requests: &[(&str, Value)]) -> Vec<Value> {
    let args = ["--executablePath", NO_BROWSER].map(String::from);
    let (answers, said) = exchange(&args, &[], &session(requests));
    assert_eq!(answers.len(), requests.len() + 1, "{said}");
    answers
}

fn error(answer: &Value) -> (i64, String) {
    let e = &answer["error"];
    let message = e["message"].as_str().unwrap_or_default().to_owned();
    (e["code"].as_i64().unwrap_or_default(), message)
}

#[test]
fn a_megabyte_of_method_or_tool_name_comes_back_cut_short() {
    let huge = "m".repeat(1 << 20);
    let got = answers(&[
        (huge.as_str(), json!({})),
        ("tools/call", json!({"name": huge, "arguments": {}})),
    ]);
    let (code, method) = error(&got[1]);
    assert_eq!(code, -32601);
    assert_eq!(method, format!("Method not found: {}…", "m".repeat(100)));
    let (code, tool) = error(&got[2]);
    assert_eq!(code, -32602, "{tool}");
    assert_eq!(tool, format!("Tool {}… not found", "m".repeat(100)));
    for answer in &got[1..] {
        assert!(
            answer.to_string().len() < 400,
            "{} bytes",
            answer.to_string().len()
        );
    }
}

#[test]
fn a_number_out_of_range_is_named_wherever_it_is_in_the_arguments() {
    let got = answers(&[
        (
            "tools/call",
            json!({"name": "fill", "arguments": {"pageId": "@"}}),
        ),
        ("ping", json!({})),
    ]);
    assert!(got[2]["result"].is_object(), "{:?}", got[2]);
    // serde_json cannot hold these, so the requests are written as text.
    let line = |id: u64, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"fill","arguments":{arguments}}}}}"#
        )
    };
    for (arguments, number) in [
        (r#"{"pageId":-1e999}"#, "-1e999"),
        (
            r#"{"uid":"1_1","value":"x","deep":[1,{"n":1.5E+400}]}"#,
            "1.5E+400",
        ),
    ] {
        let requests: Vec<Value> = session(&[]);
        let mut text: Vec<String> = requests.iter().map(Value::to_string).collect();
        text.push(line(2, arguments));
        let args = ["--executablePath", NO_BROWSER].map(String::from);
        let (answers, said) = crate::support::raw::exchange_lines(&args, &text, 2);
        let (code, message) = error(answers.last().expect(&said));
        assert_eq!(code, -32602, "{message}");
        assert_eq!(
            message,
            format!("Invalid params: the number {number} is out of range (numbers must fit a 64-bit float)")
        );
    }
}
