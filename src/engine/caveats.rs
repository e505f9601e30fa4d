//! The caveats a report carries: why it stopped, what it could not cover,
//! and whether its search was limited (failed queries, providers down).

use super::model::{AnswerStatus, DecisionReason, Evaluation, StopReason};
use super::settings::DecideSettings;
use super::state::{QueryResult, SessionState};
use crate::text::sanitize_inline;

/// What the report can say about the question, from the state and the
/// iteration the report is written from.
pub fn answer_status(state: &SessionState, based_on: Option<u32>) -> AnswerStatus {
    let results = || state.iterations.iter().flat_map(|it| &it.queries).filter_map(|q| q.result.as_ref());
    let searched = results().any(|r| matches!(r, QueryResult::Searched { .. }));
    let failed = results().any(|r| matches!(r, QueryResult::Failed { .. }));
    let draft = based_on.and_then(|n| state.iteration_record(n));
    match draft {
        None if failed && !searched && state.sources.is_empty() => AnswerStatus::NotSearched,
        None => AnswerStatus::Unanswered,
        Some(it) if it.evaluation.as_ref().is_some_and(|e| e.unanswered) => AnswerStatus::Unanswered,
        Some(_) => AnswerStatus::Answered,
    }
}

/// The report's first words when it does not answer: said before anything
/// else, so nobody mistakes the closest material for an answer.
pub fn answer_lead(state: &SessionState, status: AnswerStatus, has_material: bool) -> Option<String> {
    let q = sanitize_inline(state.question());
    let q = q.trim();
    match status {
        AnswerStatus::Answered => None,
        AnswerStatus::Unanswered if has_material => Some(format!(
            "The sources found do not answer “{q}”. The closest material found follows; it is not an answer to the question."
        )),
        AnswerStatus::Unanswered => {
            // Sources kept with nothing to quote are not "no source found".
            let why = match state.sources.iter().filter(|s| s.kept()).count() {
                0 => "no usable source was found to draft from".to_string(),
                1 => "the one source kept holds no passage that answers it".to_string(),
                n => format!("the {n} sources kept hold no passage that answers it"),
            };
            Some(format!("The sources found do not answer “{q}”: {why}."))
        }
        AnswerStatus::NotSearched => {
            let why = state
                .iterations
                .iter()
                .flat_map(|it| &it.queries)
                .find_map(|q| match &q.result {
                    Some(QueryResult::Failed { error, .. }) => Some(sanitize_inline(error)),
                    _ => None,
                })
                .unwrap_or_default();
            Some(format!("No source could be searched, so “{q}” is not answered: every search failed ({why})."))
        }
    }
}

pub fn caveats(state: &SessionState, stop: StopReason, based_on: Option<u32>, s: &DecideSettings) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(i) = &state.interpretation {
        let left_out = if i.excluded.is_empty() {
            String::new()
        } else {
            format!("; sources about the other meaning ({}) were left out", i.excluded.join(", "))
        };
        out.push(format!("Interpretation: you chose “{}”{left_out}.", sanitize_inline(&i.chosen)));
    }
    if let Some(c) = failed_phases_caveat(state) {
        out.push(c);
    }
    if let Some(c) = search_caveat(state) {
        out.push(c);
    }
    if let Some(c) = failed_queries_caveat(state) {
        out.push(c);
    }
    if let Some(c) = no_sources_caveat(state) {
        out.push(c);
    }
    let best = based_on.and_then(|n| state.iteration_record(n));
    let eval = best.and_then(|it| it.evaluation.as_ref());
    match stop {
        StopReason::Cancelled => out.push("The session was cancelled; this is a partial report.".into()),
        StopReason::ForcedByUser => out.push("Output was forced by the user before the research loop finished.".into()),
        StopReason::Decision(reason) => match reason {
            DecisionReason::Thresholds => {}
            DecisionReason::MaxIterations => out.push(format!(
                "Stopped at the iteration limit ({} iterations) before the quality thresholds were met.",
                state.iteration()
            )),
            DecisionReason::CostBudget => out.push("Stopped because the cost budget was spent.".into()),
            DecisionReason::TokenBudget => out.push("Stopped because the token budget was spent.".into()),
            DecisionReason::TimeBudget => out.push("Stopped because the time limit was reached.".into()),
            DecisionReason::DiminishingReturns => {
                out.push("Stopped on diminishing returns: more research was no longer improving the answer.".into())
            }
            DecisionReason::Converged => {
                out.push("Stopped because the answer converged: revisions no longer changed it.".into())
            }
            DecisionReason::NeedsClarification | DecisionReason::BelowThresholds => {}
        },
    }
    match eval {
        Some(e) => {
            if e.confidence < s.confidence_threshold {
                out.push(provisional(e, s.confidence_threshold));
            }
            if !e.gaps.is_empty() {
                let gaps: Vec<String> = e.gaps.iter().map(|g| crate::text::label_as_prose(g)).collect();
                out.push(format!("Not covered by the sources found: {}.", gaps.join(", ")));
            }
            if e.contradictions > 0 {
                out.push(format!("Sources disagree on {} point(s); see the claims marked.", e.contradictions));
            }
        }
        None => out.push("No draft was evaluated; the answer is unscored.".into()),
    }
    // Monitor mode's tier 1 vs tier 5 comparison, as the critique recorded it.
    let monitor = best.and_then(|it| it.critique.as_ref()).into_iter().flat_map(|c| &c.issues);
    for issue in monitor.filter(|i| i.aspect.as_deref() == Some(super::monitor::ASPECT)) {
        out.push(issue.description.clone());
    }
    if let (Some(n), Some(last)) = (based_on, state.current())
        && n != last.iteration
    {
        out.push(format!(
            "Written from the draft of iteration {n}, which scored best, not from the last iteration ({}).",
            last.iteration
        ));
    }
    out
}

