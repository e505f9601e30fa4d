//! The engine's tunables, each with its documented default. They are
//! sections of the user's config file (see `config.toml.example`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::calibration::CalibrationSettings;
use super::memory::MemorySettings;
use super::model::{ConfidenceWeights, DimensionWeights};
use super::preset::SessionPreset;
use super::protocol::{ForkOrigin, ImportedContext, Limits};
use super::redact::Redactor;
use super::tiers::{SourceMode, TierTable};

/// DECIDE: the decision rules and when drafts have converged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DecideSettings {
    pub confidence_threshold: f64,
    pub coverage_threshold: f64,
    /// Iterations whose mean confidence gain is compared with the threshold.
    pub diminishing_returns_window: usize,
    pub diminishing_returns_threshold: f64,
    /// Consecutive drafts at least this similar (word shingles) count as converged.
    pub convergence_similarity: f64,
    /// Iterations over which a non-decreasing issue severity with no new
    /// issues counts as a plateau.
    pub severity_plateau_window: usize,
    /// How many times one session may ask the user.
    pub max_asks: u32,
}

impl Default for DecideSettings {
    fn default() -> Self {
        Self {
            // Confidence is the calibrated probability of a good answer
            // (`[evaluate.calibration]`). The loop stops once a report is
            // that likely to answer; below it, the report says it is
            // provisional. 0.6 rather than an even chance: another
            // iteration of the built-in costs milliseconds and found more
            // on the tuning set (docs/benchmarks.md, issue 24's seventh stop).
            confidence_threshold: 0.6,
            coverage_threshold: 0.90,
            diminishing_returns_window: 3,
            diminishing_returns_threshold: 0.05,
            convergence_similarity: 0.95,
            severity_plateau_window: 2,
            max_asks: 1,
        }
    }
}

/// EVALUATE: how confidence is composed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvaluateSettings {
    pub weights: ConfidenceWeights,
    pub dimension_weights: DimensionWeights,
    /// Source quality is scaled down when fewer sources than this are
    /// cited, and fewer than the session kept: a source that is all the
    /// corpus has on the question (a one-file answer in a small folder)
    /// costs nothing.
    pub min_sources_for_confidence: usize,
    /// Quality of a source by tier 1..=5.
    pub tier_quality: [f64; 5],
    pub unknown_tier_quality: f64,
    /// Age at which a source's recency score halves.
    pub recency_half_life_days: f64,
    /// Recency score of a source with no known date.
    pub recency_unknown: f64,
    /// Consistency lost per contradiction.
    pub contradiction_penalty: f64,
    /// A draft whose answer relevance is below this does not address the
    /// question: it is held back from OUTPUT whatever its other numbers.
    pub min_answer_relevance: f64,
    /// The most confidence a held-back draft can show (an unanswered
    /// question, a fallback phase, a direct answer that misses the question).
    pub held_back_confidence_cap: f64,
    /// `[evaluate.calibration]`: the fitted mapping from the components
    /// and signals to the probability of a good answer.
    pub calibration: CalibrationSettings,
}

impl Default for EvaluateSettings {
    fn default() -> Self {
        Self {
            weights: ConfidenceWeights::default(),
            dimension_weights: DimensionWeights::default(),
            min_sources_for_confidence: 3,
            tier_quality: [1.0, 0.9, 0.7, 0.55, 0.4],
            unknown_tier_quality: 0.6,
            recency_half_life_days: 730.0,
            recency_unknown: 0.7,
            contradiction_penalty: 0.25,
            min_answer_relevance: 0.5,
            held_back_confidence_cap: 0.5,
            calibration: CalibrationSettings::default(),
        }
    }
}

/// REFINE: strategy selection (expand, deepen, pivot) and query reformulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RefineSettings {
    pub expand_below_coverage: f64,
    pub narrow_below_confidence: f64,
    pub narrow_above_coverage: f64,
    /// PIVOT when this many iterations brought no improvement.
    pub pivot_after_iterations: usize,
    /// Queries that returned fewer results are reformulated.
    pub min_results: usize,
}

impl Default for RefineSettings {
    fn default() -> Self {
        Self {
            expand_below_coverage: 0.5,
            narrow_below_confidence: 0.5,
            narrow_above_coverage: 0.7,
            pivot_after_iterations: 3,
            min_results: 3,
        }
    }
}

/// Keywords to add when a rejection reason dominates the review.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RefinementRule {
    pub negative: Vec<String>,
    pub positive: Vec<String>,
}

