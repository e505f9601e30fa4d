//! EVALUATE: the confidence components (answer relevance, source quality,
//! coverage, citation density, consistency, recency) and their
//! weighted average, mapped with the signals beside them to confidence,
//! the calibrated probability that the report answers the question
//! (`engine::calibration`); coverage as aspects addressed / aspects
//! required, and the dimension scores, each kept so a person can see where
//! a number came from. Every component is evidence that the question is
//! answered: what nobody judged, or a phase that fell back produced, is 0.

use super::calibration::{FeatureInput, features};
use super::model::{
    ConfidenceCalibration, ConfidenceComponents, Critique, DimensionScores, Draft, Evaluation, SourceId, SourceMeta,
    SourceVerdict, Verdict,
};
use super::recency::{is_time_sensitive, recency};
use super::settings::EvaluateSettings;
use super::state::SourceEntry;
use crate::text::content_terms;

pub use super::recency::days_since_epoch;

/// A cited source as evaluation sees it.
#[derive(Debug, Clone)]
pub struct CitedSource<'a> {
    pub meta: &'a SourceMeta,
    pub verdict: Option<&'a SourceVerdict>,
    /// Its verdict came from the fallback reviewer (the reviewer failed):
    /// its relevance is no evidence.
    pub fallback_verdict: bool,
}

pub struct EvaluateInput<'a> {
    pub question: &'a str,
    pub draft: Option<&'a Draft>,
    pub critique: Option<&'a Critique>,
    /// Sources the draft cites (unknown ids already dropped).
    pub cited: Vec<CitedSource<'a>>,
    /// Every source of the session (for the calibration's search signals).
    pub all_sources: &'a [SourceEntry],
    /// Per claim: whether a quote of it is in its source and supports it
    /// (see [`quote_supports_claim`]).
    pub claim_supported: Vec<bool>,
    pub previous_confidence: f64,
    pub previous_draft: Option<&'a Draft>,
    /// Days since the Unix epoch "now", for recency.
    pub today_days: i64,
    /// Phases of this iteration that failed and fell back ("draft",
    /// "critique", "review", "plan").
    pub failed_phases: Vec<String>,
}

/// A quote supports its claim when it carries at least half of the
/// claim's content words: a real sentence that says something else does
/// not count, however exactly it was copied.
pub fn quote_supports_claim(claim: &str, quotes: &[&str]) -> bool {
    // The checker's rule (`engine::check`), so VERIFY and scoring agree.
    match super::check::shared_terms(claim, quotes) {
        (_, 0) => quotes.iter().any(|q| !content_terms(q).is_empty()),
        (found, of) => super::check::covers(found, of),
    }
}

