//! Checks that types alone cannot express: ranges (the table in
//! `ranges.rs`), non-empty lists, weights that sum above zero.

use super::Config;

#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub key: String,
    pub message: String,
}

pub fn validate(c: &Config) -> Vec<Invalid> {
    // Every number within its documented range (see `ranges.rs`).
    let mut v = match toml::Value::try_from(c) {
        Ok(table) => super::ranges::check(&table),
        Err(e) => vec![Invalid { key: "configuration".into(), message: e.to_string() }],
    };
    let w = &c.evaluate.weights;
    if w.sum() <= 0.0 {
        v.push(Invalid { key: "evaluate.weights".into(), message: "at least one weight must be above 0".into() });
    }
    for (key, message) in c.evaluate.calibration.problems() {
        v.push(Invalid { key, message });
    }
    if c.search.chains.is_empty() || c.search.chains.iter().any(Vec::is_empty) {
        v.push(Invalid {
            key: "search.chains".into(),
            message: "needs at least one non-empty chain, e.g. [[\"local\"]]".into(),
        });
    }
    for (key, message) in c.web.problems().into_iter().chain(c.opensearch.problems()) {
        v.push(Invalid { key, message });
    }
    let names_opensearch = c.search.chains.iter().flatten().any(|p| p == "opensearch");
    if names_opensearch && !c.opensearch.is_configured() {
        v.push(Invalid {
            key: "opensearch.url".into(),
            message: "a search chain names `opensearch`: set the cluster's URL (one node or a list)".into(),
        });
    }
    v.extend(crate::llm::validate(&c.llm).into_iter().map(|(key, message)| Invalid { key, message }));
    for e in super::keymap::validate(&c.tui.keys) {
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
    fn a_chain_naming_opensearch_needs_the_clusters_url() {
        let mut c = Config::default();
        c.search.chains = vec![vec!["opensearch".into(), "local".into()]];
        let keys: Vec<String> = validate(&c).into_iter().map(|i| i.key).collect();
        assert_eq!(keys, vec!["opensearch.url"]);
        c.opensearch.url = vec!["http://localhost:9200".into()];
        assert_eq!(validate(&c), vec![]);
        c.opensearch.bulk_in_flight = 0;
        let keys: Vec<String> = validate(&c).into_iter().map(|i| i.key).collect();
        assert_eq!(keys, vec!["opensearch.bulk_in_flight"]);
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

    #[test]
    fn a_calibration_coefficient_must_name_a_feature() {
        let mut c = Config::default();
        c.evaluate.calibration.coefficients.insert("answer_relevanse".into(), 1.0);
        let found = validate(&c);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].key, "evaluate.calibration.coefficients.answer_relevanse");
        assert!(found[0].message.contains("no feature"), "{}", found[0].message);
    }
}
