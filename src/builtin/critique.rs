//! CRITIQUE: which aspects the draft supports (and how thinly), which it
//! leaves as gaps, where sources disagree, and a verdict with severities.
//! Coverage and confidence then follow in the engine from these signals.

use std::collections::{BTreeSet, HashMap};

use super::Src;
use super::analysis::Stemmer;
use super::answer::{self, Judgement};
use super::aspects::{Aspect, coverage};
use super::rarity::Weights;
use super::score::{Support, sentence_support};
use crate::engine::model::{Claim, Contradiction, Critique, Draft, Issue, Severity, SourceId, Verdict};
use crate::text::{contains_normalized, normalize_for_match};

/// Sentences per source and aspect compared for contradictions.
const PER_SOURCE: usize = 6;

/// Words that flip what a sentence says.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "cannot", "can't", "don't", "doesn't", "isn't", "aren't", "won't", "without", "neither",
    "nor",
];

fn verified(claim: &Claim, sources: &[Src<'_>]) -> bool {
    claim.citations.iter().any(|c| {
        sources.iter().any(|s| {
            s.doc.meta.id == c.source && !c.quote.trim().is_empty() && contains_normalized(&s.doc.text, &c.quote)
        })
    })
}

/// A claim whose quote checked out, where its quotes sit, and its stems.
type VerifiedClaim<'c> = (&'c Claim, Vec<(usize, Option<usize>)>, Vec<String>);

