//! PDF text, page by page, with `pdf-extract` (pure Rust, on `lopdf`):
//! each page becomes a section headed `p. N` with the anchor `page=N`
//! (what PDF viewers open at), so passages, citations and quotes name
//! their page. The local index and the web fetcher both read PDFs here.
//!
//! The parser meets untrusted files: it runs under `contain` (a panic on a
//! malformed file is an error, never a crash), page by page (one bad page
//! costs that page only). A PDF with next to no text for its pages is a
//! scan without a text layer, skipped with that reason.

use super::{Block, Page, Section};
use crate::resilience::contain;
use crate::text::pages::page_heading;
use crate::text::sanitize;

/// A PDF's text: its title, when its metadata has one, and each page's
/// paragraphs (an empty page keeps its place, so numbers stay true).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PdfText {
    pub title: Option<String>,
    pub pages: Vec<Vec<String>>,
}

/// Why a PDF gives no text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdfProblem {
    /// Pages but (almost) no text: a scan; OCR would be needed.
    #[error("a scanned PDF without a text layer ({pages} pages, {words} words); OCR it first (e.g. ocrmypdf)")]
    NoTextLayer { pages: usize, words: usize },
    #[error("an encrypted PDF that needs a password")]
    Encrypted,
    #[error("an unreadable PDF: {0}")]
    Unreadable(String),
}

/// Fewer words than this per page, on average, is no text layer (page
/// numbers and a running header alone give a few).
const MIN_WORDS_PER_PAGE: f64 = 3.0;

/// The text of the PDF in `bytes`, page by page.
pub fn extract_pdf(bytes: &[u8]) -> Result<PdfText, PdfProblem> {
    use pdf_extract::{Document, PlainTextOutput, output_doc_page};
    let mut doc = contain(|| Document::load_mem(bytes))
        .map_err(|p| PdfProblem::Unreadable(format!("the parser failed: {p}")))?
        .map_err(|e| PdfProblem::Unreadable(e.to_string()))?;
    if doc.is_encrypted() {
        // Many PDFs are encrypted with an empty user password (print or copy
        // restrictions only): they open without one.
        let opened = contain(|| doc.decrypt("")).map_err(|_| PdfProblem::Encrypted)?;
        if opened.is_err() {
            return Err(PdfProblem::Encrypted);
        }
    }
    let numbers: Vec<u32> = doc.get_pages().keys().copied().collect();
    let mut pages = Vec::with_capacity(numbers.len());
    for n in &numbers {
        let text = contain(|| {
            let mut s = String::new();
            let ok = output_doc_page(&doc, &mut PlainTextOutput::new(&mut s), *n).is_ok();
            (ok, s)
        });
        pages.push(match text {
            Ok((_, s)) => paragraphs(&s),
            Err(panic) => {
                tracing::debug!(page = n, %panic, "a PDF page could not be read");
                Vec::new()
            }
        });
    }
    let words: usize = pages.iter().flatten().map(|p| p.split_whitespace().count()).sum();
    if pages.is_empty() || (words as f64) < MIN_WORDS_PER_PAGE * pages.len() as f64 {
        return Err(PdfProblem::NoTextLayer { pages: pages.len(), words });
    }
    let title = contain(|| info_title(&doc)).ok().flatten();
    Ok(PdfText { title, pages })
}

/// The `/Title` of the document information dictionary, if set.
fn info_title(doc: &pdf_extract::Document) -> Option<String> {
    let info = doc.trailer.get(b"Info").ok()?;
    let dict = match info {
        pdf_extract::Object::Reference(id) => doc.get_dictionary(*id).ok()?,
        pdf_extract::Object::Dictionary(d) => d,
        _ => return None,
    };
    let title = pdf_extract::decode_text_string(dict.get(b"Title").ok()?).ok()?;
    let title = crate::text::sanitize_inline(&title).trim().to_string();
    // Tools write their own names or a file name where no title was set.
    let useless = title.is_empty() || title.eq_ignore_ascii_case("untitled") || title.ends_with(".dvi");
    (!useless).then_some(title)
}

