//! The presets (simple, standard, deep: how many iterations, queries and sources, and
//! how much time a session may use), with a time limit on every one; explicit limits in
//! config, env or flags override them field by field.

use serde::{Deserialize, Serialize};

use crate::engine::Limits;
pub use crate::engine::preset::Preset;

/// Per-field overrides of the preset's limits. Zero budgets mean unlimited.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitOverrides {
    pub max_iterations: Option<u32>,
    pub max_queries: Option<u32>,
    pub max_sources: Option<u32>,
    pub time_limit_secs: Option<u64>,
    pub cost_budget_usd: Option<f64>,
    pub token_budget: Option<u64>,
}

impl LimitOverrides {
    pub fn resolve(&self, preset: Preset) -> Limits {
        let base = preset.limits();
        Limits {
            max_iterations: self.max_iterations.unwrap_or(base.max_iterations),
            max_queries: self.max_queries.unwrap_or(base.max_queries),
            max_sources: self.max_sources.unwrap_or(base.max_sources),
            time_limit_secs: self.time_limit_secs.unwrap_or(base.time_limit_secs),
            cost_budget_usd: self.cost_budget_usd.unwrap_or(base.cost_budget_usd),
            token_budget: self.token_budget.unwrap_or(base.token_budget),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_seed_001() {
        let s = Preset::Simple.limits();
        assert_eq!((s.max_iterations, s.max_queries, s.max_sources), (2, 3, 5));
        let d = Preset::Deep.limits();
        assert_eq!((d.max_iterations, d.max_queries, d.max_sources), (10, 15, 20));
        assert!(Preset::Standard.limits().time_limit_secs > 0);
    }

    #[test]
    fn overrides_replace_single_fields() {
        let o = LimitOverrides { max_iterations: Some(7), ..Default::default() };
        let l = o.resolve(Preset::Simple);
        assert_eq!((l.max_iterations, l.max_queries), (7, 3));
    }
}
