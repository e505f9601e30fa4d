//! EVALUATE and DECIDE: pure functions fed from the state; and the
//! reflexion lesson, stored when a revision fixed an issue and scored higher.

use std::collections::HashSet;

use super::call::research_limit_ms;
use crate::engine::citations::check_claim;
use crate::engine::convergence::{Convergence, severity_plateau};
use crate::engine::decide::{DecideInput, Progress, decide};
use crate::engine::evaluate::{CitedSource, EvaluateInput, evaluate, quote_supports_claim};
use crate::engine::memory::{MemoryEntry, lesson_mistake};
use crate::engine::model::{Critique, Phase, Role, SourceId};
use crate::engine::protocol::Event;
use crate::engine::run::{Engine, EngineError, now_ms};
use crate::text::{content_terms, normalize_for_match};

/// At most this many lessons are stored per iteration.
const MAX_LESSONS_PER_ITERATION: usize = 3;

impl Engine {
    pub(crate) fn evaluate_phase(&mut self, n: u32) -> Result<(), EngineError> {
        let Some(it) = self.state.iteration_record(n).cloned() else { return Ok(()) };
        let draft = it.draft.as_ref();
        let cited_ids: Vec<SourceId> = draft.map(|d| d.cited_sources()).unwrap_or_default();
        // Load the texts first: the closure below must not borrow `self` mutably.
        let texts: Vec<(SourceId, std::sync::Arc<str>)> =
            cited_ids.iter().filter_map(|id| self.normalized_text_of(*id).map(|t| (*id, t))).collect();
        let text_of = |id: SourceId| texts.iter().find(|(i, _)| *i == id).map(|(_, t)| &**t);
        // Supported: the quote is in its source and says what the claim says.
        let claim_supported: Vec<bool> = draft.map_or(Vec::new(), |d| {
            d.claims
                .iter()
                .map(|c| {
                    let quotes: Vec<&str> = c.citations.iter().map(|q| q.quote.as_str()).collect();
                    check_claim(c, &text_of).is_ok() && quote_supports_claim(&c.text, &quotes)
                })
                .collect()
        });
        // Sources added in an iteration whose review fell back carry the
        // fallback's verdict: its relevance is the search rank, not a judgement.
        let failed_review: Vec<u32> = self.state.iterations_where_failed(Phase::Review);
        let cited: Vec<CitedSource> = cited_ids
            .iter()
            .filter_map(|id| self.state.source(*id))
            .filter(|s| !self.state.banned.contains(&s.meta.id))
            .map(|s| CitedSource {
                meta: &s.meta,
                verdict: s.verdict.as_ref(),
                fallback_verdict: failed_review.contains(&s.meta.iteration),
            })
            .collect();
        let previous_draft = self.state.iterations.iter().take(n as usize - 1).rev().find_map(|i| i.draft.as_ref());
        let input = EvaluateInput {
            question: self.state.question(),
            draft,
            critique: it.critique.as_ref(),
            cited,
            all_sources: &self.state.sources,
            claim_supported,
            previous_confidence: it.confidence_before,
            previous_draft,
            today_days: today_days(),
            failed_phases: self.state.failed_phases(n),
        };
        let evaluation = evaluate(&input, &self.settings.evaluate);
        self.emit(Event::Evaluated { iteration: n, evaluation })?;
        self.learn(n)
    }

    pub(crate) fn decide_phase(&mut self, n: u32) -> Result<(), EngineError> {
        let Some(it) = self.state.iteration_record(n) else { return Ok(()) };
        let Some(evaluation) = it.evaluation.as_ref() else { return Ok(()) };
        let critiques: Vec<&Critique> = self.state.iterations.iter().filter_map(|i| i.critique.as_ref()).collect();
        let convergence = Convergence {
            draft_similarity: evaluation.draft_similarity,
            severity_plateau: severity_plateau(&critiques, self.settings.decide.severity_plateau_window),
            threshold: self.settings.decide.convergence_similarity,
        };
        // Research stops where the write step's reserve of the time limit begins.
        let mut limits = self.settings.limits.clone();
        if limits.time_limit_secs > 0 {
            limits.time_limit_secs = (research_limit_ms(limits.time_limit_secs) / 1000).max(1);
        }
        let input = DecideInput {
            iteration: n,
            limits: &limits,
            evaluation,
            trend: &self.state.convergence_trend,
            cost_usd: self.state.cost_usd,
            tokens: self.state.total_tokens(),
            elapsed_ms: self.state.elapsed_ms,
            asks_raised: self.state.asks.len() as u32,
            convergence,
            progress: self.progress(n),
        };
        let decision = decide(&input, &self.settings.decide);
        self.emit(Event::Decided { iteration: n, decision })?;
        self.checkpoint()
    }

