//! Seed 001 §8's tiers, with a time limit on every one; explicit limits in
//! config, env or flags override them field by field.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::engine::Limits;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    Simple,
    #[default]
    Standard,
    Deep,
}

impl Preset {
    pub fn limits(self) -> Limits {
        let (max_iterations, max_queries, max_sources, time_limit_secs, token_budget) = match self {
            Preset::Simple => (2, 3, 5, 60, 100_000),
            Preset::Standard => (5, 10, 15, 120, 400_000),
            Preset::Deep => (10, 15, 20, 300, 1_000_000),
        };
        Limits { max_iterations, max_queries, max_sources, time_limit_secs, cost_budget_usd: 0.50, token_budget }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Simple => "simple",
            Preset::Standard => "standard",
            Preset::Deep => "deep",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Preset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "simple" => Ok(Preset::Simple),
            "standard" => Ok(Preset::Standard),
            "deep" => Ok(Preset::Deep),
            other => Err(format!("unknown preset `{other}` (simple, standard or deep)")),
        }
    }
}

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
