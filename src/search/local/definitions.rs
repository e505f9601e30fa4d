//! Definitions: what each page says it *is*. People ask in their own words
//! ("a queue that always hands me the smallest item first"); documentation
//! defines its items in other words, once, at the top of their page ("A
//! priority queue implemented with a binary heap."). Each page's defining
//! text, its title and the first sentence or two of its first paragraph,
//! is indexed as a document of its own kind, so a search over definitions
//! with the user's words returns the items the docs define with them: the
//! association between the user's vocabulary and the docs' names is learnt
//! from the corpus at index time, with no word list.

use std::collections::HashSet;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term, Value};
use tantivy::{DocAddress, TantivyDocument};

use super::CorpusError;
use super::corpus::LocalCorpus;
use super::extract::{Block, Page};
use super::schema::{Fields, KIND_DEFINITION};

/// Sentences of a page's opening kept as its definition: the first says
/// what the item is, the second often what it is for ("Wraps a writer and
/// buffers its output. It can be excessively inefficient to work directly
/// with something that implements Write.").
const MAX_SENTENCES: usize = 2;
/// Words of a definition, at most (a first "sentence" may be a paragraph).
const MAX_WORDS: usize = 60;
/// Words of a paragraph that can define, at least.
const MIN_WORDS: usize = 4;

/// One page whose definition matched.
#[derive(Debug, Clone, PartialEq)]
pub struct DefinitionHit {
    /// The page's canonical path: a query that is exactly it reads the page.
    pub path: String,
    pub title: String,
    /// The defining sentences.
    pub summary: String,
    /// BM25 of the words over the summary.
    pub score: f32,
    /// Words of the page: of two pages defined alike, the longer treats
    /// the item (a module's page repeats its type's opening).
    pub words: u64,
}

/// A page's defining text: the first sentence (or two, when the first is
/// short) of its first paragraph of prose, code skipped. `None` for a page
/// with no prose.
pub fn defining_text(page: &Page) -> Option<String> {
    let para = page.sections.iter().flat_map(|s| &s.blocks).find_map(|b| match b {
        Block::Para(t) if is_prose(opening(t)) => Some(opening(t)),
        _ => None,
    })?;
    let joined = sentences(para).into_iter().take(MAX_SENTENCES).collect::<Vec<_>>().join(" ");
    let text: Vec<&str> = joined.split_whitespace().take(MAX_WORDS).collect();
    (!text.is_empty()).then(|| text.join(" "))
}

/// The opening of a paragraph, which is all a definition reads: a few
/// sentences fit many times over. A whole paragraph could be the whole of
/// a 50 MB text file with no blank line, and reading it char by char cost
/// gigabytes.
fn opening(para: &str) -> &str {
    const OPENING_BYTES: usize = 4096;
    if para.len() <= OPENING_BYTES {
        return para;
    }
    let mut end = OPENING_BYTES;
    while !para.is_char_boundary(end) {
        end -= 1;
    }
    &para[..end]
}

/// Prose, not a badge, a grammar rule or a label: it starts with a letter,
/// a digit or a quote, has a few words, and most of its words are
/// lowercase words ("Item →", "Rule → a B ;", "🔬 Experimental" are not).
fn is_prose(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let starts =
        text.trim_start().chars().next().is_some_and(|c| c.is_alphanumeric() || matches!(c, '`' | '"' | '‘' | '“'));
    let lower = words
        .iter()
        .filter(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            !w.is_empty() && w.chars().all(|c| c.is_lowercase() || c == '-' || c == '\'')
        })
        .count();
    starts && words.len() >= MIN_WORDS && 2 * lower >= words.len()
}

