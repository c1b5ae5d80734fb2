//! `devtools-mcp check`: a CI check of the third-party developer tools a page exposes. It
//! loads the page in a fresh browser, lets discovery run as the server runs it (late
//! registrations included), and reports every problem of every group and tool: what the
//! server leaves out and what agents would get worse than they could ([`registration`]) and,
//! with `--exercise`, what each tool does when it is called ([`exercise`]).
//!
//! The server is the real one, stepped in this process ([`session`]): discovery, validation,
//! the argument check and result conversion are the very ones agents meet, and what the check
//! reads besides (the page's table, what a run said) it reads from the server's state.

mod arguments;
mod exercise;
mod registration;
mod report;
mod session;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use argh::FromArgs;

use crate::app::stdout::{out, outln};
use crate::tools::args::max;
use report::{Problem, Report, Severity};
use session::Session;

#[derive(FromArgs)]
/// Check the third-party developer tools a page exposes: what agents would not get, or get
/// badly. Registrations are counted until 2 s after the load (pending group promises get 3 s
/// more). Exit 1 when something is an error, 2 on a usage or browser error (an unparseable
/// URL, no browser, a page that cannot be opened or answers an HTTP error).
struct CheckArgs {
    /// the page to check
    #[argh(option)]
    url: String,
    /// also run each tool once, with arguments made from its inputSchema (tools may change
    /// the page's state)
    #[argh(switch)]
    exercise: bool,
    /// how long a tool may take to settle, in ms (default: the server's --toolTimeout)
    #[argh(option)]
    timeout: Option<u64>,
    /// print JSON on stdout instead of the report
    #[argh(switch)]
    json: bool,
    /// a flag for the server, e.g. --server-arg --executablePath=/usr/bin/chromium (repeatable)
    #[argh(option)]
    server_arg: Vec<String>,
}

pub(super) fn check(args: &[&str]) -> ExitCode {
    let parsed = match CheckArgs::from_args(&["devtools-mcp check"], args) {
        Ok(a) => a,
        Err(exit) => return super::cli::early_exit(exit),
    };
    if let Some(problem) = url_problem(&parsed.url) {
        return failed(&problem);
    }
    if parsed
        .timeout
        .is_some_and(|t| t == 0 || t > max::TIMEOUT_MS)
    {
        return failed(&format!(
            "--timeout must be between 1 and {} ms",
            max::TIMEOUT_MS
        ));
    }
    let mut session = match Session::start(&parsed.server_arg) {
        Ok(s) => s,
        Err(e) => return failed(&e),
    };
    let report = inspect(&mut session, &parsed);
    session.close();
    let report = match report {
        Ok(r) => r,
        Err(e) => return failed(&e),
    };
    if parsed.json {
        outln!("{}", report.json());
    } else {
        out!("{}", report.text());
    }
    if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn failed(message: &str) -> ExitCode {
    eprintln!("devtools-mcp check: {message}");
    ExitCode::from(2)
}

/// Opens the page, waits for its registrations, and checks them (and runs the tools).
fn inspect(session: &mut Session, parsed: &CheckArgs) -> Result<Report, String> {
    session.open(&parsed.url)?;
    let loaded = Instant::now();
    let mut problems = pending_groups(session.await_tools()?);
    let waited_ms = loaded.elapsed().as_millis();
    let Some(table) = session.table() else {
        return Err("the page was closed while it was checked".into());
    };
    problems.splice(0..0, registration::problems(table));
    let groups = (table.groups().iter())
        .map(|g| {
            let tools = table.tools_in(g).iter().map(|t| t.name.clone());
            (g.name.clone(), tools.collect())
        })
        .collect();
    if parsed.exercise {
        let timeout = match parsed.timeout {
            Some(ms) => Duration::from_millis(ms),
            None => session.ctx().settings.tool_timeout,
        };
        problems.extend(exercise::run(session, timeout)?);
    }
    Ok(Report {
        url: parsed.url.clone(),
        groups,
        problems,
        exercised: parsed.exercise,
        waited_ms,
    })
}

/// Group promises still pending when the check stopped waiting: a problem of the page's.
fn pending_groups(pending: u64) -> Vec<Problem> {
    if pending == 0 {
        return Vec::new();
    }
    let waited = (session::LATE + session::PENDING).as_secs();
    let message = format!(
        "{pending} group promise(s) given to respondWith() had not settled {waited} s after the load: their groups are not checked, and agents do not see them until they settle"
    );
    let fix = "answer with the group, or with a promise that settles soon after the load";
    vec![Problem::new((None, None), Severity::Warning, message, fix)]
}

/// Why `url` is not one the check can open, if it is not.
fn url_problem(url: &str) -> Option<String> {
    let hint = "give an absolute URL, e.g. http://127.0.0.1:8080/ or file:///path/page.html";
    let scheme = url.split_once(':').map(|(s, _)| s).unwrap_or("");
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok || url.len() == scheme.len() + 1 {
        return Some(format!("{url:?} is not a URL: {hint}"));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some(format!(
            "{url:?} is not a URL: it holds spaces or control characters"
        ));
    }
    let hierarchical = ["http", "https", "ws", "wss", "ftp"];
    let host = url[scheme.len() + 1..].strip_prefix("//").map(|rest| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority.rsplit('@').next().unwrap_or("").to_owned()
    });
    if hierarchical.contains(&scheme.to_ascii_lowercase().as_str())
        && host.is_none_or(|h| h.is_empty())
    {
        return Some(format!("{url:?} is not a URL: it names no host; {hint}"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_the_check_refuses() {
        for ok in [
            "http://127.0.0.1:8080/",
            "https://example.com/a?b#c",
            "file:///tmp/page.html",
            "about:blank",
            "data:text/html,<p>x</p>",
        ] {
            assert_eq!(url_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            "page.html",
            "127.0.0.1:8080",
            "http://",
            "http:///path",
            "https://exa mple.com/",
            "1http://x/",
            "http:",
        ] {
            assert!(url_problem(bad).is_some(), "{bad}");
        }
    }
}
