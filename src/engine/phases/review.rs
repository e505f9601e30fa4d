//! REVIEW: the mode's tier filter, then the reasoner's verdict on each new
//! source, then the quality report. User bans and pins override both.

use std::collections::HashMap;

use crate::engine::fallback;
use crate::engine::model::{Phase, Role};
use crate::engine::model::{SourceId, SourceKind, SourceVerdict};
use crate::engine::protocol::Event;
use crate::engine::quality::{quality_report, skip_rejection};
use crate::engine::reasoner::{ReviewContext, SourceDoc};
use crate::engine::run::{Engine, EngineError};
use crate::engine::tiers::{RETRACTED, STRICT_REASON_PREFIX, SourceMode, admits};

/// The review's reason for a source that is not about the question.
const OFF_TOPIC: &str = "off_topic";

impl Engine {
    pub(crate) async fn review_phase(&mut self, n: u32) -> Result<(), EngineError> {
        let found_again = self.reconsidered(n);
        let mut new_ids: Vec<SourceId> =
            self.state.iteration_record(n).map(|it| it.new_sources.clone()).unwrap_or_default();
        new_ids.extend(found_again.iter().copied());
        let mode = self.settings.source_mode;
        let mut filtered: Vec<SourceVerdict> = Vec::new();
        let mut candidates = Vec::new();
        for id in new_ids {
            let Some(doc) = self.doc(id) else { continue };
            let pinned = self.state.pinned.contains(&id);
            // A retracted work is no evidence, however relevant its text.
            if doc.meta.scholarly.as_ref().is_some_and(|s| s.retracted) && !pinned {
                filtered.push(SourceVerdict {
                    id,
                    kept: false,
                    reason: Some(RETRACTED.into()),
                    relevance: 0.0,
                    signals: Vec::new(),
                });
                continue;
            }
            if admits(mode, doc.meta.tier) || pinned {
                candidates.push(doc);
            } else {
                // The site is the signal: when several filtered sources share
                // it, the quality report suggests excluding it (`-site:`).
                let signals = match doc.meta.kind {
                    SourceKind::Web if !doc.meta.site.is_empty() => vec![format!("site:{}", doc.meta.site)],
                    _ => Vec::new(),
                };
                filtered.push(SourceVerdict {
                    id,
                    kept: false,
                    reason: Some("tier_filtered".into()),
                    relevance: 0.0,
                    signals,
                });
            }
        }
        let mut verdicts = if candidates.is_empty() {
            Vec::new()
        } else {
            let kept = self.usable_docs();
            let ctx = ReviewContext {
                question: self.question(),
                constraints: self.constraints(),
                candidates: candidates.clone(),
                kept,
                found_again,
            };
            let Some(reply) =
                self.reason_or_hand_over(Role::Review, ctx, |r, c| async move { r.review(c).await }).await?
            else {
                return Ok(());
            };
            match reply {
                Some(verdicts) => {
                    let (verdicts, missing) = complete(verdicts, &candidates);
                    if !missing.is_empty() {
                        // A failed batch (or a skipped source) is no evidence:
                        // those sources get the built-in review, and it shows.
                        let ids: Vec<String> = missing.iter().map(|d| d.meta.id.to_string()).collect();
                        self.emit_error(
                            Phase::Review,
                            format!(
                                "no verdict from the model for {}; the built-in review judged them",
                                ids.join(", ")
                            ),
                        )?;
                    }
                    let mut all = verdicts;
                    all.extend(fallback::review(&missing));
                    all
                }
                None => fallback::review(&candidates),
            }
        };
        verdicts.extend(filtered);
        verdicts.sort_by_key(|v| v.id);
        for v in &mut verdicts {
            if self.state.banned.contains(&v.id) {
                v.kept = false;
                v.reason = Some("banned_by_user".into());
            } else if self.state.pinned.contains(&v.id) {
                v.kept = true;
                v.reason = None;
            }
        }
        // Pages found but not readable (a PDF, a redirect loop, a failed
        // fetch, no text) were fetched too: the report counts them.
        let skipped: Vec<&'static str> = self
            .state
            .iteration_record(n)
            .map(|it| it.skipped.iter().map(|s| skip_rejection(&s.reason)).collect())
            .unwrap_or_default();
        let report = quality_report(&verdicts, &skipped, &self.settings.review);
        self.emit(Event::Reviewed { iteration: n, verdicts, report })?;
        // The chosen meaning's filter counts: sources of the meaning the user
        // ruled out are not there to draft from.
        if self.usable_docs().is_empty() {
            let (reason, strict) = self.no_usable_reason(n);
            self.emit(Event::NoValidSources { iteration: n, reason, strict: Some(strict) })?;
        }
        Ok(())
    }

