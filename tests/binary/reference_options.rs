//! Every option of chrome-devtools-mcp 1.11.0, in every spelling its parser takes — the name,
//! kebab-case, each alias, `--no-<name>` for a switch, and as a key of a `--config` file —
//! starts a server that answers `initialize` and `tools/list`. The options are the reference's
//! own table (`tests/fixtures/reference/options_1.11.0.json`, written by `options.mjs` there
//! from the installed package), so an option the reference adds fails here until it is
//! spelled out below.

use std::path::{Path, PathBuf};

use crate::support::raw::{exchange, session};
use serde_json::{json, Value};

/// One reference option as its table gives it.
struct RefOption {
    name: String,
    kind: String,
    aliases: Vec<String>,
}

fn reference_options() -> Vec<RefOption> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/reference/options_1.11.0.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let table: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let options = table["options"].as_array().cloned().unwrap_or_default();
    options
        .iter()
        .map(|o| RefOption {
            name: o["name"].as_str().unwrap_or_default().to_owned(),
            kind: o["type"].as_str().unwrap_or_default().to_owned(),
            aliases: o["aliases"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect()
}

/// A folder of this test's own, for the files some options name.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "devtools-mcp-reference-options-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A value each option accepts, and what it needs beside it (`--wsHeaders` only goes with a
/// websocket endpoint). A new option of the reference fails here until it is given one.
fn sample(name: &str, dir: &Path) -> (Value, Vec<(&'static str, Value)>) {
    let path = |file: &str| json!(dir.join(file).to_string_lossy());
    let value = match name {
        "browserUrl" => json!("http://127.0.0.1:9"),
        "wsEndpoint" => json!("ws://127.0.0.1:9/devtools/browser/x"),
        "wsHeaders" => {
            let endpoint = json!("ws://127.0.0.1:9/devtools/browser/x");
            return (json!(r#"{"X-Token":"t"}"#), vec![("wsEndpoint", endpoint)]);
        }
        "executablePath" => json!(env!("CARGO_BIN_EXE_devtools-mcp")),
        "userDataDir" => path("profile"),
        "channel" => json!("beta"),
        "proxyServer" => json!("http://127.0.0.1:3128"),
        "chromeArg" => json!("--no-sandbox"),
        "ignoreDefaultChromeArg" => json!("--disable-extensions"),
        "viewport" => json!("1280x720"),
        "blockedUrlPattern" => json!("*://*/ads/*"),
        "allowedUrlPattern" => json!("*://127.0.0.1/*"),
        "screenshotFormat" => json!("jpeg"),
        "screenshotQuality" => json!(50),
        "screenshotMaxWidth" => json!(800),
        "screenshotMaxHeight" => json!(600),
        "logFile" => path("log.txt"),
        "experimentalDataFormat" => json!("default"),
        "experimentalFfmpegPath" => json!("/usr/bin/ffmpeg"),
        "screencastFps" => json!(10),
        "clearcutEndpoint" => json!("http://127.0.0.1:9/"),
        "clearcutForceFlushIntervalMs" => json!(1000),
        "filesystemRoot" => json!(dir.to_string_lossy()),
        "config" => {
            std::fs::write(dir.join("empty.json"), "{}").unwrap();
            path("empty.json")
        }
        other => panic!("the reference's option {other} has no sample value here: add one"),
    };
    (value, Vec::new())
}

fn kebab(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn as_arg(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The command lines that spell `name` (an option or one of its aliases) with `value`.
fn command_lines(name: &str, boolean: bool, value: &Value) -> Vec<Vec<String>> {
    let mut longs = vec![format!("--{name}")];
    if kebab(name) != name {
        longs.push(format!("--{}", kebab(name)));
    }
    let mut lines = Vec::new();
    for long in &longs {
        if boolean {
            lines.push(vec![long.clone()]);
            lines.push(vec![format!("{long}=true")]);
            lines.push(vec![long.clone(), "false".into()]);
            lines.push(vec![format!("--no-{}", &long[2..])]);
        } else {
            lines.push(vec![long.clone(), as_arg(value)]);
            lines.push(vec![format!("{long}={}", as_arg(value))]);
        }
    }
    if name.len() == 1 {
        lines.push(vec![format!("-{name}"), as_arg(value)]);
    }
    lines
}

/// What a server started with `args` answered to `initialize` and `tools/list`: the tools'
/// names, or what went wrong (its exit and stderr).
fn tools_listed(args: &[String]) -> Result<Vec<String>, String> {
    let (answers, said) = exchange(args, &[], &session(&[("tools/list", json!({}))]));
    let answer = |id: u64| answers.iter().find(|a| a["id"] == json!(id));
    let initialized = answer(1).is_some_and(|a| a["result"]["serverInfo"].is_object());
    let tools = answer(2).and_then(|a| a["result"]["tools"].as_array().cloned());
    match (initialized, tools) {
        (true, Some(tools)) => Ok(tools
            .iter()
            .filter_map(|t| t["name"].as_str().map(String::from))
            .collect()),
        _ => Err(said),
    }
}

fn config_file(dir: &Path, n: usize, settings: &Value) -> String {
    let path = dir.join(format!("config-{n}.json"));
    std::fs::write(&path, settings.to_string()).unwrap();
    format!("--config={}", path.display())
}

#[test]
fn every_option_in_every_spelling_starts_a_server() {
    let dir = scratch();
    let options = reference_options();
    assert!(
        options.len() >= 59,
        "the table lost options: {}",
        options.len()
    );
    let mut failures = Vec::new();
    let mut started = 0;
    for (n, option) in options.iter().enumerate() {
        let boolean = option.kind == "boolean";
        let (value, companions) = if boolean {
            (json!(true), Vec::new())
        } else {
            sample(&option.name, &dir)
        };
        let companion_args: Vec<String> = companions
            .iter()
            .map(|(k, v)| format!("--{k}={}", as_arg(v)))
            .collect();
        let names = std::iter::once(&option.name).chain(&option.aliases);
        for (m, name) in names.enumerate() {
            let mut tries: Vec<Vec<String>> = command_lines(name, boolean, &value);
            // As a key of a config file (its own name or alias, never kebab-case), with the
            // value as it is and, for a list, as a list.
            let mut settings = json!({ name: value });
            for (k, v) in &companions {
                settings[*k] = v.clone();
            }
            tries.push(vec![config_file(&dir, n * 10 + m, &settings)]);
            if option.kind == "array" {
                settings[name.as_str()] = json!([value]);
                tries.push(vec![config_file(&dir, n * 10 + m + 100, &settings)]);
            }
            if boolean {
                settings[name.as_str()] = json!(false);
                tries.push(vec![config_file(&dir, n * 10 + m + 200, &settings)]);
            }
            for mut args in tries {
                if !args[0].starts_with("--config") {
                    args.extend(companion_args.iter().cloned());
                }
                started += 1;
                if let Err(why) = tools_listed(&args) {
                    failures.push(format!("{args:?}: {why}"));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{started} spellings started a server");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The spellings do what the option does, not only start: a config file's category key and its
/// kebab-case switch take tools away, the alias of `--screencastFps` and a config file's
/// `--experimentalVision` are read, and the command line wins over the file.
#[test]
fn the_spellings_take_effect() {
    let dir = scratch().join("effects");
    std::fs::create_dir_all(&dir).unwrap();
    let listed = |args: &[String]| tools_listed(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    let has = |tools: &[String], name: &str| tools.iter().any(|t| t == name);

    let all = listed(&[]);
    assert!(
        has(&all, "list_network_requests") && !has(&all, "click_at"),
        "{all:?}"
    );
    let off = config_file(
        &dir,
        1,
        &json!({"categoryNetwork": false, "experimentalVision": true}),
    );
    let tools = listed(std::slice::from_ref(&off));
    assert!(!has(&tools, "list_network_requests"), "{tools:?}");
    assert!(has(&tools, "click_at"), "{tools:?}");
    // The command line wins over the file.
    let tools = listed(&[
        off,
        "--category-network".into(),
        "--no-experimental-vision".into(),
    ]);
    assert!(has(&tools, "list_network_requests"), "{tools:?}");
    assert!(!has(&tools, "click_at"), "{tools:?}");
    let tools = listed(&["--no-category-network".into()]);
    assert!(!has(&tools, "list_network_requests"), "{tools:?}");
    // A key the reference does not know stops both servers, in the reference's words.
    let bad = config_file(&dir, 2, &json!({"executable-path": "/x"}));
    let why = tools_listed(&[bad]).unwrap_err();
    assert!(
        why.contains("Invalid JSON config file: Unknown argument: executable-path"),
        "{why}"
    );
    // A value outside the choices is refused as the reference refuses it.
    let why = tools_listed(&["--channel=nightly".into()]).unwrap_err();
    assert!(
        why.contains("Argument: channel, Given: \"nightly\""),
        "{why}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
