//! The order DevTools lists a set's insights in: its baseline order, then by how much each
//! insight's estimated LCP savings would raise the page's LCP score (Lighthouse's
//! log-normal scoring, weighted a third, as without field data).

/// Lighthouse's score curve for LCP: p10 2.5 s, median 4 s.
fn lcp_score(ms: f64) -> f64 {
    log_normal_score(2500.0, 4000.0, ms)
}

/// Abramowitz and Stegun's approximation, as Lighthouse computes it.
fn erf(x: f64) -> f64 {
    let sign = x.signum();
    let x = x.abs();
    let (a1, a2, a3, a4, a5) = (
        0.254829592,
        -0.284496736,
        1.421413741,
        -1.453152027,
        1.061405429,
    );
    let p = 0.3275911;
    let t = 1.0 / (1.0 + p * x);
    let y = t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))));
    sign * (1.0 - y * (-x * x).exp())
}

fn log_normal_score(p10: f64, median: f64, value: f64) -> f64 {
    const INVERSE_ERFC_ONE_FIFTH: f64 = 0.9061938024368232;
    const MIN_PASSING: f64 = 0.9;
    const MAX_AVERAGE: f64 = 0.899_999_999_999_999_9;
    const MIN_AVERAGE: f64 = 0.5;
    const MAX_FAILING: f64 = 0.499_999_999_999_999_94;
    if value <= 0.0 {
        return 1.0;
    }
    let x_log_ratio = (value / median).max(f64::MIN_POSITIVE).ln();
    let p10_log_ratio = -(p10 / median).max(f64::MIN_POSITIVE).ln();
    let standardized = x_log_ratio * INVERSE_ERFC_ONE_FIFTH / p10_log_ratio;
    let complementary = (1.0 - erf(standardized)) / 2.0;
    if value <= p10 {
        complementary.clamp(MIN_PASSING, 1.0)
    } else if value <= median {
        complementary.clamp(MIN_AVERAGE, MAX_AVERAGE)
    } else {
        complementary.clamp(0.0, MAX_FAILING)
    }
}

/// An insight's rank: the score gained if its LCP savings (ms) came off the observed LCP (ms).
pub(super) fn rank(observed_lcp_ms: f64, lcp_savings_ms: f64) -> f64 {
    if lcp_savings_ms == 0.0 {
        return 0.0;
    }
    let after = (observed_lcp_ms - lcp_savings_ms).max(0.0);
    (lcp_score(after) - lcp_score(observed_lcp_ms)) / 3.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_follow_lighthouse_curve() {
        assert_eq!(lcp_score(0.0), 1.0);
        assert!((lcp_score(4000.0) - 0.5).abs() < 1e-6);
        assert!((lcp_score(2500.0) - 0.9).abs() < 1e-3);
        // Savings on a fast page still raise its score a little; none ranks nothing.
        assert!(rank(919.0, 605.0) > 0.0);
        assert_eq!(rank(919.0, 0.0), 0.0);
        assert!(rank(5000.0, 2000.0) > rank(5000.0, 100.0));
    }
}
