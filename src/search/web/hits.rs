//! Turning a search API's result into a `SearchHit`: http(s) URLs only,
//! titles and snippets made safe to draw, the site as the host (the
//! `[source_tiers]` table is keyed by domain), dates as ISO 8601.

use reqwest::Url;

use super::extract::iso_date;
use crate::engine::model::SourceKind;
use crate::search::SearchHit;
use crate::text::sanitize_inline;

pub struct RawHit<'a> {
    pub url: &'a str,
    pub title: &'a str,
    pub snippet: &'a str,
    pub score: Option<f64>,
    pub published: Option<&'a str>,
}

/// `None` for a result sleuth cannot fetch (not http or https).
pub fn to_hit(raw: RawHit<'_>, rank: usize) -> Option<SearchHit> {
    let url = Url::parse(raw.url.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let site = url.host_str()?.trim_start_matches("www.").to_string();
    let title = sanitize_inline(&strip_tags(raw.title)).trim().to_string();
    Some(SearchHit {
        locator: url.to_string(),
        title: if title.is_empty() { url.to_string() } else { title },
        snippet: sanitize_inline(&strip_tags(raw.snippet)).trim().to_string(),
        // Providers without a score are ranked by position.
        score: raw.score.map_or(1.0 / (rank as f32 + 1.0), |s| s as f32),
        kind: SourceKind::Web,
        canonical: None,
        heading: None,
        published: raw.published.and_then(iso_date),
        site: Some(site),
        tier: None,
        scholarly: None,
    })
}

/// Drops the `<strong>` highlighting some APIs put in snippets and decodes
/// the few entities they use.
pub(in crate::search) fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw<'a>(url: &'a str, title: &'a str, snippet: &'a str) -> RawHit<'a> {
        RawHit { url, title, snippet, score: None, published: Some("2024-05-06T00:00:00") }
    }

    #[test]
    fn hits_are_cleaned_and_keyed_by_host() {
        let h =
            to_hit(raw("https://www.Example.org/a?b=1", "A \u{1b}[31mtitle", "<strong>bold</strong> &amp; plain"), 1)
                .unwrap();
        assert_eq!(h.locator, "https://www.example.org/a?b=1");
        assert_eq!(h.site.as_deref(), Some("example.org"));
        assert_eq!(h.title, "A title");
        assert_eq!(h.snippet, "bold & plain");
        assert_eq!(h.published.as_deref(), Some("2024-05-06"));
        assert!((h.score - 0.5).abs() < 1e-6);
    }

    #[test]
    fn unfetchable_results_are_dropped() {
        assert!(to_hit(raw("magnet:?xt=urn:btih:abc", "t", ""), 0).is_none());
        assert!(to_hit(raw("not a url", "t", ""), 0).is_none());
    }
}
