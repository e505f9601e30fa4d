//! Seed 000's QualityReport, computed from REVIEW's verdicts: what share of
//! the fetched sources survived, why the others did not, and which keywords
//! the next queries should add or exclude when too few survived.

use std::collections::{BTreeMap, HashMap};

use super::model::{QualityReport, SourceVerdict, SuggestedRefinement};
use super::settings::ReviewSettings;

pub fn quality_report(verdicts: &[SourceVerdict], s: &ReviewSettings) -> QualityReport {
    let total = verdicts.len();
    let kept = verdicts.iter().filter(|v| v.kept).count();
    let mut breakdown: BTreeMap<String, usize> = BTreeMap::new();
    for v in verdicts.iter().filter(|v| !v.kept) {
        let reason = v.reason.clone().unwrap_or_else(|| "unspecified".into());
        *breakdown.entry(reason).or_default() += 1;
    }
    let quality_score = if total == 0 { 0.0 } else { kept as f64 / total as f64 };
    let meets_threshold = total > 0 && quality_score >= s.quality_threshold;
    let suggested_refinement =
        if meets_threshold || breakdown.is_empty() { None } else { suggest(verdicts, &breakdown, s) };
    QualityReport {
        total_fetched: total,
        verified: kept,
        rejected: total - kept,
        rejection_breakdown: breakdown,
        quality_score: (quality_score * 10_000.0).round() / 10_000.0,
        meets_threshold,
        suggested_refinement,
    }
}

fn suggest(
    verdicts: &[SourceVerdict],
    breakdown: &BTreeMap<String, usize>,
    s: &ReviewSettings,
) -> Option<SuggestedRefinement> {
    // Dominant reason: most rejections, ties broken by name for determinism.
    let (reason, count) = breakdown.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))?;
    let rule = s.refinements.get(reason);
    let mut negative: Vec<String> = rule.map(|r| r.negative.clone()).unwrap_or_default();
    let positive: Vec<String> = rule.map(|r| r.positive.clone()).unwrap_or_default();

    // Terms that recur among the rejected sources of the dominant reason.
    let mut freq: HashMap<&str, usize> = HashMap::new();
    for v in verdicts.iter().filter(|v| !v.kept && v.reason.as_deref() == Some(reason)) {
        for sig in &v.signals {
            *freq.entry(sig.as_str()).or_default() += 1;
        }
    }
    let mut signals: Vec<(&str, usize)> = freq.into_iter().filter(|(_, n)| *n >= 2).collect();
    signals.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (term, _) in signals.into_iter().take(s.max_signal_keywords) {
        if !negative.iter().any(|n| n == term) {
            negative.push(term.to_string());
        }
    }
    Some(SuggestedRefinement {
        reason: format!("High rejection rate: {reason} ({count} items)"),
        add_negative_keywords: negative,
        add_positive_keywords: positive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::SourceId;
    use crate::engine::settings::RefinementRule;

    fn v(id: u32, kept: bool, reason: Option<&str>, signals: &[&str]) -> SourceVerdict {
        SourceVerdict {
            id: SourceId(id),
            kept,
            reason: reason.map(str::to_string),
            relevance: 0.5,
            signals: signals.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn seed_000_hamster_example() {
        // 15 fetched, 4 verified, 11 rejected: 5 educational, 3 cage, 3 book.
        let mut verdicts = Vec::new();
        for i in 0..4 {
            verdicts.push(v(i, true, None, &[]));
        }
        for i in 4..9 {
            verdicts.push(v(i, false, Some("educational_resource"), &["classroom"]));
        }
        for i in 9..12 {
            verdicts.push(v(i, false, Some("cage"), &[]));
        }
        for i in 12..15 {
            verdicts.push(v(i, false, Some("book"), &[]));
        }
        let mut s = ReviewSettings::default();
        s.refinements.insert(
            "educational_resource".into(),
            RefinementRule { negative: vec!["educational".into(), ".edu".into()], positive: vec![] },
        );
        let r = quality_report(&verdicts, &s);
        assert_eq!((r.total_fetched, r.verified, r.rejected), (15, 4, 11));
        assert!((r.quality_score - 0.2667).abs() < 1e-9);
        assert!(!r.meets_threshold);
        assert_eq!(r.rejection_breakdown.get("educational_resource"), Some(&5));
        let sug = r.suggested_refinement.expect("below threshold suggests a refinement");
        assert_eq!(sug.reason, "High rejection rate: educational_resource (5 items)");
        assert_eq!(sug.add_negative_keywords, vec!["educational", ".edu", "classroom"]);
    }

    #[test]
    fn above_threshold_suggests_nothing() {
        let verdicts = [v(1, true, None, &[]), v(2, false, Some("off_topic"), &[])];
        let r = quality_report(&verdicts, &ReviewSettings::default());
        assert!(r.meets_threshold);
        assert_eq!(r.suggested_refinement, None);
    }

    #[test]
    fn nothing_fetched_does_not_meet_threshold() {
        let r = quality_report(&[], &ReviewSettings::default());
        assert_eq!(r.quality_score, 0.0);
        assert!(!r.meets_threshold);
        assert_eq!(r.suggested_refinement, None);
    }
}