    /// Sources to judge again in iteration `n`: rejected as off topic by an
    /// earlier review, then found again by this iteration's queries. A
    /// second query in other words finding the same page is evidence the
    /// first verdict did not have (a small corpus words things its own way).
    /// Each source is reconsidered once; the user's bans stand.
    fn reconsidered(&self, n: u32) -> Vec<SourceId> {
        let Some(it) = self.state.iteration_record(n) else { return Vec::new() };
        let before: Vec<SourceId> = self
            .state
            .iterations
            .iter()
            .filter(|other| other.iteration < n)
            .flat_map(|other| other.found_again.iter().copied())
            .collect();
        it.found_again
            .iter()
            .copied()
            .filter(|id| !before.contains(id) && !self.state.banned.contains(id))
            .filter(|id| {
                self.state
                    .source(*id)
                    .and_then(|s| s.verdict.as_ref())
                    .is_some_and(|v| !v.kept && v.reason.as_deref() == Some(OFF_TOPIC))
            })
            .collect()
    }

    /// Why nothing is left to draft from, and whether strict mode's tier
    /// filter is the cause: once anything was found in strict mode it is,
    /// even in an iteration whose hits all repeated sources it had already
    /// filtered out.
    fn no_usable_reason(&self, n: u32) -> (String, bool) {
        let Some(it) = self.state.iteration_record(n) else { return ("no sources".to_string(), false) };
        let kept = self.state.usable_sources().count();
        if kept > 0 {
            let reason = format!("the {kept} sources kept are about a meaning the answer to the question ruled out");
            return (reason, false);
        }
        let new = it.new_sources.len();
        let hits: usize = it
            .queries
            .iter()
            .map(|q| match &q.result {
                Some(crate::engine::state::QueryResult::Searched { hits, .. }) => *hits,
                _ => 0,
            })
            .sum();
        let known = self.state.sources.len();
        if self.settings.source_mode == SourceMode::Strict && (new > 0 || known > 0) {
            let reason = match new {
                0 => format!(
                    "{STRICT_REASON_PREFIX} kept none of the {known} sources found so far (only tiers 1–2 are allowed); \
                     this iteration's {hits} hits brought nothing new"
                ),
                k => format!("{STRICT_REASON_PREFIX} kept none of the {k} sources found (only tiers 1–2 are allowed)"),
            };
            return (reason, true);
        }
        let reason = match new {
            0 if hits > 0 || it.duplicates > 0 || !it.skipped.is_empty() => {
                format!("no new sources: the {hits} hits repeated sources already seen or could not be read")
            }
            0 => "no sources were found".to_string(),
            k => {
                // The review's own reasons, most common first: "too_short: 2".
                let mut why: Vec<(&String, &usize)> = it
                    .review
                    .as_ref()
                    .map(|(_, report)| report.rejection_breakdown.iter().collect())
                    .unwrap_or_default();
                why.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                let why: Vec<String> = why.iter().map(|(r, n)| format!("{r}: {n}")).collect();
                if why.is_empty() {
                    format!("review kept none of the {k} sources found")
                } else {
                    format!("review kept none of the {k} sources found ({})", why.join(", "))
                }
            }
        };
        (reason, false)
    }
}

/// One verdict per candidate the reviewer judged (unknown ids dropped,
/// repeats collapsed), and the candidates it left without a verdict.
fn complete(verdicts: Vec<SourceVerdict>, candidates: &[SourceDoc]) -> (Vec<SourceVerdict>, Vec<SourceDoc>) {
    let mut by_id: HashMap<SourceId, SourceVerdict> = HashMap::new();
    for mut v in verdicts {
        if candidates.iter().any(|c| c.meta.id == v.id) {
            v.relevance = v.relevance.clamp(0.0, 1.0);
            if !v.kept && v.reason.is_none() {
                v.reason = Some("unspecified".into());
            }
            by_id.entry(v.id).or_insert(v);
        }
    }
    let mut judged = Vec::new();
    let mut missing = Vec::new();
    for c in candidates {
        match by_id.remove(&c.meta.id) {
            Some(v) => judged.push(v),
            None => missing.push(c.clone()),
        }
    }
    (judged, missing)
}
