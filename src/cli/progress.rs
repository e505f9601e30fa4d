//! One human line per notable event, for headless runs (stderr).

use crate::engine::model::Action;
use crate::engine::protocol::{Event, EventRecord};
use crate::engine::state::SessionState;
use crate::text::sanitize_inline;

/// The progress line for `record`, given the state after applying it.
pub fn line(record: &EventRecord, state: &SessionState) -> Option<String> {
    let it = |n: &u32| format!("[{n}]");
    Some(match &record.event {
        Event::SessionStarted(h) => format!(
            "sleuth · session {} · {} preset · {} reasoner · providers {}",
            h.session_id,
            h.preset,
            h.reasoner,
            h.providers.iter().map(|c| c.join(">")).collect::<Vec<_>>().join(", ")
        ),
        Event::Planned { iteration, queries, .. } => format!(
            "{} plan: {} queries: {}",
            it(iteration),
            queries.len(),
            queries.iter().map(|q| format!("\"{}\"", sanitize_inline(&q.text))).collect::<Vec<_>>().join(", ")
        ),
        Event::IterationStarted { iteration, queries } if !queries.is_empty() => {
            format!("{} start: {} queries", it(iteration), queries.len())
        }
        Event::QuerySearched { iteration, query, hits, provider, reformulated_from, .. } => {
            let re = reformulated_from
                .as_ref()
                .map(|f| format!(" (reformulated from \"{}\")", sanitize_inline(f)))
                .unwrap_or_default();
            format!("{} search \"{}\" → {hits} hits ({provider}){re}", it(iteration), sanitize_inline(query))
        }
        Event::QueryFailed { iteration, query, error, .. } => {
            format!("{} search \"{}\" failed: {}", it(iteration), sanitize_inline(query), sanitize_inline(error))
        }
        Event::ProviderFallback { iteration, from, to, .. } => format!("{} fallback {from} → {to}", it(iteration)),
        Event::DegradedMode { iteration, reason } => {
            format!("{} degraded mode: {}", it(iteration), sanitize_inline(reason))
        }
        Event::SearchCompleted { iteration, new_sources } => {
            format!("{} {new_sources} new sources ({} in total)", it(iteration), state.sources.len())
        }
        Event::Reviewed { iteration, report, .. } => format!(
            "{} review: kept {} of {} (quality {:.2}{})",
            it(iteration),
            report.verified,
            report.total_fetched,
            report.quality_score,
            if report.meets_threshold { "" } else { ", below threshold" }
        ),
        Event::NoValidSources { iteration, reason } => format!("{} no usable sources: {reason}", it(iteration)),
        Event::Drafted { iteration, draft } => format!("{} draft: {} claims", it(iteration), draft.claims.len()),
        Event::Critiqued { iteration, critique } => format!(
            "{} critique: {:?}, {} issues, {} gaps",
            it(iteration),
            critique.verdict,
            critique.issues.len(),
            critique.gaps.len()
        ),
        Event::Evaluated { iteration, evaluation: e } => format!(
            "{} evaluate: confidence {:.2} coverage {:.2} ({} of {} claims supported)",
            it(iteration),
            e.confidence,
            e.coverage,
            e.supported_claims,
            e.claims
        ),
        Event::Decided { iteration, decision } => {
            format!("{} decide: {} — {}", it(iteration), decision.action, decision.detail)
        }
        Event::Refined { iteration, refinement } => {
            format!("{} refine: {} — {}", it(iteration), refinement.strategy, sanitize_inline(&refinement.rationale))
        }
        Event::Error { phase, message } => format!("error in {phase}: {}", sanitize_inline(message)),
        Event::Verified { verification: v } => format!(
            "verified: {} of {} claims supported, {} unknown citation ids",
            v.claims_supported,
            v.claims_checked,
            v.unknown_ids.len()
        ),
        Event::ReportWritten { report } => format!(
            "report written from iteration {}",
            report.based_on_iteration.map_or("-".to_string(), |n| n.to_string())
        ),
        Event::SessionEnded { .. } => {
            let last = state.current().and_then(|i| i.decision.as_ref());
            let ask = last.is_some_and(|d| d.action == Action::Ask);
            format!(
                "done in {:.1} s · {} iterations · confidence {:.2}{}",
                state.elapsed_ms as f64 / 1000.0,
                state.iteration(),
                state.confidence,
                if ask { " · after a clarification" } else { "" }
            )
        }
        _ => return None,
    })
}
