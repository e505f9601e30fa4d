//! Fetching one page: politely (per-origin slots and spacing), with a
//! whole-request timeout, at most `max_page_bytes` read (`max_pdf_bytes`
//! for a PDF; streamed, the rest is never downloaded), redirects bounded.
//! HTML, plain text and PDFs are read (a PDF page by page, its pages
//! marked `## p. N` in the text); other binaries are skipped with the
//! reason. Decoding and extraction run on the blocking pool, a few at a
//! time, so memory stays bounded by the size cap times the pages in flight.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use tokio::sync::Semaphore;

use super::WebConfig;
use super::charset::decode;
use super::extract::{Extracted, extract_html, extract_plain};
use super::http::{read_capped, status_error, transport_error};
use super::politeness::{HostGate, origin_of};
use crate::search::local::extract::extract_pdf;
use crate::search::{FetchedDoc, ProviderError};

/// What a body is, by its declared type or, failing that, its first bytes.
#[derive(Debug, Clone, PartialEq)]
enum Body {
    Html,
    Text,
    Pdf,
    Unknown,
    Skip(String),
}

pub struct PageFetcher {
    client: reqwest::Client,
    gate: HostGate,
    extract_slots: Arc<Semaphore>,
    max_bytes: usize,
    max_pdf_bytes: usize,
    timeout: Duration,
}

impl PageFetcher {
    pub fn new(client: reqwest::Client, cfg: &WebConfig) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self {
            client,
            gate: HostGate::new(cfg.per_host_concurrency, Duration::from_millis(cfg.politeness_delay_ms)),
            extract_slots: Arc::new(Semaphore::new(cores.max(1))),
            max_bytes: cfg.max_page_bytes.max(1024),
            max_pdf_bytes: cfg.max_pdf_bytes.max(1024),
            timeout: Duration::from_secs(cfg.fetch_timeout_secs.max(1)),
        }
    }

    pub async fn fetch(&self, locator: &str) -> Result<FetchedDoc, ProviderError> {
        let url = Url::parse(locator).map_err(|e| ProviderError::permanent(format!("not a URL: {locator}: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ProviderError::Skipped { reason: format!("{} URLs are not fetched", url.scheme()) });
        }
        let what = format!("fetch {url}");
        let (bytes, content_type, final_url) = {
            let _turn = self.gate.acquire(&origin_of(&url)).await;
            let response = self
                .client
                .get(url.clone())
                .timeout(self.timeout)
                .header(ACCEPT, "text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,*/*;q=0.1")
                .send()
                .await
                .map_err(|e| transport_error(&what, &e, self.timeout))?;
            if !response.status().is_success() {
                return Err(status_error(&what, response.status(), response.headers(), ""));
            }
            let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_string);
            if let Body::Skip(reason) = classify(content_type.as_deref()) {
                return Err(ProviderError::Skipped { reason });
            }
            let final_url = response.url().clone();
            // A PDF (or a body that may be one) is read whole or not at all:
            // its cross-reference table is at the end.
            let cap = match classify(content_type.as_deref()) {
                Body::Pdf => self.max_pdf_bytes,
                Body::Unknown => self.max_pdf_bytes.max(self.max_bytes),
                _ => self.max_bytes,
            };
            let (bytes, truncated) = read_capped(response, cap, &what, self.timeout).await?;
            if truncated && bytes.starts_with(b"%PDF-") {
                return Err(ProviderError::Skipped {
                    reason: format!(
                        "a PDF larger than {} MB is not read (raise web.max_pdf_bytes to read it)",
                        cap / (1 << 20)
                    ),
                });
            }
            if truncated {
                tracing::info!(url = %final_url, cap = self.max_page_bytes(), "page cut at the size cap");
            }
            (bytes, content_type, final_url)
        };
        let kind = match classify(content_type.as_deref()) {
            _ if bytes.starts_with(b"%PDF-") => Body::Pdf,
            Body::Unknown => sniff(&bytes),
            b => b,
        };
        let html = match kind {
            Body::Pdf => return self.read_pdf(bytes, &final_url, locator).await,
            Body::Html => true,
            Body::Text | Body::Unknown => false,
            Body::Skip(reason) => return Err(ProviderError::Skipped { reason }),
        };
        let extracted = self.extract(bytes, content_type, final_url.to_string(), html).await?;
        let site = final_url.host_str().map(|h| h.trim_start_matches("www.").to_string());
        let final_locator = (final_url.as_str() != locator).then(|| final_url.to_string());
        Ok(FetchedDoc {
            text: extracted.text,
            title: extracted.title,
            published: extracted.published,
            site,
            final_locator,
        })
    }

    /// A fetched PDF's text, its pages marked, its title from its metadata.
    async fn read_pdf(&self, bytes: Vec<u8>, final_url: &Url, locator: &str) -> Result<FetchedDoc, ProviderError> {
        let _slot = self.extract_slots.clone().acquire_owned().await.ok();
        let stem = final_url.path_segments().and_then(|mut s| s.next_back()).unwrap_or("").to_string();
        let pdf = tokio::task::spawn_blocking(move || extract_pdf(&bytes))
            .await
            .map_err(|e| ProviderError::permanent(format!("the PDF could not be read: {e}")))?
            .map_err(|e| ProviderError::Skipped { reason: e.to_string() })?;
        let page = pdf.to_page(stem.trim_end_matches(".pdf"));
        Ok(FetchedDoc {
            text: page.render(),
            title: Some(page.title),
            published: None,
            site: final_url.host_str().map(|h| h.trim_start_matches("www.").to_string()),
            final_locator: (final_url.as_str() != locator).then(|| final_url.to_string()),
        })
    }

    pub fn max_page_bytes(&self) -> usize {
        self.max_bytes
    }

    async fn extract(
        &self,
        bytes: Vec<u8>,
        content_type: Option<String>,
        url: String,
        html: bool,
    ) -> Result<Extracted, ProviderError> {
        // Never closed; without a slot the extraction still runs.
        let _slot = self.extract_slots.clone().acquire_owned().await.ok();
        tokio::task::spawn_blocking(move || {
            let text = decode(&bytes, content_type.as_deref(), html);
            drop(bytes);
            if html { extract_html(&text, &url) } else { extract_plain(&text) }
        })
        .await
        .map_err(|e| ProviderError::permanent(format!("the page could not be read: {e}")))
    }
}

