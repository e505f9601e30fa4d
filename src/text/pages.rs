//! Page numbers in the text of paged documents. A PDF's extracted text
//! keeps its pages as headings, `## p. 4` on a line of its own before the
//! page's text (the local index and the web fetcher write them the same
//! way), so whoever holds the text can say on which page a quote stands
//! and a report can cite "p. 4".

use super::normalize_for_match;

/// The heading of page `n` (the local index's section heading too).
pub fn page_heading(n: u32) -> String {
    format!("p. {n}")
}

/// The line that opens page `n` in a document's text.
pub fn page_marker(n: u32) -> String {
    format!("## {}", page_heading(n))
}

/// The page number a marker line opens, if `line` is one.
fn marker_page(line: &str) -> Option<u32> {
    let digits = line.trim().strip_prefix("## p. ")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether `text` is paged (holds at least one page marker).
pub fn is_paged(text: &str) -> bool {
    text.lines().any(|l| marker_page(l).is_some())
}

/// The page on which `quote` stands in `text` (matched as quotes are
/// verified: case, spacing and typographic quotes aside). `None` when the
/// text has no pages, or the quote is not found within one page.
pub fn page_of(text: &str, quote: &str) -> Option<u32> {
    let wanted = normalize_for_match(quote);
    if wanted.is_empty() {
        return None;
    }
    let mut page: Option<u32> = None;
    let mut body = String::new();
    let found = |page: Option<u32>, body: &str| page.filter(|_| normalize_for_match(body).contains(&wanted));
    for line in text.lines() {
        if let Some(next) = marker_page(line) {
            if let Some(p) = found(page, &body) {
                return Some(p);
            }
            page = Some(next);
            body.clear();
            continue;
        }
        body.push_str(line);
        body.push('\n');
    }
    found(page, &body)
}

/// `p. 4`, or `pp. 4, 7` for several pages (sorted, once each).
pub fn pages_label(pages: &[u32]) -> Option<String> {
    let mut pages = pages.to_vec();
    pages.sort_unstable();
    pages.dedup();
    let list: Vec<String> = pages.iter().map(u32::to_string).collect();
    match list.len() {
        0 => None,
        1 => Some(format!("p. {}", list[0])),
        _ => Some(format!("pp. {}", list.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# Manual\n\n## p. 1\n\nThe pump starts at dawn.\n\n## p. 2\n\nValves close when the \u{201c}tank\u{201d}\nis full.\n\n## p. 12\n\nIndex.\n";

    #[test]
    fn a_quote_is_found_on_its_page() {
        assert_eq!(page_of(DOC, "the pump starts"), Some(1));
        assert_eq!(page_of(DOC, "Valves close when the \"tank\" is full."), Some(2), "spacing and quotes normalised");
        assert_eq!(page_of(DOC, "Index."), Some(12));
        assert_eq!(page_of(DOC, "not in the text"), None);
        assert_eq!(page_of("no pages here, the pump starts", "the pump starts"), None);
    }

    #[test]
    fn only_a_marker_line_opens_a_page() {
        assert!(is_paged(DOC));
        assert!(!is_paged("## p. four\n## Preface\nsee p. 4"));
        assert_eq!(page_marker(7), "## p. 7");
    }

    #[test]
    fn labels_name_one_page_or_several() {
        assert_eq!(pages_label(&[4]).as_deref(), Some("p. 4"));
        assert_eq!(pages_label(&[7, 4, 7]).as_deref(), Some("pp. 4, 7"));
        assert_eq!(pages_label(&[]), None);
    }
}
