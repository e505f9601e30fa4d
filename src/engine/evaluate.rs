//! EVALUATE: confidence as seed 004's weighted average of five components,
//! coverage as aspects addressed / aspects required, and the dimension
//! scores, each kept so a person can see where a number came from.

use super::model::{
    ConfidenceComponents, Critique, DimensionScores, Draft, Evaluation, SourceId, SourceMeta, SourceVerdict, Verdict,
};
use super::settings::EvaluateSettings;

/// A cited source as evaluation sees it.
#[derive(Debug, Clone)]
pub struct CitedSource<'a> {
    pub meta: &'a SourceMeta,
    pub verdict: Option<&'a SourceVerdict>,
}

pub struct EvaluateInput<'a> {
    pub draft: Option<&'a Draft>,
    pub critique: Option<&'a Critique>,
    /// Sources the draft cites (unknown ids already dropped).
    pub cited: Vec<CitedSource<'a>>,
    /// Per claim: whether at least one of its citations verified.
    pub claim_supported: Vec<bool>,
    pub previous_confidence: f64,
    pub previous_draft: Option<&'a Draft>,
    /// Days since the Unix epoch "now", for recency.
    pub today_days: i64,
}

pub fn evaluate(input: &EvaluateInput<'_>, s: &EvaluateSettings) -> Evaluation {
    let critique = input.critique;
    let (required, addressed) = critique.map_or((0, 0), |c| {
        let required = c.aspects_required.len();
        let addressed = c.aspects_addressed.iter().filter(|a| required == 0 || c.aspects_required.contains(a)).count();
        (required, addressed.min(required.max(addressed)))
    });
    let claims = input.claim_supported.len();
    let supported = input.claim_supported.iter().filter(|s| **s).count();
    let coverage = match (required, input.draft) {
        (0, Some(d)) if !d.claims.is_empty() => 1.0,
        (0, _) => 0.0,
        (r, _) => (addressed as f64 / r as f64).min(1.0),
    };
    let citation_density = if claims == 0 { 0.0 } else { supported as f64 / claims as f64 };

    let qualities: Vec<f64> = input.cited.iter().map(|c| source_quality(c, s)).collect();
    let mut source_quality = mean(&qualities);
    if s.min_sources_for_confidence > 0 && input.cited.len() < s.min_sources_for_confidence {
        source_quality *= input.cited.len() as f64 / s.min_sources_for_confidence as f64;
    }
    let contradictions = critique.map_or(0, |c| c.contradictions.len());
    let consistency = if claims == 0 { 0.0 } else { (1.0 - s.contradiction_penalty * contradictions as f64).max(0.0) };
    let recencies: Vec<f64> = input.cited.iter().map(|c| recency(c.meta, input.today_days, s)).collect();
    let recency = if recencies.is_empty() { 0.0 } else { mean(&recencies) };

    let components = ConfidenceComponents { source_quality, coverage, citation_density, consistency, recency };
    let w = &s.weights;
    let total_w = w.sum();
    let confidence = if total_w <= 0.0 {
        0.0
    } else {
        (w.source_quality * source_quality
            + w.coverage * coverage
            + w.citation_density * citation_density
            + w.consistency * consistency
            + w.recency * recency)
            / total_w
    };

    let relevances: Vec<f64> = input.cited.iter().filter_map(|c| c.verdict.map(|v| f64::from(v.relevance))).collect();
    let severity_total = critique.map_or(0.0, Critique::severity_total);
    let dimensions = critique.and_then(|c| c.dimensions).unwrap_or(DimensionScores {
        completeness: coverage,
        accuracy: citation_density,
        relevance: mean(&relevances),
        freshness: recency,
        coherence: if claims == 0 { 0.0 } else { 1.0 / (1.0 + severity_total / 5.0) },
    });
    let dw = &s.dimension_weights;
    let quality = if dw.sum() <= 0.0 {
        0.0
    } else {
        (dw.completeness * dimensions.completeness
            + dw.accuracy * dimensions.accuracy
            + dw.relevance * dimensions.relevance
            + dw.freshness * dimensions.freshness
            + dw.coherence * dimensions.coherence)
            / dw.sum()
    };

    let draft_similarity = match (input.previous_draft, input.draft) {
        (Some(p), Some(d)) => Some(super::convergence::draft_similarity(&p.markdown, &d.markdown)),
        _ => None,
    };
    Evaluation {
        confidence: round4(confidence),
        components,
        weights: s.weights,
        coverage: round4(coverage),
        aspects_required: required,
        aspects_addressed: addressed,
        dimensions,
        quality: round4(quality),
        verdict: critique.map_or(Verdict::Reject, |c| c.verdict),
        severity_total,
        gaps: critique.map(|c| c.gaps.clone()).unwrap_or_default(),
        contradictions,
        claims,
        supported_claims: supported,
        cited_sources: input.cited.len(),
        needs_clarification: critique.is_some_and(|c| c.needs_clarification.is_some()),
        gain: round4(round4(confidence) - input.previous_confidence),
        draft_similarity,
    }
}

fn source_quality(c: &CitedSource<'_>, s: &EvaluateSettings) -> f64 {
    let tier = match c.meta.tier {
        Some(t @ 1..=5) => s.tier_quality[usize::from(t) - 1],
        _ => s.unknown_tier_quality,
    };
    let relevance = c.verdict.map_or(0.5, |v| f64::from(v.relevance).clamp(0.0, 1.0));
    // Authority matters more than how well one passage matched the query.
    tier * (0.5 + 0.5 * relevance)
}

