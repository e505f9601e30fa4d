//! DECIDE: a pure function of the numbers, its rules in the order
//! docs/scoring.md ("The decision") gives.

use super::convergence::Convergence;
use super::model::{Action, Decision, DecisionReason, Evaluation};
use super::protocol::Limits;
use super::settings::DecideSettings;

/// The numbers a decision is made from.
#[derive(Debug, Clone)]
pub struct DecideInput<'a> {
    pub iteration: u32,
    pub limits: &'a Limits,
    pub evaluation: &'a Evaluation,
    /// Confidence gains of every evaluated iteration, this one included.
    pub trend: &'a [f64],
    pub cost_usd: f64,
    pub tokens: u64,
    pub elapsed_ms: u64,
    /// Asks already raised in this session.
    pub asks_raised: u32,
    pub convergence: Convergence,
    pub progress: Progress,
}

/// What this iteration added, for the stagnation rule: an iteration whose
/// searches kept no new source and whose draft scored no better than the
/// best before it has stagnated, and one more round of the same costs calls.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Progress {
    /// Sources this iteration's review kept that no earlier one had.
    pub new_sources_kept: usize,
    /// The best confidence of the earlier drafts this one competes with
    /// (none before the first, or before the first after an answered ASK).
    pub best_before: Option<f64>,
    /// Whether another round costs model calls (the reasoner drafts with a
    /// model). The built-in reasoner's rounds cost no call, so it keeps
    /// looking until the other rules stop it.
    pub rounds_cost_calls: bool,
}

pub fn decide(input: &DecideInput<'_>, s: &DecideSettings) -> Decision {
    let e = input.evaluation;
    let l = input.limits;
    let out = |reason, detail: String| Decision { action: Action::Output, reason, detail };

    // A held-back draft (unanswered, fallbacks, a direct answer that misses
    // the question) never ends the session as answered.
    if e.confidence >= s.confidence_threshold && e.coverage >= s.coverage_threshold && e.held_back.is_none() {
        return out(
            DecisionReason::Thresholds,
            format!(
                "confidence {:.2} ≥ {:.2} and coverage {:.2} ≥ {:.2}",
                e.confidence, s.confidence_threshold, e.coverage, s.coverage_threshold
            ),
        );
    }
    if input.iteration >= l.max_iterations {
        return out(
            DecisionReason::MaxIterations,
            format!("iteration {} of {}; writing the best draft", input.iteration, l.max_iterations),
        );
    }
    if l.cost_budget_usd > 0.0 && input.cost_usd >= l.cost_budget_usd {
        return out(DecisionReason::CostBudget, format!("spent ${:.4} of ${:.4}", input.cost_usd, l.cost_budget_usd));
    }
    if l.token_budget > 0 && input.tokens >= l.token_budget {
        return out(DecisionReason::TokenBudget, format!("used {} of {} tokens", input.tokens, l.token_budget));
    }
    let limit_ms = l.time_limit_secs.saturating_mul(1000);
    if limit_ms > 0 && input.elapsed_ms >= limit_ms {
        return out(
            DecisionReason::TimeBudget,
            format!("{:.1} s of {} s", input.elapsed_ms as f64 / 1000.0, l.time_limit_secs),
        );
    }
    if e.needs_clarification && input.asks_raised < s.max_asks {
        return Decision {
            action: Action::Ask,
            reason: DecisionReason::NeedsClarification,
            detail: "the sources point to more than one meaning of the question".into(),
        };
    }
    if let Some(mean) = diminishing_returns(input.trend, s) {
        return out(
            DecisionReason::DiminishingReturns,
            format!(
                "mean confidence gain of the last {} iterations {:.3} < {:.3}",
                s.diminishing_returns_window, mean, s.diminishing_returns_threshold
            ),
        );
    }
    if let Some(why) = input.convergence.reason() {
        return out(DecisionReason::Converged, why);
    }
    if let Some(why) = stagnation(input.iteration, e.confidence, &input.progress, s) {
        return out(DecisionReason::DiminishingReturns, why);
    }
    Decision { action: Action::Continue, reason: DecisionReason::BelowThresholds, detail: below_thresholds(e, s) }
}

