//! Seed 000's QualityReport, computed from REVIEW's verdicts: what share of
//! the fetched sources survived, why the others did not, and which keywords
//! the next queries should add or exclude when too few survived.

use std::collections::{BTreeMap, HashMap};

use super::model::{QualityReport, SourceVerdict, SuggestedRefinement};
use super::settings::ReviewSettings;

/// The report over REVIEW's `verdicts` and the rejection keys of the pages
/// skipped at fetch (`skipped`, see [`skip_rejection`]): a page found but
/// not readable was fetched, and rejected.
pub fn quality_report(verdicts: &[SourceVerdict], skipped: &[&str], s: &ReviewSettings) -> QualityReport {
    let total = verdicts.len() + skipped.len();
    let kept = verdicts.iter().filter(|v| v.kept).count();
    let mut breakdown: BTreeMap<String, usize> = BTreeMap::new();
    let rejected = verdicts.iter().filter(|v| !v.kept).map(|v| v.reason.as_deref().unwrap_or("unspecified"));
    for reason in rejected.chain(skipped.iter().copied()) {
        *breakdown.entry(reason.to_string()).or_default() += 1;
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

/// The skip reason of a page whose extracted text is empty.
pub const NO_TEXT: &str = "no text could be extracted";

/// The rejection key of a page skipped at fetch, from its skip reason:
/// `unreadable` when it was fetched but holds no text sleuth reads (a PDF,
/// a binary, an empty page), `fetch_failed` otherwise (an HTTP error, a
/// redirect loop, a timeout after its retries).
pub fn skip_rejection(reason: &str) -> &'static str {
    // `ProviderError::Skipped` displays as `skipped: …`.
    if reason.starts_with("skipped:") || reason == NO_TEXT { "unreadable" } else { "fetch_failed" }
}

/// A reason second to the dominant one joins the suggestion from this many
/// rejections on (a single stray rejection is noise, not a pattern).
const RUNNER_UP_MIN: usize = 2;

fn suggest(
    verdicts: &[SourceVerdict],
    breakdown: &BTreeMap<String, usize>,
    s: &ReviewSettings,
) -> Option<SuggestedRefinement> {
    // The two leading reasons: most rejections, ties broken by name.
    let mut ranked: Vec<(&String, &usize)> = breakdown.iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let top: Vec<(&String, &usize)> = ranked
        .into_iter()
        .enumerate()
        .filter(|(i, r)| *i == 0 || (*i == 1 && *r.1 >= RUNNER_UP_MIN))
        .map(|(_, r)| r)
        .collect();
    if top.is_empty() {
        return None;
    }
    let mut negative: Vec<String> = Vec::new();
    let mut positive: Vec<String> = Vec::new();
    for (reason, _) in &top {
        if let Some(rule) = s.refinements.get(*reason) {
            push_new(&mut negative, &rule.negative);
            push_new(&mut positive, &rule.positive);
        }
    }

    // Terms that recur among the rejected sources of those reasons.
    let mut freq: HashMap<&str, usize> = HashMap::new();
    let leading = |r: Option<&str>| top.iter().any(|(t, _)| Some(t.as_str()) == r);
    for v in verdicts.iter().filter(|v| !v.kept && leading(v.reason.as_deref())) {
        for sig in &v.signals {
            *freq.entry(sig.as_str()).or_default() += 1;
        }
    }
    let mut signals: Vec<(&str, usize)> = freq.into_iter().filter(|(_, n)| *n >= 2).collect();
    signals.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let terms: Vec<String> = signals.into_iter().take(s.max_signal_keywords).map(|(t, _)| t.to_string()).collect();
    push_new(&mut negative, &terms);
    let counts: Vec<String> = top.iter().map(|(r, n)| format!("{r} ({n} items)")).collect();
    Some(SuggestedRefinement {
        reason: format!("High rejection rate: {}", counts.join(", ")),
        add_negative_keywords: negative,
        add_positive_keywords: positive,
    })
}

fn push_new(into: &mut Vec<String>, terms: &[String]) {
    for t in terms {
        if !into.contains(t) {
            into.push(t.clone());
        }
    }
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
        let r = quality_report(&verdicts, &[], &s);
        assert_eq!((r.total_fetched, r.verified, r.rejected), (15, 4, 11));
        assert!((r.quality_score - 0.2667).abs() < 1e-9);
        assert!(!r.meets_threshold);
        assert_eq!(r.rejection_breakdown.get("educational_resource"), Some(&5));
        let sug = r.suggested_refinement.expect("below threshold suggests a refinement");
        // The runner-up joins: `book` and `cage` tie at 3, names break the tie.
        assert_eq!(sug.reason, "High rejection rate: educational_resource (5 items), book (3 items)");
        assert_eq!(sug.add_negative_keywords, vec!["educational", ".edu", "classroom"]);
    }

    #[test]
    fn above_threshold_suggests_nothing() {
        let verdicts = [v(1, true, None, &[]), v(2, false, Some("off_topic"), &[])];
        let r = quality_report(&verdicts, &[], &ReviewSettings::default());
        assert!(r.meets_threshold);
        assert_eq!(r.suggested_refinement, None);
    }

    #[test]
    fn nothing_fetched_does_not_meet_threshold() {
        let r = quality_report(&[], &[], &ReviewSettings::default());
        assert_eq!(r.quality_score, 0.0);
        assert!(!r.meets_threshold);
        assert_eq!(r.suggested_refinement, None);
    }

    #[test]
    fn pages_skipped_at_fetch_are_fetched_and_rejected() {
        let verdicts = [v(1, true, None, &[]), v(2, false, Some("off_topic"), &[])];
        let skipped = [
            skip_rejection("skipped: a PDF (application/pdf) is not read"),
            skip_rejection(NO_TEXT),
            skip_rejection("redirect loop at http://x.test/a"),
        ];
        assert_eq!(skipped, ["unreadable", "unreadable", "fetch_failed"]);
        let r = quality_report(&verdicts, &skipped, &ReviewSettings::default());
        assert_eq!((r.total_fetched, r.verified, r.rejected), (5, 1, 4));
        assert_eq!(r.rejection_breakdown.get("unreadable"), Some(&2));
        assert_eq!(r.rejection_breakdown.get("fetch_failed"), Some(&1));
        assert_eq!(r.rejection_breakdown.get("off_topic"), Some(&1));
        assert!((r.quality_score - 0.2).abs() < 1e-9);
        assert!(!r.meets_threshold);
    }

    #[test]
    fn the_suggestion_draws_on_the_two_leading_reasons() {
        let mut verdicts = Vec::new();
        for i in 0..4 {
            verdicts.push(v(i, false, Some("off_topic"), &["hamster"]));
        }
        for i in 4..7 {
            verdicts.push(v(i, false, Some("spam"), &["bonus"]));
        }
        verdicts.push(v(7, false, Some("too_short"), &["stub"]));
        verdicts.push(v(8, false, Some("too_short"), &["stub"]));
        let r = quality_report(&verdicts, &[], &ReviewSettings::default());
        let sug = r.suggested_refinement.expect("nothing kept");
        assert_eq!(sug.reason, "High rejection rate: off_topic (4 items), spam (3 items)");
        // The defaults for spam, then both reasons' recurring signals; the
        // third reason (too_short) is left out.
        let spam = &ReviewSettings::default().refinements["spam"];
        assert!(!spam.negative.is_empty(), "spam has default keywords");
        let mut want = spam.negative.clone();
        want.extend(["hamster".to_string(), "bonus".to_string()]);
        assert_eq!(sug.add_negative_keywords, want);
        assert!(!sug.add_negative_keywords.contains(&"stub".to_string()));
    }

    #[test]
    fn a_single_stray_runner_up_is_not_a_pattern() {
        let verdicts = [
            v(1, false, Some("off_topic"), &[]),
            v(2, false, Some("off_topic"), &[]),
            v(3, false, Some("spam"), &["casino"]),
        ];
        let sug = quality_report(&verdicts, &[], &ReviewSettings::default()).suggested_refinement.unwrap();
        assert_eq!(sug.reason, "High rejection rate: off_topic (2 items)");
    }

    #[test]
    fn the_reviewers_usual_reasons_have_default_refinements() {
        let d = ReviewSettings::default().refinements;
        for reason in
            ["tier_filtered", "too_short", "off_topic", "spam", "duplicate", "low_quality", "outdated", "unreadable"]
        {
            let rule = d.get(reason).unwrap_or_else(|| panic!("no default for {reason}"));
            assert!(
                !rule.negative.is_empty() || !rule.positive.is_empty() || reason == "off_topic",
                "{reason} maps to nothing"
            );
        }
    }
}
