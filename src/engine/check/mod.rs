//! The claim checker: one piece of code for VERIFY (every cited sentence of
//! the report the engine writes) and for `sleuth verify` (any report, its
//! sources fetched again, taken from a folder, a session or a bundle).
//!
//! A cited sentence is decided by the first rule that applies:
//! 1. **Unreachable / unknown**: no cited source could be read.
//! 2. **Quote**: a quote given for it (a claim's quote in a session, words
//!    in quotation marks in any report) must occur, normalised, in a cited
//!    source — one that does not is a fabricated quote and the sentence is
//!    unsupported; a quote found supports the sentence when the quotes carry
//!    at least half of its content words ([`SUPPORT_SHARE`], the rule the
//!    engine has always scored claims with) and every number it states.
//! 3. **Passage**: otherwise the best window of up to three consecutive
//!    sentences of a cited source must hold at least half of the
//!    sentence's content words and every number it states, and a sentence
//!    that negates (`no`, `not`, `never`, …) needs a passage that does too.
//!
//! With `require_quote`, a sentence given no quote is "no quote given"
//! instead of being decided by its best passage.

mod passage;
pub mod statements;

pub use passage::{SourceDoc, WINDOW_SENTENCES, Window, negated, numbers_of};
pub use statements::{MARKS, Statement, cited_statements, heading, is_reference_heading};

use crate::engine::model::{CheckOutcome, CheckRule, Claim, StatementCheck};
use crate::text::content_terms;

/// The share of a sentence's content words its evidence must hold.
pub const SUPPORT_SHARE: f64 = 0.5;

/// Evidence longer than this is shortened in the result (the full text
/// stays in the source).
const EVIDENCE_CHARS: usize = 400;

/// What the checker has of a cited source.
#[derive(Debug, Clone, Copy)]
pub enum SourceState<'a> {
    Read(&'a SourceDoc),
    /// Listed, but its text could not be had: why.
    Unreachable(&'a str),
    /// The number names no source of the report.
    Unknown,
}

/// A quote offered for a sentence: from one source (a claim's citation),
/// or from any cited source (quotation marks in the sentence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenQuote {
    pub source: Option<u32>,
    pub text: String,
}

/// One sentence to check.
#[derive(Debug, Clone)]
pub struct CheckInput<'a> {
    pub text: &'a str,
    pub cites: &'a [u32],
    pub quotes: &'a [GivenQuote],
    pub require_quote: bool,
}

/// Whether `matched` content words of `total` are enough.
pub fn covers(matched: usize, total: usize) -> bool {
    total > 0 && matched as f64 >= total as f64 * SUPPORT_SHARE
}

/// Content words of `claim` found among the content words of `evidence`:
/// `(found, of)`.
pub fn shared_terms(claim: &str, evidence: &[&str]) -> (usize, usize) {
    let terms = content_terms(claim);
    let found: std::collections::HashSet<String> = evidence.iter().flat_map(|e| content_terms(e)).collect();
    (terms.iter().filter(|t| found.contains(*t)).count(), terms.len())
}

/// Whether a sentence of a report states `claim`: it holds at least half
/// of the claim's content words (a report words a claim more freely).
pub fn states_claim(sentence: &str, claim: &str) -> bool {
    let (m, t) = shared_terms(claim, &[sentence]);
    covers(m, t)
}

/// The quotes that come with a sentence: the words it puts in quotation
/// marks, and the quotes of the claims it states from the sources it cites.
pub fn quotes_for(statement: &Statement, claims: &[Claim]) -> Vec<GivenQuote> {
    let mut quotes: Vec<GivenQuote> =
        statement.quotes.iter().map(|q| GivenQuote { source: None, text: q.clone() }).collect();
    for claim in claims.iter().filter(|c| states_claim(&statement.text, &c.text)) {
        for c in claim.citations.iter().filter(|c| statement.cites.contains(&c.source.0)) {
            quotes.push(GivenQuote { source: Some(c.source.0), text: c.quote.clone() });
        }
    }
    quotes
}

/// Checks every statement that cites a source; `claims` are the report's
/// structured claims with their quotes (none for a report from elsewhere).
pub fn check_all<'s>(
    statements: &[Statement],
    claims: &[Claim],
    source: &dyn Fn(u32) -> SourceState<'s>,
    require_quote: bool,
) -> Vec<StatementCheck> {
    statements
        .iter()
        .filter(|s| !s.cites.is_empty())
        .map(|s| {
            let quotes = quotes_for(s, claims);
            check_statement(&CheckInput { text: &s.text, cites: &s.cites, quotes: &quotes, require_quote }, source)
        })
        .collect()
}

