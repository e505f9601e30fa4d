//! CRITIQUE: which aspects the draft supports (and how thinly), which it
//! leaves as gaps, where sources disagree, and a verdict with severities.
//! Coverage and confidence then follow in the engine from these signals.

use std::collections::{BTreeSet, HashMap};

use super::Src;
use super::analysis::Stemmer;
use super::aspects::{Aspect, coverage};
use super::rarity::Weights;
use crate::engine::model::{Claim, Contradiction, Critique, Draft, Issue, Severity, SourceId, Verdict};
use crate::text::contains_normalized;

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
    let claim_stems: Vec<Vec<String>> = draft.claims.iter().map(|c| stemmer.stems(&c.text)).collect();
    let top_weight = aspects.iter().map(|a| a.weight).fold(0.0, f64::max);
    for a in aspects {
        let mut supporters: BTreeSet<SourceId> = BTreeSet::new();
        for (claim, stems) in draft.claims.iter().zip(&claim_stems) {
            let literal = coverage(a, |k| stems.binary_search_by(|s| s.as_str().cmp(k)).is_ok(), w);
            let tagged = claim.aspect.as_deref() == Some(a.label.as_str());
            if (tagged || literal >= 0.5) && verified(claim, sources) {
                supporters.extend(claim.citations.iter().map(|c| c.source));
            }
        }
        match supporters.len() {
            0 => {
                gaps.push(a.label.clone());
                let severity = if a.weight >= top_weight { Severity::High } else { Severity::Medium };
                issues.push(Issue {
                    severity,
                    description: format!("No source found supports “{}”.", a.label),
                    aspect: Some(a.label.clone()),
                });
            }
            1 => {
                addressed.push(a.label.clone());
                weak.push(a.label.clone());
                let only = supporters.iter().next().map(|id| id.to_string()).unwrap_or_default();
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
            description: format!("Only {cited} source(s) cited."),
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
    let verdict = if draft.claims.is_empty() || gaps.len() * 2 > aspects.len() || unverified > 0 {
        Verdict::Reject
    } else if !gaps.is_empty() || !contradictions.is_empty() || !weak.is_empty() || cited < 3 {
        Verdict::Warn
    } else {
        Verdict::Pass
    };
    Critique {
        verdict,
        issues,
        aspects_required: aspects.iter().map(|a| a.label.clone()).collect(),
        aspects_addressed: addressed,
        weak_aspects: weak,
        gaps,
        contradictions,
        needs_clarification: None,
        dimensions: None,
    }
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
            for (i, sent) in s.an.sentences.iter().enumerate() {
                if !sent.quotable || coverage(a, |k| sent.has(k), w) < 1.0 {
                    continue;
                }
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
