//! Deterministic, plausible sessions built from hand-made events: the
//! material of the TUI's tests, snapshots and benchmarks. Every record goes
//! through the real fold (`SessionState::apply`), exactly like a live run.

use std::collections::BTreeMap;

use serde_json::json;

use crate::engine::model::*;
use crate::engine::protocol::{Answer, Event, EventRecord, Limits, SCHEMA_VERSION, SessionHeader};
use crate::engine::state::SessionState;

mod parts;

use parts::{chunk, clarification, critique, draft, evaluation, refinement, reflection};

/// Where the sample session stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Report written, verified, ended.
    Finished,
    /// Step mode: paused after the last iteration.
    Paused,
    /// An ASK raised in the last iteration and not answered.
    AskOpen,
    /// In the middle of the last iteration's search.
    Searching,
    /// Streaming the report (some deltas, no `ReportWritten`).
    Writing,
}

#[derive(Debug, Clone)]
pub struct Sample {
    pub question: String,
    pub iterations: u32,
    pub sources_per_iteration: u32,
    /// An ASK in this iteration, answered with its first option.
    pub answered_ask_at: Option<u32>,
    pub stop: Stop,
    /// Source 2's title and text carry terminal escape sequences.
    pub hostile_source: bool,
    pub report_chunks: usize,
    /// The mistakes of the reflexion memories offered to the first plan.
    pub lessons: Vec<String>,
}

impl Default for Sample {
    fn default() -> Self {
        Self {
            question: "How does the ? operator convert errors in Rust?".into(),
            iterations: 3,
            sources_per_iteration: 4,
            answered_ask_at: None,
            stop: Stop::Finished,
            hostile_source: false,
            report_chunks: 12,
            lessons: Vec::new(),
        }
    }
}

/// The text of source `n` in a sample session (for a text store).
pub fn source_text(n: u32, hostile: bool) -> String {
    let base = format!(
        "Section {n}. The ? operator returns early with the error, calling From::from on it so that \
         error type {n} converts into the function's error type. A match on Result is the long form. \
         Notes on topic {n}: iterators, traits and lifetimes are discussed elsewhere."
    );
    if hostile && n == 2 { format!("\x1b]0;pwned\x07Danger\x1b[2J zone. {base}") } else { base }
}

const T0: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

struct Writer {
    seq: u64,
    out: Vec<EventRecord>,
    state: SessionState,
}

impl Writer {
    fn emit(&mut self, event: Event) {
        self.seq += 1;
        let record = EventRecord { seq: self.seq, at_ms: T0 + self.seq * 700, elapsed_ms: self.seq * 350, event };
        self.state.apply(&record);
        self.out.push(record);
    }
}

