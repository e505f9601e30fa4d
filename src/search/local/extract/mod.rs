//! From a file's bytes to a page: title, language, sections with headings
//! and anchors, and the links inside its content. Then a page becomes the
//! passages the index searches and the text `fetch` returns.

mod html;
mod markdown;
mod pdf;
#[cfg(any(test, feature = "test-support"))]
mod pdf_writer;
mod readable;
mod scan;

pub use html::extract_html;
pub use markdown::{extract_markdown, extract_plain, link_sections};
pub use pdf::{PdfProblem, PdfText, extract_pdf};
#[cfg(any(test, feature = "test-support"))]
pub use pdf_writer::test_pdf;

/// A paragraph of prose or a block of code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    Para(String),
    Code(String),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Section {
    pub heading: Option<String>,
    /// The heading's fragment id, for `path#anchor` locators.
    pub anchor: Option<String>,
    pub blocks: Vec<Block>,
    /// Corpus-relative targets of the links in its content, in order, once
    /// each: the items and chapters the section mentions (what READ follows).
    pub links: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub title: String,
    /// Declared language (`<html lang>`), lowercased.
    pub lang: Option<String>,
    pub sections: Vec<Section>,
    /// Corpus-relative targets of the content's links, without anchors.
    pub links: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The page asks not to be indexed (`<meta name="robots" content="noindex">`).
    NoIndex,
    /// A generated source-code listing, not a document.
    SourceListing,
    /// No text once navigation and markup are gone.
    Empty,
    /// Mostly NUL or control bytes.
    Binary,
    TooLarge,
    Unreadable,
    /// A PDF of scanned pages: no text layer to read.
    NoTextLayer,
}

impl SkipReason {
    pub fn label(self) -> &'static str {
        match self {
            SkipReason::NoIndex => "marked noindex",
            SkipReason::SourceListing => "source listings",
            SkipReason::Empty => "no text",
            SkipReason::Binary => "binary",
            SkipReason::TooLarge => "too large",
            SkipReason::Unreadable => "unreadable",
            SkipReason::NoTextLayer => "scanned PDFs without a text layer",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extracted {
    Page(Page),
    /// A `<meta http-equiv="refresh">` stub pointing elsewhere.
    Redirect {
        to: Option<String>,
    },
    Skipped(SkipReason),
}

/// The kinds of file the corpus reads, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Html,
    Markdown,
    Text,
    /// Read from its bytes by `extract_pdf`, page by page.
    Pdf,
}

impl FileKind {
    pub fn of(path: &std::path::Path) -> Option<FileKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "html" | "htm" => Some(FileKind::Html),
            "md" | "markdown" => Some(FileKind::Markdown),
            "txt" => Some(FileKind::Text),
            "pdf" => Some(FileKind::Pdf),
            _ => None,
        }
    }
}

/// Bytes to text: NUL bytes mean binary; invalid UTF-8 is read as
/// Windows-1252 (what browsers assume), and the caller is told.
pub fn decode_text(bytes: &[u8]) -> Result<(std::borrow::Cow<'_, str>, bool), SkipReason> {
    let head = &bytes[..bytes.len().min(8192)];
    if memchr::memchr(0, head).is_some() {
        return Err(SkipReason::Binary);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok((std::borrow::Cow::Borrowed(s), false)),
        Err(_) => {
            let (text, _, _) = encoding_rs::WINDOWS_1252.decode(bytes);
            Ok((text, true))
        }
    }
}

/// Extracts a file of `kind` whose corpus-relative path is `rel_path`.
pub fn extract(kind: FileKind, text: &str, rel_path: &str) -> Extracted {
    let stem = rel_path.rsplit('/').next().unwrap_or(rel_path);
    let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
    let page = match kind {
        FileKind::Html => return extract_html(text, rel_path),
        FileKind::Markdown => {
            let mut page = extract_markdown(text, stem);
            link_sections(&mut page, rel_path);
            page
        }
        FileKind::Text => extract_plain(text, stem),
        // A PDF is binary: `extract_pdf` reads its bytes, never this text.
        FileKind::Pdf => return Extracted::Skipped(SkipReason::Binary),
    };
    if page.sections.is_empty() { Extracted::Skipped(SkipReason::Empty) } else { Extracted::Page(page) }
}

/// A fragment id from heading text: lowercase words joined by `-`.
pub fn slug(heading: &str) -> String {
    let mut out = String::new();
    for word in heading.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-').filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_lowercase());
    }
    out
}

/// Resolves a link found in `from` to a corpus-relative path without its
/// anchor or query. External links, pure anchors and paths leaving the
/// corpus give `None`.
pub fn resolve_link(from: &str, href: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') || href.starts_with("//") || href.contains(':') {
        return None;
    }
    let href = href.split(['#', '?']).next().unwrap_or("");
    if href.is_empty() {
        return None;
    }
    let mut parts: Vec<&str> = if href.starts_with('/') {
        Vec::new()
    } else {
        let mut p: Vec<&str> = from.split('/').collect();
        p.pop();
        p
    };
    for seg in href.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    let mut out = parts.join("/");
    if href.ends_with('/') || out.is_empty() {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str("index.html");
    }
    Some(out)
}

impl Page {
    /// Words of prose and code in the page body.
    pub fn word_count(&self) -> usize {
        self.sections
            .iter()
            .flat_map(|s| &s.blocks)
            .map(|b| match b {
                Block::Para(t) | Block::Code(t) => t.split_whitespace().count(),
            })
            .sum()
    }

