//! `devtools-mcp heap FILE`: the summary of a heap snapshot, as `get_heapsnapshot_summary`
//! answers it; `devtools-mcp heap --compare BASE CURRENT`: what changed between two, as
//! `compare_heapsnapshots` answers it, with leak budgets (`--max-growth CLASS=N`) a CI job
//! can hold. No Node, no browser: the files are read as the tools read them.

use std::fs::File;
use std::process::ExitCode;

use argh::FromArgs;

use crate::app::stdout::outln;
use crate::heap::Snapshot;
use crate::tools::heap;

#[derive(FromArgs)]
/// Print the summary of a heap snapshot (plain or gzip), or with --compare what changed
/// since a base snapshot; exit 1 when a class gained more objects than a --max-growth
/// budget allows, 2 on a usage or file error.
struct HeapArgs {
    /// the snapshot (the current one with --compare)
    #[argh(positional)]
    file: String,
    /// the base snapshot to compare FILE with
    #[argh(option)]
    compare: Option<String>,
    /// a leak budget with --compare: CLASS=N fails when CLASS gained more than N objects
    /// (new less deleted), e.g. --max-growth "Detached <li>=0" (repeatable)
    #[argh(option)]
    max_growth: Vec<String>,
}

/// A class's budget: how many objects it may gain.
struct Budget {
    class: String,
    limit: i64,
}

pub(super) fn heap(args: &[&str]) -> ExitCode {
    let parsed = match HeapArgs::from_args(&["devtools-mcp heap"], args) {
        Ok(a) => a,
        Err(exit) => return super::cli::early_exit(exit),
    };
    let budgets: Vec<Budget> = match parsed.max_growth.iter().map(|b| budget(b)).collect() {
        Ok(b) => b,
        Err(e) => return usage(&e),
    };
    let Some(base) = &parsed.compare else {
        if !budgets.is_empty() {
            return usage("--max-growth needs --compare BASE");
        }
        return match read(&parsed.file) {
            Ok(s) => {
                outln!("{}", heap::summary(&s));
                ExitCode::SUCCESS
            }
            Err(e) => usage(&e),
        };
    };
    let (base, current) = match read(base).and_then(|b| Ok((b, read(&parsed.file)?))) {
        Ok(both) => both,
        Err(e) => return usage(&e),
    };
    let (text, gains) = heap::comparison(&base, &current);
    outln!("{text}");
    let broken = over_budget(&budgets, &gains);
    for line in &broken {
        eprintln!("budget broken: {line}");
    }
    if broken.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `CLASS=N`, split at the last `=` (a class name may hold one).
fn budget(spec: &str) -> Result<Budget, String> {
    let Some((class, limit)) = spec.rsplit_once('=') else {
        return Err(format!("--max-growth {spec:?} is not CLASS=N"));
    };
    let limit = limit.trim().parse::<u32>().map_err(|_| {
        format!("--max-growth {spec:?}: {limit:?} is not a whole number of objects")
    })?;
    if class.is_empty() {
        return Err(format!("--max-growth {spec:?} names no class"));
    }
    Ok(Budget {
        class: class.to_owned(),
        limit: limit.into(),
    })
}

/// The budgets broken, each said in a line.
fn over_budget(budgets: &[Budget], gains: &[(String, i64)]) -> Vec<String> {
    let mut broken = Vec::new();
    for b in budgets {
        let gained = gains
            .iter()
            .find(|(name, _)| *name == b.class)
            .map_or(0, |&(_, n)| n);
        if gained > b.limit {
            broken.push(format!(
                "{} gained {gained} objects (at most {} allowed)",
                b.class, b.limit
            ));
        }
    }
    broken
}

fn read(path: &str) -> Result<Snapshot, String> {
    let file = File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
    let size = file.metadata().ok().map(|m| m.len());
    Snapshot::read(file, size)
        .map_err(|e| format!("the heap snapshot {path} could not be read: {e}"))
}

fn usage(message: &str) -> ExitCode {
    eprintln!("devtools-mcp heap: {message}");
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_are_class_equals_a_whole_number() {
        let b = budget("Detached <li>=3").unwrap();
        assert_eq!((b.class.as_str(), b.limit), ("Detached <li>", 3));
        let b = budget("a=b=0").unwrap();
        assert_eq!((b.class.as_str(), b.limit), ("a=b", 0));
        assert!(budget("Leak").is_err());
        assert!(budget("=2").is_err());
        assert!(budget("Leak=-1").is_err());
        assert!(budget("Leak=many").is_err());
    }

    #[test]
    fn a_class_over_its_budget_is_named_and_one_not_in_the_diff_gained_nothing() {
        let gains = vec![("Leak".to_owned(), 5), ("Freed".to_owned(), -2)];
        let budgets = [budget("Leak=4").unwrap(), budget("Leak=5").unwrap()];
        assert_eq!(
            over_budget(&budgets, &gains),
            ["Leak gained 5 objects (at most 4 allowed)"]
        );
        let budgets = [budget("Freed=0").unwrap(), budget("Absent=0").unwrap()];
        assert!(over_budget(&budgets, &gains).is_empty());
    }
}
