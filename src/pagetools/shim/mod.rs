//! The discovery shim: the page half of third-party developer tools, the JavaScript in this
//! folder, installed in every page before its own scripts.

/// The discovery shim as installed before any page script runs: one classic script, a single
/// IIFE. Its parts are kept by concern in `shim/` (contract at the top of the first part),
/// each a script that parses alone; build.rs joins them in file-name order and drops their
/// comments and indentation (`shim/join.rs`), so nothing is done to the text at run time.
pub fn shim() -> &'static str {
    include_str!(concat!(env!("OUT_DIR"), "/shim.js"))
}

/// How build.rs makes [`shim`]'s text, for the tests that check it.
#[cfg(test)]
mod join;

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
