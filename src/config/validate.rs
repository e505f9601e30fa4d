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
    let keyless = c.scholarly().problems();
    for (key, message) in c.web.problems().into_iter().chain(c.opensearch.problems()).chain(keyless) {
        v.push(Invalid { key, message });
    }
    let names_opensearch = c.search.chains.iter().flatten().any(|p| p == "opensearch");
    if names_opensearch && !c.opensearch.is_configured() {
        v.push(Invalid {
            key: "opensearch.url".into(),
            message: "a search chain names `opensearch`: set the cluster's URL (one node or a list)".into(),
        });
    }
    if let Some(message) = log_level_problem(&c.log.level) {
        v.push(Invalid { key: "log.level".into(), message });
    }
    v.extend(crate::llm::validate(&c.llm).into_iter().map(|(key, message)| Invalid { key, message }));
    for e in super::keymap::validate(&c.tui.keys) {
        v.push(Invalid { key: e.key, message: e.message });
    }
    v
}

/// `[log] level`: a level, or a filter naming targets (`sleuth=debug,
/// tantivy=warn`). A bare word that is neither ("loud") would be read as a
/// target name and silently log nothing of sleuth's.
fn log_level_problem(level: &str) -> Option<String> {
    const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];
    let directive = level.contains('=') || level.contains(',');
    let known = LEVELS.contains(&level.trim().to_ascii_lowercase().as_str());
    let valid_filter = directive && tracing_subscriber::EnvFilter::try_new(level).is_ok();
    (!known && !valid_filter).then(|| {
        format!(
            "must be error, warn, info, debug or trace, or a filter such as \"sleuth=debug,tantivy=warn\" (got {})",
            super::explain::shown(&format!("\"{level}\""))
        )
    })
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
    fn the_log_level_is_a_level_or_a_filter() {
        let mut c = Config::default();
        for ok in ["info", "DEBUG", "sleuth=debug,tantivy=warn", "trace"] {
            c.log.level = ok.into();
            assert_eq!(validate(&c), vec![], "{ok}");
        }
        c.log.level = "loud".into();
        let got = validate(&c);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].key, "log.level");
        assert!(got[0].message.contains("got \"loud\""), "{}", got[0].message);
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
