//! Reading a Markdown report from anywhere: its cited sentences and the
//! sources it lists. The formats in use, each read by the same rules:
//!
//! - sleuth: `[n]` markers; `## Sources` with `- [n] Title — URL` (the
//!   report) or `1. [n] Title — <URL> — accessed …` (the Markdown export).
//! - open_deep_research: `[n]` markers; `### Sources` with `[n] Title: URL`
//!   (or a numbered list of URLs under each section).
//! - gpt-researcher: inline links `([label](url))`; `## References` with
//!   `- [url](url)` or APA lines ending in a link. Its sources are numbered
//!   here in the order the list gives them, then by first citation.
//! - anything with `[n]: url` reference definitions or `[^n]` footnotes.

use crate::engine::check::{Statement, cited_statements, heading, is_reference_heading};

/// A source the report lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSource {
    pub number: u32,
    pub url: String,
    pub title: String,
}

/// How the report cites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CiteStyle {
    /// `[n]` markers against a numbered list.
    Numbered,
    /// Inline links to the sources' addresses.
    Links,
    /// Both.
    Mixed,
    /// No citation found.
    None,
}

impl CiteStyle {
    pub fn label(self) -> &'static str {
        match self {
            CiteStyle::Numbered => "numbered markers [n]",
            CiteStyle::Links => "inline links",
            CiteStyle::Mixed => "numbered markers and inline links",
            CiteStyle::None => "no citations",
        }
    }
}

/// A report read for checking: its cited sentences (every citation as a
/// source number) and its sources.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedReport {
    pub statements: Vec<Statement>,
    pub sources: Vec<ListedSource>,
    pub style: CiteStyle,
}

impl ParsedReport {
    pub fn source(&self, number: u32) -> Option<&ListedSource> {
        self.sources.iter().find(|s| s.number == number)
    }
}

/// Reads `markdown`.
pub fn parse_report(markdown: &str) -> ParsedReport {
    let mut sources = listed_sources(markdown);
    let mut statements = cited_statements(markdown);
    let numbered = statements.iter().any(|s| !s.cites.is_empty());
    let linked = statements.iter().any(|s| !s.links.is_empty());
    // Links cite by address: each address is one source number.
    for s in &mut statements {
        for url in s.links.clone() {
            let n = number_of(&mut sources, &url);
            if !s.cites.contains(&n) {
                s.cites.push(n);
            }
        }
    }
    // Listed sources without a number (a bulleted list of links) that no
    // sentence cited still get one, after the others.
    let mut next = sources.iter().map(|s| s.number).max().unwrap_or(0);
    for s in sources.iter_mut().filter(|s| s.number == 0) {
        next += 1;
        s.number = next;
    }
    sources.sort_by_key(|s| s.number);
    let style = match (numbered, linked) {
        (true, true) => CiteStyle::Mixed,
        (true, false) => CiteStyle::Numbered,
        (false, true) => CiteStyle::Links,
        (false, false) => CiteStyle::None,
    };
    ParsedReport { statements, sources, style }
}

/// The number of the source at `url`, numbering it when it has none.
fn number_of(sources: &mut Vec<ListedSource>, url: &str) -> u32 {
    let key = url_key(url);
    if let Some(s) = sources.iter().find(|s| s.number != 0 && url_key(&s.url) == key) {
        return s.number;
    }
    let next = sources.iter().map(|s| s.number).max().unwrap_or(0) + 1;
    match sources.iter_mut().find(|s| s.number == 0 && url_key(&s.url) == key) {
        Some(s) => s.number = next,
        None => sources.push(ListedSource { number: next, url: url.to_string(), title: String::new() }),
    }
    next
}

/// An address compared without its fragment and trailing slash.
fn url_key(url: &str) -> String {
    let u = url.split('#').next().unwrap_or(url);
    u.trim_end_matches('/').to_ascii_lowercase()
}

