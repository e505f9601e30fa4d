//! The local corpus as a `SearchProvider`: hits are passages (page, heading,
//! score) collapsed to one per document; a fetch returns the page's text.

use std::sync::Arc;

use async_trait::async_trait;

use super::LocalCorpus;
use super::dupes::top_folder;
use crate::engine::model::SourceKind;
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

/// Snippets are cut to about this many bytes.
const SNIPPET_BYTES: usize = 300;

pub struct LocalProvider {
    corpus: Arc<LocalCorpus>,
    tier: u8,
}

impl LocalProvider {
    pub fn new(corpus: Arc<LocalCorpus>, tier: u8) -> Self {
        Self { corpus, tier }
    }
}

#[async_trait]
impl SearchProvider for LocalProvider {
    fn name(&self) -> &str {
        "local"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let hits = self
            .corpus
            .search(&query.text, &query.exclude, query.limit.max(1))
            .map_err(|e| ProviderError::permanent(e.to_string()))?;
        Ok(hits
            .into_iter()
            .map(|h| {
                let locator = file_url(&self.corpus.root, &h.path, h.anchor.as_deref());
                SearchHit {
                    locator,
                    title: h.title,
                    snippet: snippet(&h.text),
                    score: h.score,
                    kind: SourceKind::Local,
                    canonical: Some(h.path.clone()),
                    heading: h.heading,
                    published: None,
                    site: Some(site(&h.path)),
                    tier: Some(self.tier),
                    scholarly: None,
                }
            })
            .collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let path = hit.canonical.clone().unwrap_or_else(|| hit.locator.split('#').next().unwrap_or("").to_string());
        let page = self.corpus.page(&path).map_err(|e| ProviderError::permanent(e.to_string()))?;
        let Some(page) = page else {
            return Err(ProviderError::permanent(format!("{path} is not in the index (re-run `sleuth index`)")));
        };
        Ok(FetchedDoc {
            text: page.text,
            title: Some(page.title),
            published: iso_date(page.mtime),
            site: Some(site(&path)),
            final_locator: None,
        })
    }
}

/// Where a reader opens a page: a `file://` URL of the file under the
/// corpus folder, with the passage's anchor (a bare relative path cannot be
/// opened from a report). The relative path stays the canonical locator.
fn file_url(root: &std::path::Path, path: &str, anchor: Option<&str>) -> String {
    let file = root.join(path);
    match reqwest::Url::from_file_path(&file) {
        Ok(mut url) => {
            url.set_fragment(anchor.filter(|a| !a.is_empty()));
            url.to_string()
        }
        // Not an absolute path: the file's path as it is, still openable.
        Err(()) => file.display().to_string(),
    }
}

fn site(path: &str) -> String {
    match top_folder(path) {
        "" => "local".to_string(),
        top => top.to_string(),
    }
}

fn snippet(text: &str) -> String {
    if text.len() <= SNIPPET_BYTES {
        return text.to_string();
    }
    let end = (0..=SNIPPET_BYTES).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
    format!("{}…", &text[..end])
}

/// `YYYY-MM-DD` of a Unix time, for recency.
fn iso_date(secs: u64) -> Option<String> {
    if secs == 0 {
        return None;
    }
    let t = time::OffsetDateTime::from_unix_timestamp(secs as i64).ok()?;
    let d = t.date();
    Some(format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_locator_is_a_file_url_a_reader_can_open() {
        let root = std::path::Path::new("/data/rust docs");
        let url = file_url(root, "std/rc/index.html", Some("main-content"));
        assert_eq!(url, "file:///data/rust%20docs/std/rc/index.html#main-content");
        assert_eq!(file_url(root, "notes.md", None), "file:///data/rust%20docs/notes.md");
    }
}
