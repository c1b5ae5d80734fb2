//! Third-party developer tools: the tools a page exposes about itself through the
//! `devtoolstooldiscovery` event. The page side is the shim (`shim/*.js`, joined into one
//! script and installed on every page target); this side keeps each page's table current
//! from the shim's reports, which come either as the answer to a discovery we ask for or,
//! unasked, through a binding.
//!
//! This layer knows pages and their tables, and nothing of MCP or of the other tools: it is
//! generic over a [`PageHost`], the state that holds the tables.

mod discovery;
pub mod exposed;
pub mod guard;
pub mod limits;
pub mod page_code;
pub mod run;
pub mod table;
mod tool;
pub mod webmcp;

use std::collections::HashMap;

use serde_json::Value;

use crate::browser::{self, Host, PageId, RawEvent};
use crate::cdp::generated::{page as cdp_page, runtime};
use crate::error::Error;
use crate::log::log;

pub use discovery::{discover, ensure_current};
pub use table::Table;

/// The state page tools run against: the browser's, plus every page's table.
pub trait PageHost: Host {
    fn tables(&mut self) -> &mut Tables;
    fn tables_ref(&self) -> &Tables;
    /// The set of page tools changed; clients that show them should list tools again.
    fn tools_changed(&mut self);
}

/// One table per page target, kept (and reset in place) across its documents.
#[derive(Default)]
pub struct Tables(HashMap<PageId, Table>);

impl Tables {
    pub fn get(&self, page: PageId) -> Option<&Table> {
        self.0.get(&page)
    }

    /// The page's table, empty the first time.
    pub fn entry(&mut self, page: PageId) -> &mut Table {
        self.0.entry(page).or_default()
    }

    /// A new document: the page's tools are void. Returns whether it had any.
    pub fn reset(&mut self, page: PageId) -> bool {
        self.0.get_mut(&page).is_some_and(Table::reset)
    }

    pub fn remove(&mut self, page: PageId) {
        self.0.remove(&page);
    }
}

/// A new page target: the binding the shim reports through, and the shim itself, before
/// any page script runs (and now, when the page's document exists already).
pub fn attach<H: PageHost>(cx: &mut H, page: PageId, session: &str, paused: bool) {
    let s = Some(session);
    browser::fire(
        cx,
        s,
        runtime::AddBindingParams {
            name: BINDING.into(),
            ..Default::default()
        },
    );
    let install = cdp_page::AddScriptToEvaluateOnNewDocumentParams {
        source: cx.tables().entry(page).guard.document_shim(),
        ..Default::default()
    };
    browser::fire(cx, s, install);
    if !paused {
        // A document that already exists did not run the new-document script.
        let document = cx.browser().pages.get(page).map_or(0, |p| p.document);
        cx.tables().entry(page).guard.preexisting = Some(document);
        let now = runtime::EvaluateParams {
            expression: cx.tables().entry(page).guard.late_shim(document),
            ..Default::default()
        };
        browser::send(cx, s, now, |_, _| {});
    }
    webmcp::attach(cx, page, session);
}

/// Page events this layer listens to: the shim's binding calls, WebMCP's registrations.
pub fn on_event<H: PageHost>(cx: &mut H, page: PageId, event: &RawEvent) {
    if let Some(e) = event.decode::<runtime::BindingCalledEvent>() {
        on_binding(cx, page, e);
    } else {
        webmcp::on_event(cx, page, event);
    }
}

/// The discovery shim as installed before any page script runs: one classic script, a single
/// IIFE. Its parts are kept by concern in `shim/` (contract at the top of the first part),
/// each a script that parses alone; build.rs joins them in file-name order and drops their
/// comments and indentation (`shim/join.rs`), so nothing is done to the text at run time.
pub fn shim() -> &'static str {
    include_str!(concat!(env!("OUT_DIR"), "/shim.js"))
}

/// How build.rs makes [`shim`]'s text, for the tests that check it.
#[cfg(test)]
#[path = "shim/join.rs"]
mod join;

/// The binding through which the shim reports tables the server did not ask for.
pub const BINDING: &str = "__dtmcp_notify";

/// Whether the page's main context is one whose shim said hello: there the evaluations
/// of `window.__dtmcp…` reach the shim (answers arrive after the hello: the shim sends it
/// while it installs, before any discover() it answers).
/// A document that existed before the server attached answers as the page's own (see
/// `Guard::preexisting`).
pub(super) fn shim_answers<H: PageHost>(cx: &mut H, page: PageId) -> bool {
    let Some(p) = cx.browser().pages.get(page) else {
        return false;
    };
    let (context, document) = (p.context, p.document);
    let guard = &cx.tables().entry(page).guard;
    (context.is_some() && guard.trusted == context) || guard.preexisting == Some(document)
}

/// Installs a report for the page, if it is still about the same document.
pub(super) fn apply<H: PageHost>(cx: &mut H, page: PageId, document: u64, report: &Value) {
    let Some(p) = cx.browser().pages.get(page) else {
        return;
    };
    if p.document != document {
        return; // the page moved on; the new document reports for itself
    }
    if cx.tables().entry(page).replace(report) {
        cx.tools_changed();
    }
}