pub fn evaluate(input: &EvaluateInput<'_>, s: &EvaluateSettings) -> Evaluation {
    let failed = |phase: &str| input.failed_phases.iter().any(|f| f == phase);
    let critique = input.critique;
    // A fallback critique only matched words: it judged nothing.
    let judged = critique.filter(|_| !failed("critique"));
    let unanswered = judged.is_some_and(|c| c.unanswered);
    let (required, addressed) = critique.map_or((0, 0), |c| {
        let required = c.aspects_required.len();
        let addressed = c.aspects_addressed.iter().filter(|a| required == 0 || c.aspects_required.contains(a)).count();
        (required, addressed.min(required.max(addressed)))
    });
    let answer_relevance = match judged.and_then(|c| c.answer_relevance) {
        Some(r) if !unanswered && !failed("draft") => r.clamp(0.0, 1.0),
        _ => 0.0,
    };
    let claims = input.claim_supported.len();
    let supported = input.claim_supported.iter().filter(|s| **s).count();
    let coverage = match (judged, required) {
        (None, _) => 0.0,
        _ if unanswered => 0.0,
        // No aspects listed: the question is its one aspect.
        (Some(_), 0) => answer_relevance,
        (Some(_), r) => (addressed as f64 / r as f64).min(1.0),
    };
    let citation_density = if claims == 0 || failed("draft") { 0.0 } else { supported as f64 / claims as f64 };

    let qualities: Vec<f64> = input.cited.iter().map(|c| source_quality(c, s)).collect();
    let mut source_quality = mean(&qualities);
    // Corroboration asked of the answer: up to `min_sources_for_confidence`
    // sources, but never more than the session found worth keeping.
    let kept = input.all_sources.iter().filter(|e| e.kept()).count().max(input.cited.len());
    let wanted = s.min_sources_for_confidence.min(kept);
    if wanted > 0 && input.cited.len() < wanted {
        source_quality *= input.cited.len() as f64 / wanted as f64;
    }
    let contradictions = critique.map_or(0, |c| c.contradictions.len());
    let consistency = if claims == 0 || judged.is_none() {
        0.0
    } else {
        (1.0 - s.contradiction_penalty * contradictions as f64).max(0.0)
    };
    let recencies: Vec<f64> = input.cited.iter().map(|c| recency(c.meta, input.today_days, s)).collect();
    let recency = if recencies.is_empty() { 0.0 } else { mean(&recencies) };
    let time_sensitive = is_time_sensitive(input.question);

    let components =
        ConfidenceComponents { answer_relevance, source_quality, coverage, citation_density, consistency, recency };
    let mut w = s.weights;
    if !time_sensitive {
        // Neutral: an old page answers a timeless question as well as a new one.
        w.recency = 0.0;
    }
    let total_w = w.sum();
    let weighted = if total_w <= 0.0 {
        0.0
    } else {
        (w.answer_relevance * answer_relevance
            + w.source_quality * source_quality
            + w.coverage * coverage
            + w.citation_density * citation_density
            + w.consistency * consistency
            + w.recency * recency)
            / total_w
    };
    let mut failed_phases: Vec<String> = Vec::new();
    for p in &input.failed_phases {
        if !failed_phases.contains(p) {
            failed_phases.push(p.clone());
        }
    }
    let drafted = input.draft.is_some_and(|d| !d.claims.is_empty());
    let held_back = if drafted {
        held_back(unanswered, &failed_phases, answer_relevance, judged, s)
    } else {
        Some("nothing was drafted".to_string())
    };
    let features = features(&FeatureInput {
        question: input.question,
        draft: input.draft,
        judged,
        components: &components,
        weighted,
        unanswered,
        held_back: held_back.is_some(),
        cited: &input.cited,
        all_sources: input.all_sources,
    });
    let mapping = s.calibration.enabled.then(|| s.calibration.apply(&features));
    let calibrated = mapping.as_ref().map_or(weighted, |m| m.probability);
    // What a fallback produced is no evidence, whatever the fit says: the
    // fit never saw a failed phase.
    let confidence = match held_back {
        // No draft: no report that could answer.
        Some(_) if !drafted => 0.0,
        Some(_) => calibrated.min(s.held_back_confidence_cap),
        None => calibrated,
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
        weights: w,
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
        failed_phases,
        unanswered,
        time_sensitive,
        held_back,
        calibration: Some(ConfidenceCalibration { features, mapping }),
    }
}

/// Why a draft may not end the session on its thresholds, in order of
/// what a person most needs to know.
fn held_back(
    unanswered: bool,
    failed_phases: &[String],
    answer_relevance: f64,
    judged: Option<&Critique>,
    s: &EvaluateSettings,
) -> Option<String> {
    if unanswered {
        return Some("the critic found that the sources do not answer the question".into());
    }
    if !failed_phases.is_empty() {
        return Some(format!("phases failed and fell back: {}", failed_phases.join(", ")));
    }
    if judged.is_some_and(|c| c.answer_relevance.is_none()) {
        return Some("the critic did not judge whether the direct answer addresses the question".into());
    }
    if answer_relevance < s.min_answer_relevance {
        return Some(format!(
            "answer relevance {answer_relevance:.2} < {:.2}: the direct answer does not address the question",
            s.min_answer_relevance
        ));
    }
    None
}

