//! Monitor mode: the critique compares what official (tier 1)
//! and social (tier 5) sources say. This is the reasoner-independent part:
//! each statement of a tier-5 source is checked for support in the tier-1
//! texts (by shared content terms), and the result becomes one critique
//! issue a reader sees next to the reasoner's own.

use std::collections::HashSet;

use super::model::{Issue, Severity, SourceId};
use crate::text::{content_terms, sanitize_inline};

/// The issue's aspect, so a reader (and the report) can pick it out.
pub const ASPECT: &str = "tier 1 vs tier 5";

/// A statement counts when it has at least this many content terms.
const MIN_TERMS: usize = 4;
/// ... and is supported when this share of its terms occur in one tier-1 sentence.
const SUPPORT_SHARE: f64 = 0.5;
/// Statements read per source: enough for a page's claims, bounded work.
const MAX_STATEMENTS: usize = 60;

/// A kept source as the comparison sees it.
pub struct TierText<'a> {
    pub id: SourceId,
    pub tier: Option<u8>,
    pub text: &'a str,
}

/// The comparison as a critique issue: `Low` when the tier-5 sources say
/// what tier 1 says (or there is nothing to compare), `Medium` when most of
/// what they say is found in no tier-1 source.
pub fn compare_tiers(sources: &[TierText<'_>]) -> Issue {
    let official: Vec<&TierText<'_>> = sources.iter().filter(|s| s.tier == Some(1)).collect();
    let social: Vec<&TierText<'_>> = sources.iter().filter(|s| s.tier == Some(5)).collect();
    let issue = |severity, description: String| Issue { severity, description, aspect: Some(ASPECT.into()) };
    if official.is_empty() || social.is_empty() {
        let missing = if official.is_empty() { "tier 1 (official)" } else { "tier 5 (social)" };
        return issue(
            Severity::Low,
            format!(
                "Monitor mode: no {missing} source among the kept sources, so tier 1 and tier 5 could not be compared."
            ),
        );
    }
    let reference: Vec<HashSet<String>> =
        official.iter().flat_map(|s| statements(s.text)).map(|t| t.into_iter().collect()).collect();
    let mut total = 0;
    let mut unconfirmed: Vec<(SourceId, String)> = Vec::new();
    for s in &social {
        for sentence in sentences(s.text).into_iter().take(MAX_STATEMENTS) {
            let terms = content_terms(sentence);
            if terms.len() < MIN_TERMS {
                continue;
            }
            total += 1;
            let supported = reference.iter().any(|r| {
                let shared = terms.iter().filter(|t| r.contains(*t)).count();
                shared as f64 / terms.len() as f64 >= SUPPORT_SHARE
            });
            if !supported {
                unconfirmed.push((s.id, sentence.to_string()));
            }
        }
    }
    let ids = |v: &[&TierText<'_>]| v.iter().map(|s| s.id.to_string()).collect::<Vec<_>>().join(", ");
    let (o, t5) = (ids(&official), ids(&social));
    if unconfirmed.is_empty() {
        return issue(
            Severity::Low,
            format!(
                "Monitor mode: every statement of the tier-5 sources {t5} is also found in the tier-1 sources {o}."
            ),
        );
    }
    let examples: Vec<String> =
        unconfirmed.iter().take(2).map(|(id, s)| format!("\u{201c}{}\u{201d} {id}", shorten(s, 120))).collect();
    let severity = if unconfirmed.len() * 2 > total { Severity::Medium } else { Severity::Low };
    issue(
        severity,
        format!(
            "Monitor mode: {} of {total} statements in the tier-5 sources {t5} are not found in the tier-1 sources {o}; treat them as unconfirmed, e.g. {}.",
            unconfirmed.len(),
            examples.join("; ")
        ),
    )
}

/// Content-term lists of a text's sentences that are long enough to count.
fn statements(text: &str) -> Vec<Vec<String>> {
    sentences(text).into_iter().map(content_terms).filter(|t| t.len() >= MIN_TERMS).collect()
}

/// Sentences: split at `.`, `!` or `?` followed by white space, and at line breaks.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (k, (i, c)) in chars.iter().enumerate() {
            let ends = matches!(c, '.' | '!' | '?') && chars.get(k + 1).is_none_or(|(_, n)| n.is_whitespace());
            if ends {
                out.push(line[start..=*i].trim());
                start = i + c.len_utf8();
            }
        }
        out.push(line[start..].trim());
    }
    out.retain(|s| !s.is_empty());
    out
}

fn shorten(s: &str, max: usize) -> String {
    let s = sanitize_inline(s);
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", s[..i].trim_end()),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFFICIAL: &str = "The agency confirmed the bridge will close for repairs on Monday morning. \
                            Traffic is diverted through the northern ring road during the works.";

    fn src(id: u32, tier: u8, text: &str) -> TierText<'_> {
        TierText { id: SourceId(id), tier: Some(tier), text }
    }

    #[test]
    fn social_statements_found_in_official_sources_are_corroborated() {
        let social = "Heard the bridge will close for repairs on Monday morning!";
        let i = compare_tiers(&[src(1, 1, OFFICIAL), src(2, 5, social)]);
        assert_eq!(i.severity, Severity::Low);
        assert!(i.description.contains("every statement"), "{}", i.description);
        assert_eq!(i.aspect.as_deref(), Some(ASPECT));
    }

    #[test]
    fn unsupported_social_statements_are_named() {
        let social = "The bridge will close for repairs on Monday morning. \
                      Insiders say the mayor secretly sold the bridge to a foreign company.";
        let rumour = "Aliens landed near the harbour crane yesterday evening.";
        let i = compare_tiers(&[
            src(1, 1, OFFICIAL),
            src(2, 5, social),
            src(3, 5, rumour),
            src(4, 3, "ignored middle tier text here"),
        ]);
        assert_eq!(i.severity, Severity::Medium, "2 of 3 statements unconfirmed");
        assert!(i.description.contains("2 of 3 statements"), "{}", i.description);
        assert!(i.description.contains("mayor secretly sold") && i.description.contains("[2]"), "{}", i.description);
        assert!(i.description.contains("[2], [3]") && i.description.contains("tier-1 sources [1]"));
    }

    #[test]
    fn nothing_to_compare_is_said() {
        let i = compare_tiers(&[src(1, 1, OFFICIAL)]);
        assert_eq!(i.severity, Severity::Low);
        assert!(i.description.contains("no tier 5"), "{}", i.description);
    }

    #[test]
    fn sentences_split_on_terminal_punctuation_and_lines() {
        assert_eq!(sentences("A b. C d!\nE f? v1.2 stays"), vec!["A b.", "C d!", "E f?", "v1.2 stays"]);
    }
}
