//! Passage search (BM25 over title, heading and body), collapsed to one
//! hit per document: the best passage of each page, and one page per group
//! of near-identical copies (its canonical copy). Also page fetches and the
//! term statistics the built-in reasoner weighs aspects with.

use std::collections::HashSet;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term, Value};
use tantivy::{DocAddress, TantivyDocument};

use super::CorpusError;
use super::corpus::LocalCorpus;
use super::schema::KIND_PAGE;
use crate::text::STOPWORDS;

/// Field weights: a match in the title or a heading says more than one in the body.
const TITLE_BOOST: f32 = 2.0;
const HEADING_BOOST: f32 = 1.5;

/// One passage that matched, as the search returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageHit {
    /// The canonical page of the document the passage belongs to.
    pub path: String,
    /// The page the passage was found on (a duplicate of `path`, or `path`).
    pub found_on: String,
    pub anchor: Option<String>,
    pub title: String,
    pub heading: Option<String>,
    pub text: String,
    pub score: f32,
}

/// A page's stored text.
#[derive(Debug, Clone, PartialEq)]
pub struct PageText {
    pub title: String,
    pub text: String,
    /// Modification time, seconds since the epoch.
    pub mtime: u64,
}

impl LocalCorpus {
    /// Index terms of `text`: analysed like the index (lowercase, English
    /// stems), stopwords dropped, each term once.
    pub fn query_terms(&self, text: &str) -> Vec<String> {
        let mut analyzer = super::schema::analyzer();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for word in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
            if word.is_empty() || STOPWORDS.contains(&word.to_lowercase().as_str()) {
                continue;
            }
            let mut stream = analyzer.token_stream(word);
            while stream.advance() {
                let t = stream.token().text.clone();
                if seen.insert(t.clone()) {
                    out.push(t);
                }
            }
        }
        out
    }

    fn build_query(&self, text: &str, exclude: &[String]) -> Option<Box<dyn Query>> {
        let terms = self.query_terms(text);
        if terms.is_empty() {
            return None;
        }
        let f = self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in &terms {
            for (field, boost) in [(f.title, TITLE_BOOST), (f.heading, HEADING_BOOST), (f.body, 1.0)] {
                let q = TermQuery::new(Term::from_field_text(field, t), IndexRecordOption::WithFreqs);
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost))));
            }
        }
        for t in exclude.iter().flat_map(|e| self.query_terms(e)) {
            for field in [f.title, f.body] {
                let q = TermQuery::new(Term::from_field_text(field, &t), IndexRecordOption::Basic);
                clauses.push((Occur::MustNot, Box::new(q)));
            }
        }
        for lang in &self.excluded_languages {
            let q = TermQuery::new(Term::from_field_text(f.lang, lang), IndexRecordOption::Basic);
            clauses.push((Occur::MustNot, Box::new(q)));
        }
        Some(Box::new(BooleanQuery::new(clauses)))
    }

    /// The best passages for `text`, at most one per document, best first.
    pub fn search(&self, text: &str, exclude: &[String], limit: usize) -> Result<Vec<PassageHit>, CorpusError> {
        let Some(query) = self.build_query(text, exclude) else { return Ok(Vec::new()) };
        let searcher = self.reader.searcher();
        let want = self.cfg.candidates_per_query.max(limit * 4);
        let top: Vec<(f32, DocAddress)> =
            searcher.search(&query, &TopDocs::with_limit(want).order_by_score()).map_err(CorpusError::index)?;
        let f = self.fields;
        let mut seen: HashSet<String> = HashSet::new();
        let mut out = Vec::new();
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr).map_err(CorpusError::index)?;
            let get = |field| doc.get_first(field).and_then(|v| v.as_str()).map(str::to_string);
            let Some(found_on) = get(f.path) else { continue };
            let path = self.canonical(&found_on).to_string();
            if !seen.insert(path.clone()) {
                continue;
            }
            out.push(PassageHit {
                path,
                found_on,
                anchor: get(f.anchor),
                title: get(f.title).unwrap_or_default(),
                heading: get(f.heading),
                text: get(f.body).unwrap_or_default(),
                score,
            });
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    /// The stored text of the page at `path`.
    pub fn page(&self, path: &str) -> Result<Option<PageText>, CorpusError> {
        let f = self.fields;
        let query = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(TermQuery::new(Term::from_field_text(f.path, path), IndexRecordOption::Basic))
                    as Box<dyn Query>,
            ),
            (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(f.kind, KIND_PAGE), IndexRecordOption::Basic))),
        ]);
        let searcher = self.reader.searcher();
        let top: Vec<(f32, DocAddress)> =
            searcher.search(&query, &TopDocs::with_limit(1).order_by_score()).map_err(CorpusError::index)?;
        let Some((_, addr)) = top.first() else { return Ok(None) };
        let doc: TantivyDocument = searcher.doc(*addr).map_err(CorpusError::index)?;
        let text = |field| doc.get_first(field).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        Ok(Some(PageText {
            title: text(f.page_title),
            text: text(f.page_text),
            mtime: doc.get_first(f.mtime).and_then(|v| v.as_u64()).unwrap_or(0),
        }))
    }

    /// In how many passages the index term `term` (already analysed) occurs.
    pub fn passage_frequency(&self, term: &str) -> u64 {
        let t = Term::from_field_text(self.fields.body, term);
        self.reader.searcher().doc_freq(&t).unwrap_or(0)
    }

    /// Passages in the index.
    pub fn passage_count(&self) -> u64 {
        self.meta.passages as u64
    }
}