    /// What iteration `n` added, for the stagnation rule: the sources its
    /// review kept — new ones, and ones an earlier review rejected that
    /// this one kept when its queries found them again: no earlier review
    /// had kept either — and the best earlier confidence it competes with
    /// (drafts since the last answered ASK: earlier ones may answer the
    /// other meaning).
    fn progress(&self, n: u32) -> Progress {
        let new_sources_kept = self.state.iteration_record(n).map_or(0, |it| {
            it.review.as_ref().map_or(0, |(verdicts, _)| {
                verdicts
                    .iter()
                    .filter(|v| v.kept && (it.new_sources.contains(&v.id) || it.found_again.contains(&v.id)))
                    .count()
            })
        });
        let since = self.state.asks.iter().filter(|a| a.answer.is_some()).map(|a| a.iteration).max().unwrap_or(0);
        let best_before = self
            .state
            .iterations
            .iter()
            .filter(|it| it.iteration > since && it.iteration < n && it.draft.is_some())
            .filter_map(|it| it.evaluation.as_ref().map(|e| e.confidence))
            .reduce(f64::max);
        Progress { new_sources_kept, best_before, rounds_cost_calls: self.reasoner.uses_model(Role::Draft) }
    }

    /// When iteration `n` scored clearly higher than `n - 1` (by
    /// `memory.min_gain`) and an issue the earlier critique raised is gone,
    /// remember the mistake, as a sentence, and the fix: one lesson per
    /// aspect (the store keeps one per question and aspect).
    fn learn(&mut self, n: u32) -> Result<(), EngineError> {
        if n < 2 || !self.settings.memory.enabled {
            return Ok(());
        }
        let (Some(before), Some(after)) = (self.state.iteration_record(n - 1), self.state.iteration_record(n)) else {
            return Ok(());
        };
        let (Some(cb), Some(ca)) = (before.critique.as_ref(), after.critique.as_ref()) else { return Ok(()) };
        let (Some(eb), Some(ea)) = (before.evaluation.as_ref(), after.evaluation.as_ref()) else { return Ok(()) };
        let gain = ea.confidence - eb.confidence;
        if gain <= 0.0 || gain < self.settings.memory.min_gain {
            return Ok(());
        }
        let still: HashSet<String> = ca.issues.iter().map(|i| normalize_for_match(&i.description)).collect();
        let how = match &before.refinement {
            Some(r) => format!(
                "{} refinement ({}) with queries: {}",
                r.strategy,
                r.rationale,
                r.queries.iter().map(|q| q.text.as_str()).collect::<Vec<_>>().join("; ")
            ),
            None => "a revised draft".to_string(),
        };
        let question = self.state.question().to_string();
        let mut aspects_taught: Vec<Option<String>> = Vec::new();
        let lessons: Vec<MemoryEntry> = cb
            .issues
            .iter()
            .filter(|i| !still.contains(&normalize_for_match(&i.description)))
            // Monitor mode's comparison is a finding about sources, not a mistake to learn from.
            .filter(|i| i.aspect.as_deref() != Some(crate::engine::monitor::ASPECT))
            .filter_map(|i| lesson_mistake(&i.description, i.aspect.as_deref()).map(|m| (i, m)))
            // One lesson per aspect of this revision.
            .filter(|(i, _)| {
                let key = i.aspect.as_deref().map(normalize_for_match);
                let first = key.is_none() || !aspects_taught.contains(&key);
                aspects_taught.push(key);
                first
            })
            .take(MAX_LESSONS_PER_ITERATION)
            .enumerate()
            .map(|(k, (issue, mistake))| {
                let mut tags = content_terms(&question);
                if let Some(a) = &issue.aspect {
                    tags.push(a.clone());
                }
                let (cb, ca) = (eb.confidence, ea.confidence);
                // An aspect found again is learned with the query that found it.
                let correction = match issue.aspect.as_deref().and_then(|a| found_by(a, after.draft.as_ref(), n, &self.state.sources)) {
                    Some((query, title)) => format!(
                        "Found in iteration {n} (confidence {cb:.2} → {ca:.2}) by the query “{query}”, which found “{title}”."
                    ),
                    None => format!("Fixed in iteration {n} (confidence {cb:.2} → {ca:.2}) by {how}."),
                };
                MemoryEntry {
                    id: format!("{}-{n}-{k}", self.settings.session_id),
                    question: question.clone(),
                    mistake,
                    correction,
                    tags,
                    created_at_ms: now_ms(),
                    aspect: issue.aspect.clone(),
                }
            })
            .collect();
        for entry in lessons {
            let (mistake, correction) = (entry.mistake.clone(), entry.correction.clone());
            match self.memory.store(entry) {
                Ok(()) => self.emit(Event::MemoryStored { mistake, correction })?,
                Err(e) => self.emit_error(Phase::Memory, e.to_string())?,
            }
        }
        Ok(())
    }
}

