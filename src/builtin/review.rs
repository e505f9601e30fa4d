//! REVIEW: keep or reject each new source, with a reason the quality
//! report counts: `redirect`, `too_short`, `duplicate`, `release_notes`,
//! `off_topic`.

use super::Src;
use super::aspects::Aspect;
use super::config::BuiltinConfig;
use super::rarity::Weights;
use super::release_notes::{ReleaseAsk, is_release_log};
use super::score::relevance;
use crate::engine::model::{SourceId, SourceVerdict};
use crate::text::sorted_jaccard;

/// Phrases of pages that only send the reader elsewhere.
const REDIRECT_MARKS: &[&str] =
    &["redirecting to", "has moved", "no longer available", "no longer distributed", "page moved"];

/// Relevance gained by a source found again by a later query after it was
/// rejected: two queries in different words agreeing on a page is retrieval
/// evidence its words alone did not give.
const FOUND_AGAIN_GAIN: f64 = 1.3;

/// The review's question-side inputs.
pub struct Asked<'a> {
    pub aspects: &'a [Aspect],
    pub constraint_stems: &'a [String],
    pub chosen: &'a [String],
    /// Candidates rejected before and found again now.
    pub found_again: &'a [SourceId],
    /// What the question asks of release logs (`release_notes::release_ask`).
    pub release: &'a ReleaseAsk,
}

pub fn review(
    candidates: &[Src<'_>],
    kept: &[Src<'_>],
    asked: &Asked<'_>,
    w: &Weights,
    cfg: &BuiltinConfig,
) -> Vec<SourceVerdict> {
    let Asked { aspects, constraint_stems, chosen, found_again, release } = *asked;
    let question_stems: Vec<&String> = aspects.iter().flat_map(|a| &a.stems).collect();
    let mut accepted: Vec<&Src<'_>> = kept.iter().collect();
    let mut out = Vec::new();
    let rels: Vec<f64> = candidates
        .iter()
        .map(|c| {
            let rel = relevance(aspects, &c.an, w, constraint_stems);
            if found_again.contains(&c.doc.meta.id) { (rel * FOUND_AGAIN_GAIN).min(1.0) } else { rel }
        })
        .collect();
    let floor = off_topic_below(&rels, kept, cfg.relevance_threshold);
    let best = rels.iter().copied().fold(0.0, f64::max);
    for (c, &rel) in candidates.iter().zip(&rels) {
        let rel = rel as f32;
        let verdict = |kept: bool, reason: Option<&str>, signals: Vec<String>| SourceVerdict {
            id: c.doc.meta.id,
            kept,
            reason: reason.map(str::to_string),
            relevance: rel,
            signals,
        };
        let lower = c.doc.text.to_lowercase();
        if c.an.words < 120 && REDIRECT_MARKS.iter().any(|m| lower.contains(m)) {
            out.push(verdict(false, Some("redirect"), Vec::new()));
            continue;
        }
        // A short page is a stub, unless it says what the question asks
        // (a folder of short notes, a one-line definition).
        let short =
            c.an.words < cfg.min_words && (c.an.words < cfg.min_words / 3 || f64::from(rel) < floor.max(0.8 * best));
        if short {
            out.push(verdict(false, Some("too_short"), Vec::new()));
            continue;
        }
        if accepted.iter().any(|k| sorted_jaccard(&k.an.fingerprint, &c.an.fingerprint) >= cfg.duplicate_similarity) {
            out.push(verdict(false, Some("duplicate"), Vec::new()));
            continue;
        }
        // A changelog shares the words of almost any question without
        // answering it; it answers only a question about its releases.
        if is_release_log(&c.an) && !release.answered_by(&c.an) {
            out.push(verdict(false, Some("release_notes"), Vec::new()));
            continue;
        }
        // After the user picked a sense, a source in another one is off topic.
        let other_sense = !chosen.is_empty() && !chosen.iter().any(|s| c.an.contains(s));
        if f64::from(rel) < floor || other_sense {
            out.push(verdict(false, Some("off_topic"), signals(c, &question_stems, w)));
            continue;
        }
        accepted.push(c);
        out.push(verdict(true, None, Vec::new()));
    }
    out
}

/// The relevance below which a source is off topic: the configured
/// threshold, relative to what the corpus offers for this question. When
/// nothing found reaches it (a small folder, a question in other words than
/// the documents'), the best found and those close to it are kept, down to
/// half the threshold: the document that answers is not thrown away because
/// the corpus words it differently.
fn off_topic_below(rels: &[f64], kept: &[Src<'_>], threshold: f64) -> f64 {
    let best_kept = kept.iter().filter_map(|k| k.doc.relevance).map(f64::from).fold(0.0, f64::max);
    let best = rels.iter().copied().fold(best_kept, f64::max);
    if best >= threshold { threshold } else { (0.8 * best).max(0.5 * threshold) }
}

/// What an off-topic source is about instead: its most frequent weighty
/// terms that the question does not use (candidate negative keywords).
fn signals(c: &Src<'_>, question: &[&String], w: &Weights) -> Vec<String> {
    let mut terms: Vec<(&String, f64)> =
        c.an.tf
            .iter()
            .filter(|(s, _)| !question.contains(s) && w.of(s) >= 0.4)
            .map(|(s, tf)| (s, f64::from(*tf) * w.of(s)))
            .collect();
    terms.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    terms.into_iter().take(3).filter_map(|(s, _)| c.an.surface.get(s).cloned()).collect()
}
