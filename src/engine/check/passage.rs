//! A source's text prepared for checking: normalised once for quotes, cut
//! into sentences with an index from each word to the sentences holding
//! it, so the best window for a claim is found without rescanning the text
//! (a 100-claim report over 20 sources reads each source once).

use std::collections::HashMap;

use crate::text::{STOPWORDS, normalize_for_match};

/// The widest passage the passage rule compares a sentence with.
pub const WINDOW_SENTENCES: usize = 3;

/// Terms beyond this many in one sentence count as not found (a mask
/// holds them; a real sentence has far fewer).
const MAX_TERMS: usize = 128;
const MAX_NUMBERS: usize = 64;

/// A source's text, ready for [`SourceDoc::contains_quote`] and
/// [`SourceDoc::best_window`].
#[derive(Debug, Clone)]
pub struct SourceDoc {
    text: String,
    normalized: String,
    /// Byte ranges of the sentences of `text`.
    sentences: Vec<(usize, usize)>,
    /// Word → the sentences holding it, ascending, each once.
    postings: HashMap<String, Vec<u32>>,
}

/// The passage of a source closest to a sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub text: String,
    /// Content words of the sentence found in the passage.
    pub matched: usize,
    /// Numbers the sentence states that the passage lacks.
    pub missing_numbers: Vec<String>,
    /// Whether the passage holds a negation (`no`, `not`, `never`, …).
    pub negated: bool,
}

/// Words that turn a statement around; stopwords, so the content-word
/// share alone cannot tell "X has no Y" from "X has a Y".
const NEGATIONS: &[&str] = &["no", "not", "never", "none", "nothing", "neither", "nor", "cannot", "without"];

/// Whether `text` holds a negation word (or an `n't`).
pub fn negated(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains("n't")
        || lower.contains("n\u{2019}t")
        || lower.split(|c: char| !c.is_alphanumeric()).any(|w| NEGATIONS.contains(&w))
}

impl SourceDoc {
    pub fn new(text: &str) -> Self {
        let sentences = split_sentences(text);
        let mut postings: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, (a, b)) in sentences.iter().enumerate() {
            for word in indexed_words(&text[*a..*b]) {
                let list = postings.entry(word).or_default();
                if list.last() != Some(&(i as u32)) {
                    list.push(i as u32);
                }
            }
        }
        Self { normalized: normalize_for_match(text), text: text.to_string(), sentences, postings }
    }

    /// The stored text as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text normalised for quote matching (`text::normalize_for_match`).
    pub fn normalized(&self) -> &str {
        &self.normalized
    }

    /// Whether `quote` occurs in the text once both are normalised (an
    /// empty quote never does).
    pub fn contains_quote(&self, quote: &str) -> bool {
        let q = normalize_for_match(quote);
        !q.is_empty() && self.normalized.contains(&q)
    }

    /// The window of up to [`WINDOW_SENTENCES`] consecutive sentences
    /// holding most of `terms` (then most of `numbers`, then the shortest);
    /// `None` when no sentence holds any of them.
    pub fn best_window(&self, terms: &[String], numbers: &[String]) -> Option<Window> {
        let mut masks: HashMap<u32, (u128, u64)> = HashMap::new();
        for (bit, t) in terms.iter().take(MAX_TERMS).enumerate() {
            for s in self.postings.get(t).into_iter().flatten() {
                masks.entry(*s).or_default().0 |= 1u128 << bit;
            }
        }
        for (bit, n) in numbers.iter().take(MAX_NUMBERS).enumerate() {
            for s in self.postings.get(n).into_iter().flatten() {
                masks.entry(*s).or_default().1 |= 1u64 << bit;
            }
        }
        let mut best: Option<((u32, u32, i64), usize, usize)> = None;
        let mut candidates: Vec<u32> = masks.keys().copied().collect();
        candidates.sort_unstable();
        for s in candidates {
            let s = s as usize;
            for first in s.saturating_sub(WINDOW_SENTENCES - 1)..=s {
                for last in s..(first + WINDOW_SENTENCES).min(self.sentences.len()) {
                    let (t, n) = (first..=last).fold((0u128, 0u64), |(t, n), k| {
                        let (a, b) = masks.get(&(k as u32)).copied().unwrap_or_default();
                        (t | a, n | b)
                    });
                    let key = (t.count_ones(), n.count_ones(), -((last - first) as i64));
                    if best.as_ref().is_none_or(|(k, ..)| key > *k) {
                        best = Some((key, first, last));
                    }
                }
            }
        }
        let ((matched, found_numbers, _), first, last) = best?;
        let window_text = &self.text[self.sentences[first].0..self.sentences[last].1];
        let missing_numbers = if found_numbers as usize == numbers.len().min(MAX_NUMBERS) {
            numbers.iter().skip(MAX_NUMBERS).cloned().collect()
        } else {
            let words: Vec<String> = indexed_words(window_text);
            numbers.iter().filter(|n| !words.contains(n)).cloned().collect()
        };
        Some(Window {
            text: window_text.trim().to_string(),
            matched: matched as usize,
            missing_numbers,
            negated: negated(window_text),
        })
    }
}

