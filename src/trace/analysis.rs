//! `performance_analyze_insight`: one insight of one insight set, in detail.

use super::insights::ALL;
use super::metrics::Report;

pub fn insight(report: &Report, set_id: &str, name: &str) -> Result<String, String> {
    let Some(set) = report.sets.iter().find(|s| s.id == set_id) else {
        return Err("No Performance Insights for the given insight set id. Only use ids given in the \"Available insight sets\" list.".into());
    };
    match ALL.iter().find(|(n, _)| *n == name) {
        None => Err(format!("No Insight with the name {name} found. Double check the name you provided is accurate and try again.")),
        Some((_, false)) => Err(format!("The insight {name} is one DevTools computes but devtools-mcp does not yet; the summary lists only insights it computes.")),
        Some((_, true)) => Err(format!("The analysis of {name} in {} is not available yet.", set.id)),
    }
}