/// The thresholds a CONTINUE falls short of, only those ("coverage 0.67 <
/// 0.90", not a confidence that passed).
fn below_thresholds(e: &Evaluation, s: &DecideSettings) -> String {
    let (confidence, coverage) = (e.confidence, e.coverage);
    let mut short = Vec::new();
    if confidence < s.confidence_threshold {
        short.push(format!("confidence {confidence:.2} < {:.2}", s.confidence_threshold));
    }
    if coverage < s.coverage_threshold {
        short.push(format!("coverage {coverage:.2} < {:.2}", s.coverage_threshold));
    }
    if let Some(why) = &e.held_back {
        short.push(format!("held back: {why}"));
    }
    short.join(" and ")
}

/// Seed 004: the mean gain over the last `window` iterations, when it is
/// below the threshold. `None` until there are `window` gains.
pub fn diminishing_returns(trend: &[f64], s: &DecideSettings) -> Option<f64> {
    let w = s.diminishing_returns_window;
    if w == 0 || trend.len() < w {
        return None;
    }
    let mean = trend[trend.len() - w..].iter().sum::<f64>() / w as f64;
    (mean < s.diminishing_returns_threshold).then_some(mean)
}

/// Why iteration `n` stagnated, when it did: its searches kept no new
/// source (the evidence is what it was) and its draft's confidence is not
/// above the best earlier draft's by the diminishing-returns threshold. The
/// report is then written from the best draft, as another round would
/// redraft the same evidence.
pub fn stagnation(n: u32, confidence: f64, p: &Progress, s: &DecideSettings) -> Option<String> {
    let best = p.best_before?;
    if !p.rounds_cost_calls || p.new_sources_kept > 0 {
        return None;
    }
    let gain = confidence - best;
    (gain < s.diminishing_returns_threshold).then(|| {
        format!(
            "iteration {n} found no new source and its draft scored {confidence:.2} against the best {best:.2} \
             (gain {gain:.3} < {:.3})",
            s.diminishing_returns_threshold
        )
    })
}