/// Decides one cited sentence.
pub fn check_statement<'s>(input: &CheckInput<'_>, source: &dyn Fn(u32) -> SourceState<'s>) -> StatementCheck {
    let terms = content_terms(input.text);
    let numbers = numbers_of(input.text);
    let mut result = StatementCheck {
        text: input.text.to_string(),
        cites: input.cites.to_vec(),
        outcome: CheckOutcome::Unsupported,
        rule: CheckRule::None,
        source: input.cites.first().copied(),
        evidence: String::new(),
        matched: 0,
        terms: terms.len(),
        why: String::new(),
    };
    let mut read: Vec<(u32, &SourceDoc)> = Vec::new();
    let mut unreachable: Vec<(u32, &str)> = Vec::new();
    let mut unknown: Vec<u32> = Vec::new();
    for n in input.cites {
        match source(*n) {
            SourceState::Read(d) => read.push((*n, d)),
            SourceState::Unreachable(why) => unreachable.push((*n, why)),
            SourceState::Unknown => unknown.push(*n),
        }
    }
    if read.is_empty() {
        if let Some((n, why)) = unreachable.first() {
            result.outcome = CheckOutcome::Unreachable;
            result.source = Some(*n);
            result.why = format!("[{n}] could not be read: {why}");
        } else {
            let ids: Vec<String> = unknown.iter().map(|n| format!("[{n}]")).collect();
            result.why = if ids.is_empty() {
                "it cites no source".into()
            } else {
                format!("{} names no source of the report", ids.join(", "))
            };
        }
        return result;
    }

    // Rule 2: quotes given must be in a cited source, and say it.
    let mut found: Vec<(u32, &str)> = Vec::new();
    for q in input.quotes.iter().filter(|q| !q.text.trim().is_empty()) {
        let targets: Vec<&(u32, &SourceDoc)> = match q.source {
            Some(s) => read.iter().filter(|(n, _)| *n == s).collect(),
            None => read.iter().collect(),
        };
        if targets.is_empty() {
            // Its source was not read (or is not cited here): no verdict on it.
            continue;
        }
        match targets.iter().find(|(_, d)| d.contains_quote(&q.text)) {
            Some((n, _)) => found.push((*n, q.text.as_str())),
            None => {
                let at = q.source.map_or("any cited source".to_string(), |s| format!("[{s}]"));
                result.rule = CheckRule::Quote;
                result.source = q.source.or(result.source);
                result.evidence = shorten(&q.text);
                result.why = format!("the quote is not in {at}: \u{201c}{}\u{201d}", shorten(&q.text));
                return result;
            }
        }
    }
    if !found.is_empty() {
        let quotes: Vec<&str> = found.iter().map(|(_, q)| *q).collect();
        let (m, t) = shared_terms(input.text, &quotes);
        let quoted_numbers: Vec<String> = quotes.iter().flat_map(|q| numbers_of(q)).collect();
        let numbers_quoted = numbers.iter().all(|n| quoted_numbers.contains(n));
        if (covers(m, t) || (t == 0 && numbers.is_empty())) && numbers_quoted {
            result.outcome = CheckOutcome::Supported;
            result.rule = CheckRule::Quote;
            result.source = Some(found[0].0);
            result.evidence = shorten(found[0].1);
            result.matched = m;
            result.why = format!("the quote is in [{}] and holds {m} of {t} content words", found[0].0);
            return result;
        }
    }
    let given_none = input.quotes.iter().all(|q| q.text.trim().is_empty());

    // Rule 3: the best passage of a cited source.
    if terms.is_empty() && numbers.is_empty() {
        result.outcome =
            if input.require_quote && given_none { CheckOutcome::NoQuote } else { CheckOutcome::Supported };
        result.rule = CheckRule::Passage;
        result.why = "the sentence states nothing to compare (no content words)".into();
        return result;
    }
    let best = read
        .iter()
        .filter_map(|(n, d)| d.best_window(&terms, &numbers).map(|w| (*n, w)))
        .max_by_key(|(_, w)| (w.matched, std::cmp::Reverse(w.missing_numbers.len())));
    let Some((n, w)) = best else {
        let ids: Vec<String> = read.iter().map(|(n, _)| format!("[{n}]")).collect();
        result.rule = CheckRule::Passage;
        result.outcome =
            if input.require_quote && given_none { CheckOutcome::NoQuote } else { CheckOutcome::Unsupported };
        result.why = format!("none of its content words is in {}", ids.join(" or "));
        return result;
    };
    result.source = Some(n);
    result.evidence = shorten(&w.text);
    result.matched = w.matched;
    let enough = covers(w.matched, terms.len()) || terms.is_empty();
    let quote_note = if found.is_empty() {
        String::new()
    } else {
        let quotes: Vec<&str> = found.iter().map(|(_, q)| *q).collect();
        let (m, t) = shared_terms(input.text, &quotes);
        let quoted_numbers: Vec<String> = quotes.iter().flat_map(|q| numbers_of(q)).collect();
        match numbers.iter().find(|n| !quoted_numbers.contains(*n)) {
            Some(n) if covers(m, t) => format!("its quote lacks the number {n}; "),
            _ => format!("its quote holds only {m} of {t} content words; "),
        }
    };
    if input.require_quote && given_none {
        result.outcome = CheckOutcome::NoQuote;
        result.rule = CheckRule::None;
        result.why = format!(
            "no quote given (the closest passage of [{n}] holds {} of {} content words)",
            w.matched,
            terms.len()
        );
        return result;
    }
    result.rule = CheckRule::Passage;
    let turned = negated(input.text) && !w.negated;
    if enough && w.missing_numbers.is_empty() && !turned {
        result.outcome = CheckOutcome::Supported;
        result.why = format!("{quote_note}a passage of [{n}] holds {} of {} content words", w.matched, terms.len());
    } else if enough && turned {
        result.why = format!(
            "{quote_note}the sentence negates, the closest passage of [{n}] does not ({} of {} content words)",
            w.matched,
            terms.len()
        );
    } else if enough {
        result.why = format!(
            "{quote_note}the closest passage of [{n}] lacks the number{} {}",
            if w.missing_numbers.len() == 1 { "" } else { "s" },
            w.missing_numbers.join(", ")
        );
    } else {
        result.why = format!(
            "{quote_note}the closest passage of [{n}] holds only {} of {} content words",
            w.matched,
            terms.len()
        );
    }
    result
}

/// `text` cut to a readable length at a character boundary.
fn shorten(text: &str) -> String {
    let t = text.trim();
    if t.chars().count() <= EVIDENCE_CHARS {
        return t.to_string();
    }
    let mut s: String = t.chars().take(EVIDENCE_CHARS).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests;
