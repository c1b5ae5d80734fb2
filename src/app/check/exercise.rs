//! The running checks (`--exercise`): each tool the page exposes is called once, through
//! `execute_3p_developer_tool` as an agent calls it, with arguments made from its inputSchema
//! (and checked against the tool's own validator first). What the page said about the run —
//! whether it threw, how long it took, how large its result was, what it could not carry —
//! is read from the page's table (`pagetools::table::Ran`), not from the answer's text.

use std::time::Duration;

use serde_json::{json, Value};

use super::arguments;
use super::report::{Problem, Severity};
use super::session::{Answer, Session};
use crate::pagetools::table::Ran;

/// A tool slower than this to settle is reported.
const SLOW_MS: u64 = 1000;
/// A result larger than this (JSON text, in UTF-16 units) is reported.
const LARGE_CHARS: u64 = 100 * 1024;
/// How much of the arguments a message shows.
const ARGS_SHOWN: usize = 200;
/// How long a failed call's page gets to commit the document it is navigating to.
const COMMIT: Duration = Duration::from_millis(200);

/// One tool to run, and the arguments made for it (or why none could be made).
struct Planned {
    group: String,
    tool: String,
    args: Result<Value, String>,
}

/// Runs every tool once; the problems each run showed.
pub(super) fn run(session: &mut Session, timeout: Duration) -> Result<Vec<Problem>, String> {
    let uid = match needs_element(session) {
        true => some_element(session)?,
        false => String::new(),
    };
    let mut out = Vec::new();
    // The document the tools were found in: a tool that navigates the page leaves the next
    // ones another document, so the page is loaded again for them.
    let mut document = session.document();
    for planned in plan(session, &uid) {
        if session.document() != document {
            session.reopen()?;
            document = session.document();
        }
        let mut tried = try_one(session, &planned, timeout)?;
        if tried.navigated {
            // The navigation may be an earlier tool's, landing late: once more, on a fresh
            // load, to see whether this tool navigates.
            session.reopen()?;
            document = session.document();
            tried = try_one(session, &planned, timeout)?;
        }
        out.extend(tried.problems);
    }
    Ok(out)
}

/// What one call of a tool showed, and whether the page navigated meanwhile.
struct Tried {
    problems: Vec<Problem>,
    navigated: bool,
}

fn needs_element(session: &mut Session) -> bool {
    let Some(table) = session.table() else {
        return false;
    };
    table
        .tools()
        .any(|t| arguments::wants_element(&t.input_schema))
}

/// The uid of the page's first element, from a snapshot as agents take one.
fn some_element(session: &mut Session) -> Result<String, String> {
    let answer = session.call("take_snapshot", json!({}), Duration::from_secs(30))?;
    if answer.is_error {
        return Err(format!("take_snapshot failed: {}", answer.text));
    }
    let root = &answer.structured["snapshot"];
    let first = root["children"].get(0).unwrap_or(root);
    Ok(first["id"].as_str().unwrap_or("").to_owned())
}

/// The tools that run under their names (a tool a name shadows never runs), in the order
/// agents see them, each with arguments its validator accepts.
fn plan(session: &mut Session, uid: &str) -> Vec<Planned> {
    let Some(table) = session.table() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for group in table.groups() {
        for tool in table.tools_in(group) {
            if !table
                .find(&tool.name)
                .is_some_and(|t| std::ptr::eq(t, tool))
            {
                continue;
            }
            let args = arguments::for_schema(&tool.input_schema, uid);
            let refused = match tool.validator() {
                Ok(v) => v
                    .iter_errors(&args)
                    .next()
                    .map(|e| format!("{args} fails it: {e}")),
                Err(e) => Some(e.to_owned()),
            };
            out.push(Planned {
                group: group.name.clone(),
                tool: tool.name.clone(),
                args: refused.map_or(Ok(args), Err),
            });
        }
    }
    out
}

fn try_one(session: &mut Session, planned: &Planned, timeout: Duration) -> Result<Tried, String> {
    let at = (Some(planned.group.as_str()), Some(planned.tool.as_str()));
    let args = match &planned.args {
        Ok(args) => args,
        Err(why) => {
            let message =
                format!("not run: no arguments were found that its inputSchema accepts ({why})");
            let fix = "give required properties a default or examples the schema accepts";
            let problems = vec![Problem::new(at, Severity::Warning, message, fix)];
            return Ok(Tried {
                problems,
                navigated: false,
            });
        }
    };
    if let Some(table) = session.table() {
        table.last_run = None;
    }
    let (started, document) = (std::time::Instant::now(), session.document());
    let call = json!({"toolName": planned.tool, "params": args.to_string(), "timeout": timeout.as_millis() as u64});
    let answer = session.call("execute_3p_developer_tool", call, timeout)?;
    let timed_out = (started.elapsed() >= timeout).then_some(timeout);
    let ran = session.table().and_then(|t| t.last_run.take());
    if answer.is_error && ran.is_none() {
        // A call the document's end cut short answers before the next document commits.
        session.idle(COMMIT)?;
    }
    let run = Run {
        args: shown(args),
        timed_out,
        navigated: session.document() != document,
    };
    let problems = (judge(&run, &answer, ran).into_iter())
        .map(|(severity, message, fix)| Problem::new(at, severity, message, fix))
        .collect();
    Ok(Tried {
        problems,
        navigated: run.navigated,
    })
}

/// A call as the check saw it from outside the page.
struct Run {
    /// Its arguments, as messages show them.
    args: String,
    /// It lasted its whole time limit, this one.
    timed_out: Option<Duration>,
    /// The page's document changed while it ran.
    navigated: bool,
}

