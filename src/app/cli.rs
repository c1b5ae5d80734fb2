//! One-shot use from a shell or a CI script: `devtools-mcp run` starts this same binary as an
//! MCP server, makes the calls given on the command line, prints the answers and exits
//! non-zero when one of them failed. `devtools-mcp demo` does that on the example page
//! built into the binary (`demo.html`), to show what an agent sees.
//!
//! This is a plain blocking client on purpose: it is not the server, and it waits on one
//! answer at a time.

use crate::app::stdout::outln;
use std::fs::DirBuilder;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use argh::FromArgs;
use serde_json::{json, Value};

#[derive(FromArgs)]
/// Run MCP tool calls once against a fresh browser and print what they return.
struct RunArgs {
    /// open this URL first (a new_page call)
    #[argh(option)]
    url: Option<String>,
    /// a tool call as 'tool_name {"arg": "value"}' (repeatable; run in order)
    #[argh(option)]
    call: Vec<String>,
    /// print each answer as its JSON result instead of its text
    #[argh(switch)]
    json: bool,
    /// a flag for the server, e.g. --server-arg --headless=false (repeatable)
    #[argh(option)]
    server_arg: Vec<String>,
}

#[derive(FromArgs)]
/// Show what an agent sees on the example page (built in, or --page).
struct DemoArgs {
    /// the page to open (default: the example shop page built into the binary)
    #[argh(option)]
    page: Option<String>,
    /// a flag for the server, e.g. --server-arg --headless=false (repeatable)
    #[argh(option)]
    server_arg: Vec<String>,
}

