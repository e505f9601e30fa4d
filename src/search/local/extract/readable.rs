//! The fallback for HTML without a `<main>` or `<article>`: a readability
//! pass (dom_smoothie) rendered as Markdown, then split like Markdown. It is
//! thorough but slow, so documentation generators that mark their content
//! region never come here.

use super::html::Head;
use super::markdown::extract_markdown;
use super::{Extracted, SkipReason};

pub fn extract_readable(html: &str, head: Head) -> Extracted {
    let cfg = dom_smoothie::Config { text_mode: dom_smoothie::TextMode::Markdown, ..Default::default() };
    let article = dom_smoothie::Readability::new(html, None, Some(cfg)).and_then(|mut r| r.parse());
    match article {
        Ok(a) => {
            let title = if head.title.trim().is_empty() { a.title.clone() } else { head.title.clone() };
            let mut page = extract_markdown(&a.text_content, &title);
            page.title = title;
            page.lang = head.lang.or(a.lang);
            if page.sections.is_empty() { Extracted::Skipped(SkipReason::Empty) } else { Extracted::Page(page) }
        }
        Err(_) => {
            // Readability found no article: keep the plain body text.
            Extracted::Skipped(SkipReason::Empty)
        }
    }
}