fn classify(content_type: Option<&str>) -> Body {
    let Some(ct) = content_type else { return Body::Unknown };
    let mime = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match mime.as_str() {
        "text/html" | "application/xhtml+xml" => Body::Html,
        "text/plain" | "text/markdown" => Body::Text,
        "" | "application/octet-stream" | "binary/octet-stream" => Body::Unknown,
        "application/pdf" | "application/x-pdf" => Body::Pdf,
        other => Body::Skip(format!("{other} content is not read (only HTML, plain text and PDF are)")),
    }
}

/// An undeclared body: a PDF by its magic number, binary if it holds NUL
/// bytes, HTML if it opens with a tag, else text.
fn sniff(bytes: &[u8]) -> Body {
    let head = &bytes[..bytes.len().min(512)];
    if head.starts_with(b"%PDF-") {
        return Body::Pdf;
    }
    if head.contains(&0) {
        return Body::Skip("binary content is not read (only HTML, plain text and PDF are)".into());
    }
    let text = head.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(head);
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'<') => Body::Html,
        _ => Body::Text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_are_read_skipped_or_sniffed() {
        assert_eq!(classify(Some("text/html; charset=utf-8")), Body::Html);
        assert_eq!(classify(Some("Text/Plain")), Body::Text);
        assert_eq!(classify(Some("application/pdf")), Body::Pdf);
        assert!(matches!(classify(Some("image/png")), Body::Skip(r) if r.contains("image/png")));
        assert_eq!(classify(None), Body::Unknown);
    }

    #[test]
    fn undeclared_bodies_are_sniffed() {
        assert_eq!(sniff(b"%PDF-1.7\n..."), Body::Pdf);
        assert!(matches!(sniff(b"\x89PNG\r\n\x1a\n\0\0"), Body::Skip(r) if r.contains("binary")));
        assert_eq!(sniff(b"  \n<!doctype html><p>x"), Body::Html);
        assert_eq!(sniff(b"just words"), Body::Text);
    }
}