/// Whether an evaluation met the output thresholds and nothing holds it back.
pub fn meets_thresholds(e: &Evaluation, s: &DecideSettings) -> bool {
    e.confidence >= s.confidence_threshold && e.coverage >= s.coverage_threshold && e.held_back.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{ConfidenceComponents, ConfidenceWeights, DimensionScores, Verdict};

    fn eval(confidence: f64, coverage: f64) -> Evaluation {
        Evaluation {
            confidence,
            components: ConfidenceComponents::default(),
            weights: ConfidenceWeights::default(),
            coverage,
            aspects_required: 4,
            aspects_addressed: 2,
            dimensions: DimensionScores::default(),
            quality: 0.5,
            verdict: Verdict::Warn,
            severity_total: 2.0,
            gaps: vec![],
            contradictions: 0,
            claims: 3,
            supported_claims: 3,
            cited_sources: 2,
            needs_clarification: false,
            gain: 0.2,
            draft_similarity: None,
            failed_phases: vec![],
            unanswered: false,
            time_sensitive: false,
            held_back: None,
            calibration: None,
        }
    }

    fn limits() -> Limits {
        Limits {
            max_iterations: 5,
            max_queries: 10,
            max_sources: 15,
            time_limit_secs: 120,
            cost_budget_usd: 0.5,
            token_budget: 100_000,
        }
    }

    fn input<'a>(e: &'a Evaluation, l: &'a Limits, trend: &'a [f64]) -> DecideInput<'a> {
        DecideInput {
            iteration: 2,
            limits: l,
            evaluation: e,
            trend,
            cost_usd: 0.0,
            tokens: 0,
            elapsed_ms: 0,
            asks_raised: 0,
            convergence: Convergence::default(),
            progress: Progress::default(),
        }
    }

    /// The tables below were written for a threshold of 0.85; they test the
    /// rules, whatever the default threshold.
    fn threshold_085() -> DecideSettings {
        DecideSettings { confidence_threshold: 0.85, ..DecideSettings::default() }
    }

    #[test]
    fn thresholds_win_over_everything() {
        let (e, l) = (eval(0.9, 0.95), limits());
        let mut i = input(&e, &l, &[0.9]);
        i.iteration = 5;
        i.cost_usd = 10.0;
        let d = decide(&i, &DecideSettings::default());
        assert_eq!((d.action, d.reason), (Action::Output, DecisionReason::Thresholds));
    }

    #[test]
    fn confidence_alone_is_not_enough() {
        let (e, l) = (eval(0.9, 0.5), limits());
        let d = decide(&input(&e, &l, &[0.9]), &threshold_085());
        assert_eq!(d.action, Action::Continue);
        assert_eq!(d.detail, "coverage 0.50 < 0.90", "names only the threshold missed");
        let e = eval(0.5, 0.5);
        let d = decide(&input(&e, &l, &[0.5]), &threshold_085());
        assert_eq!(d.detail, "confidence 0.50 < 0.85 and coverage 0.50 < 0.90");
    }

    #[test]
    fn limits_in_order_iterations_cost_tokens_time() {
        let (e, l) = (eval(0.5, 0.5), limits());
        let s = DecideSettings::default();
        let mut i = input(&e, &l, &[0.5]);
        i.iteration = 5;
        i.cost_usd = 1.0;
        assert_eq!(decide(&i, &s).reason, DecisionReason::MaxIterations);
        i.iteration = 2;
        assert_eq!(decide(&i, &s).reason, DecisionReason::CostBudget);
        i.cost_usd = 0.0;
        i.tokens = 200_000;
        assert_eq!(decide(&i, &s).reason, DecisionReason::TokenBudget);
        i.tokens = 0;
        i.elapsed_ms = 120_000;
        assert_eq!(decide(&i, &s).reason, DecisionReason::TimeBudget);
    }

    #[test]
    fn zero_budgets_mean_unlimited() {
        let (e, mut l) = (eval(0.5, 0.5), limits());
        l.cost_budget_usd = 0.0;
        l.token_budget = 0;
        l.time_limit_secs = 0;
        let mut i = input(&e, &l, &[0.5]);
        i.cost_usd = 99.0;
        i.tokens = 1 << 40;
        i.elapsed_ms = 1 << 40;
        assert_eq!(decide(&i, &DecideSettings::default()).action, Action::Continue);
    }

    #[test]
    fn ask_only_until_max_asks() {
        let (mut e, l) = (eval(0.5, 0.5), limits());
        e.needs_clarification = true;
        let s = DecideSettings::default();
        let mut i = input(&e, &l, &[0.5]);
        assert_eq!(decide(&i, &s).action, Action::Ask);
        i.asks_raised = 1;
        assert_eq!(decide(&i, &s).action, Action::Continue);
    }

    #[test]
    fn diminishing_returns_needs_a_full_window() {
        let s = DecideSettings::default();
        assert_eq!(diminishing_returns(&[0.01, 0.01], &s), None);
        assert!(diminishing_returns(&[0.5, 0.02, 0.03, 0.01], &s).is_some());
        assert_eq!(diminishing_returns(&[0.5, 0.02, 0.03, 0.2], &s), None);
        let (e, l) = (eval(0.5, 0.5), limits());
        let trend = [0.5, 0.02, 0.03, 0.01];
        let d = decide(&input(&e, &l, &trend), &s);
        assert_eq!(d.reason, DecisionReason::DiminishingReturns);
    }

    #[test]
    fn convergence_after_diminishing_returns() {
        let (e, l) = (eval(0.5, 0.5), limits());
        let mut i = input(&e, &l, &[0.5, 0.2]);
        i.convergence = Convergence { draft_similarity: Some(0.99), severity_plateau: false, threshold: 0.95 };
        assert_eq!(decide(&i, &DecideSettings::default()).reason, DecisionReason::Converged);
    }

    #[test]
    fn an_iteration_with_no_new_source_and_no_better_draft_stagnates() {
        let s = threshold_085();
        let l = limits();
        let e = eval(0.80, 0.95);
        let stalled = Progress { new_sources_kept: 0, best_before: Some(0.79), rounds_cost_calls: true };
        let mut i = input(&e, &l, &[0.5, 0.3]);
        i.progress = stalled;
        let d = decide(&i, &s);
        assert_eq!((d.action, d.reason), (Action::Output, DecisionReason::DiminishingReturns));
        assert!(d.detail.contains("no new source") && d.detail.contains("0.79"), "{}", d.detail);
        // New evidence, a clearly better draft, the first iteration, or a
        // reasoner whose rounds cost no call: go on.
        let go_on = [
            Progress { new_sources_kept: 1, ..stalled },
            Progress { best_before: Some(0.70), ..stalled },
            Progress { best_before: None, ..stalled },
            Progress { rounds_cost_calls: false, ..stalled },
        ];
        for p in go_on {
            i.progress = p;
            assert_eq!(decide(&i, &s).action, Action::Continue, "{p:?}");
        }
        // A draft worse than the best also stagnates; the thresholds and an ASK come first.
        i.progress = stalled;
        let worse = eval(0.60, 0.95);
        i.evaluation = &worse;
        assert_eq!(decide(&i, &s).reason, DecisionReason::DiminishingReturns);
        let good = eval(0.90, 0.95);
        i.evaluation = &good;
        assert_eq!(decide(&i, &s).reason, DecisionReason::Thresholds);
        let mut unclear = eval(0.60, 0.95);
        unclear.needs_clarification = true;
        i.evaluation = &unclear;
        assert_eq!(decide(&i, &s).action, Action::Ask);
    }

    /// The decision table with the honest-numbers gates: one row per case,
    /// (confidence, coverage, held back, iteration) → (action, reason).
    #[test]
    fn decision_table_with_the_held_back_gate() {
        let s = threshold_085();
        let l = limits();
        let unanswered = Some("the critic found that the sources do not answer the question");
        let fallback = Some("phases failed and fell back: draft, critique");
        let off = Some("answer relevance 0.20 < 0.50: the direct answer does not address the question");
        type Row<'a> = (f64, f64, Option<&'a str>, u32, Action, DecisionReason);
        let rows: [Row; 8] = [
            (0.90, 0.95, None, 2, Action::Output, DecisionReason::Thresholds),
            (0.85, 0.90, None, 2, Action::Output, DecisionReason::Thresholds),
            (0.84, 0.95, None, 2, Action::Continue, DecisionReason::BelowThresholds),
            (0.90, 0.95, unanswered, 2, Action::Continue, DecisionReason::BelowThresholds),
            (0.90, 0.95, fallback, 2, Action::Continue, DecisionReason::BelowThresholds),
            (0.90, 0.95, off, 2, Action::Continue, DecisionReason::BelowThresholds),
            // A held-back draft still stops on a limit, as the best effort it is.
            (0.90, 0.95, off, 5, Action::Output, DecisionReason::MaxIterations),
            (0.40, 0.20, unanswered, 5, Action::Output, DecisionReason::MaxIterations),
        ];
        for (conf, cov, held, iteration, action, reason) in rows {
            let mut e = eval(conf, cov);
            e.held_back = held.map(str::to_string);
            let mut i = input(&e, &l, &[0.5]);
            i.iteration = iteration;
            let d = decide(&i, &s);
            assert_eq!((d.action, d.reason), (action, reason), "row {conf} {cov} {held:?} {iteration}: {}", d.detail);
            assert_eq!(meets_thresholds(&e, &s), reason == DecisionReason::Thresholds);
            if let (Some(h), Action::Continue) = (held, action) {
                assert!(d.detail.contains(&format!("held back: {h}")), "{}", d.detail);
            }
        }
    }
}