/// Every source the reference lists and `[n]: url` definitions name.
/// Unnumbered entries get number 0 (numbered later by first citation).
pub fn listed_sources(markdown: &str) -> Vec<ListedSource> {
    let mut out: Vec<ListedSource> = Vec::new();
    let mut in_list: Option<usize> = None;
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some((level, title)) = heading(line) {
            in_list = if is_reference_heading(title) {
                Some(level)
            } else {
                match in_list {
                    Some(l) if level > l => in_list,
                    _ => None,
                }
            };
            continue;
        }
        let definition = reference_definition(line);
        let entry = match (definition, in_list) {
            (Some(d), _) => Some(d),
            (None, Some(_)) => list_entry(line),
            (None, None) => None,
        };
        let Some(entry) = entry else { continue };
        // A number listed again (sections of one report each listing their
        // sources) keeps its first address.
        if entry.number != 0 && out.iter().any(|s| s.number == entry.number) {
            continue;
        }
        if entry.number == 0 && out.iter().any(|s| url_key(&s.url) == url_key(&entry.url)) {
            continue;
        }
        out.push(entry);
    }
    out
}

/// `[n]: url "title"` (a Markdown reference definition) or `[^n]: url`.
fn reference_definition(line: &str) -> Option<ListedSource> {
    let t = line.trim();
    let rest = t.strip_prefix('[')?;
    let close = rest.find("]:")?;
    let label = rest[..close].trim_start_matches('^');
    let number: u32 = label.trim().parse().ok()?;
    let after = rest[close + 2..].trim();
    let url = find_url(after)?;
    let title = after.replace(&url, "").trim().trim_matches(['"', '<', '>', ' ']).to_string();
    Some(ListedSource { number, url, title })
}

/// One line of a reference list, if it names an address.
fn list_entry(line: &str) -> Option<ListedSource> {
    let mut t = line.trim();
    let mut number = 0;
    // An ordered list's own number, unless a `[n]` follows (sleuth's export).
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && t[digits..].starts_with(['.', ')']) {
        number = t[..digits].parse().unwrap_or(0);
        t = t[digits + 1..].trim_start();
    } else if let Some(rest) = t.strip_prefix(['-', '*', '+']) {
        t = rest.trim_start();
    }
    if let Some(rest) = t.strip_prefix('[') {
        let close = rest.find(']')?;
        let label = rest[..close].trim_start_matches('^');
        if let Ok(n) = label.trim().parse::<u32>()
            && !rest[close + 1..].starts_with('(')
        {
            number = n;
            t = rest[close + 1..].trim_start_matches(':').trim_start();
        }
    }
    let url = find_url(t)?;
    Some(ListedSource { number, url: url.clone(), title: title_of(t, &url) })
}

/// The first address in `text`: a link's target, an autolink, or a bare URL.
fn find_url(text: &str) -> Option<String> {
    if let Some(at) = text.find("](") {
        let target = &text[at + 2..];
        let end = target.find(')').unwrap_or(target.len());
        let url = target[..end].split_whitespace().next().unwrap_or("").trim_matches(['<', '>']);
        if is_address(url) {
            return Some(url.to_string());
        }
    }
    let lower = text.to_ascii_lowercase();
    let at = ["https://", "http://", "file://"].iter().filter_map(|p| lower.find(p)).min()?;
    let url: String = text[at..].chars().take_while(|c| !c.is_whitespace() && !matches!(c, '>' | '<' | '"')).collect();
    let url = url.trim_end_matches(['.', ',', ';', ')', ']']).to_string();
    is_address(&url).then_some(url)
}

fn is_address(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    ["https://", "http://", "file://"].iter().any(|p| lower.starts_with(p) && lower.len() > p.len())
}

