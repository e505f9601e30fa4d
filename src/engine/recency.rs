//! Recency: how fresh the cited sources are, and whether that matters at
//! all. It only counts for a question about time (the latest release, the
//! current state, a year, a version); for any other question an old page
//! is as good as a new one, so recency is neutral rather than a free score.

use super::model::SourceMeta;
use super::settings::EvaluateSettings;
use crate::text::word_tokens;

/// Words that make a question about time. General English only: the
/// question's subject never decides this, its wording does.
const TIME_WORDS: &[&str] = &[
    "latest",
    "current",
    "currently",
    "recent",
    "recently",
    "newest",
    "nowadays",
    "today",
    "upcoming",
    "modern",
    "outdated",
    "deprecated",
    "version",
    "versions",
    "release",
    "released",
    "releases",
    "update",
    "updated",
    "updates",
    "year",
    "years",
    "anymore",
    "still",
];

/// Whether the question's answer depends on when it is read: it names a
/// year, asks for the latest or current state, a version or a release.
/// ("When should I …" and "format a date" are not about time: those words
/// are left out.)
pub fn is_time_sensitive(question: &str) -> bool {
    word_tokens(question).iter().any(|w| TIME_WORDS.contains(&w.as_str()) || is_year(w))
}

fn is_year(word: &str) -> bool {
    word.len() == 4 && word.chars().all(|c| c.is_ascii_digit()) && (word.starts_with("19") || word.starts_with("20"))
}

/// A source's recency score: 1 today, halving every half-life; a source
/// with no date scores `recency_unknown`.
pub fn recency(meta: &SourceMeta, today_days: i64, s: &EvaluateSettings) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_about_time_are_told_apart_by_their_wording() {
        for q in [
            "What is the latest release of the compiler?",
            "Which version added this?",
            "Is this still the recommended way?",
            "What changed in 2024?",
            "Which features were released this year?",
        ] {
            assert!(is_time_sensitive(q), "{q}");
        }
        for q in [
            "How do I sort a list?",
            "What is the difference between a box and a cell?",
            "Create a new file",
            "When should I use a reference count?",
            "How do I format a date?",
        ] {
            assert!(!is_time_sensitive(q), "{q}");
        }
    }

    #[test]
    fn recency_halves_every_half_life() {
        let s = EvaluateSettings::default();
        let today = days_since_epoch("2026-01-01").unwrap_or_default();
        let mut old = SourceMeta {
            id: crate::engine::model::SourceId(1),
            locator: "a".into(),
            canonical: "a".into(),
            title: String::new(),
            site: String::new(),
            provider: "test".into(),
            kind: crate::engine::model::SourceKind::Local,
            tier: None,
            source_type: None,
            heading: None,
            published: Some("2024-01-01".into()),
            accessed_at_ms: 0,
            iteration: 1,
            query: String::new(),
            score: 1.0,
            text_len: 1,
            text_hash: String::new(),
            scholarly: None,
        };
        let r = recency(&old, today, &s);
        assert!((r - 0.5).abs() < 0.01, "{r}");
        old.published = None;
        assert_eq!(recency(&old, today, &s), s.recency_unknown);
        assert_eq!(days_since_epoch("1970-01-02"), Some(1));
        assert_eq!(days_since_epoch("not a date"), None);
    }
}
