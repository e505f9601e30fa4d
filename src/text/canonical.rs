//! Canonical locators: the same page reached by different URLs must get
//! one source id.

/// Query parameters that only track where a click came from.
const TRACKING_PARAMS: &[&str] = &[
    "utm_source",
    "utm_medium",
    "utm_campaign",
    "utm_term",
    "utm_content",
    "utm_id",
    "gclid",
    "fbclid",
    "msclkid",
    "mc_cid",
    "mc_eid",
    "ref",
    "ref_src",
    "igshid",
    "yclid",
    "_hsenc",
    "_hsmi",
    "gclsrc",
    "dclid",
    "wbraid",
    "gbraid",
    "_ga",
    "_gl",
    "mkt_tok",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
    "srsltid",
];

/// For URLs: lowercase scheme and host, no fragment, no default port, no
/// tracking parameters, the others sorted (their order never changes the
/// page), no trailing slash on the path. For paths: the path without its
/// `#anchor`.
pub fn canonical_locator(locator: &str) -> String {
    if is_plainly_canonical(locator) {
        return locator.to_string();
    }
    let Ok(mut url) = reqwest::Url::parse(locator) else {
        return locator.split('#').next().unwrap_or(locator).to_string();
    };
    if !matches!(url.scheme(), "http" | "https") {
        return locator.split('#').next().unwrap_or(locator).to_string();
    }
    url.set_fragment(None);
    let mut kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !TRACKING_PARAMS.contains(&k.to_lowercase().as_str()) && !k.starts_with("utm_"))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    kept.sort();
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(kept);
    }
    if url.path() != "/" && url.path().ends_with('/') {
        let trimmed = url.path().trim_end_matches('/').to_string();
        url.set_path(&trimmed);
    }
    let s = url.to_string();
    if url.path() == "/" && url.query().is_none() {
        return s.trim_end_matches('/').to_string();
    }
    s
}

/// A cheap test that spares a URL parse for the common case: an http(s)
/// URL with a lowercase host, no query, fragment, port or trailing slash.
fn is_plainly_canonical(locator: &str) -> bool {
    let Some(rest) = locator.strip_prefix("https://").or_else(|| locator.strip_prefix("http://")) else {
        return false;
    };
    let host = rest.split('/').next().unwrap_or("");
    !host.is_empty()
        && rest.len() > host.len() + 1
        && host.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
        && locator.bytes().all(|b| b.is_ascii_graphic())
        && !locator.contains(['?', '#', '%', '\\'])
        && !locator.ends_with('/')
        && !rest.contains("//")
        && !rest.contains("/./")
        && !rest.contains("/../")
}

/// The host of a URL without `www.`, or the first folder of a path.
pub fn site_of(locator: &str) -> String {
    if let Ok(url) = reqwest::Url::parse(locator)
        && let Some(host) = url.host_str()
    {
        return host.trim_start_matches("www.").to_string();
    }
    locator.split('/').next().unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracking_params_fragment_and_case_are_dropped() {
        assert_eq!(
            canonical_locator("HTTPS://Example.COM/a/b/?utm_source=x&id=3&fbclid=y#top"),
            "https://example.com/a/b?id=3"
        );
        assert_eq!(canonical_locator("https://example.com/"), "https://example.com");
        assert_eq!(canonical_locator("https://example.com:443/x"), "https://example.com/x");
    }

    #[test]
    fn the_fast_path_agrees_with_the_parser() {
        for u in ["https://docs.example.org/page1", "http://a.b/c/d.html", "https://x.org/a/../b", "https://x.org/a b"]
        {
            let mut parsed = reqwest::Url::parse(u).unwrap();
            parsed.set_fragment(None);
            assert_eq!(canonical_locator(u), parsed.to_string(), "{u}");
        }
    }

    #[test]
    fn parameter_order_and_ad_click_ids_do_not_matter() {
        assert_eq!(
            canonical_locator("https://example.com/p?b=2&gclsrc=aw&a=1&srsltid=xyz"),
            canonical_locator("https://example.com/p?a=1&b=2")
        );
        assert_ne!(canonical_locator("https://example.com/p?a=1"), canonical_locator("https://example.com/p?a=2"));
    }

    #[test]
    fn paths_lose_only_their_anchor() {
        assert_eq!(canonical_locator("std/sync/struct.Arc.html#method.new"), "std/sync/struct.Arc.html");
    }

    #[test]
    fn site_is_host_or_first_folder() {
        assert_eq!(site_of("https://www.rust-lang.org/learn"), "rust-lang.org");
        assert_eq!(site_of("book/ch09-02.html"), "book");
    }
}