/// Sentences of a paragraph: each ends at `.`, `!` or `?` followed by
/// whitespace and a capital letter (or the paragraph's end); a period
/// after a one-letter word ("e.g.", "i.e.") ends none.
fn sentences(para: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = para.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let next = chars.get(k + 1).map(|&(_, n)| n);
        let after = chars.get(k + 2).map(|&(_, n)| n);
        let ends = match (next, after) {
            (None, _) => true,
            (Some(n), Some(a)) => n.is_whitespace() && (a.is_uppercase() || a.is_ascii_digit()),
            (Some(_), None) => false,
        };
        let word = para[start..i].rsplit(char::is_whitespace).next().unwrap_or("");
        let abbreviation = c == '.' && word.trim_start_matches('(').split('.').any(|p| p.chars().count() == 1);
        if ends && !abbreviation {
            out.push(para[start..=i].trim());
            start = i + c.len_utf8();
        }
    }
    let rest = para[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The definition document of a page, when it has defining text.
pub fn definition_doc(fields: Fields, rel: &str, page: &Page, lang: &str) -> Option<TantivyDocument> {
    let summary = defining_text(page)?;
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.kind, KIND_DEFINITION);
    doc.add_text(fields.path, rel);
    doc.add_text(fields.def_title, &page.title);
    doc.add_text(fields.def_body, &summary);
    doc.add_text(fields.lang, lang);
    doc.add_u64(fields.words, page.word_count() as u64);
    Some(doc)
}

