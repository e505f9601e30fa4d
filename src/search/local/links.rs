//! Link following: rustdoc and mdBook pages link the items and chapters
//! they mention, so the links of a section that answers part of a question
//! lead to the pages the rest of the answer needs. The index stores each
//! passage's section links; a query that is exactly a corpus path reads
//! that page, so following a link is a search like any other (recorded,
//! shown, deduplicated by the engine).

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term, Value};
use tantivy::{DocAddress, TantivyDocument};

use super::CorpusError;
use super::corpus::LocalCorpus;
use super::schema::KIND_PASSAGE;
use super::search::PassageHit;

/// Passages of one page read for its links.
const MAX_PASSAGES: usize = 1000;

/// One section's links.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionLinks {
    pub heading: Option<String>,
    pub links: Vec<String>,
}

impl LocalCorpus {
    fn passages_of(&self, path: &str, limit: usize) -> Result<Vec<TantivyDocument>, CorpusError> {
        let f = self.fields;
        let query = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(TermQuery::new(Term::from_field_text(f.path, path), IndexRecordOption::Basic))
                    as Box<dyn Query>,
            ),
            (
                Occur::Must,
                Box::new(TermQuery::new(Term::from_field_text(f.kind, KIND_PASSAGE), IndexRecordOption::Basic)),
            ),
        ]);
        let searcher = self.reader.searcher();
        let mut top: Vec<(f32, DocAddress)> =
            searcher.search(&query, &TopDocs::with_limit(limit).order_by_score()).map_err(CorpusError::index)?;
        // Equal scores: the page's order is the index's.
        top.sort_by_key(|(_, a)| (a.segment_ord, a.doc_id));
        top.into_iter().map(|(_, a)| searcher.doc(a).map_err(CorpusError::index)).collect()
    }

    /// The links of each section of the page at `path` (its canonical copy
    /// when it is a duplicate), sections in page order, merged by heading.
    pub fn section_links(&self, path: &str) -> Result<Vec<SectionLinks>, CorpusError> {
        let f = self.fields;
        let mut out: Vec<SectionLinks> = Vec::new();
        for doc in self.passages_of(self.canonical(path), MAX_PASSAGES)? {
            let get = |field| doc.get_first(field).and_then(|v| v.as_str()).map(str::to_string);
            let heading = get(f.heading);
            let links: Vec<String> = get(f.links).unwrap_or_default().split_whitespace().map(str::to_string).collect();
            match out.iter_mut().find(|s| s.heading == heading) {
                Some(s) => {
                    for l in links {
                        if !s.links.contains(&l) {
                            s.links.push(l);
                        }
                    }
                }
                None => out.push(SectionLinks { heading, links }),
            }
        }
        Ok(out)
    }

    /// When `text` is exactly the path of an indexed page: that page's
    /// first passage, as a hit. `None` for any other query.
    pub fn read_page(&self, text: &str) -> Result<Option<PassageHit>, CorpusError> {
        let path = text.trim();
        if path.is_empty() || path.contains(char::is_whitespace) || !path.contains(['/', '.']) {
            return Ok(None);
        }
        let path = self.canonical(path.split('#').next().unwrap_or(path)).to_string();
        let Some(doc) = self.passages_of(&path, 1)?.into_iter().next() else { return Ok(None) };
        let f = self.fields;
        let get = |field| doc.get_first(field).and_then(|v| v.as_str()).map(str::to_string);
        Ok(Some(PassageHit {
            found_on: path.clone(),
            path,
            anchor: get(f.anchor),
            title: get(f.title).unwrap_or_default(),
            heading: get(f.heading),
            text: get(f.body).unwrap_or_default(),
            score: 1.0,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::extract::{Extracted, FileKind, extract, passages};

    fn sections(kind: FileKind, text: &str, rel: &str) -> Vec<(Option<String>, Vec<String>)> {
        let Extracted::Page(page) = extract(kind, text, rel) else { panic!("a page") };
        page.sections.into_iter().map(|s| (s.heading, s.links)).collect()
    }

    #[test]
    fn html_sections_keep_their_links_resolved_to_corpus_paths() {
        let html = r##"<html><body><nav><a href="../other/nav.html">nav</a></nav><main>
            <p>Intro with <a href="b.html">B</a> and <a href="#top">an anchor</a>.</p>
            <h2 id="x">Shared <a href="../kinds/struct.Thing.html">Thing</a></h2>
            <p>See <a href="../kinds/struct.Thing.html#method.new">new</a>, <a href="sub/">sub</a>,
               <a href="https://example.com/">the web</a> and <a href="a.html">this page</a>.</p>
            </main></body></html>"##;
        let got = sections(FileKind::Html, html, "docs/a.html");
        assert_eq!(
            got,
            vec![
                (None, vec!["docs/b.html".to_string()]),
                (
                    Some("Shared Thing".to_string()),
                    vec!["kinds/struct.Thing.html".to_string(), "docs/sub/index.html".to_string()]
                ),
            ],
            "navigation, anchors, external links and self-links are not followed; a heading's link is its section's"
        );
    }

    #[test]
    fn markdown_sections_keep_their_inline_links() {
        let md = "# Travel\n\nBook through [the desk](../desk/booking.md \"Desk\") first.\n\n\
                  ## Receipts\n\nKeep them ![scan](scan.png) as in [expenses](expenses.md#receipts) or \
                  [the site](https://example.com).\n";
        let got = sections(FileKind::Markdown, md, "policies/travel.md");
        assert_eq!(
            got,
            vec![
                (Some("Travel".to_string()), vec!["desk/booking.md".to_string()]),
                (Some("Receipts".to_string()), vec!["policies/expenses.md".to_string()]),
            ]
        );
        let Extracted::Page(page) = extract(FileKind::Markdown, md, "policies/travel.md") else { panic!("a page") };
        let ps = passages(&page, 100);
        assert_eq!(ps[1].links, vec!["policies/expenses.md".to_string()]);
    }
}