fn source_quality(c: &CitedSource<'_>, s: &EvaluateSettings) -> f64 {
    let tier = match c.meta.tier {
        Some(t @ 1..=5) => s.tier_quality[usize::from(t) - 1],
        _ => s.unknown_tier_quality,
    };
    let relevance = match c.verdict {
        _ if c.fallback_verdict => 0.0,
        Some(v) => f64::from(v.relevance).clamp(0.0, 1.0),
        None => 0.5,
    };
    // An official page that is off the question is not a good source for it.
    tier * relevance
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
            scholarly: None,
        }
    }

    fn critique(required: &[&str], addressed: &[&str], relevance: Option<f64>) -> Critique {
        Critique {
            verdict: Verdict::Warn,
            issues: vec![],
            aspects_required: required.iter().map(|s| s.to_string()).collect(),
            aspects_addressed: addressed.iter().map(|s| s.to_string()).collect(),
            weak_aspects: vec![],
            gaps: vec![],
            related_aspects: vec![],
            contradictions: vec![],
            needs_clarification: None,
            dimensions: None,
            answer_relevance: relevance,
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

    /// `n` sources the session kept.
    fn kept_sources(n: u32) -> Vec<SourceEntry> {
        (1..=n)
            .map(|i| SourceEntry { meta: meta(i, Some(1), None), verdict: Some(verdict(i, 0.9)), duplicates: vec![] })
            .collect()
    }

    fn verdict(id: u32, relevance: f32) -> SourceVerdict {
        SourceVerdict { id: SourceId(id), kept: true, reason: None, relevance, signals: vec![] }
    }

    fn input<'a>(question: &'a str, d: &'a Draft, c: &'a Critique, cited: Vec<CitedSource<'a>>) -> EvaluateInput<'a> {
        EvaluateInput {
            question,
            draft: Some(d),
            critique: Some(c),
            cited,
            claim_supported: vec![true, true, true, false],
            all_sources: &[],
            previous_confidence: 0.0,
            previous_draft: None,
            today_days: 20_000,
            failed_phases: vec![],
        }
    }

    /// Settings whose confidence is the components' weighted average (the
    /// seed's rule, before calibration).
    fn uncalibrated() -> EvaluateSettings {
        let mut s = EvaluateSettings::default();
        s.calibration.enabled = false;
        s
    }

    fn feature(e: &Evaluation, name: &str) -> f64 {
        e.calibration.as_ref().and_then(|c| c.features.get(name).copied()).unwrap_or(f64::NAN)
    }

    #[test]
    fn uncalibrated_confidence_is_the_weighted_average_of_its_components() {
        let metas = [meta(1, Some(1), None), meta(2, Some(1), None), meta(3, Some(2), None)];
        let verdicts = [verdict(1, 1.0), verdict(2, 1.0), verdict(3, 0.5)];
        let cited = metas
            .iter()
            .zip(&verdicts)
            .map(|(m, v)| CitedSource { meta: m, verdict: Some(v), fallback_verdict: false })
            .collect();
        let (d, c) = (draft(4), critique(&["a", "b"], &["a"], Some(0.8)));
        let e = evaluate(&input("how do widgets work", &d, &c, cited), &uncalibrated());
        let k = e.components;
        // Source quality: tier × REVIEW's relevance, so a half-relevant tier 2 page counts 0.45.
        assert!((k.source_quality - (1.0 + 1.0 + 0.9 * 0.5) / 3.0).abs() < 1e-9, "{k:?}");
        assert_eq!((k.answer_relevance, k.coverage, k.citation_density, k.consistency), (0.8, 0.5, 0.75, 1.0));
        // Not a question about time: recency is shown but weighs nothing.
        assert!(!e.time_sensitive);
        assert_eq!(e.weights.recency, 0.0);
        let expected = (0.30 * 0.8 + 0.20 * k.source_quality + 0.20 * 0.5 + 0.15 * 0.75 + 0.10 * 1.0) / 0.95;
        assert!((e.confidence - expected).abs() < 1e-4, "{} vs {expected}", e.confidence);
        assert!((feature(&e, "weighted") - expected).abs() < 1e-9, "the average is a feature either way");
        assert_eq!(e.calibration.as_ref().and_then(|c| c.mapping.as_ref()), None);
        assert_eq!(e.held_back, None);
        assert_eq!(e.coverage, 0.5);
        assert_eq!(e.gain, e.confidence);
    }

    #[test]
    fn recency_counts_only_for_a_question_about_time() {
        let m = meta(1, Some(1), Some("2000-01-01"));
        let v = verdict(1, 1.0);
        let (d, c) = (draft(4), critique(&["a"], &["a"], Some(1.0)));
        let cited = || vec![CitedSource { meta: &m, verdict: Some(&v), fallback_verdict: false }];
        let s = uncalibrated();
        let timeless = evaluate(&input("how do widgets work", &d, &c, cited()), &s);
        let timely = evaluate(&input("what is the latest widget release", &d, &c, cited()), &s);
        assert!(timely.time_sensitive && !timeless.time_sensitive);
        assert_eq!(timely.weights.recency, s.weights.recency);
        assert!(timely.components.recency < 0.01, "a page from 2000 is old");
        assert!(timely.confidence < timeless.confidence, "{} vs {}", timely.confidence, timeless.confidence);
    }

    #[test]
    fn an_unjudged_answer_relevance_is_no_evidence_and_holds_the_draft_back() {
        let metas = [meta(1, Some(1), None), meta(2, Some(1), None), meta(3, Some(1), None)];
        let vs = [verdict(1, 1.0), verdict(2, 1.0), verdict(3, 1.0)];
        let cited = || {
            metas
                .iter()
                .zip(&vs)
                .map(|(m, v)| CitedSource { meta: m, verdict: Some(v), fallback_verdict: false })
                .collect()
        };
        let d = draft(4);
        let s = uncalibrated();
        let judged = critique(&["a"], &["a"], Some(1.0));
        let unjudged = critique(&["a"], &["a"], None);
        let off = critique(&["a"], &["a"], Some(0.2));
        let good = evaluate(&input("q", &d, &judged, cited()), &s);
        let none = evaluate(&input("q", &d, &unjudged, cited()), &s);
        let miss = evaluate(&input("q", &d, &off, cited()), &s);
        assert_eq!(good.held_back, None);
        assert_eq!(none.components.answer_relevance, 0.0, "not a free 1.0");
        assert!(none.held_back.as_deref().is_some_and(|h| h.contains("did not judge")), "{:?}", none.held_back);
        assert!(miss.held_back.as_deref().is_some_and(|h| h.contains("0.20 < 0.50")), "{:?}", miss.held_back);
        for e in [&none, &miss] {
            assert!(e.confidence <= s.held_back_confidence_cap, "{}", e.confidence);
        }
        assert!(good.confidence > 0.85, "{}", good.confidence);
        // Calibrated, a held-back draft is capped the same way.
        let mut generous = EvaluateSettings::default();
        generous.calibration.intercept = 5.0;
        let capped = evaluate(&input("q", &d, &off, cited()), &generous);
        let mapped = capped.calibration.as_ref().and_then(|c| c.mapping.as_ref()).map(|m| m.probability);
        assert!(mapped.is_some_and(|p| p > generous.held_back_confidence_cap), "{mapped:?}");
        assert_eq!(capped.confidence, generous.held_back_confidence_cap);
    }

    #[test]
    fn unanswered_zeroes_relevance_and_coverage_and_ends_low() {
        let metas = [meta(1, Some(1), None), meta(2, Some(1), None), meta(3, Some(1), None)];
        let vs = [verdict(1, 1.0), verdict(2, 1.0), verdict(3, 1.0)];
        let cited = metas
            .iter()
            .zip(&vs)
            .map(|(m, v)| CitedSource { meta: m, verdict: Some(v), fallback_verdict: false })
            .collect();
        let d = draft(4);
        let mut c = critique(&["a", "b"], &["a", "b"], Some(0.9));
        c.unanswered = true;
        let e = evaluate(&input("q", &d, &c, cited), &EvaluateSettings::default());
        assert!(e.unanswered);
        assert_eq!((e.components.answer_relevance, e.coverage), (0.0, 0.0));
        assert!(e.confidence < 0.5, "{}", e.confidence);
        assert!(e.held_back.as_deref().is_some_and(|h| h.contains("do not answer")));
    }

    #[test]
    fn phases_that_fell_back_contribute_no_evidence() {
        let metas = [meta(1, Some(1), None), meta(2, Some(1), None), meta(3, Some(1), None)];
        let vs = [verdict(1, 1.0), verdict(2, 1.0), verdict(3, 1.0)];
        let cited = metas
            .iter()
            .zip(&vs)
            .map(|(m, v)| CitedSource { meta: m, verdict: Some(v), fallback_verdict: true })
            .collect();
        let d = draft(4);
        let c = critique(&["a"], &["a"], None);
        let mut i = input("q", &d, &c, cited);
        i.claim_supported = vec![true; 4];
        i.failed_phases = vec!["review".into(), "draft".into(), "critique".into(), "draft".into()];
        let e = evaluate(&i, &EvaluateSettings::default());
        let k = e.components;
        assert_eq!(
            (k.answer_relevance, k.source_quality, k.coverage, k.citation_density, k.consistency),
            (0.0, 0.0, 0.0, 0.0, 0.0),
            "{k:?}"
        );
        assert_eq!(e.confidence, 0.0);
        assert_eq!(e.failed_phases, vec!["review", "draft", "critique"]);
        assert!(e.held_back.as_deref().is_some_and(|h| h.contains("review, draft, critique")), "{:?}", e.held_back);
    }

    #[test]
    fn few_sources_and_low_tiers_lower_source_quality() {
        let m = meta(1, Some(5), None);
        let (d, c) = (draft(1), critique(&["a"], &["a"], Some(1.0)));
        let mut i = input("q", &d, &c, vec![CitedSource { meta: &m, verdict: None, fallback_verdict: false }]);
        i.claim_supported = vec![true];
        let others = kept_sources(4);
        i.all_sources = &others;
        let e = evaluate(&i, &EvaluateSettings::default());
        // tier 5 = 0.4, unknown relevance 0.5, then 1 of 3 sources.
        assert!((e.components.source_quality - 0.4 * 0.5 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn nothing_to_evaluate_scores_zero() {
        let input = EvaluateInput {
            question: "q",
            draft: None,
            critique: None,
            cited: vec![],
            claim_supported: vec![],
            all_sources: &[],
            previous_confidence: 0.3,
            previous_draft: None,
            today_days: 0,
            failed_phases: vec![],
        };
        let e = evaluate(&input, &EvaluateSettings::default());
        assert_eq!((e.confidence, e.coverage), (0.0, 0.0));
        assert_eq!(e.gain, -0.3);
        assert_eq!(e.verdict, Verdict::Reject);
        assert_eq!(e.held_back.as_deref(), Some("nothing was drafted"));
    }

    #[test]
    fn a_quote_supports_a_claim_only_when_it_says_what_the_claim_says() {
        let claim = "Vectors grow their buffer by doubling capacity";
        assert!(quote_supports_claim(claim, &["A vector grows by doubling its capacity when its buffer is full."]));
        assert!(!quote_supports_claim(claim, &["Strings are UTF-8 encoded byte sequences."]));
        assert!(quote_supports_claim(claim, &["unrelated words", "buffer doubling capacity grow"]), "quotes add up");
        assert!(!quote_supports_claim("", &[]));
    }

    /// A draft whose direct answer cites source 1 and whose sources 1 and 2
    /// both name `VecDeque`, a name the question does not use.
    fn answering_draft() -> Draft {
        let claim = |text: &str, id: u32| Claim {
            text: text.into(),
            citations: vec![Citation { source: SourceId(id), quote: text.into() }],
            aspect: None,
        };
        Draft {
            markdown:
                "# Queues\n\nUse a `VecDeque` as a queue. [1]\n\n## More\n\n- A `VecDeque` pops from the front. [2]\n"
                    .into(),
            claims: vec![claim("Use a VecDeque as a queue.", 1), claim("A VecDeque pops from the front.", 2)],
        }
    }

    fn calibrated(intercept: f64, coefficients: &[(&str, f64)]) -> EvaluateSettings {
        let mut s = EvaluateSettings::default();
        s.calibration.intercept = intercept;
        s.calibration.coefficients = coefficients.iter().map(|(k, v)| ((*k).to_string(), *v)).collect();
        s
    }

    #[test]
    fn confidence_is_the_fitted_probability_of_the_features() {
        let metas = [meta(1, Some(1), None), meta(2, Some(1), None)];
        let vs = [verdict(1, 0.9), verdict(2, 0.6)];
        let (d, c) = (answering_draft(), critique(&["queue"], &["queue"], Some(0.8)));
        let mut i = input("which std type is a fast queue?", &d, &c, cited_all(&metas, &vs));
        i.claim_supported = vec![true, true];
        let s =
            calibrated(-2.0, &[("answer_relevance", 1.0), ("opening_relevance", 2.0), ("agreed_name_sources", 1.0)]);
        let e = evaluate(&i, &s);
        let opening = f64::from(0.9f32);
        assert!((feature(&e, "opening_relevance") - opening).abs() < 1e-12, "the source the answer cites first");
        assert!((feature(&e, "agreed_name_sources") - 3f64.ln()).abs() < 1e-12, "two sources name VecDeque");
        let z = -2.0 + 0.8 + 2.0 * opening + 3f64.ln();
        assert!((e.confidence - 1.0 / (1.0 + (-z).exp())).abs() < 1e-4, "{} vs σ({z})", e.confidence);
        let m = e.calibration.as_ref().and_then(|c| c.mapping.clone()).expect("the mapping is kept");
        assert!((m.log_odds - z).abs() < 1e-9);
        let terms: Vec<(&str, f64)> = m.terms.iter().map(|t| (t.feature.as_str(), t.coefficient)).collect();
        assert_eq!(terms, [("agreed_name_sources", 1.0), ("answer_relevance", 1.0), ("opening_relevance", 2.0)]);
        // Each listed feature is in the breakdown, whether or not it is used.
        let names: Vec<&str> = crate::engine::calibration::FEATURES.iter().map(|f| f.0).collect();
        let computed: Vec<&str> =
            e.calibration.as_ref().map_or(vec![], |c| c.features.keys().map(String::as_str).collect());
        assert_eq!(computed.len(), names.len());
        assert!(names.iter().all(|n| computed.contains(n)), "{computed:?}");
    }

    fn cited_all<'a>(metas: &'a [SourceMeta], verdicts: &'a [SourceVerdict]) -> Vec<CitedSource<'a>> {
        metas
            .iter()
            .zip(verdicts)
            .map(|(m, v)| CitedSource { meta: m, verdict: Some(v), fallback_verdict: false })
            .collect()
    }

    #[test]
    fn under_the_default_fit_a_better_answer_is_more_likely_good() {
        let metas = [meta(1, Some(1), None), meta(2, Some(1), None)];
        let strong = [verdict(1, 0.9), verdict(2, 0.8)];
        let weak = [verdict(1, 0.4), verdict(2, 0.8)];
        let d = answering_draft();
        let plain =
            Draft { markdown: "# Queues\n\nA queue holds items. [1]\n\n- Items wait. [2]\n".into(), ..d.clone() };
        let full = critique(&["queue", "fast"], &["queue", "fast"], Some(0.9));
        let half = critique(&["queue", "fast"], &["queue"], Some(0.6));
        let s = EvaluateSettings::default();
        let run = |d: &Draft, c: &Critique, vs: &[SourceVerdict]| {
            let mut i = input("which std type is a fast queue?", d, c, cited_all(&metas, vs));
            i.claim_supported = vec![true, true];
            evaluate(&i, &s).confidence
        };
        let best = run(&d, &full, &strong);
        assert!(best > run(&d, &half, &strong), "more of the question answered");
        assert!(best > run(&d, &full, &weak), "the answering source less relevant");
        assert!(best > run(&plain, &full, &strong), "no name the sources agree on");
        assert!(best < 1.0 && run(&plain, &half, &weak) > 0.0);
    }

    #[test]
    fn claims_whose_quotes_do_not_check_out_scale_the_probability_down() {
        let m = meta(1, Some(1), None);
        let v = verdict(1, 0.9);
        let (d, c) = (answering_draft(), critique(&["queue"], &["queue"], Some(0.9)));
        let cited = || vec![CitedSource { meta: &m, verdict: Some(&v), fallback_verdict: false }];
        let s = EvaluateSettings::default();
        let mut all = input("which std type is a fast queue?", &d, &c, cited());
        all.claim_supported = vec![true, true];
        let mut half = input("which std type is a fast queue?", &d, &c, cited());
        half.claim_supported = vec![true, false];
        let (all, half) = (evaluate(&all, &s), evaluate(&half, &s));
        assert!((half.confidence - all.confidence / 2.0).abs() < 1e-3, "{} vs {}", half.confidence, all.confidence);
    }

    /// One cited source is all the corroboration a session can give when it
    /// is the only one it kept (a one-file answer in a small folder); when
    /// the session kept others, citing one still costs source quality.
    #[test]
    fn one_source_costs_source_quality_only_when_the_session_kept_others() {
        let m = meta(1, Some(1), None);
        let v = verdict(1, 0.9);
        let (d, c) = (draft(1), critique(&["a"], &["a"], Some(0.9)));
        let s = uncalibrated();
        let quality = |all: &[SourceEntry]| {
            let mut i = input("q", &d, &c, vec![CitedSource { meta: &m, verdict: Some(&v), fallback_verdict: false }]);
            i.claim_supported = vec![true];
            i.all_sources = all;
            evaluate(&i, &s).components.source_quality
        };
        let alone = kept_sources(1);
        let among = kept_sources(5);
        assert!((quality(&alone) - 0.9).abs() < 1e-6, "{}", quality(&alone));
        assert!((quality(&among) - 0.3).abs() < 1e-6, "one of three wanted: {}", quality(&among));
        let two = kept_sources(2);
        assert!((quality(&two) - 0.45).abs() < 1e-6, "one of the two kept: {}", quality(&two));
    }
}