/// What one run showed.
fn judge(run: &Run, answer: &Answer, ran: Option<Ran>) -> Vec<(Severity, String, &'static str)> {
    let args = &run.args;
    let failure = answer.text.rsplit("Error: ").next().unwrap_or("").trim();
    let Some(ran) = ran else {
        return match run.timed_out {
            _ if !answer.is_error => Vec::new(),
            Some(limit) => vec![(
                Severity::Error,
                format!("did not settle within {} ms when called with {args}", limit.as_millis()),
                "resolve or reject within the time limit; agents wait for the tool until then",
            )],
            None if run.navigated => vec![(
                Severity::Warning,
                format!("the page navigated while it ran with {args}, so agents get an error: {failure}"),
                "answer first, then navigate (from a setTimeout, say)",
            )],
            None => vec![(
                Severity::Warning,
                format!("could not be run with {args}: {failure}"),
                "check that the tool is still registered when it is called",
            )],
        };
    };
    let mut out = Vec::new();
    if let Some(message) = &ran.threw {
        let text = format!("threw when called with {args}: {message}");
        let fix = "return what went wrong as data, or fix what throws";
        out.push((Severity::Error, text, fix));
    } else if answer.is_error {
        let text = format!("ran, but its call failed when called with {args}: {failure}");
        out.push((
            Severity::Warning,
            text,
            "return plain data the page can hand over",
        ));
    } else if ran.undefined {
        let text = format!("returned undefined when called with {args}: agents read only \"Tool returned no result.\"");
        out.push((Severity::Warning, text, "return what the tool did or found"));
    }
    if ran.chars > LARGE_CHARS {
        let kb = ran.chars.div_ceil(1024);
        let text = format!("its result is {kb} KB of JSON when called with {args}, over 100 KB");
        let fix = "return a summary, and take a limit or a filter for the rest";
        out.push((Severity::Warning, text, fix));
    }
    if ran.lost > 0 {
        let what = if ran.lost == 1 { "value" } else { "values" };
        let text = format!(
            "its result holds {} {what} that cannot make the trip to the agent: {}",
            ran.lost,
            ran.lost_at.join(", ")
        );
        let fix = "return plain data: objects, arrays, strings, numbers, booleans, null";
        out.push((Severity::Warning, text, fix));
    }
    if ran.ms > SLOW_MS {
        let text = format!(
            "took {:.1} s to settle when called with {args}",
            ran.ms as f64 / 1000.0
        );
        out.push((
            Severity::Warning,
            text,
            "answer within a second: agents wait on every call",
        ));
    }
    out
}

/// Arguments as a message shows them.
fn shown(args: &Value) -> String {
    let text = args.to_string();
    match text.char_indices().nth(ARGS_SHOWN) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(is_error: bool, text: &str) -> Answer {
        Answer {
            is_error,
            text: text.into(),
            structured: Value::Null,
        }
    }

    fn with(args: &str) -> Run {
        Run {
            args: args.into(),
            timed_out: None,
            navigated: false,
        }
    }

    #[test]
    fn each_kind_of_run_and_its_severity() {
        let limit = Some(Duration::from_millis(1500));
        let late = Run {
            timed_out: limit,
            ..with("{}")
        };
        let timeout = judge(&late, &answer(true, "Error: Tool t timed out"), None);
        assert_eq!(timeout[0].0, Severity::Error);
        assert_eq!(
            timeout[0].1,
            "did not settle within 1500 ms when called with {}"
        );
        let refused = judge(&with("{}"), &answer(true, "Error: Tool t not found"), None);
        assert_eq!(refused[0].1, "could not be run with {}: Tool t not found");
        let away = Run {
            navigated: true,
            ..with("{}")
        };
        let gone = judge(
            &away,
            &answer(true, "Error: The page navigated away."),
            None,
        );
        assert!(
            gone[0]
                .1
                .starts_with("the page navigated while it ran with {}"),
            "{gone:?}"
        );
        let threw = Ran {
            threw: Some("offline".into()),
            ms: 1200,
            ..Ran::default()
        };
        let found = judge(
            &with("{\"a\":1}"),
            &answer(true, "Error: offline"),
            Some(threw),
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(
            (found[0].0, found[0].1.as_str()),
            (Severity::Error, "threw when called with {\"a\":1}: offline")
        );
        assert_eq!(
            (found[1].0, found[1].1.as_str()),
            (
                Severity::Warning,
                "took 1.2 s to settle when called with {\"a\":1}"
            )
        );
        let heavy = Ran {
            undefined: false,
            chars: 300 * 1024,
            lost: 4,
            lost_at: vec![
                "a function at result.f".into(),
                "a Cart instance at result.c".into(),
            ],
            ..Ran::default()
        };
        let found = judge(&with("{}"), &answer(false, "{…}"), Some(heavy));
        assert_eq!(
            found[0].1,
            "its result is 300 KB of JSON when called with {}, over 100 KB"
        );
        assert_eq!(found[1].1, "its result holds 4 values that cannot make the trip to the agent: a function at result.f, a Cart instance at result.c");
        let nothing = Ran {
            undefined: true,
            ..Ran::default()
        };
        let found = judge(
            &with("{}"),
            &answer(false, "Tool returned no result."),
            Some(nothing),
        );
        assert_eq!(found[0].0, Severity::Warning);
        assert!(judge(&with("{}"), &answer(false, "5"), Some(Ran::default())).is_empty());
    }
}
