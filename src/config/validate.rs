//! Checks that types alone cannot express: ranges, non-empty lists.

use super::Config;

#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub key: String,
    pub message: String,
}

pub fn validate(c: &Config) -> Vec<Invalid> {
    let mut v = Vec::new();
    let mut unit = |key: &str, x: f64| {
        if !(0.0..=1.0).contains(&x) || x.is_nan() {
            v.push(Invalid { key: key.into(), message: format!("must be between 0 and 1 (got {x})") });
        }
    };
    unit("decide.confidence_threshold", c.decide.confidence_threshold);
    unit("decide.coverage_threshold", c.decide.coverage_threshold);
    unit("decide.diminishing_returns_threshold", c.decide.diminishing_returns_threshold);
    unit("decide.convergence_similarity", c.decide.convergence_similarity);
    unit("refine.expand_below_coverage", c.refine.expand_below_coverage);
    unit("refine.narrow_below_confidence", c.refine.narrow_below_confidence);
    unit("refine.narrow_above_coverage", c.refine.narrow_above_coverage);
    unit("review.quality_threshold", c.review.quality_threshold);
    unit("search.dedupe_similarity", c.search.dedupe_similarity);
    unit("search.degraded_failure_ratio", c.search.degraded_failure_ratio);
    unit("memory.similarity_threshold", c.memory.similarity_threshold);
    unit("evaluate.unknown_tier_quality", c.evaluate.unknown_tier_quality);
    unit("evaluate.recency_unknown", c.evaluate.recency_unknown);
    unit("evaluate.contradiction_penalty", c.evaluate.contradiction_penalty);
    unit("evaluate.min_answer_relevance", c.evaluate.min_answer_relevance);
    unit("evaluate.held_back_confidence_cap", c.evaluate.held_back_confidence_cap);
    for (i, q) in c.evaluate.tier_quality.iter().enumerate() {
        unit(&format!("evaluate.tier_quality[{i}]"), *q);
    }
    let w = &c.evaluate.weights;
    for (k, x) in [
        ("answer_relevance", w.answer_relevance),
        ("source_quality", w.source_quality),
        ("coverage", w.coverage),
        ("citation_density", w.citation_density),
        ("consistency", w.consistency),
        ("recency", w.recency),
    ] {
        unit(&format!("evaluate.weights.{k}"), x);
    }
    if w.sum() <= 0.0 {
        v.push(Invalid { key: "evaluate.weights".into(), message: "at least one weight must be above 0".into() });
    }
    let mut at_least = |key: &str, x: u64, min: u64| {
        if x < min {
            v.push(Invalid { key: key.into(), message: format!("must be at least {min} (got {x})") });
        }
    };
    at_least("decide.diminishing_returns_window", c.decide.diminishing_returns_window as u64, 1);
    at_least("search.concurrency", c.search.concurrency as u64, 1);
    at_least("search.fetch_concurrency", c.search.fetch_concurrency as u64, 1);
    at_least("search.results_per_query", c.search.results_per_query as u64, 1);
    at_least("search.attempts", u64::from(c.search.attempts), 1);
    at_least("search.breaker_failures", u64::from(c.search.breaker_failures), 1);
    at_least("memory.max_entries", c.memory.max_entries as u64, 1);
    if let Some(x) = c.limits.max_iterations {
        at_least("limits.max_iterations", u64::from(x), 1);
    }
    if let Some(x) = c.limits.max_queries {
        at_least("limits.max_queries", u64::from(x), 1);
    }
    if let Some(x) = c.limits.max_sources {
        at_least("limits.max_sources", u64::from(x), 1);
    }
    if c.limits.cost_budget_usd.is_some_and(|x| x < 0.0 || x.is_nan()) {
        v.push(Invalid { key: "limits.cost_budget_usd".into(), message: "must not be negative".into() });
    }
    if c.search.chains.is_empty() || c.search.chains.iter().any(Vec::is_empty) {
        v.push(Invalid {
            key: "search.chains".into(),
            message: "needs at least one non-empty chain, e.g. [[\"local\"]]".into(),
        });
    }
    if !(1..=5).contains(&c.local.tier) {
        v.push(Invalid { key: "local.tier".into(), message: format!("must be 1 to 5 (got {})", c.local.tier) });
    }
    for (key, message) in c.web.problems() {
        v.push(Invalid { key, message });
    }
    v.extend(crate::llm::validate(&c.llm).into_iter().map(|(key, message)| Invalid { key, message }));
    for (domain, e) in &c.source_tiers {
        if !(1..=5).contains(&e.tier) {
            v.push(Invalid {
                key: format!("source_tiers.{domain}.tier"),
                message: format!("must be 1 to 5 (got {})", e.tier),
            });
        }
    }
    for e in crate::tui::keymap::validate(&c.tui.keys) {
        v.push(Invalid { key: e.key, message: e.message });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(validate(&Config::default()), vec![]);
    }

    #[test]
    fn ranges_are_checked() {
        let mut c = Config::default();
        c.decide.coverage_threshold = -0.1;
        c.search.concurrency = 0;
        c.search.chains = vec![vec![]];
        let keys: Vec<String> = validate(&c).into_iter().map(|i| i.key).collect();
        assert_eq!(keys, vec!["decide.coverage_threshold", "search.concurrency", "search.chains"]);
    }
}