impl Sample {
    /// The session's records, in order.
    pub fn records(&self) -> Vec<EventRecord> {
        let mut w = Writer { seq: 0, out: Vec::new(), state: SessionState::default() };
        w.emit(Event::SessionStarted(self.header()));
        let mut next_id = 1u32;
        let mut pending: Vec<PlannedQuery> = Vec::new();
        for k in 1..=self.iterations {
            let last = k == self.iterations;
            w.emit(Event::IterationStarted { iteration: k, queries: std::mem::take(&mut pending) });
            let queries: Vec<PlannedQuery> = if k == 1 {
                let queries: Vec<PlannedQuery> =
                    ["? operator error conversion", "From trait for errors", "Result early return"]
                        .iter()
                        .map(|q| PlannedQuery::new(*q, "cover the mechanism"))
                        .collect();
                w.emit(Event::Planned {
                    iteration: 1,
                    reflection: reflection(1),
                    queries: queries.clone(),
                    memories_used: (1..=self.lessons.len()).map(|i| format!("memory-{i}")).collect(),
                    lessons_used: self.lessons.clone(),
                });
                queries
            } else {
                w.state.current().map(|it| it.queries.iter().map(|q| q.query.clone()).collect()).unwrap_or_default()
            };
            for (i, q) in queries.iter().enumerate() {
                if k == 2 && i == 2 {
                    w.emit(Event::QueryFailed {
                        iteration: k,
                        query_index: i,
                        query: q.text.clone(),
                        error: "local index busy (timeout after 5 s)".into(),
                        attempts: 3,
                    });
                } else {
                    w.emit(Event::QuerySearched {
                        iteration: k,
                        query_index: i,
                        query: q.text.clone(),
                        provider: "local".into(),
                        hits: 5 + i,
                        reformulated_from: None,
                    });
                }
            }
            if last && self.stop == Stop::Searching {
                return w.out;
            }
            let first_new = next_id;
            for j in 0..self.sources_per_iteration {
                let id = SourceId(next_id);
                next_id += 1;
                w.emit(Event::SourceAdded { source: self.source(id, k, &queries[j as usize % queries.len()].text) });
            }
            if self.sources_per_iteration > 1 {
                w.emit(Event::SourceDuplicate {
                    iteration: k,
                    of: SourceId(first_new),
                    locator: format!("std/ops/trait.Try{k}.html"),
                });
            }
            w.emit(Event::SearchCompleted { iteration: k, new_sources: self.sources_per_iteration as usize });
            let verdicts: Vec<SourceVerdict> = (first_new..next_id)
                .map(|n| {
                    let rejected = n % 4 == 0;
                    SourceVerdict {
                        id: SourceId(n),
                        kept: !rejected,
                        reason: rejected.then(|| if n % 8 == 0 { "too_short".into() } else { "off_topic".into() }),
                        relevance: if rejected { 0.2 } else { 0.8 },
                        signals: if rejected { vec!["lifetimes".into()] } else { vec![] },
                    }
                })
                .collect();
            let rejected = verdicts.iter().filter(|v| !v.kept).count();
            let mut breakdown = BTreeMap::new();
            for v in verdicts.iter().filter(|v| !v.kept) {
                *breakdown.entry(v.reason.clone().unwrap_or_default()).or_insert(0) += 1;
            }
            let fetched = verdicts.len();
            let quality = if fetched == 0 { 0.0 } else { (fetched - rejected) as f64 / fetched as f64 };
            let report = QualityReport {
                total_fetched: fetched,
                verified: fetched - rejected,
                rejected,
                rejection_breakdown: breakdown,
                quality_score: quality,
                meets_threshold: quality >= 0.3,
                suggested_refinement: (rejected > 0).then(|| SuggestedRefinement {
                    reason: "off-topic pages dominate the rejections".into(),
                    add_negative_keywords: vec!["lifetimes".into()],
                    add_positive_keywords: vec!["From".into()],
                }),
            };
            w.emit(Event::Reviewed { iteration: k, verdicts: verdicts.clone(), report });
            let kept: Vec<SourceId> = w.state.usable_sources().map(|s| s.meta.id).collect();
            let draft = draft(k, &kept, self.hostile_source);
            w.emit(Event::Drafted { iteration: k, draft: draft.clone() });
            let ask_here = self.answered_ask_at == Some(k) || (last && self.stop == Stop::AskOpen);
            let critique = critique(k, ask_here);
            w.emit(Event::Critiqued { iteration: k, critique: critique.clone() });
            w.emit(Event::UsageRecorded {
                usage: Usage {
                    role: Role::Draft,
                    model: "sample".into(),
                    prompt_tokens: 1200 * u64::from(k),
                    completion_tokens: 300,
                    cost_usd: 0.004,
                    estimated: false,
                    calls: 1,
                    cached_tokens: 0,
                },
            });
            let confidence = (0.35 + 0.17 * f64::from(k - 1)).min(0.91);
            let prev = w.state.confidence;
            w.emit(Event::Evaluated {
                iteration: k,
                evaluation: evaluation(confidence, confidence - prev, &critique, &draft),
            });
            let finishing = last && matches!(self.stop, Stop::Finished | Stop::Writing);
            let decision = if ask_here {
                Decision {
                    action: Action::Ask,
                    reason: DecisionReason::NeedsClarification,
                    detail: "the critique found two readings of the question".into(),
                }
            } else if finishing {
                Decision {
                    action: Action::Output,
                    reason: if k >= 5 { DecisionReason::MaxIterations } else { DecisionReason::Thresholds },
                    detail: format!("confidence {confidence:.2} ≥ 0.85, coverage 0.92 ≥ 0.90"),
                }
            } else {
                Decision {
                    action: Action::Continue,
                    reason: DecisionReason::BelowThresholds,
                    detail: format!("confidence {confidence:.2} < 0.85"),
                }
            };
            w.emit(Event::Decided { iteration: k, decision: decision.clone() });
            if ask_here {
                let ask_id = format!("ask-{k}");
                w.emit(Event::AskRaised { ask_id: ask_id.clone(), iteration: k, clarification: clarification() });
                if last && self.stop == Stop::AskOpen {
                    return w.out;
                }
                w.emit(Event::AskAnswered {
                    ask_id,
                    answer: Answer::Choice { index: 0, label: "the ? operator on Result".into() },
                });
            }
            if finishing {
                break;
            }
            let refinement = refinement(k);
            pending = refinement.queries.clone();
            w.emit(Event::Refined { iteration: k, refinement });
            if last && self.stop == Stop::Paused {
                w.emit(Event::Paused { iteration: k });
                return w.out;
            }
        }
        let best = w.state.best_iteration().and_then(|it| it.draft.clone()).unwrap_or_default();
        let chunks = chunk(&best.markdown, self.report_chunks);
        for c in chunks {
            w.emit(Event::ReportDelta { text: c });
        }
        if self.stop == Stop::Writing {
            return w.out;
        }
        let report = Report {
            markdown: best.markdown.clone(),
            claims: best.claims.clone(),
            based_on_iteration: w.state.best_iteration().map(|it| it.iteration),
            caveats: vec!["One query failed in iteration 2; its aspect rests on fewer sources.".into()],
            stop: StopReason::Decision(DecisionReason::Thresholds),
            answer: Default::default(),
        };
        w.emit(Event::ReportWritten { report });
        let cited = best.cited_sources();
        let unsupported = best
            .claims
            .last()
            .map(|c| UnsupportedClaim {
                claim: c.text.clone(),
                source: c.citations.first().map(|x| x.source),
                quote: c.citations.first().map(|x| x.quote.clone()).unwrap_or_default(),
                why: "the quote was not found in the source's text".into(),
            })
            .into_iter()
            .collect::<Vec<_>>();
        w.emit(Event::Verified {
            verification: Verification {
                cited,
                unknown_ids: vec![],
                claims_checked: best.claims.len(),
                claims_supported: best.claims.len().saturating_sub(unsupported.len()),
                unsupported,
                statements: Vec::new(),
            },
        });
        w.emit(Event::SessionEnded { outcome: Outcome::Finished });
        w.out
    }