/// The title: the entry's text without its address and link syntax.
fn title_of(entry: &str, url: &str) -> String {
    let mut t = entry.to_string();
    if let Some(at) = t.find("](") {
        // `[label](url)`: the label is the title, unless it is the address.
        let start = t[..at].rfind('[').unwrap_or(0);
        let label = t[start + 1..at].to_string();
        let end = t[at..].find(')').map_or(t.len(), |e| at + e + 1);
        let keep = if label.trim() == url { String::new() } else { label };
        t.replace_range(start..end, &keep);
    }
    let t = t.replace(&format!("<{url}>"), "").replace(url, "");
    // sleuth's export adds "— accessed …" after the address.
    let t = t.split(" — accessed ").next().unwrap_or(&t).to_string();
    t.trim().trim_matches(|c: char| matches!(c, '—' | '-' | ':' | '|' | ' ' | '.')).trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleuths_report_and_export_lists_are_read() {
        let report = "# Q\n\nWatering is allowed before 8 am. [1]\n\n## Sources\n\n- [1] Watering — file:///tmp/c/watering.md#watering\n- [3] Fines — Fines — https://city.example/fines\n";
        let p = parse_report(report);
        assert_eq!(p.style, CiteStyle::Numbered);
        assert_eq!(p.sources.len(), 2);
        assert_eq!(p.source(1).unwrap().url, "file:///tmp/c/watering.md#watering");
        assert_eq!(p.source(1).unwrap().title, "Watering");
        assert_eq!(p.source(3).unwrap().url, "https://city.example/fines");
        let export = "Text [2].\n\n## Sources\n\n1. [1] Watering — <file:///w.md> — accessed 2026-11-27, published 2026-11-27 — cited\n2. [2] Plots — <https://p.example/x> — accessed 2026-11-27 — kept\n\n## Session\n\n- id: x\n";
        let p = parse_report(export);
        assert_eq!(p.source(2).unwrap().url, "https://p.example/x");
        assert_eq!(p.source(2).unwrap().title, "Plots");
        assert_eq!(p.statements.len(), 1);
    }

    #[test]
    fn open_deep_research_sources_are_read() {
        let md = "## Answer\n\nThe fine is 50 euros [1]. It doubles [2].\n\n### Sources\n\n[1] City rules: https://a.example/rules\n[2] Local news: https://b.example/n\n";
        let p = parse_report(md);
        assert_eq!(
            p.sources,
            vec![
                ListedSource { number: 1, url: "https://a.example/rules".into(), title: "City rules".into() },
                ListedSource { number: 2, url: "https://b.example/n".into(), title: "Local news".into() },
            ]
        );
    }

    #[test]
    fn gpt_researcher_links_become_numbered_sources() {
        let md = "# Report\n\nWatering is allowed at night ([City, 2024](https://city.example/water)). \
                  Fines are 50 euros ([News](https://news.example/fines)). Night again ([City](https://city.example/water/)).\n\n\
                  ## References\n\n- [https://news.example/fines](https://news.example/fines)\n- City of X. (2024). Water rules. [https://city.example/water](https://city.example/water)\n- [https://unused.example](https://unused.example)\n";
        let p = parse_report(md);
        assert_eq!(p.style, CiteStyle::Links);
        let cites: Vec<Vec<u32>> = p.statements.iter().map(|s| s.cites.clone()).collect();
        assert_eq!(cites, vec![vec![1], vec![2], vec![1]]);
        assert_eq!(p.source(1).unwrap().url, "https://city.example/water");
        assert_eq!(p.source(1).unwrap().title, "City of X. (2024). Water rules");
        assert_eq!(p.source(2).unwrap().url, "https://news.example/fines");
        assert_eq!(p.source(3).unwrap().url, "https://unused.example");
    }

    #[test]
    fn reference_definitions_and_footnotes_are_sources() {
        let md = "A claim [1] and a footnote[^2].\n\n[1]: https://a.example \"A\"\n[^2]: https://b.example/page\n";
        let p = parse_report(md);
        assert_eq!(p.statements[0].cites, vec![1, 2]);
        assert_eq!(p.source(1).unwrap().title, "A");
        assert_eq!(p.source(2).unwrap().url, "https://b.example/page");
    }
}