/// Words a sentence is indexed by: lowercased word tokens that are
/// content words (longer than one character, not a stopword) or numbers.
fn indexed_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| is_number(w) || (w.chars().count() > 1 && !STOPWORDS.contains(&w.as_str())))
        .collect()
}

fn is_number(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
}

/// The numbers a sentence states (tokens holding a digit), each once.
pub fn numbers_of(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| is_number(w)) {
        let w = w.to_lowercase();
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// Byte ranges of the sentences of a source text: cut at line ends and
/// after `.`, `!` or `?` followed by whitespace; blank pieces dropped.
fn split_sentences(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let push = |out: &mut Vec<(usize, usize)>, a: usize, b: usize| {
        if text[a..b].chars().any(char::is_alphanumeric) {
            out.push((a, b));
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let end_here = bytes[i] == b'\n'
            || (matches!(bytes[i], b'.' | b'!' | b'?') && bytes.get(i + 1).is_some_and(|b| b.is_ascii_whitespace()));
        if end_here {
            let b = if bytes[i] == b'\n' { i } else { i + 1 };
            push(&mut out, start, b);
            start = i + 1;
        }
        i += 1;
    }
    push(&mut out, start, bytes.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::content_terms;

    const TEXT: &str = "# Watering\n\nDuring a drought, garden watering is allowed only before 8 am and after 7 pm. \
                        Hoses must have a trigger nozzle.\n\n## Fines\n\nA first breach costs 50 euros; a second breach costs 150 euros.";

    #[test]
    fn the_best_window_holds_the_most_content_words_and_names_missing_numbers() {
        let doc = SourceDoc::new(TEXT);
        let claim = "A first breach of the watering rules costs 500 euros";
        let w = doc.best_window(&content_terms(claim), &numbers_of(claim)).unwrap();
        assert!(w.text.starts_with("A first breach costs 50 euros"), "{w:?}");
        assert_eq!(w.missing_numbers, vec!["500".to_string()]);
        assert_eq!(w.matched, 4, "first, breach, costs, euros: {w:?}");
        assert_eq!(doc.best_window(&content_terms("quantum chromodynamics"), &[]), None);
    }

    #[test]
    fn a_window_spans_neighbouring_sentences_but_no_more_than_three() {
        let doc = SourceDoc::new("Alpha one. Beta two. Gamma three. Delta four. Epsilon five.");
        let w = doc.best_window(&content_terms("alpha beta gamma delta"), &[]).unwrap();
        assert_eq!(w.matched, 3);
        assert_eq!(w.text, "Alpha one. Beta two. Gamma three.");
    }

    #[test]
    fn quotes_match_normalised() {
        let doc = SourceDoc::new(TEXT);
        assert!(doc.contains_quote("Hoses  MUST have a trigger nozzle"));
        assert!(!doc.contains_quote("hoses are forbidden"));
        assert!(!doc.contains_quote("  "));
    }
}
