//! Passage search (BM25 over title, heading and body), collapsed to one
//! hit per document: the best passage of each page, and one page per group
//! of near-identical copies (its canonical copy). Also page fetches and the
//! term statistics the built-in reasoner weighs aspects with.

use std::collections::{HashMap, HashSet};

use tantivy::collector::TopDocs;
use tantivy::fastfield::FastFieldReaders;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term, Value};
use tantivy::{DocAddress, DocId, DocSet, Searcher, TantivyDocument};

use super::CorpusError;
use super::corpus::LocalCorpus;
use super::schema::KIND_PAGE;
use crate::text::STOPWORDS;

/// How passages and pages are ranked (see `[local]` in the config).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranking {
    pub title_boost: f64,
    pub heading_boost: f64,
    pub coordination: f64,
    pub passage_decay: f64,
    /// Passages shorter than this many words score lower (0: no penalty).
    pub short_passage_words: usize,
}

impl Ranking {
    /// BM25 over title, heading and text alike; a page is its best passage.
    pub fn plain() -> Self {
        Self { title_boost: 1.0, heading_boost: 1.0, coordination: 0.0, passage_decay: 0.0, short_passage_words: 0 }
    }
}

impl From<&super::LocalConfig> for Ranking {
    fn from(c: &super::LocalConfig) -> Self {
        Self {
            title_boost: c.title_boost,
            heading_boost: c.heading_boost,
            coordination: c.coordination,
            passage_decay: c.passage_decay,
            short_passage_words: c.short_passage_words,
        }
    }
}

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
        let words = text.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| !w.is_empty());
        for (i, word) in words.enumerate() {
            // A capitalised function word after the first names something (`From`).
            let identifier = i > 0 && word.len() > 1 && word.chars().next().is_some_and(char::is_uppercase);
            if STOPWORDS.contains(&word.to_lowercase().as_str()) && !identifier {
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

    fn build_query(&self, text: &str, exclude: &[String], ranking: &Ranking) -> Option<Box<dyn Query>> {
        let terms = self.query_terms(text);
        if terms.is_empty() {
            return None;
        }
        let f = self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in &terms {
            let (title, heading) = (ranking.title_boost as f32, ranking.heading_boost as f32);
            for (field, boost) in [(f.title, title), (f.heading, heading), (f.body, 1.0)] {
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
    /// A document scores its best passage plus a decaying share of its
    /// next ones (`passage_decay`): a page that treats the topic at length
    /// beats one that mentions it once.
    pub fn search(&self, text: &str, exclude: &[String], limit: usize) -> Result<Vec<PassageHit>, CorpusError> {
        self.search_with(text, exclude, limit, &Ranking::from(&self.cfg))
    }

    /// `search` ranked another way (`Ranking::plain()`: BM25 alone, for baselines).
    pub fn search_with(
        &self,
        text: &str,
        exclude: &[String],
        limit: usize,
        ranking: &Ranking,
    ) -> Result<Vec<PassageHit>, CorpusError> {
        // A query that is a page's path reads that page: how READ searches.
        if let Some(hit) = self.read_page(text)? {
            return Ok(vec![hit]);
        }
        let Some(query) = self.build_query(text, exclude, ranking) else { return Ok(Vec::new()) };
        let searcher = self.reader.searcher();
        let want = self.cfg.candidates_per_query.max(limit * 4);
        let top: Vec<(f32, DocAddress)> =
            searcher.search(&query, &TopDocs::with_limit(want).order_by_score()).map_err(CorpusError::index)?;
        let paths = self.paths_of(&searcher, &top)?;
        let brevity = self.brevity(&searcher, &top, ranking.short_passage_words)?;
        let held = if ranking.coordination > 0.0 {
            self.coverage(&searcher, &self.query_terms(text), &top)?
        } else {
            vec![1.0; top.len()]
        };
        // Per document: its aggregated score, the decay factor reached, its
        // canonical path and its best passage.
        let mut docs: Vec<(f32, f32, String, DocAddress)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let c = ranking.coordination as f32;
        let mut scored: Vec<(f32, usize)> =
            top.iter().enumerate().map(|(i, (score, _))| (score * (c * held[i] + 1.0 - c) * brevity[i], i)).collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (score, i) in scored {
            let Some(found_on) = &paths[i] else { continue };
            let path = self.canonical(found_on).to_string();
            match index.get(&path) {
                Some(&k) => {
                    let (total, factor, _, _) = &mut docs[k];
                    *factor *= ranking.passage_decay as f32;
                    *total += score * *factor;
                }
                None => {
                    index.insert(path.clone(), docs.len());
                    docs.push((score, 1.0, path, top[i].1));
                }
            }
        }
        docs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)));
        let f = self.fields;
        let mut out = Vec::new();
        for (total, _, path, addr) in docs.into_iter().take(limit) {
            let doc: TantivyDocument = searcher.doc(addr).map_err(CorpusError::index)?;
            let get = |field| doc.get_first(field).and_then(|v| v.as_str()).map(str::to_string);
            out.push(PassageHit {
                found_on: get(f.path).unwrap_or_else(|| path.clone()),
                path,
                anchor: get(f.anchor),
                title: get(f.title).unwrap_or_default(),
                heading: get(f.heading),
                text: get(f.body).unwrap_or_default(),
                score: total,
            });
        }
        Ok(out)
    }

    /// Per hit, a factor below 1 for passages shorter than `short` words:
    /// a one-line passage that happens to hold the query's words says
    /// little (square root of the share of `short` it reaches).
    fn brevity(&self, searcher: &Searcher, top: &[(f32, DocAddress)], short: usize) -> Result<Vec<f32>, CorpusError> {
        if short == 0 {
            return Ok(vec![1.0; top.len()]);
        }
        per_hit(
            searcher,
            top,
            |fast| Ok(fast.u64("words").ok()),
            |column, doc| {
                let words = column.as_ref().and_then(|c| c.first(doc)).unwrap_or(short as u64);
                ((words as f32 / short as f32).min(1.0)).sqrt().max(0.2)
            },
        )
    }

    /// Page paths of the hits, from the path column (no stored document read).
    fn paths_of(&self, searcher: &Searcher, top: &[(f32, DocAddress)]) -> Result<Vec<Option<String>>, CorpusError> {
        per_hit(
            searcher,
            top,
            |fast| fast.str("path").map_err(CorpusError::index),
            |column, doc| {
                let col = column.as_ref()?;
                let ord = col.term_ords(doc).next()?;
                let mut s = String::new();
                col.ord_to_str(ord, &mut s).ok()?.then_some(s)
            },
        )
    }

    /// Per hit, the share of the query's weight (idf) it holds in its
    /// title, heading or text, read from the postings, not the stored text.
    fn coverage(
        &self,
        searcher: &Searcher,
        terms: &[String],
        top: &[(f32, DocAddress)],
    ) -> Result<Vec<f32>, CorpusError> {
        let f = self.fields;
        let n = self.meta.passages.max(1) as f64;
        let weights: Vec<f64> = terms
            .iter()
            .map(|t| {
                let df = searcher.doc_freq(&Term::from_field_text(f.body, t)).unwrap_or(0) as f64;
                ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
            })
            .collect();
        let total: f64 = weights.iter().sum::<f64>().max(1e-9);
        let mut held = vec![0f64; top.len()];
        let mut by_segment: HashMap<u32, Vec<(u32, usize)>> = HashMap::new();
        for (i, (_, addr)) in top.iter().enumerate() {
            by_segment.entry(addr.segment_ord).or_default().push((addr.doc_id, i));
        }
        for (segment, mut docs) in by_segment {
            docs.sort_unstable();
            let reader = searcher.segment_reader(segment);
            for (t, w) in terms.iter().zip(&weights) {
                let mut has = vec![false; docs.len()];
                for field in [f.title, f.heading, f.body] {
                    let inverted = reader.inverted_index(field).map_err(CorpusError::index)?;
                    let term = Term::from_field_text(field, t);
                    let postings = inverted
                        .read_postings(&term, IndexRecordOption::Basic)
                        .map_err(|e| CorpusError::Index { message: e.to_string() })?;
                    let Some(mut postings) = postings else { continue };
                    for (k, (doc, _)) in docs.iter().enumerate() {
                        if postings.doc() <= *doc && postings.seek(*doc) == *doc {
                            has[k] = true;
                        }
                    }
                }
                for (k, (_, i)) in docs.iter().enumerate() {
                    if has[k] {
                        held[*i] += w;
                    }
                }
            }
        }
        Ok(held.into_iter().map(|h| (h / total) as f32).collect())
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
        // Indexes built before control characters were stripped at
        // indexing still hold them: strip them on the way out too.
        Ok(Some(PageText {
            title: crate::text::sanitize_inline(&text(f.page_title)),
            text: crate::text::sanitize(&text(f.page_text)),
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

/// Per hit, `read` of a fast-field column of its segment; `open` opens
/// that column once per segment, not once per hit.
fn per_hit<C: Clone, T>(
    searcher: &Searcher,
    top: &[(f32, DocAddress)],
    open: impl Fn(&FastFieldReaders) -> Result<C, CorpusError>,
    read: impl Fn(&C, DocId) -> T,
) -> Result<Vec<T>, CorpusError> {
    let mut columns: HashMap<u32, C> = HashMap::new();
    let mut out = Vec::with_capacity(top.len());
    for (_, addr) in top {
        let column = match columns.get(&addr.segment_ord) {
            Some(c) => c.clone(),
            None => {
                let c = open(searcher.segment_reader(addr.segment_ord).fast_fields())?;
                columns.insert(addr.segment_ord, c.clone());
                c
            }
        };
        out.push(read(&column, addr.doc_id));
    }
    Ok(out)
}