    /// Writes the session as sleuth stores it: `<dir>/events.jsonl` and
    /// `<dir>/sources/<n>.txt`.
    pub fn write_to(&self, dir: &std::path::Path) -> std::io::Result<()> {
        let session = crate::session::SessionDir::at(dir);
        std::fs::create_dir_all(session.sources_dir())?;
        let records = self.records();
        let mut log = String::new();
        for r in &records {
            log.push_str(&serde_json::to_string(r).map_err(std::io::Error::other)?);
            log.push('\n');
        }
        std::fs::write(session.log_path(), log)?;
        let sources = SessionState::replay(&records).sources.len() as u32;
        for n in 1..=sources {
            std::fs::write(session.sources_dir().join(format!("{n}.txt")), source_text(n, self.hostile_source))?;
        }
        Ok(())
    }

    /// The folded state of [`Sample::records`].
    pub fn state(&self) -> SessionState {
        SessionState::replay(&self.records())
    }

    fn header(&self) -> SessionHeader {
        SessionHeader {
            schema_version: SCHEMA_VERSION,
            sleuth_version: "0.1.0".into(),
            session_id: "20260101-000000-abcd".into(),
            question: self.question.clone(),
            preset: "standard".into(),
            limits: Limits {
                max_iterations: self.iterations.max(5),
                max_queries: 10,
                max_sources: 15,
                time_limit_secs: 120,
                cost_budget_usd: 0.5,
                token_budget: 400_000,
            },
            step_mode: self.stop == Stop::Paused,
            reasoner: "builtin".into(),
            providers: vec![vec!["local".into()]],
            config: json!({}),
            forked_from: None,
            follow_up_of: None,
            imported: None,
        }
    }

    fn source(&self, id: SourceId, iteration: u32, query: &str) -> SourceMeta {
        let n = id.0;
        let title = if self.hostile_source && n == 2 {
            "Evil \x1b]0;pwned\x07title\x1b[2J here".to_string()
        } else {
            format!("The ? operator, part {n}")
        };
        SourceMeta {
            id,
            locator: format!("std/ops/trait.Try{n}.html"),
            canonical: format!("std/ops/trait.Try{n}.html"),
            title,
            site: "rust-docs".into(),
            provider: "local".into(),
            kind: SourceKind::Local,
            tier: Some(if n.is_multiple_of(3) { 3 } else { 1 }),
            source_type: Some("official".into()),
            heading: Some(format!("Section {n}")),
            published: None,
            accessed_at_ms: T0,
            iteration,
            query: query.to_string(),
            score: 10.0 - (n % 10) as f32,
            text_len: source_text(n, self.hostile_source).len(),
            text_hash: format!("{n:016x}"),
            scholarly: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Stage;

    #[test]
    fn each_stop_leaves_the_loop_where_it_says() {
        let at = |stop| Sample { stop, ..Sample::default() }.state();
        assert_eq!(at(Stop::Finished).stage(), Stage::Finished);
        assert_eq!(at(Stop::Paused).stage(), Stage::Paused);
        assert_eq!(at(Stop::AskOpen).stage(), Stage::WaitingForAnswer);
        assert!(at(Stop::AskOpen).open_ask().is_some());
        assert_eq!(at(Stop::Searching).stage(), Stage::Searching);
        assert_eq!(at(Stop::Writing).stage(), Stage::Writing);
    }

    #[test]
    fn sizes_are_as_asked() {
        let s = Sample { iterations: 50, sources_per_iteration: 10, ..Sample::default() }.state();
        assert_eq!(s.iterations.len(), 50);
        assert_eq!(s.sources.len(), 500);
        assert!(s.report.is_some() && s.verification.is_some());
    }
}