/// Queries that failed, when they were too few to mark the session
/// degraded (3 of 17, say): the reader still learns that the search had holes.
fn failed_queries_caveat(state: &SessionState) -> Option<String> {
    let queries = state.iterations.iter().flat_map(|it| &it.queries).filter(|q| q.result.is_some());
    let (failed, total) = queries.fold((0, 0), |(f, t), q| {
        (f + usize::from(matches!(q.result, Some(super::state::QueryResult::Failed { .. }))), t + 1)
    });
    if failed == 0 || state.degraded.iter().any(|d| d.is_failed_queries()) {
        return None;
    }
    Some(format!("{failed} of {total} search queries failed; what they would have found is missing from this answer."))
}

/// The phases that failed and fell back, by iteration: "plan, review
/// (iteration 1); critique (iteration 2)".
fn failed_phases_caveat(state: &SessionState) -> Option<String> {
    let mut parts = Vec::new();
    for it in &state.iterations {
        let failed = state.failed_phases(it.iteration);
        if !failed.is_empty() {
            parts.push(format!("{} (iteration {})", failed.join(", "), it.iteration));
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        "These phases failed and fell back to sleuth's simple defaults, which count as no evidence: {}.",
        parts.join("; ")
    ))
}

/// The caveat when the report writer failed and the draft stands in.
pub const WRITER_FAILED: &str =
    "The report writer (write) failed; this is the draft as it stood, not a written report.";

/// When nothing usable was left to draft from, why: from the iterations'
/// `no_valid_sources` events. Strict mode gets its own caveat, with the two
/// ways to widen it.
fn no_sources_caveat(state: &SessionState) -> Option<String> {
    if state.usable_sources().next().is_some() {
        return None;
    }
    let reasons: Vec<&str> = state.iterations.iter().filter_map(|it| it.no_valid_sources.as_deref()).collect();
    // The first reason says why the sources were dropped; later ones
    // often only say that nothing new turned up.
    let first = reasons.first()?;
    if state.iterations.iter().any(|it| it.no_valid_sources_strict) {
        let filtered = state
            .sources
            .iter()
            .filter(|s| s.verdict.as_ref().and_then(|v| v.reason.as_deref()) == Some("tier_filtered"))
            .count();
        return Some(format!(
            "Strict mode filtered out every source found ({filtered} of {}): it keeps only tiers 1–2, and \
             unknown domains are dropped. To widen it, run with `--mode discovery` (or `source_mode = \"discovery\"` \
             under `[research]`), or list the domains you trust as tier 1 or 2 under `[source_tiers]`.",
            state.sources.len()
        ));
    }
    Some(format!("No usable source was found, so no answer could be drafted ({first})."))
}