/// Where a claim's quote sits: the source and, when the quote is made of
/// its sentences (one, or several in a row: "One. Two."), each of them.
fn locate(claim: &Claim, sources: &[Src<'_>]) -> Vec<(usize, Option<usize>)> {
    let mut out = Vec::new();
    for c in &claim.citations {
        let Some(si) = sources.iter().position(|s| s.doc.meta.id == c.source) else { continue };
        let src = &sources[si];
        let quote = normalize_for_match(&c.quote);
        let words = c.quote.split_whitespace().count();
        let sentences: Vec<usize> = (0..src.an.sentences.len())
            .filter(|&i| {
                let s = &src.an.sentences[i];
                let said = normalize_for_match(&src.doc.text[s.start..s.end]);
                !said.is_empty() && s.words <= words && quote.contains(&said)
            })
            .collect();
        let whole = sentences.iter().map(|&i| src.an.sentences[i].words).sum::<usize>() == words;
        if whole && !sentences.is_empty() {
            out.extend(sentences.into_iter().map(|i| (si, Some(i))));
        } else {
            out.push((si, None));
        }
    }
    out
}

pub fn critique(
    draft: &Draft,
    aspects: &[Aspect],
    sources: &[Src<'_>],
    w: &Weights,
    stemmer: &mut Stemmer,
) -> Critique {
    let mut addressed = Vec::new();
    let mut weak = Vec::new();
    let mut gaps = Vec::new();
    let mut issues = Vec::new();
    let verified_claims: Vec<VerifiedClaim<'_>> = draft
        .claims
        .iter()
        .filter(|c| verified(c, sources))
        .map(|c| (c, locate(c, sources), stemmer.stems(&c.text)))
        .collect();
    let top_weight = aspects.iter().map(|a| a.weight).fold(0.0, f64::max);
    let opening = answer::opening_for_match(&draft.markdown);
    // A related concept is a pointer (the draft's See also), not something
    // asked: it is neither required nor a gap, and missing it is no issue
    // to fix or learn from.
    for a in aspects.iter().filter(|a| !a.related) {
        // Sources whose quoted sentences support the aspect fully, or in part.
        let mut full: BTreeSet<SourceId> = BTreeSet::new();
        let mut partial: BTreeSet<SourceId> = BTreeSet::new();
        for (claim, places, stems) in &verified_claims {
            for (si, sentence) in places {
                let support = match sentence {
                    Some(i) => sentence_support(a, &sources[*si].an, *i, w),
                    None => {
                        let lit = coverage(a, |k| stems.binary_search_by(|s| s.as_str().cmp(k)).is_ok(), w);
                        Support { literal: lit, context: lit, section: 0.0 }
                    }
                };
                let id = sources[*si].doc.meta.id;
                if support.full(a) && in_context(a, aspects, claim, *si, *sentence, stems, &opening, sources, w) {
                    full.insert(id);
                } else if support.on() || claim.aspect.as_deref() == Some(a.label.as_str()) {
                    partial.insert(id);
                }
            }
        }
        match full.len() {
            0 => {
                gaps.push(a.label.clone());
                let severity = if a.weight >= top_weight { Severity::High } else { Severity::Medium };
                let description = if partial.is_empty() {
                    format!("No source found supports “{}”.", a.label)
                } else {
                    format!("“{}” is only touched on: no sentence found holds all of it.", a.label)
                };
                issues.push(Issue { severity, description, aspect: Some(a.label.clone()) });
            }
            1 => {
                addressed.push(a.label.clone());
                weak.push(a.label.clone());
                let only = full.iter().next().map(|id| id.to_string()).unwrap_or_default();
                issues.push(Issue {
                    severity: Severity::Low,
                    description: format!("“{}” rests on a single source {only}.", a.label),
                    aspect: Some(a.label.clone()),
                });
            }
            _ => addressed.push(a.label.clone()),
        }
    }
    let unverified = draft.claims.iter().filter(|c| !verified(c, sources)).count();
    if unverified > 0 {
        issues.push(Issue {
            severity: Severity::Critical,
            description: format!("{unverified} claim(s) quote text their source does not contain."),
            aspect: None,
        });
    }
    let cited = draft.cited_sources().len();
    if cited < 3 && !draft.claims.is_empty() {
        issues.push(Issue {
            severity: Severity::Medium,
            description: format!("Only {} cited.", crate::text::counted(cited, "source", "sources")),
            aspect: None,
        });
    }
    let contradictions = contradictions(aspects, sources, w);
    for c in &contradictions {
        issues.push(Issue {
            severity: Severity::High,
            description: format!("{} and {} disagree: “{}”", c.source_a, c.source_b, c.claim),
            aspect: None,
        });
    }
    let asked_gaps = gaps.len();
    let asked = aspects.iter().filter(|a| !a.related).count();
    let verdict = if draft.claims.is_empty() || asked_gaps * 2 > asked || unverified > 0 {
        Verdict::Reject
    } else if !gaps.is_empty() || !contradictions.is_empty() || !weak.is_empty() || cited < 3 {
        Verdict::Warn
    } else {
        Verdict::Pass
    };
    Critique {
        verdict,
        issues,
        aspects_required: aspects.iter().filter(|a| !a.related).map(|a| a.label.clone()).collect(),
        aspects_addressed: addressed,
        weak_aspects: weak,
        gaps,
        related_aspects: aspects.iter().filter(|a| a.related).map(|a| a.label.clone()).collect(),
        contradictions,
        needs_clarification: None,
        dimensions: None,
        answer_relevance: None,
        unanswered: false,
    }
}

/// Review relevance from which a source is about the question as a whole.
const IN_CONTEXT_RELEVANCE: f64 = 0.5;

/// Whether a claim answers aspect `a` in the question's context, not
/// merely holds its words: it is part of the direct answer, or its sentence,
/// heading or page title also holds a term of another aspect asked, or its
/// source is clearly about the question (a
/// question of one aspect is its own context).
#[allow(clippy::too_many_arguments)]
fn in_context(
    a: &Aspect,
    aspects: &[Aspect],
    claim: &Claim,
    si: usize,
    sentence: Option<usize>,
    stems: &[String],
    opening: &str,
    sources: &[Src<'_>],
    w: &Weights,
) -> bool {
    let others: Vec<&Aspect> = aspects.iter().filter(|o| !o.related && o.label != a.label).collect();
    // A source the review found clearly on the question speaks in its context.
    let on_question = f64::from(sources[si].doc.relevance.unwrap_or(0.0)) >= IN_CONTEXT_RELEVANCE;
    if a.related || others.is_empty() || on_question || opening.contains(&normalize_for_match(&claim.text)) {
        return true;
    }
    others.iter().any(|o| match sentence {
        Some(i) => sentence_support(o, &sources[si].an, i, w).context > 0.0,
        None => coverage(o, |k| stems.binary_search_by(|s| s.as_str().cmp(k)).is_ok(), w) > 0.0,
    })
}

/// Records the judgement of the direct answer: its relevance, and whether
/// the sources answer at all, with the figures behind them as an issue.
pub fn judge_answer(c: &mut Critique, j: Judgement) {
    c.answer_relevance = Some((j.relevance * 1e4).round() / 1e4);
    c.unanswered = j.unanswered;
    let quoted = |names: &[String]| names.iter().map(|n| format!("“{n}”")).collect::<Vec<_>>().join(", ");
    let issue = if !j.foreign.is_empty() {
        Some((
            Severity::Critical,
            format!(
                "No source found mentions {}: the question is about what these sources do not cover.",
                quoted(&j.foreign)
            ),
        ))
    } else if !j.unheld.is_empty() {
        Some((
            Severity::Critical,
            format!(
                "No source found holds {}: the question asks about a part of what these sources only name.",
                quoted(&j.unheld)
            ),
        ))
    } else if !j.nowhere.is_empty() {
        Some((
            Severity::Critical,
            format!(
                "No source found holds {}: most of what the question asks is not what these sources cover.",
                quoted(&j.nowhere)
            ),
        ))
    } else if j.unanswered {
        Some((
            Severity::Critical,
            format!(
                "No passage of the sources answers the question: the best holds {:.2} of it (answering needs {:.2}).",
                j.best, j.needs
            ),
        ))
    } else {
        // A better opening exists: the next draft can lead with it.
        (j.lead + 0.1 < j.best).then(|| {
            (
                Severity::Medium,
                format!("The opening holds {:.2} of the question; a passage found holds {:.2}.", j.lead, j.best),
            )
        })
    };
    if let Some((severity, description)) = issue {
        c.issues.push(Issue { severity, description, aspect: None });
    }
    if j.unanswered {
        c.verdict = Verdict::Reject;
    }
}

/// Marks a critique whose sources split into unrelated senses: the asked
/// aspects become gaps and the verdict a rejection.
pub fn ambiguous(c: &mut Critique, asked: &[Aspect], clarification: &crate::engine::model::Clarification) {
    for a in asked {
        c.aspects_addressed.retain(|x| x != &a.label);
        c.weak_aspects.retain(|x| x != &a.label);
        if !c.gaps.contains(&a.label) {
            c.gaps.push(a.label.clone());
        }
    }
    c.verdict = Verdict::Reject;
    c.issues.push(Issue {
        severity: Severity::High,
        description: format!(
            "The sources split into unrelated senses ({}): the draft mixes them.",
            clarification.options.join(" | ")
        ),
        aspect: None,
    });
}

/// Sentences from two sources about the same aspect that say nearly the
/// same words with opposite polarity (one negated). Only what can be told
/// from the words: a paraphrase that disagrees goes unnoticed.
pub fn contradictions(aspects: &[Aspect], sources: &[Src<'_>], w: &Weights) -> Vec<Contradiction> {
    let mut out = Vec::new();
    let mut seen: HashMap<(SourceId, SourceId), ()> = HashMap::new();
    for a in aspects {
        // The best few sentences on this aspect, one list per source.
        let mut pool: Vec<(usize, String, Vec<&str>, bool)> = Vec::new();
        for (si, s) in sources.iter().enumerate().take(10) {
            let mut taken = 0;
            for (i, sent) in s.an.sentences.iter().enumerate() {
                // The first few sentences on the aspect per source: enough to
                // compare, and the pairwise check stays small on huge pages.
                if taken >= PER_SOURCE || !sent.quotable || coverage(a, |k| sent.has(k), w) < 1.0 {
                    continue;
                }
                taken += 1;
                let text = &s.doc.text[sent.start..sent.end];
                let lower = text.to_lowercase();
                let tokens: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric() && c != '\'').collect();
                let negated = tokens.iter().any(|t| NEGATIONS.contains(t)) || lower.contains("n't");
                let stems: Vec<&str> = s.an.sentences[i].stems.iter().map(String::as_str).collect();
                pool.push((si, text.split_whitespace().collect::<Vec<_>>().join(" "), stems, negated));
            }
        }
        for (x, (sa, ta, stems_a, na)) in pool.iter().enumerate() {
            for (sb, _, stems_b, nb) in pool.iter().skip(x + 1) {
                if sa == sb || na == nb {
                    continue;
                }
                let inter = stems_a.iter().filter(|s| stems_b.contains(s)).count();
                let union = stems_a.len() + stems_b.len() - inter;
                if union == 0 || (inter as f64 / union as f64) < 0.7 {
                    continue;
                }
                let (ia, ib) = (sources[*sa].doc.meta.id, sources[*sb].doc.meta.id);
                if seen.insert((ia.min(ib), ia.max(ib)), ()).is_none() {
                    out.push(Contradiction { claim: ta.clone(), source_a: ia, source_b: ib, resolution_needed: true });
                }
            }
        }
    }
    out
}
