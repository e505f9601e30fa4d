//! The model values of a sample session, built per iteration.

use crate::engine::model::*;

pub(super) fn reflection(k: u32) -> Reflection {
    Reflection {
        plan: format!("Iteration {k}: find how ? desugars and where From::from is called."),
        assumptions: vec!["the question is about Result, not Option".into()],
        risks: vec!["pages about the try! macro are outdated".into()],
        success_criteria: vec!["the conversion step is quoted from the reference".into()],
    }
}

pub(super) fn draft(k: u32, kept: &[SourceId], hostile: bool) -> Draft {
    let mut md = format!("## Answer (iteration {k})\n\nThe ? operator returns early on Err and converts the error");
    let mut claims = Vec::new();
    for (i, id) in kept.iter().take(4 + k as usize).enumerate() {
        let text = format!("Claim {} about conversion", i + 1);
        md.push_str(&format!(" {text} [{}].", id.0));
        claims.push(Claim {
            text,
            citations: vec![Citation { source: *id, quote: "calling From::from on it".into() }],
            aspect: Some(format!("aspect {}", i % 3 + 1)),
        });
    }
    md.push_str("\n\nA match on Result is the long form of the same thing.");
    if hostile {
        md.push_str(" Model text \x1b[31mred\x1b[0m and a title \x1b]0;pwned\x07 end.");
    }
    Draft { markdown: md, claims }
}

pub(super) fn critique(k: u32, ask: bool) -> Critique {
    let required: Vec<String> = (1..=4).map(|i| format!("aspect {i}")).collect();
    let addressed: Vec<String> = required.iter().take((k as usize + 1).min(4)).cloned().collect();
    Critique {
        verdict: if k >= 3 { Verdict::Pass } else { Verdict::Warn },
        issues: vec![
            Issue { severity: Severity::High, description: "no source shows the desugaring".into(), aspect: None },
            Issue { severity: Severity::Low, description: "wording repeats the question".into(), aspect: None },
        ]
        .into_iter()
        .take(3usize.saturating_sub(k as usize))
        .collect(),
        aspects_required: required.clone(),
        aspects_addressed: addressed.clone(),
        weak_aspects: vec![],
        gaps: required.iter().skip(addressed.len()).cloned().collect(),
        related_aspects: vec![],
        contradictions: vec![],
        needs_clarification: ask.then(clarification),
        dimensions: None,
        answer_relevance: None,
        unanswered: false,
    }
}

pub(super) fn clarification() -> Clarification {
    Clarification {
        question: "Which ? do you mean: the operator on Result, or on Option?".into(),
        options: vec!["the ? operator on Result".into(), "the ? operator on Option".into()],
    }
}

pub(super) fn evaluation(confidence: f64, gain: f64, c: &Critique, d: &Draft) -> Evaluation {
    Evaluation {
        confidence,
        components: ConfidenceComponents {
            answer_relevance: 0.8,
            source_quality: 0.9,
            coverage: c.aspects_addressed.len() as f64 / 4.0,
            citation_density: 0.7,
            consistency: 1.0,
            recency: 0.7,
        },
        weights: ConfidenceWeights::default(),
        coverage: c.aspects_addressed.len() as f64 / 4.0,
        aspects_required: 4,
        aspects_addressed: c.aspects_addressed.len(),
        dimensions: DimensionScores {
            completeness: 0.6,
            accuracy: 0.8,
            relevance: 0.9,
            freshness: 0.7,
            coherence: 0.8,
        },
        quality: 0.76,
        verdict: c.verdict,
        severity_total: c.severity_total(),
        gaps: c.gaps.clone(),
        contradictions: 0,
        claims: d.claims.len(),
        supported_claims: d.claims.len(),
        cited_sources: d.cited_sources().len(),
        needs_clarification: c.needs_clarification.is_some(),
        gain,
        draft_similarity: None,
        failed_phases: vec![],
        unanswered: false,
        time_sensitive: false,
        held_back: None,
        calibration: None,
    }
}

pub(super) fn refinement(k: u32) -> Refinement {
    Refinement {
        strategy: if k == 1 { Strategy::Expand } else { Strategy::Deepen },
        rationale: format!("coverage is low after iteration {k}: widen to the missing aspects"),
        reflection: reflection(k + 1),
        queries: vec![
            PlannedQuery::new(format!("From::from in ? desugaring {k}"), "the conversion step"),
            PlannedQuery::new(format!("question mark operator Option {k}"), "the other reading"),
            PlannedQuery::new(format!("try operator reference {k}"), "an official source"),
        ],
        negative_keywords: vec!["lifetimes".into()],
        positive_keywords: vec!["From".into()],
        reformulations: vec![],
        focus: vec!["aspect 4".into()],
    }
}

pub(super) fn chunk(text: &str, n: usize) -> Vec<String> {
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    let per = words.len().div_ceil(n.max(1)).max(1);
    words.chunks(per).map(|c| c.concat()).collect()
}