impl LocalCorpus {
    /// The pages whose definitions best match `text` (BM25 over their
    /// opening sentences), one per document (its canonical
    /// copy), best first; pages in excluded languages left out.
    pub fn defined_by(&self, text: &str, limit: usize) -> Result<Vec<DefinitionHit>, CorpusError> {
        let terms = self.query_terms(text);
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let f = self.fields;
        let mut words: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        // The opening sentences only: a title that holds the question's
        // words names an item the question's own queries find already.
        for t in &terms {
            let q = TermQuery::new(Term::from_field_text(f.def_body, t), IndexRecordOption::WithFreqs);
            words.push((Occur::Should, Box::new(q)));
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![
            (Occur::Must, Box::new(BooleanQuery::new(words))),
            (
                Occur::Must,
                Box::new(TermQuery::new(Term::from_field_text(f.kind, KIND_DEFINITION), IndexRecordOption::Basic)),
            ),
        ];
        for lang in &self.excluded_languages {
            let q = TermQuery::new(Term::from_field_text(f.lang, lang), IndexRecordOption::Basic);
            clauses.push((Occur::MustNot, Box::new(q)));
        }
        let query = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        // Duplicates (`core/` for `std/`) define the same item: ask for
        // more than `limit` so that folding them still leaves `limit`.
        let top: Vec<(f32, DocAddress)> =
            searcher.search(&query, &TopDocs::with_limit(limit * 4).order_by_score()).map_err(CorpusError::index)?;
        let mut seen: HashSet<String> = HashSet::new();
        let mut out: Vec<DefinitionHit> = Vec::new();
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr).map_err(CorpusError::index)?;
            let get = |field| doc.get_first(field).and_then(|v| v.as_str()).map(str::to_string);
            let Some(found_on) = get(f.path) else { continue };
            let path = self.canonical(&found_on).to_string();
            if !seen.insert(path.clone()) {
                continue;
            }
            let words = searcher
                .segment_reader(addr.segment_ord)
                .fast_fields()
                .u64("words")
                .ok()
                .and_then(|c| c.first(addr.doc_id))
                .unwrap_or(0);
            let hit = DefinitionHit {
                path,
                title: get(f.def_title).unwrap_or_default(),
                summary: get(f.def_body).unwrap_or_default(),
                score,
                words,
            };
            // Pages defined alike define one item: the longest stands for it.
            let full = out.len() >= limit;
            match out.iter_mut().find(|h| h.summary == hit.summary) {
                Some(same) if hit.words > same.words => *same = DefinitionHit { score: same.score, ..hit },
                Some(_) => {}
                None if !full => out.push(hit),
                None => {}
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::extract::Section;
    use super::*;

    fn page(paras: &[Block]) -> Page {
        Page {
            title: "T".into(),
            lang: None,
            sections: vec![Section { heading: None, anchor: None, blocks: paras.to_vec(), links: Vec::new() }],
            links: Vec::new(),
        }
    }

    #[test]
    fn the_definition_is_the_first_prose_sentence_after_any_code() {
        let p = page(&[
            Block::Code("pub struct Heap<T> { /* private fields */ }".into()),
            Block::Para("🔬 This is a nightly-only experimental API.".into()),
            Block::Para("Rule → a Name ;".into()),
            Block::Para("A priority queue implemented with a binary heap. This will be a max-heap. More.".into()),
        ]);
        assert_eq!(
            defining_text(&p).as_deref(),
            Some("A priority queue implemented with a binary heap. This will be a max-heap."),
            "badges and grammar rules are not prose; two sentences at most"
        );
    }

    #[test]
    fn a_long_opening_is_cut_to_a_definitions_length() {
        let long = "small green leaf ".repeat(40);
        let p = page(&[Block::Para(format!("An item that holds {long}."))]);
        assert_eq!(defining_text(&p).map(|t| t.split_whitespace().count()), Some(MAX_WORDS));
    }

    #[test]
    fn abbreviations_and_code_dots_do_not_end_a_sentence() {
        assert_eq!(
            sentences("Reads a value, e.g. a number from a file.rs path. Then stops."),
            vec!["Reads a value, e.g. a number from a file.rs path.", "Then stops."]
        );
    }

    /// A folder of Markdown pages, indexed; the temp dir lives as long as the corpus is used.
    fn corpus(pages: &[(&str, &str)]) -> (tempfile::TempDir, LocalCorpus) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("docs");
        std::fs::create_dir_all(&root).expect("docs dir");
        for (name, text) in pages {
            std::fs::write(root.join(name), text).expect("page written");
        }
        let cfg = super::super::LocalConfig { corpus: Some(root), ..Default::default() };
        let corpus = LocalCorpus::open_or_build(&cfg, &dir.path().join("index"), &|_| {}).expect("index built");
        (dir, corpus)
    }

    #[test]
    fn a_definition_is_found_by_the_words_that_define_it_not_its_name() {
        let (_dir, corpus) = corpus(&[
            (
                "heap.md",
                "# Heap\n\nA priority queue implemented with a binary heap.\n\n\
                 Pushing and popping take logarithmic time. Wrap items in Reverse to pop the least one.\n",
            ),
            (
                "ring.md",
                "# Ring\n\nA double-ended sequence implemented with a growable ring buffer.\n\n\
                 The first and the smallest index are both zero, and items come first in, first out.\n",
            ),
            (
                "iterators.md",
                "# Iterators\n\nComposable external iteration over items.\n\n\
                 The first item comes first; the smallest item is found by min, which takes the first of \
                 equal items. Items always come in order.\n",
            ),
        ]);
        let query = "I need a priority queue that always hands me the smallest item first";
        let found = corpus.defined_by(query, 3).expect("search");
        assert_eq!(found.first().map(|d| d.path.as_str()), Some("heap.md"), "{found:?}");
        assert_eq!(found[0].summary, "A priority queue implemented with a binary heap.");
        assert!(
            !query.to_lowercase().contains(&found[0].title.to_lowercase()),
            "found by its definition, not its title"
        );
        // Passage search ranks the page that repeats the question's words
        // first: the definitions index is what reaches the item.
        let passages = corpus.search(query, &[], 3).expect("search");
        assert_ne!(passages.first().map(|h| h.path.as_str()), Some("heap.md"), "{passages:?}");
        assert!(
            passages
                .iter()
                .all(|h| h.text != "A priority queue implemented with a binary heap." || h.path == "heap.md"),
            "definitions stay out of passage search"
        );
    }

    #[test]
    fn a_page_without_prose_defines_nothing() {
        assert_eq!(defining_text(&page(&[Block::Code("fn main() {}".into())])), None);
    }
}
