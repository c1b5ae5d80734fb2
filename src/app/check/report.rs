//! What `check` found, and how it is printed: a readable report grouped by tool, each
//! problem with its severity and a one-line fix, or JSON for scripts.

use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Severity {
    /// Agents do not get the tool, or calling it fails.
    Error,
    /// Agents get it, but worse than they could.
    Warning,
}

/// Where a problem is: its group and its tool (`None` for the page's or the group's own).
type At<'a> = (Option<&'a str>, Option<&'a str>);

/// One problem of one group or tool.
#[derive(Debug)]
pub(super) struct Problem {
    /// The group; `None` when it has no name (or the problem is the page's).
    pub group: Option<String>,
    /// The tool; `None` for a problem of the group.
    pub tool: Option<String>,
    pub severity: Severity,
    pub message: String,
    pub fix: String,
}

impl Problem {
    pub(super) fn new(
        (group, tool): (Option<&str>, Option<&str>),
        severity: Severity,
        message: String,
        fix: &str,
    ) -> Problem {
        Problem {
            group: group.map(str::to_owned),
            tool: tool.map(str::to_owned),
            severity,
            message,
            fix: fix.to_owned(),
        }
    }
}

/// Everything a check found on one page.
pub(super) struct Report {
    pub url: String,
    /// The groups and tools the page exposes, in the order agents see them.
    pub groups: Vec<(String, Vec<String>)>,
    pub problems: Vec<Problem>,
    /// Whether the tools were run (`--exercise`).
    pub exercised: bool,
    /// How long the check waited after the load for late registrations, in ms.
    pub waited_ms: u128,
}

impl Report {
    pub(super) fn ok(&self) -> bool {
        !self.problems.iter().any(|p| p.severity == Severity::Error)
    }

    fn tools(&self) -> usize {
        self.groups.iter().map(|(_, tools)| tools.len()).sum()
    }

    pub(super) fn json(&self) -> Value {
        let problems: Vec<Value> = (self.ordered().into_iter())
            .flat_map(|(_, problems)| problems)
            .map(|p| {
                let severity = match p.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                json!({"group": p.group, "tool": p.tool, "severity": severity, "message": p.message})
            })
            .collect();
        json!({"ok": self.ok(), "tools": self.tools(), "problems": problems})
    }

    pub(super) fn text(&self) -> String {
        let mut out = format!("devtools-mcp check {}\n", self.url);
        if self.groups.is_empty() && self.problems.is_empty() {
            out += "This page exposes no third-party developer tools.\n";
            return out;
        }
        let ran = if self.exercised {
            "each run once with arguments made from its inputSchema"
        } else {
            "registrations only; --exercise runs them"
        };
        out += &format!(
            "{}, {} ({ran}); registrations counted up to {} ms after the load\n",
            counted(self.groups.len(), "group"),
            counted(self.tools(), "tool"),
            self.waited_ms
        );
        for ((group, tool), problems) in self.ordered() {
            out += "\n";
            out += &heading(group, tool);
            if problems.is_empty() {
                out += "  ok\n";
            }
            for p in problems {
                let severity = match p.severity {
                    Severity::Error => "error  ",
                    Severity::Warning => "warning",
                };
                out += &format!("  {severity}  {}\n           fix: {}\n", p.message, p.fix);
            }
        }
        out += &format!("\n{}\n", self.summary());
        out
    }

    fn summary(&self) -> String {
        let count = |s| self.problems.iter().filter(|p| p.severity == s).count();
        let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
        let verdict = if self.ok() { "passed" } else { "failed" };
        let (errors, warnings) = (counted(errors, "error"), counted(warnings, "warning"));
        format!("{errors}, {warnings}: {verdict}")
    }

    /// The problems by group and tool: the page's own first, then each group as agents see
    /// it (its own problems, then each tool, problems or not), then what was left out.
    fn ordered(&self) -> Vec<(At<'_>, Vec<&Problem>)> {
        let mut keys: Vec<At<'_>> = vec![(None, None)];
        for (group, tools) in &self.groups {
            keys.push((Some(group), None));
            keys.extend(
                tools
                    .iter()
                    .map(|t| (Some(group.as_str()), Some(t.as_str()))),
            );
        }
        for p in &self.problems {
            let key = (p.group.as_deref(), p.tool.as_deref());
            if keys.contains(&key) {
                continue;
            }
            // A tool that was left out goes with the rest of its group.
            match keys
                .iter()
                .rposition(|(group, _)| key.0.is_some() && *group == key.0)
            {
                Some(last) => keys.insert(last + 1, key),
                None => keys.push(key),
            }
        }
        let listed = |(_, tool): &At<'_>| tool.is_some();
        (keys.into_iter())
            .map(|key| {
                let problems: Vec<&Problem> = (self.problems.iter())
                    .filter(|p| (p.group.as_deref(), p.tool.as_deref()) == key)
                    .collect();
                (key, problems)
            })
            .filter(|(key, problems)| !problems.is_empty() || listed(key))
            .collect()
    }
}

/// `n` things, in the plural unless there is one.
fn counted(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

fn heading(group: Option<&str>, tool: Option<&str>) -> String {
    match (group, tool) {
        (None, None) => "the page's registrations\n".into(),
        (None, Some(tool)) => format!("tool {tool}\n"),
        (Some(group), None) => format!("group {group}\n"),
        (Some(group), Some(tool)) => format!("{group} › {tool}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            url: "http://127.0.0.1/".into(),
            groups: vec![("Shop".into(), vec!["cart".into(), "add".into()])],
            problems: vec![
                Problem::new(
                    (Some("Shop"), Some("add")),
                    Severity::Warning,
                    "slow".into(),
                    "faster",
                ),
                Problem::new(
                    (None, None),
                    Severity::Error,
                    "a group has no name".into(),
                    "name it",
                ),
                Problem::new(
                    (Some("Shop"), Some("gone")),
                    Severity::Error,
                    "no execute".into(),
                    "add one",
                ),
                Problem::new(
                    (Some("Other"), None),
                    Severity::Error,
                    "no tools array".into(),
                    "add one",
                ),
            ],
            exercised: true,
            waited_ms: 2000,
        }
    }

    #[test]
    fn grouped_by_tool_with_fixes_and_a_verdict() {
        let text = report().text();
        let page = text.find(
            "the page's registrations\n  error    a group has no name\n           fix: name it",
        );
        let cart = text.find("Shop › cart\n  ok\n");
        let add = text.find("Shop › add\n  warning  slow\n           fix: faster");
        let gone = text.find("Shop › gone\n  error    no execute");
        let other = text.find("group Other\n  error    no tools array");
        assert!(
            page < cart && cart < add && add < gone && gone < other,
            "{text}"
        );
        assert!(page.is_some(), "{text}");
        assert!(text.ends_with("\n3 errors, 1 warning: failed\n"), "{text}");
    }

    #[test]
    fn json_in_the_same_order() {
        let json = report().json();
        assert_eq!(json["ok"], false);
        assert_eq!(json["tools"], 2);
        let problems = json["problems"].as_array().unwrap();
        assert_eq!(
            problems[0],
            json!({"group": null, "tool": null, "severity": "error", "message": "a group has no name"})
        );
        assert_eq!(problems[1]["tool"], "add");
        assert_eq!(problems[2]["tool"], "gone");
    }
}