fn recency(meta: &SourceMeta, today_days: i64, s: &EvaluateSettings) -> f64 {
    let Some(days) = meta.published.as_deref().and_then(days_since_epoch) else {
        return s.recency_unknown;
    };
    let age = (today_days - days).max(0) as f64;
    if s.recency_half_life_days <= 0.0 {
        return 1.0;
    }
    0.5f64.powf(age / s.recency_half_life_days)
}

/// Days since 1970-01-01 of an ISO 8601 date (`YYYY-MM-DD…`).
pub fn days_since_epoch(iso: &str) -> Option<i64> {
    let date = iso.get(..10)?;
    let mut parts = date.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 }
}

/// Four decimals: enough for decisions, and stable across platforms in logs.
fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Evaluation cites: the draft's cited ids that name known sources.
pub fn cited_ids(draft: &Draft, known: impl Fn(SourceId) -> bool) -> Vec<SourceId> {
    draft.cited_sources().into_iter().filter(|id| known(*id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{Citation, Claim, SourceKind};

    fn meta(id: u32, tier: Option<u8>, published: Option<&str>) -> SourceMeta {
        SourceMeta {
            id: SourceId(id),
            locator: format!("doc{id}"),
            canonical: format!("doc{id}"),
            title: String::new(),
            site: String::new(),
            provider: "test".into(),
            kind: SourceKind::Local,
            tier,
            source_type: None,
            heading: None,
            published: published.map(str::to_string),
            accessed_at_ms: 0,
            iteration: 1,
            query: String::new(),
            score: 1.0,
            text_len: 10,
            text_hash: String::new(),
        }
    }

    fn critique(required: &[&str], addressed: &[&str]) -> Critique {
        Critique {
            verdict: Verdict::Warn,
            issues: vec![],
            aspects_required: required.iter().map(|s| s.to_string()).collect(),
            aspects_addressed: addressed.iter().map(|s| s.to_string()).collect(),
            weak_aspects: vec![],
            gaps: vec![],
            contradictions: vec![],
            needs_clarification: None,
            dimensions: None,
            answer_relevance: None,
            unanswered: false,
        }
    }

    fn draft(n: usize) -> Draft {
        Draft {
            markdown: "text".into(),
            claims: (0..n)
                .map(|i| Claim {
                    text: format!("claim {i}"),
                    citations: vec![Citation { source: SourceId(1), quote: "q".into() }],
                    aspect: None,
                })
                .collect(),
        }
    }

    #[test]
    fn confidence_is_the_weighted_average_of_its_components() {
        let metas = [meta(1, Some(1), None), meta(2, Some(1), None), meta(3, Some(1), None)];
        let verdict =
            |id| SourceVerdict { id: SourceId(id), kept: true, reason: None, relevance: 1.0, signals: vec![] };
        let verdicts = [verdict(1), verdict(2), verdict(3)];
        let d = draft(4);
        let c = critique(&["a", "b"], &["a"]);
        let input = EvaluateInput {
            draft: Some(&d),
            critique: Some(&c),
            cited: metas.iter().zip(&verdicts).map(|(m, v)| CitedSource { meta: m, verdict: Some(v) }).collect(),
            claim_supported: vec![true, true, true, false],
            previous_confidence: 0.0,
            previous_draft: None,
            today_days: 20_000,
        };
        let e = evaluate(&input, &EvaluateSettings::default());
        let c = e.components;
        assert_eq!((c.source_quality, c.coverage, c.citation_density, c.consistency), (1.0, 0.5, 0.75, 1.0));
        assert!((c.recency - 0.7).abs() < 1e-9);
        let expected = 0.30 * 1.0 + 0.25 * 0.5 + 0.20 * 0.75 + 0.15 * 1.0 + 0.10 * 0.7;
        assert!((e.confidence - expected).abs() < 1e-4, "{} vs {expected}", e.confidence);
        assert_eq!(e.coverage, 0.5);
        assert_eq!(e.gain, e.confidence);
    }

    #[test]
    fn few_sources_and_low_tiers_lower_source_quality() {
        let m = meta(1, Some(5), None);
        let d = draft(1);
        let c = critique(&["a"], &["a"]);
        let input = EvaluateInput {
            draft: Some(&d),
            critique: Some(&c),
            cited: vec![CitedSource { meta: &m, verdict: None }],
            claim_supported: vec![true],
            previous_confidence: 0.5,
            previous_draft: None,
            today_days: 0,
        };
        let e = evaluate(&input, &EvaluateSettings::default());
        // tier 5 = 0.4, unknown relevance 0.5 → 0.4 * 0.75, then 1 of 3 sources.
        assert!((e.components.source_quality - 0.4 * 0.75 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn nothing_to_evaluate_scores_zero() {
        let input = EvaluateInput {
            draft: None,
            critique: None,
            cited: vec![],
            claim_supported: vec![],
            previous_confidence: 0.3,
            previous_draft: None,
            today_days: 0,
        };
        let e = evaluate(&input, &EvaluateSettings::default());
        assert_eq!((e.confidence, e.coverage), (0.0, 0.0));
        assert_eq!(e.gain, -0.3);
        assert_eq!(e.verdict, Verdict::Reject);
    }

    #[test]
    fn recency_halves_every_half_life() {
        let s = EvaluateSettings::default();
        let today = days_since_epoch("2026-01-01").unwrap_or_default();
        let old = meta(1, None, Some("2024-01-01"));
        let r = recency(&old, today, &s);
        assert!((r - 0.5).abs() < 0.01, "{r}");
        assert_eq!(days_since_epoch("1970-01-02"), Some(1));
        assert_eq!(days_since_epoch("not a date"), None);
    }
}
