//! Where else a quote stands. Documentation repeats itself on purpose: a
//! module page opens each item's summary with the item page's own first
//! sentence ("A priority queue implemented with a binary heap."), and an
//! overview quotes the example its detail page explains. The draft picks a
//! sentence once, from one source; every other kept source holding the
//! same words is cited with it, so the reader is sent to the item's own
//! page as well as to the overview that mentions it, and each citation is
//! checked like the first (the quote is in that source too).

use super::Src;
use super::candidates::MIN_REPEATED_CHARS;
use crate::engine::model::Citation;
use crate::text::normalize_for_match;

/// The most sources one quote cites: its own and two copies. More would
/// bury the sentence under markers without sending the reader anywhere new.
pub const MAX_CITED: usize = 3;

/// The kept sources' texts, normalised once per draft.
pub struct Copies<'a> {
    sources: &'a [Src<'a>],
    texts: Vec<String>,
}

impl<'a> Copies<'a> {
    pub fn new(sources: &'a [Src<'a>]) -> Self {
        Copies { sources, texts: sources.iter().map(|s| normalize_for_match(&s.doc.text)).collect() }
    }

    /// The sources that hold `quote`: `source` first, then the other kept
    /// sources holding the same words, in the order they were given (most
    /// relevant first), at most `MAX_CITED` in all.
    pub fn holders(&self, source: usize, quote: &str) -> Vec<usize> {
        let mut out = vec![source];
        let key = normalize_for_match(quote);
        // Too short a quote is a common phrase: it says nothing of where it comes from.
        if key.chars().count() < MIN_REPEATED_CHARS {
            return out;
        }
        let own = self.sources[source].doc.meta.canonical.as_str();
        for (i, text) in self.texts.iter().enumerate() {
            if out.len() >= MAX_CITED {
                break;
            }
            // Another copy of the same page sends the reader nowhere new.
            if i == source || self.sources[i].doc.meta.canonical == own {
                continue;
            }
            if text.contains(&key) {
                out.push(i);
            }
        }
        out
    }

    /// The quote's citations, one per holder.
    pub fn citations(&self, holders: &[usize], quote: &str) -> Vec<Citation> {
        holders.iter().map(|&i| Citation { source: self.sources[i].doc.meta.id, quote: quote.to_string() }).collect()
    }

    /// The markers after a quote: `[3][7]`.
    pub fn markers(&self, holders: &[usize]) -> String {
        holders.iter().map(|&i| format!("[{}]", self.sources[i].doc.meta.id.0)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::analysis::Stemmer;
    use super::super::test_docs::doc;
    use super::*;
    use crate::engine::reasoner::SourceDoc;

    fn holders_of(docs: &[SourceDoc], source: usize, quote: &str) -> Vec<usize> {
        let mut stemmer = Stemmer::default();
        let reasoner = super::super::test_docs::reasoner();
        let analyzed = reasoner.analyzed(docs, &mut stemmer);
        Copies::new(&analyzed).holders(source, quote)
    }

    #[test]
    fn a_quote_is_held_by_every_page_with_its_words_up_to_three_and_not_by_a_second_copy() {
        let line = "Every   value has exactly one owner at a time.";
        let text = |extra: &str| format!("# Page\n\n{extra}\n\nEvery value has exactly one owner at a time.\n");
        let mut docs: Vec<SourceDoc> =
            (1..=4).map(|i| doc(i, &format!("Page {i}"), &text(&format!("Intro {i}.")))).collect();
        docs.push(doc(5, "Elsewhere", "# Elsewhere\n\nNothing of the kind is said here at all.\n"));
        // Source 2 is another copy of source 1's page.
        let mut copy = (*docs[1].meta).clone();
        copy.canonical = docs[0].meta.canonical.clone();
        docs[1].meta = std::sync::Arc::new(copy);
        assert_eq!(holders_of(&docs, 0, line), vec![0, 2, 3]);
        assert_eq!(holders_of(&docs, 4, "Nothing of the kind is said here at all."), vec![4]);
        // A short phrase many pages share says nothing of where it comes from.
        assert_eq!(holders_of(&docs, 0, "Every value"), vec![0]);
    }
}