pub(super) struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Client {
    pub(super) fn start(server_args: &[String]) -> Result<Client, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find myself: {e}"))?;
        let mut child = Command::new(exe)
            .args(server_args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the server: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("the server's pipes are missing".into());
        };
        let mut client = Client {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            next_id: 0,
        };
        client.request("initialize", initialize_params())?;
        client.send(&initialized())?;
        Ok(client)
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        writeln!(self.stdin, "{message}").map_err(|e| format!("the server went away: {e}"))
    }

    /// Sends a request and returns its whole response (notifications are skipped).
    pub(super) fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let mut line = String::new();
        loop {
            line.clear();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|e| format!("reading from the server: {e}"))?;
            if n == 0 {
                return Err("the server closed its output".into());
            }
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] == json!(id) {
                return Ok(message);
            }
        }
    }

    pub(super) fn close(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

/// What the one-shot commands say in `initialize`: the newest version of the handshake.
pub(super) fn initialize_params() -> Value {
    json!({
        "protocolVersion": crate::mcp::PROTOCOL_VERSIONS.last().copied().unwrap_or("2025-06-18"),
        "capabilities": {},
        "clientInfo": {"name": "devtools-mcp-cli", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The notice that ends the handshake.
pub(super) fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// Splits `tool_name {json}` into the name and its arguments.
fn parse_call(spec: &str) -> Result<(String, Value), String> {
    let spec = spec.trim();
    let (name, rest) = match spec.find(char::is_whitespace) {
        Some(i) => (&spec[..i], spec[i..].trim()),
        None => (spec, ""),
    };
    let args = if rest.is_empty() {
        json!({})
    } else {
        serde_json::from_str(rest)
            .map_err(|e| format!("the arguments of {name} are not JSON: {e}"))?
    };
    if !args.is_object() {
        return Err(format!("the arguments of {name} must be a JSON object"));
    }
    Ok((name.to_owned(), args))
}

/// Makes the calls in order and prints each answer; `first_answered` runs once the first call
/// has been answered (before anything is printed, which may end the process).
fn run_calls(
    server_args: &[String],
    calls: Vec<(String, Value)>,
    as_json: bool,
    first_answered: impl FnOnce(),
) -> ExitCode {
    let mut first_answered = Some(first_answered);
    let mut client = match Client::start(server_args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("devtools-mcp: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for (name, args) in calls {
        let shown = format!("{name} {args}");
        let response = match client.request("tools/call", json!({"name": name, "arguments": args}))
        {
            Ok(r) => r,
            Err(e) => {
                eprintln!("devtools-mcp: {e}");
                failed = true;
                break;
            }
        };
        if let Some(first_answered) = first_answered.take() {
            first_answered();
        }
        outln!("### {shown}");
        if let Some(err) = response.get("error") {
            outln!(
                "error: {}",
                err["message"].as_str().unwrap_or("unknown error")
            );
            failed = true;
            continue;
        }
        let result = &response["result"];
        if result["isError"] == true {
            failed = true;
        }
        if as_json {
            outln!("{result}");
        } else {
            for item in result["content"].as_array().into_iter().flatten() {
                match item["type"].as_str() {
                    Some("text") => outln!("{}", item["text"].as_str().unwrap_or("")),
                    Some(kind) => outln!(
                        "[{kind} content, {}]",
                        item["mimeType"].as_str().unwrap_or("?")
                    ),
                    None => {}
                }
            }
            if result["isError"] == true {
                outln!("(the call failed)");
            }
        }
        outln!();
    }
    client.close();
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

pub(super) fn run(args: &[&str]) -> ExitCode {
    let parsed = match RunArgs::from_args(&["devtools-mcp run"], args) {
        Ok(a) => a,
        Err(exit) => return early_exit(exit),
    };
    let mut calls = Vec::new();
    if let Some(url) = parsed.url {
        calls.push(("new_page".to_owned(), json!({"url": url})));
    }
    for spec in &parsed.call {
        match parse_call(spec) {
            Ok(c) => calls.push(c),
            Err(e) => {
                eprintln!("devtools-mcp: {e}");
                return ExitCode::from(2);
            }
        }
    }
    run_calls(&parsed.server_arg, calls, parsed.json, || ())
}

pub(super) fn demo(args: &[&str]) -> ExitCode {
    let parsed = match DemoArgs::from_args(&["devtools-mcp demo"], args) {
        Ok(a) => a,
        Err(exit) => return early_exit(exit),
    };
    let (url, written) = match page_url(parsed.page.as_deref()) {
        Ok(found) => found,
        Err(e) => {
            eprintln!("devtools-mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let calls = vec![
        ("new_page".to_owned(), json!({"url": url})),
        ("list_3p_developer_tools".to_owned(), json!({})),
        (
            "execute_3p_developer_tool".to_owned(),
            json!({"toolName": "get_cart"}),
        ),
        (
            "execute_3p_developer_tool".to_owned(),
            json!({"toolName": "set_quantity", "params": "{\"sku\":\"tea\",\"qty\":5}"}),
        ),
        (
            "evaluate_script".to_owned(),
            json!({"function": "async () => { const cart = await window.__dtmcp.executeTool('get_cart', {}); return cart.items.map(i => i.name + ' x' + i.qty); }"}),
        ),
        ("take_snapshot".to_owned(), json!({})),
        (
            "execute_3p_developer_tool".to_owned(),
            json!({"toolName": "item_element", "params": "{\"sku\":\"mug\"}"}),
        ),
        (
            "execute_3p_developer_tool".to_owned(),
            json!({"toolName": "set_quantity", "params": "{\"sku\":\"tea\"}"}),
        ),
    ];
    // The page is loaded once new_page answers: its file is no longer needed.
    let remove = || {
        if let Some(folder) = &written {
            let _ = std::fs::remove_dir_all(folder);
        }
    };
    // The last call is meant to fail (a missing required parameter): show it, don't fail on it.
    let _ = run_calls(&parsed.server_arg, calls, false, remove);
    remove();
    ExitCode::SUCCESS
}

/// The example page, built in so that the demo works wherever the binary is installed.
const DEMO_PAGE: &str = include_str!("demo.html");

/// The demo page's URL: `--page` as given, or the built-in page written to a folder of its own
/// in the temp directory (returned, to be removed after).
fn page_url(page: Option<&str>) -> Result<(String, Option<PathBuf>), String> {
    if let Some(page) = page {
        let path = std::fs::canonicalize(page).map_err(|e| format!("cannot open {page}: {e}"))?;
        return Ok((format!("file://{}", path.display()), None));
    }
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let folder =
        std::env::temp_dir().join(format!("devtools-mcp-demo-{}-{nanos}", std::process::id()));
    let written = DirBuilder::new()
        .mode(0o700)
        .create(&folder)
        .and_then(|()| std::fs::write(folder.join("index.html"), DEMO_PAGE));
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&folder);
        return Err(format!(
            "cannot write the demo page into {}: {e}",
            folder.display()
        ));
    }
    let url = format!("file://{}", folder.join("index.html").display());
    Ok((url, Some(folder)))
}

pub(super) fn early_exit(exit: argh::EarlyExit) -> ExitCode {
    if exit.status.is_ok() {
        outln!("{}", exit.output);
        ExitCode::SUCCESS
    } else {
        eprintln!("{}", exit.output);
        ExitCode::from(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_specs() {
        assert_eq!(
            parse_call("list_pages").unwrap(),
            ("list_pages".into(), json!({}))
        );
        assert_eq!(
            parse_call("new_page {\"url\": \"about:blank\"}").unwrap(),
            ("new_page".into(), json!({"url": "about:blank"}))
        );
        assert!(parse_call("new_page [1]").is_err());
        assert!(parse_call("new_page {").is_err());
    }
}
