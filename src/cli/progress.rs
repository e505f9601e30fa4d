//! One human line per notable event, for headless runs (stderr).

use crate::engine::model::Action;
use crate::engine::protocol::{Event, EventRecord};
use crate::engine::state::SessionState;
use crate::text::{counted, sanitize_inline};

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
            "{} plan: {}: {}",
            it(iteration),
            counted(queries.len(), "query", "queries"),
            queries.iter().map(|q| format!("\"{}\"", sanitize_inline(&q.text))).collect::<Vec<_>>().join(", ")
        ),
        Event::IterationStarted { iteration, queries } if !queries.is_empty() => {
            format!("{} start: {}", it(iteration), counted(queries.len(), "query", "queries"))
        }
        Event::QuerySearched { iteration, query, hits, provider, reformulated_from, .. } => {
            let re = reformulated_from
                .as_ref()
                .map(|f| format!(" (reformulated from \"{}\")", sanitize_inline(f)))
                .unwrap_or_default();
            let hits = counted(*hits, "hit", "hits");
            format!("{} search \"{}\" → {hits} ({provider}){re}", it(iteration), sanitize_inline(query))
        }
        Event::QueryFailed { iteration, query, error, .. } => {
            format!("{} search \"{}\" failed: {}", it(iteration), sanitize_inline(query), sanitize_inline(error))
        }
        Event::ProviderFallback { iteration, from, to, .. } => format!("{} fallback {from} → {to}", it(iteration)),
        Event::DegradedMode { iteration, cause } => {
            format!("{} degraded mode: {}", it(iteration), sanitize_inline(&cause.to_string()))
        }
        Event::BuiltinTookOver { takeover: t } => format!(
            "{} the built-in reasoner takes over from the model ({}): {}",
            it(&t.iteration),
            t.role,
            sanitize_inline(&t.error)
        ),
        Event::SearchCompleted { iteration, new_sources } => {
            // Pages found but unreadable were fetched too: the review counts
            // them, so this line gives the same total.
            let unreadable = state.iteration_record(*iteration).map_or(0, |r| r.skipped.len());
            match unreadable {
                0 => format!("{} {new_sources} new sources ({} in total)", it(iteration), state.sources.len()),
                u => format!(
                    "{} {new_sources} new sources, {u} unreadable ({} fetched; {} sources in total)",
                    it(iteration),
                    new_sources + u,
                    state.sources.len()
                ),
            }
        }
        Event::Reviewed { iteration, report, .. } if report.total_fetched == 0 => {
            format!("{} review: no new sources", it(iteration))
        }
        Event::Reviewed { iteration, report, .. } => format!(
            "{} review: kept {} of {} fetched (quality {:.2}{})",
            it(iteration),
            report.verified,
            report.total_fetched,
            report.quality_score,
            if report.meets_threshold { "" } else { ", below threshold" }
        ),
        Event::NoValidSources { iteration, reason, .. } => format!("{} no usable sources: {reason}", it(iteration)),
        Event::Drafted { iteration, draft } => format!("{} draft: {} claims", it(iteration), draft.claims.len()),
        Event::Critiqued { iteration, critique } => format!(
            "{} critique: {:?}, {} issues, {} gaps",
            it(iteration),
            critique.verdict,
            critique.issues.len(),
            critique.gaps.len()
        ),
        Event::Evaluated { iteration, evaluation: e } => format!(
            "{} evaluate: confidence {:.2} coverage {:.2}; {}",
            it(iteration),
            e.confidence,
            e.coverage,
            e.claims_line()
        ),
        Event::Decided { iteration, decision } => {
            format!("{} decide: {} — {}", it(iteration), decision.action, decision.detail)
        }
        Event::Refined { iteration, refinement } => {
            format!("{} refine: {} — {}", it(iteration), refinement.strategy, sanitize_inline(&refinement.rationale))
        }
        Event::Error { phase, message } => format!("error in {phase}: {}", sanitize_inline(message)),
        Event::Verified { verification: v } => format!(
            "verified: {} of {} claims backed by their quote (in the cited source, saying what the claim says); {} of {} cited sentences backed by their sources{}, {} unknown citation ids",
            v.claims_supported,
            v.claims_checked,
            v.statements_supported(),
            v.statements.len(),
            match v.statements.len() - v.statements_supported() {
                0 => String::new(),
                n => format!(" ({n} marked in the report)"),
            },
            v.unknown_ids.len()
        ),
        Event::ReportWritten { report } => match report.based_on_iteration {
            Some(n) => format!("report written from iteration {n}"),
            None => "report written: no draft was written, so it holds only its caveats".to_string(),
        },
        Event::SessionEnded { .. } => {
            let last = state.current().and_then(|i| i.decision.as_ref());
            let ask = last.is_some_and(|d| d.action == Action::Ask);
            format!(
                "done in {:.1} s · {} · confidence {:.2}{}",
                state.elapsed_ms as f64 / 1000.0,
                counted(state.iteration() as usize, "iteration", "iterations"),
                state.confidence,
                if ask { " · after a clarification" } else { "" }
            )
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::engine::model::{QualityReport, Report, StopReason};

    fn record(event: Event) -> EventRecord {
        EventRecord { seq: 1, at_ms: 0, elapsed_ms: 0, event }
    }

    fn report(fetched: usize, kept: usize) -> QualityReport {
        QualityReport {
            total_fetched: fetched,
            verified: kept,
            rejected: fetched - kept,
            rejection_breakdown: BTreeMap::new(),
            quality_score: if fetched == 0 { 0.0 } else { kept as f64 / fetched as f64 },
            meets_threshold: fetched > 0,
            suggested_refinement: None,
        }
    }

    fn reviewed(fetched: usize, kept: usize) -> Option<String> {
        let event = Event::Reviewed { iteration: 2, verdicts: Vec::new(), report: report(fetched, kept) };
        line(&record(event), &SessionState::default())
    }

    #[test]
    fn an_iteration_without_new_sources_says_so() {
        assert_eq!(reviewed(0, 0).as_deref(), Some("[2] review: no new sources"));
        assert_eq!(reviewed(4, 2).as_deref(), Some("[2] review: kept 2 of 4 fetched (quality 0.50)"));
    }

    #[test]
    fn a_report_without_a_draft_says_no_draft_was_written() {
        let written = |based_on| {
            let report = Report {
                markdown: String::new(),
                claims: Vec::new(),
                based_on_iteration: based_on,
                caveats: Vec::new(),
                stop: StopReason::Cancelled,
                answer: Default::default(),
            };
            line(&record(Event::ReportWritten { report }), &SessionState::default()).unwrap()
        };
        assert_eq!(written(Some(3)), "report written from iteration 3");
        let none = written(None);
        assert!(none.contains("no draft was written") && !none.contains('-'), "{none}");
    }

    #[test]
    fn the_verified_line_says_what_it_checks() {
        let v = crate::engine::model::Verification { claims_checked: 22, claims_supported: 22, ..Default::default() };
        let l = line(&record(Event::Verified { verification: v }), &SessionState::default()).unwrap();
        assert!(
            l.starts_with(
                "verified: 22 of 22 claims backed by their quote (in the cited source, saying what the claim says)"
            ),
            "{l}"
        );
        assert!(!l.contains("claims supported"), "{l}");
    }

    #[test]
    fn the_done_line_counts_one_iteration_in_the_singular() {
        let ended = Event::SessionEnded { outcome: crate::engine::model::Outcome::Finished };
        let mut state = SessionState::default();
        state.iterations.push(crate::engine::state::IterationRecord { iteration: 1, ..Default::default() });
        let one = line(&record(ended.clone()), &state).unwrap();
        assert!(one.contains(" · 1 iteration · "), "{one}");
        state.iterations.push(crate::engine::state::IterationRecord { iteration: 2, ..Default::default() });
        let two = line(&record(ended), &state).unwrap();
        assert!(two.contains(" · 2 iterations · "), "{two}");
    }
}