/// REVIEW: the quality report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReviewSettings {
    /// `quality_score = kept / fetched` below this suggests a refinement.
    pub quality_threshold: f64,
    /// Rejection reason → keywords for the next queries.
    pub refinements: BTreeMap<String, RefinementRule>,
    /// At most this many negative keywords are taken from rejected sources' signals.
    pub max_signal_keywords: usize,
}

impl Default for ReviewSettings {
    fn default() -> Self {
        let rule = |negative: &[&str], positive: &[&str]| RefinementRule {
            negative: negative.iter().map(|s| s.to_string()).collect(),
            positive: positive.iter().map(|s| s.to_string()).collect(),
        };
        // Keys are the reasons the reviewers give (prompts/review.md, the
        // built-in reviewer) and the ones sleuth sets itself (tiers, fetch).
        // `off_topic` adds no fixed word: the terms recurring among its
        // rejected sources (their signals) are its negative keywords.
        let refinements = BTreeMap::from([
            ("tier_filtered".to_string(), rule(&[], &["documentation"])),
            ("too_short".to_string(), rule(&[], &["guide"])),
            ("off_topic".to_string(), rule(&[], &[])),
            ("spam".to_string(), rule(&["coupon", "promo code", "casino"], &[])),
            ("duplicate".to_string(), rule(&["mirror"], &[])),
            ("low_quality".to_string(), rule(&[], &["documentation"])),
            ("outdated".to_string(), rule(&[], &["latest"])),
            ("redirect".to_string(), rule(&["has moved"], &[])),
            // PDFs are read; what stays unreadable is mostly scans without text.
            ("unreadable".to_string(), rule(&["scanned"], &[])),
            ("retracted".to_string(), rule(&["retraction"], &[])),
        ]);
        Self { quality_threshold: 0.3, refinements, max_signal_keywords: 3 }
    }
}

/// SEARCH: parallelism, result counts, degraded mode and dedupe. (Which
/// providers, retries and circuit breakers are the search adapter's:
/// `search::RouterSettings`; `config`'s `[search]` table holds both.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchSettings {
    /// Queries searched at once.
    pub concurrency: usize,
    /// Pages fetched at once.
    pub fetch_concurrency: usize,
    pub results_per_query: usize,
    /// Share of an iteration's queries failing that puts the session in degraded mode.
    pub degraded_failure_ratio: f64,
    /// Texts at least this similar (word shingles) are the same source.
    pub dedupe_similarity: f64,
}

impl Default for SearchSettings {
    fn default() -> Self {
        Self {
            concurrency: 6,
            fetch_concurrency: 16,
            results_per_query: 5,
            degraded_failure_ratio: 0.5,
            dedupe_similarity: 0.9,
        }
    }
}

/// Everything the engine needs besides its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineSettings {
    pub session_id: String,
    pub preset: SessionPreset,
    pub limits: Limits,
    pub step_mode: bool,
    pub decide: DecideSettings,
    pub evaluate: EvaluateSettings,
    pub refine: RefineSettings,
    pub review: ReviewSettings,
    pub search: SearchSettings,
    pub memory: MemorySettings,
    pub source_mode: SourceMode,
    pub tiers: TierTable,
    /// Recorded in the header of a forked session.
    pub forked_from: Option<ForkOrigin>,
    /// Recorded in the header of a follow-up session.
    pub follow_up_of: Option<String>,
    /// A follow-up's earlier sources and findings, recorded in its header.
    pub imported: Option<ImportedContext>,
    /// Recorded in the session header; must hold no secrets.
    pub config_snapshot: serde_json::Value,
    /// Largest batch of streamed report text per event, in milliseconds.
    pub stream_batch_ms: u64,
    /// The secrets blanked in every event and source text before they
    /// leave the engine (`Engine::emit`); empty blanks nothing.
    pub redactor: Redactor,
}

impl EngineSettings {
    /// Defaults with the standard preset's limits; for tests and embedding.
    pub fn with_limits(session_id: impl Into<String>, limits: Limits) -> Self {
        Self {
            session_id: session_id.into(),
            preset: SessionPreset::Custom,
            limits,
            step_mode: false,
            decide: DecideSettings::default(),
            evaluate: EvaluateSettings::default(),
            refine: RefineSettings::default(),
            review: ReviewSettings::default(),
            search: SearchSettings::default(),
            memory: MemorySettings::default(),
            source_mode: SourceMode::default(),
            tiers: TierTable::default(),
            forked_from: None,
            follow_up_of: None,
            imported: None,
            config_snapshot: serde_json::Value::Null,
            stream_batch_ms: 50,
            redactor: Redactor::default(),
        }
    }
}