/// The query that found a source first added in iteration `n` and cited by
/// the draft for `aspect`, with that source's title: how a missed aspect was
/// found. `None` when the draft answers the aspect from older sources.
fn found_by(
    aspect: &str,
    draft: Option<&crate::engine::model::Draft>,
    n: u32,
    sources: &[crate::engine::state::SourceEntry],
) -> Option<(String, String)> {
    draft?
        .claims
        .iter()
        .filter(|c| c.aspect.as_deref() == Some(aspect))
        .flat_map(|c| &c.citations)
        .filter_map(|c| sources.get(c.source.index()))
        .find(|s| s.meta.iteration == n && !s.meta.query.is_empty())
        .map(|s| (s.meta.query.clone(), s.meta.title.clone()))
}

fn today_days() -> i64 {
    (now_ms() / 86_400_000) as i64
}

// Keeps `days_since_epoch` and `today_days` on the same calendar.
#[cfg(test)]
mod tests {
    use crate::engine::model::{Citation, Claim, Draft, SourceId, SourceKind, SourceMeta};
    use crate::engine::state::SourceEntry;

    fn source(id: u32, iteration: u32, query: &str, title: &str) -> SourceEntry {
        SourceEntry {
            meta: SourceMeta {
                id: SourceId(id),
                locator: format!("doc/{id}"),
                canonical: format!("doc/{id}"),
                title: title.into(),
                site: "doc".into(),
                provider: "local".into(),
                kind: SourceKind::Local,
                tier: None,
                source_type: None,
                heading: None,
                published: None,
                accessed_at_ms: 0,
                iteration,
                query: query.into(),
                score: 1.0,
                text_len: 10,
                text_hash: String::new(),
                scholarly: None,
            },
            verdict: None,
            duplicates: Vec::new(),
        }
    }

    fn claim(aspect: &str, source: u32) -> Claim {
        Claim {
            text: "t".into(),
            citations: vec![Citation { source: SourceId(source), quote: "t".into() }],
            aspect: Some(aspect.into()),
        }
    }

    #[test]
    fn a_missed_aspect_is_learned_with_the_query_that_found_it() {
        let sources = vec![source(1, 1, "first query", "Old page"), source(2, 2, "binary heap smallest", "BinaryHeap")];
        let draft =
            Draft { markdown: String::new(), claims: vec![claim("priority queue", 1), claim("smallest item", 2)] };
        let cases = [
            ("smallest item", 2, Some(("binary heap smallest".to_string(), "BinaryHeap".to_string()))),
            // Answered from a source an earlier iteration found: no query to credit.
            ("priority queue", 2, None),
            // Not cited for that aspect at all.
            ("other aspect", 2, None),
            // The source came in another iteration than the one that fixed it.
            ("smallest item", 3, None),
        ];
        for (aspect, n, expected) in cases {
            assert_eq!(super::found_by(aspect, Some(&draft), n, &sources), expected, "{aspect} in iteration {n}");
        }
        assert_eq!(super::found_by("smallest item", None, 2, &sources), None);
    }

    #[test]
    fn today_is_after_2026() {
        assert!(super::today_days() >= crate::engine::evaluate::days_since_epoch("2026-01-01").unwrap_or(i64::MAX));
    }
}