/// The caveat of a report whose confidence is below the threshold. With
/// calibration on, confidence is the estimated probability that the report
/// answers the question, and the caveat says so: "provisional" then means
/// "less likely than the threshold to answer", not "a score is low".
fn provisional(e: &Evaluation, threshold: f64) -> String {
    let shown = short_of(e.confidence, threshold);
    if e.calibration.as_ref().is_some_and(|c| c.mapping.is_some()) {
        format!(
            "Confidence {shown} — the estimated probability that this report answers the question — is below \
             {threshold:.2}; treat the answer as provisional."
        )
    } else {
        format!("Confidence {shown} is below the {threshold:.2} threshold; treat the answer as provisional.")
    }
}

/// A value just short of a threshold, with the decimals that show it short:
/// 0.849 against 0.85 reads "0.849", not "0.85 is below the 0.85 threshold".
fn short_of(value: f64, threshold: f64) -> String {
    let two = format!("{value:.2}");
    if two == format!("{threshold:.2}") { format!("{:.3}", (value * 1000.0).floor() / 1000.0) } else { two }
}

/// The search trouble the session met. A model that failed has a caveat of
/// its own (reasoning degraded), so it is not named here.
fn search_caveat(state: &SessionState) -> Option<String> {
    let causes: Vec<String> = state.degraded.iter().filter(|d| !d.is_reasoning()).map(ToString::to_string).collect();
    (!causes.is_empty()).then(|| {
        format!(
            "Search capabilities were limited; this answer is based on partial information ({}).",
            causes.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::engine::calibration::CalibrationSettings;
    use crate::engine::model::{ConfidenceCalibration, Evaluation, Verdict};

    fn evaluation(confidence: f64, calibrated: bool) -> Evaluation {
        let features = std::collections::BTreeMap::new();
        let mapping = calibrated.then(|| CalibrationSettings::default().apply(&features));
        Evaluation {
            confidence,
            components: Default::default(),
            weights: Default::default(),
            coverage: 0.9,
            aspects_required: 1,
            aspects_addressed: 1,
            dimensions: Default::default(),
            quality: 0.5,
            verdict: Verdict::Warn,
            severity_total: 0.0,
            gaps: vec![],
            contradictions: 0,
            claims: 1,
            supported_claims: 1,
            cited_sources: 1,
            needs_clarification: false,
            gain: 0.0,
            draft_similarity: None,
            failed_phases: vec![],
            unanswered: false,
            time_sensitive: false,
            held_back: None,
            calibration: Some(ConfidenceCalibration { features, mapping }),
        }
    }

    #[test]
    fn a_model_that_failed_is_not_called_a_search_limit() {
        use crate::engine::model::{Degradation, Role};
        let mut state = crate::engine::state::SessionState::default();
        state.degraded.push(Degradation::ModelFailed { phases: vec![Role::Plan] });
        assert_eq!(super::search_caveat(&state), None);
        state.degraded.push(Degradation::ProviderFailing { provider: "searxng".into() });
        let c = super::search_caveat(&state).expect("a search caveat");
        assert!(c.contains("searxng") && !c.contains("plan"), "{c}");
    }

    #[test]
    fn a_calibrated_provisional_caveat_says_what_the_number_is() {
        let c = super::provisional(&evaluation(0.42, true), 0.5);
        assert_eq!(
            c,
            "Confidence 0.42 — the estimated probability that this report answers the question — is below 0.50; \
             treat the answer as provisional."
        );
        let c = super::provisional(&evaluation(0.4999, true), 0.5);
        assert!(c.starts_with("Confidence 0.499 —"), "{c}");
    }

    #[test]
    fn an_uncalibrated_provisional_caveat_names_only_the_threshold() {
        let c = super::provisional(&evaluation(0.62, false), 0.85);
        assert_eq!(c, "Confidence 0.62 is below the 0.85 threshold; treat the answer as provisional.");
    }

    #[test]
    fn a_value_short_of_its_threshold_never_prints_as_the_threshold() {
        for (value, threshold, shown) in
            [(0.8, 0.85, "0.80"), (0.849, 0.85, "0.849"), (0.8496, 0.85, "0.849"), (0.5, 0.6, "0.50")]
        {
            assert_eq!(super::short_of(value, threshold), shown, "{value} vs {threshold}");
        }
    }
}