/// A page's text as paragraphs: lines joined, words broken by a hyphen at
/// a line's end rejoined, blank lines ending a paragraph. Control
/// characters are stripped (the text is untrusted).
fn paragraphs(raw: &str) -> Vec<String> {
    let clean = sanitize(raw);
    let mut out = Vec::new();
    let mut para = String::new();
    for line in clean.lines() {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() {
            if !para.is_empty() {
                out.push(std::mem::take(&mut para));
            }
            continue;
        }
        if para.is_empty() {
            para = line;
        } else if para.ends_with('-') && line.starts_with(|c: char| c.is_lowercase()) {
            para.pop();
            para.push_str(&line);
        } else {
            para.push(' ');
            para.push_str(&line);
        }
    }
    if !para.is_empty() {
        out.push(para);
    }
    out
}

impl PdfText {
    /// The PDF as a corpus page: one section per page with text, headed
    /// `p. N`, anchored `page=N`. Its title: the metadata's, else the first
    /// short line of the first page, else `fallback`.
    pub fn to_page(&self, fallback: &str) -> Page {
        let first_line = self
            .pages
            .iter()
            .flatten()
            .next()
            .map(|p| p.split(". ").next().unwrap_or(p).trim().to_string())
            .filter(|l| !l.is_empty() && l.split_whitespace().count() <= 12);
        let title = self.title.clone().or(first_line).unwrap_or_else(|| fallback.to_string());
        let sections = self
            .pages
            .iter()
            .enumerate()
            .filter(|(_, paras)| !paras.is_empty())
            .map(|(i, paras)| {
                let n = i as u32 + 1;
                Section {
                    heading: Some(page_heading(n)),
                    anchor: Some(format!("page={n}")),
                    blocks: paras.iter().cloned().map(Block::Para).collect(),
                    links: Vec::new(),
                }
            })
            .collect();
        Page { title, lang: None, sections, links: Vec::new() }
    }

    pub fn page_count(&self) -> usize {
        self.pages.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_join_into_paragraphs_and_hyphenated_words_rejoin() {
        let raw = "The pump starts at dawn and the valves open-\nwide when the tank is full.\n\n  Second   paragraph\u{1b}[31m here.\n";
        assert_eq!(
            paragraphs(raw),
            vec!["The pump starts at dawn and the valves openwide when the tank is full.", "Second paragraph here."]
        );
        assert_eq!(paragraphs("well-\nKnown"), vec!["well- Known"], "a capital after the hyphen is a new word");
    }

    #[test]
    fn pages_become_sections_named_and_anchored_by_number() {
        let pdf = PdfText {
            title: None,
            pages: vec![
                vec!["Watering rules. Gardens may be watered before 8 am.".into()],
                vec![],
                vec!["Fines.".into()],
            ],
        };
        let page = pdf.to_page("rules");
        assert_eq!(page.title, "Watering rules");
        let headings: Vec<_> = page.sections.iter().map(|s| s.heading.clone().unwrap_or_default()).collect();
        assert_eq!(headings, vec!["p. 1", "p. 3"], "an empty page keeps its number");
        assert_eq!(page.sections[1].anchor.as_deref(), Some("page=3"));
        assert!(page.render().contains("## p. 3\n\nFines."));
    }

    #[test]
    fn a_written_pdf_is_read_page_by_page_with_its_title() {
        let bytes = super::super::test_pdf(
            &["Hosepipe rules\nGardens may be watered before 8 am\nand after 7 pm.", "", "A fine of 45 euros applies."],
            Some("Drought (2024) rules"),
        );
        let pdf = extract_pdf(&bytes).expect("readable");
        assert_eq!(pdf.title.as_deref(), Some("Drought (2024) rules"));
        assert_eq!(pdf.page_count(), 3);
        let text = pdf.to_page("x").render();
        assert!(text.contains("## p. 1"), "{text}");
        assert!(text.contains("Gardens may be watered before 8 am"), "{text}");
        assert!(!text.contains("## p. 2"), "{text}");
        assert_eq!(crate::text::pages::page_of(&text, "a fine of 45 euros applies"), Some(3), "{text}");
    }

    #[test]
    fn pages_without_text_are_a_scan() {
        let bytes = super::super::test_pdf(&["", "", ""], None);
        assert_eq!(extract_pdf(&bytes), Err(PdfProblem::NoTextLayer { pages: 3, words: 0 }));
    }

    #[test]
    fn garbage_is_unreadable_not_a_panic() {
        assert!(matches!(extract_pdf(b"%PDF-1.4\n garbage"), Err(PdfProblem::Unreadable(_))));
        assert!(matches!(extract_pdf(b""), Err(PdfProblem::Unreadable(_))));
    }
}