/// Runtime.bindingCalled: the shim says hello, or reports a table nobody asked for (a
/// listener added after load, a late answer). Only the main frame's own document is a tool
/// source, and only messages with the shim's secret are the shim's: anything else is page
/// code calling the binding, dropped before it is parsed.
fn on_binding<H: PageHost>(cx: &mut H, page: PageId, e: runtime::BindingCalledEvent) {
    if e.name != BINDING {
        return;
    }
    let Some(p) = cx.browser().pages.get(page) else {
        return;
    };
    let (document, main) = (p.document, p.context == Some(e.execution_context_id));
    let Some(body) = cx.tables().entry(page).guard.open(document, &e.payload) else {
        log!("dropped a binding call without the shim's secret on page {page}");
        return;
    };
    if !main {
        log!("ignored a tool report from a frame other than page {page}'s main frame");
        return;
    }
    let Ok(message) = serde_json::from_str::<Value>(body) else {
        return;
    };
    match message["type"].as_str() {
        Some("hello") => cx.tables().entry(page).guard.trusted = Some(e.execution_context_id),
        Some("groups") => apply(cx, page, document, &message["report"]),
        _ => {}
    }
}

/// Splits the shim's ENVELOPE into its header and body. The body keeps the envelope's
/// allocation (the header is drained from its front).
pub fn split_envelope(mut text: String) -> Result<(Value, String), Error> {
    let header_end = text.find('\n').unwrap_or(text.len());
    let header: Value = serde_json::from_str(&text[..header_end])
        .map_err(|e| Error::Page(format!("the page's tool runner answered garbage: {e}")))?;
    text.drain(..(header_end + 1).min(text.len()));
    Ok((header, text))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};

    use super::join;

    fn shim_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/pagetools/shim")
    }

    /// The parts of the shim in `shim/`, listed here on their own, joined in file-name order:
    /// what the build installed (a part left out, or joined out of order, fails here).
    #[test]
    fn shim_is_every_part_in_name_order() {
        let dir = shim_dir();
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".js"))
            .collect();
        names.sort();
        assert!(names.len() > 1);
        // Each part, stripped alone, is the next piece of the installed text: a part's
        // comments end within it and it does not begin with a `}` (it parses alone), so
        // stripping the whole is stripping each.
        let mut rest = super::shim();
        let mut take = |what: &str, text: &str| {
            let piece = join::stripped(text);
            rest = rest
                .strip_prefix(piece.as_str())
                .unwrap_or_else(|| panic!("the installed shim does not go on with {what}"));
        };
        take("the wrapper's opening", join::OPEN);
        for (i, name) in names.iter().enumerate() {
            take(name, &std::fs::read_to_string(dir.join(name)).unwrap());
            if i == 0 {
                take(
                    "the wrapper's check after the first part",
                    join::AFTER_FIRST,
                );
            }
        }
        take("the wrapper's end", join::CLOSE);
        assert!(rest.is_empty(), "the installed shim has more: {rest}");
        assert!(super::shim() == join::installed(&dir).unwrap());
    }

    /// Dropping lines is safe only while no literal spans lines: no template literal (a
    /// backtick) and no string continued with a backslash in the code that is installed.
    #[test]
    fn the_installed_shim_is_the_code_without_comments() {
        let installed = super::shim();
        let source = join::joined(&shim_dir()).unwrap();
        assert!(installed.len() < source.len() * 2 / 3);
        for line in installed.lines() {
            assert!(!line.contains('`') && !line.ends_with('\\'), "{line}");
            assert!(!line.is_empty() && !line.starts_with("//") && !line.starts_with("/*"));
        }
        let kept: Vec<&str> = source
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("const ") || l.starts_with("function "))
            .collect();
        assert!(!kept.is_empty() && kept.iter().all(|l| installed.lines().any(|i| i == *l)));
    }

    #[test]
    fn comments_go_and_code_after_a_comment_stays() {
        let source = "/* a\n * b */ x();\n  // c\n\n  y(); // d\n/* e */\nz();\n";
        assert_eq!(join::without_comments(source), "x();\ny(); // d\nz();\n");
    }

    #[test]
    fn a_closing_brace_goes_onto_the_line_before_unless_a_comment_may_end_it() {
        let code = "}\nif (a) {\nb()\n}\n}); // c\n} else {\nx = '//'\n}\ny <!-- z\n}\n";
        assert_eq!(
            join::closing_braces_raised(code),
            "}\nif (a) {\nb()}}); // c\n} else {\nx = '//'\n}\ny <!-- z\n}\n"
        );
    }

    /// Node's syntax check of `source`, as a CommonJS file (`path`) or, from stdin, as an
    /// ES module: strict code where a top-level `return` is an error, as it is in a classic
    /// script (a CommonJS file is a function body, where it is not).
    fn node_check(path: &Path, module: bool) -> Result<(), String> {
        let mut node = Command::new("node");
        if module {
            node.args(["--input-type=module", "--check"])
                .stdin(std::fs::File::open(path).unwrap());
        } else {
            node.arg("--check").arg(path).stdin(Stdio::null());
        }
        let out = node
            .output()
            .unwrap_or_else(|e| panic!("running node (.ci/setup installs it): {e}"));
        if out.status.success() {
            return Ok(());
        }
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// Every part is JavaScript on its own, so JavaScript tools can read it; none has code
    /// that only a function body allows.
    #[test]
    fn every_part_parses_alone() {
        let parts = join::parts(&shim_dir()).unwrap();
        assert!(parts.len() > 1);
        for part in &parts {
            for module in [false, true] {
                if let Err(e) = node_check(part, module) {
                    panic!("{} does not parse alone:\n{e}", part.display());
                }
            }
        }
    }

    /// The installed text is one script that parses (the wrapper and the parts fit).
    #[test]
    fn the_installed_shim_parses() {
        let built = Path::new(env!("OUT_DIR")).join("shim.js");
        assert_eq!(std::fs::read_to_string(&built).unwrap(), super::shim());
        if let Err(e) = node_check(&built, false) {
            panic!("the installed shim does not parse:\n{e}");
        }
    }
}