    /// The page as `fetch` returns it: Markdown-like text with the title,
    /// headings, paragraphs and fenced code.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.sections.iter().flat_map(|s| &s.blocks).map(block_len).sum());
        if !self.title.is_empty() {
            out.push_str("# ");
            out.push_str(&self.title);
            out.push_str("\n\n");
        }
        for s in &self.sections {
            if let Some(h) = &s.heading {
                out.push_str("## ");
                out.push_str(h);
                out.push_str("\n\n");
            }
            for b in &s.blocks {
                push_block(&mut out, b, usize::MAX);
            }
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
        out
    }

    /// Body text for near-duplicate fingerprints: prose only, no title.
    pub fn prose(&self) -> String {
        let mut out = String::new();
        for b in self.sections.iter().flat_map(|s| &s.blocks) {
            if let Block::Para(t) = b {
                out.push_str(t);
                out.push('\n');
            }
        }
        out
    }
}

fn block_len(b: &Block) -> usize {
    match b {
        Block::Para(t) | Block::Code(t) => t.len() + 8,
    }
}

/// Code blocks longer than this many lines are cut in passages (the page
/// text keeps them whole).
const PASSAGE_CODE_LINES: usize = 40;

fn push_block(out: &mut String, b: &Block, max_code_lines: usize) {
    match b {
        Block::Para(t) => {
            out.push_str(t);
            out.push_str("\n\n");
        }
        Block::Code(code) => {
            out.push_str("```\n");
            for line in code.lines().take(max_code_lines) {
                out.push_str(line);
                out.push('\n');
            }
            out.push_str("```\n\n");
        }
    }
}

/// A searchable piece of a page: a section, or a few paragraphs of a long one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    pub heading: Option<String>,
    pub anchor: Option<String>,
    pub text: String,
    /// Its section's links, on the section's first passage only: stored
    /// once per section, read back per section.
    pub links: Vec<String>,
}

/// Splits a page into passages of about `target_words` words, never across
/// a heading.
pub fn passages(page: &Page, target_words: usize) -> Vec<Passage> {
    let target = target_words.max(20);
    let mut out = Vec::new();
    for s in &page.sections {
        let mut text = String::new();
        let mut words = 0;
        let mut links = Some(&s.links);
        let mut emit = |text: &mut String, words: &mut usize| {
            if !text.trim().is_empty() {
                out.push(Passage {
                    heading: s.heading.clone(),
                    anchor: s.anchor.clone(),
                    text: text.trim_end().to_string(),
                    links: links.take().cloned().unwrap_or_default(),
                });
            }
            text.clear();
            *words = 0;
        };
        for b in &s.blocks {
            let n = match b {
                Block::Para(t) | Block::Code(t) => t.split_whitespace().count(),
            };
            if let Block::Para(t) = b
                && n > target * 2
            {
                // One huge paragraph: cut it into target-sized pieces.
                emit(&mut text, &mut words);
                let all: Vec<&str> = t.split_whitespace().collect();
                for chunk in all.chunks(target) {
                    text.push_str(&chunk.join(" "));
                    emit(&mut text, &mut words);
                }
                continue;
            }
            if words > 0 && words + n > target * 2 {
                emit(&mut text, &mut words);
            }
            push_block(&mut text, b, PASSAGE_CODE_LINES);
            words += n;
            if words >= target {
                emit(&mut text, &mut words);
            }
        }
        emit(&mut text, &mut words);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_resolve_relative_to_the_page() {
        assert_eq!(
            resolve_link("std/convert/trait.From.html", "../rc/index.html#x").as_deref(),
            Some("std/rc/index.html")
        );
        assert_eq!(resolve_link("book/ch01.html", "ch02.html").as_deref(), Some("book/ch02.html"));
        assert_eq!(resolve_link("book/second-edition/ch09.html", "../ch09.html").as_deref(), Some("book/ch09.html"));
        assert_eq!(resolve_link("a/b.html", "sub/").as_deref(), Some("a/sub/index.html"));
        assert_eq!(resolve_link("a.html", "../../x.html"), None);
        assert_eq!(resolve_link("a.html", "https://example.com/x"), None);
        assert_eq!(resolve_link("a.html", "#top"), None);
    }

    #[test]
    fn binary_and_latin1_are_told_apart() {
        assert_eq!(decode_text(b"ab\0cd").err(), Some(SkipReason::Binary));
        let (text, lossy) = decode_text(b"caf\xe9").expect("latin-1 decodes");
        assert_eq!((text.as_ref(), lossy), ("café", true));
        let (text, lossy) = decode_text("café".as_bytes()).expect("utf-8");
        assert_eq!((text.as_ref(), lossy), ("café", false));
    }

    #[test]
    fn passages_follow_sections_and_size() {
        let long: String = (0..500).map(|i| format!("w{i} ")).collect();
        let page = Page {
            title: "T".into(),
            lang: None,
            sections: vec![
                Section {
                    heading: Some("A".into()),
                    anchor: Some("a".into()),
                    blocks: vec![Block::Para("short one.".into())],
                    links: Vec::new(),
                },
                Section {
                    heading: Some("B".into()),
                    anchor: Some("b".into()),
                    blocks: vec![Block::Para(long)],
                    links: vec!["b.html".into()],
                },
            ],
            links: vec![],
        };
        let ps = passages(&page, 100);
        assert_eq!(ps[0].anchor.as_deref(), Some("a"));
        assert_eq!(ps.len(), 1 + 5);
        assert_eq!(ps[1].links, vec!["b.html".to_string()], "a section's links ride on its first passage");
        assert!(ps[0].links.is_empty() && ps[2..].iter().all(|p| p.links.is_empty()));
        assert!(ps[1..].iter().all(|p| p.heading.as_deref() == Some("B") && p.text.split_whitespace().count() == 100));
        assert!(page.render().starts_with("# T\n\n## A\n\nshort one.\n\n## B\n\nw0 w1"));
    }
}
