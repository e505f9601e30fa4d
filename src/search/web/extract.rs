//! A page's main content, title and date: dom_smoothie (a port of Mozilla's
//! Readability) for HTML; plain text as it is. The text is untrusted data:
//! control characters and terminal escapes are stripped here, before it is
//! stored, so every later reader (review, citation checks, the TUI) sees
//! the same clean text.

use dom_smoothie::{Config, ParsePolicy, Readability, TextMode};
use time::OffsetDateTime;
use time::format_description::well_known::{Rfc2822, Rfc3339};

use crate::text::{sanitize, sanitize_inline};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    pub text: String,
    pub title: Option<String>,
    /// ISO 8601 (`YYYY-MM-DD…`), when the page states one.
    pub published: Option<String>,
}

/// Above this much HTML, one strict pass is made instead of Readability's
/// sieve of up to four (each on a copy of the document): a page this large
/// always has enough text for the first pass, and memory stays at one copy.
const LARGE_HTML: usize = 512 * 1024;

pub fn extract_html(html: &str, url: &str) -> Extracted {
    let cfg = Config { text_mode: TextMode::Formatted, ..Config::default() };
    let mut readability = match Readability::new(html, Some(url), Some(cfg.clone())) {
        Ok(r) => r,
        // Only a relative URL is refused; read the page without one.
        Err(_) => match Readability::new(html, None, Some(cfg)) {
            Ok(r) => r,
            Err(_) => return Extracted::default(),
        },
    };
    let parsed =
        if html.len() > LARGE_HTML { readability.parse_with_policy(ParsePolicy::Strict) } else { readability.parse() };
    match parsed {
        Ok(article) => Extracted {
            text: tidy(&article.text_content),
            title: non_empty(sanitize_inline(&article.title).trim()),
            published: article.published_time.as_deref().or(article.modified_time.as_deref()).and_then(iso_date),
        },
        // No main content found: keep what the metadata says.
        Err(_) => {
            let meta = readability.get_article_metadata(None);
            Extracted {
                text: meta.excerpt.as_deref().map(tidy).unwrap_or_default(),
                title: non_empty(sanitize_inline(&meta.title).trim()),
                published: meta.published_time.as_deref().or(meta.modified_time.as_deref()).and_then(iso_date),
            }
        }
    }
}

/// Plain text: sanitised; its first line, if short, is the title.
pub fn extract_plain(text: &str) -> Extracted {
    let text = tidy(text);
    let title = text.lines().next().map(str::trim).filter(|l| !l.is_empty() && l.chars().count() <= 120);
    Extracted { title: title.map(str::to_string), text, published: None }
}

/// Sanitised, trailing spaces trimmed, runs of blank lines folded to one.
fn tidy(text: &str) -> String {
    let clean = sanitize(text);
    let mut out = String::with_capacity(clean.len());
    let mut blank = 0;
    for line in clean.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// A date in the forms pages and search APIs use, as ISO 8601; `None` if
/// it cannot be read (a relative "3 days ago" among them).
pub fn iso_date(raw: &str) -> Option<String> {
    let raw = raw.trim();
    if let Ok(t) = OffsetDateTime::parse(raw, &Rfc3339) {
        return Some(t.date().to_string());
    }
    if let Ok(t) = OffsetDateTime::parse(raw, &Rfc2822) {
        return Some(t.date().to_string());
    }
    // `YYYY-MM-DD` with anything (or nothing) after it.
    let head = raw.get(..10)?;
    let b = head.as_bytes();
    let shape = b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
    if !shape {
        return None;
    }
    let (m, d): (u32, u32) = (head[5..7].parse().ok()?, head[8..10].parse().ok()?);
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then(|| head.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTICLE: &str = r#"<!doctype html><html><head>
        <title>Widget report | Example News</title>
        <meta property="article:published_time" content="2025-03-04T10:00:00Z">
        </head><body>
        <nav><a href="/">Home</a> <a href="/about">About</a></nav>
        <article><h1>Widget report</h1>
        <p>Widgets connect to gadgets through a standard port that was defined in 2019 by the widget consortium after long debate.</p>
        <p>The second paragraph explains that gadgets draw little power and can be chained, which engineers found convenient for testing.</p>
        <p>A third paragraph adds that the port is backwards compatible with earlier widgets, so old gadgets keep working with new widgets.</p>
        </article>
        <footer>Copyright Example News. All rights reserved.</footer>
        </body></html>"#;

    #[test]
    fn main_content_title_and_date_are_kept() {
        let e = extract_html(ARTICLE, "https://news.example.com/widgets");
        assert!(e.text.contains("Widgets connect to gadgets through a standard port"), "{}", e.text);
        assert!(e.text.contains("backwards compatible"));
        assert!(!e.text.contains("All rights reserved"), "boilerplate dropped: {}", e.text);
        assert!(e.title.as_deref().is_some_and(|t| t.contains("Widget report")), "{:?}", e.title);
        assert_eq!(e.published.as_deref(), Some("2025-03-04"));
    }

    #[test]
    fn escapes_and_control_characters_are_stripped() {
        let html = "<html><head><title>T\u{1b}]0;owned\u{7}itle</title></head><body><article><p>Plain \u{1b}[2Jwords &#x1b;[31mhere and more words to make a paragraph that is long enough to be read as content by the extractor.</p></article></body></html>";
        let e = extract_html(html, "https://x.test/");
        assert!(!e.text.contains('\u{1b}') && !e.text.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        assert!(e.text.contains("Plain words"), "{}", e.text);
        assert_eq!(e.title.as_deref(), Some("Title"));
    }

    #[test]
    fn large_pages_take_one_pass_and_keep_their_text() {
        let para = "<p>Gadgets and widgets were measured again in the second lab under the same conditions.</p>";
        let html = format!(
            "<html><head><title>Big</title></head><body><article>{}</article></body></html>",
            para.repeat(8000)
        );
        assert!(html.len() > LARGE_HTML);
        let e = extract_html(&html, "https://x.test/big");
        assert!(e.text.len() > 500_000, "{}", e.text.len());
        assert_eq!(e.title.as_deref(), Some("Big"));
    }

    #[test]
    fn plain_text_keeps_its_lines() {
        let e = extract_plain("Release notes\r\n\r\n\r\nFixed \u{1b}[1mthe bug.\n");
        assert_eq!(e.text, "Release notes\n\nFixed the bug.");
        assert_eq!(e.title.as_deref(), Some("Release notes"));
    }

    #[test]
    fn dates_in_common_forms() {
        assert_eq!(iso_date("2024-01-02T03:04:05").as_deref(), Some("2024-01-02"));
        assert_eq!(iso_date("2024-01-02T03:04:05+02:00").as_deref(), Some("2024-01-02"));
        assert_eq!(iso_date("Tue, 1 Jul 2003 10:52:37 +0200").as_deref(), Some("2003-07-01"));
        assert_eq!(iso_date("3 days ago"), None);
        assert_eq!(iso_date("2024-13-01"), None);
    }
}
