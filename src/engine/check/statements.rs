//! The cited sentences of a Markdown report: every sentence (or list item,
//! or table row) that carries a citation, whichever way the report cites —
//! `[n]`, `[n, m]`, `[n][m]`, `[^n]` (sleuth, open_deep_research, most
//! LLM writers) or an inline link `([label](url))` (gpt-researcher).
//! Code, headings, reference lists and sleuth's own verification note are
//! not statements.

use std::collections::BTreeSet;

/// One cited sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The sentence as a reader sees it: markers, citation links and
    /// sleuth's marks removed, whitespace collapsed.
    pub text: String,
    /// Numbers cited with `[n]` markers, in order, without repeats.
    pub cites: Vec<u32>,
    /// URLs cited by inline links, in order, without repeats.
    pub links: Vec<String>,
    /// Words the sentence puts in quotation marks (three words or more):
    /// quotes it says its source holds.
    pub quotes: Vec<String>,
    /// Byte offset in the Markdown where the sentence begins.
    pub start: usize,
    /// Byte offset in the Markdown just after the sentence (its last
    /// marker or punctuation): where a mark goes.
    pub end: usize,
    /// 1-based line of the Markdown where the sentence ends.
    pub line: usize,
}

/// Headings that open a list of references rather than prose.
const REFERENCE_HEADINGS: &[&str] = &[
    "sources",
    "source",
    "references",
    "reference list",
    "bibliography",
    "works cited",
    "citations",
    "sources cited",
    "list of all relevant sources",
];

/// Sections sleuth appends that hold no claims: its verification note
/// (which repeats the unsupported sentences) and an export's particulars.
const NOTE_HEADINGS: &[&str] = &["verification", "session"];

/// Marks sleuth puts after a sentence; never part of what it says.
pub const MARKS: &[&str] =
    &["**[unsupported]**", "**[source unreachable]**", "**[no quote given]**", "*[no verified quote]*"];

/// Whether a heading's text names a reference list.
pub fn is_reference_heading(title: &str) -> bool {
    let t = heading_key(title);
    REFERENCE_HEADINGS.contains(&t.as_str())
}

fn heading_key(title: &str) -> String {
    let t: String =
        title.chars().filter(|c| c.is_alphanumeric() || c.is_whitespace()).collect::<String>().to_lowercase();
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `(level, title)` of an ATX heading line.
pub fn heading(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let level = t.chars().take_while(|c| *c == '#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &t[level..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some((level, rest.trim().trim_end_matches('#').trim()))
}

/// What a line of the body is, for the walk below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// Prose: read it.
    No,
    /// Inside a reference list or a note opened at this heading level.
    Section(usize),
    /// The report ended: an export's particulars and appendix follow.
    Rest,
}

/// Every cited sentence of `markdown`, in order.
pub fn cited_statements(markdown: &str) -> Vec<Statement> {
    let mut out = Vec::new();
    let mut block = Block::default();
    let mut in_fence = false;
    let mut skip = Skip::No;
    let mut seen_references = None::<usize>;
    let mut offset = 0;
    for (i, raw) in markdown.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            block.flush(&mut out);
            in_fence = !in_fence;
            continue;
        }
        if in_fence || skip == Skip::Rest {
            continue;
        }
        if let Some((level, title)) = heading(line) {
            block.flush(&mut out);
            let key = heading_key(title);
            skip = if is_reference_heading(title) {
                seen_references = Some(level);
                Skip::Section(level)
            } else if seen_references.is_some_and(|l| level <= l) && (key == "session" || key.starts_with("appendix")) {
                Skip::Rest
            } else if NOTE_HEADINGS.contains(&key.as_str()) {
                Skip::Section(level)
            } else {
                match skip {
                    Skip::Section(l) if level > l => skip,
                    _ => Skip::No,
                }
            };
            continue;
        }
        if matches!(skip, Skip::Section(_)) {
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            block.flush(&mut out);
            continue;
        }
        let indent = line.len() - trimmed.len();
        let (content, at) = match list_marker(trimmed) {
            Some(len) => {
                block.flush(&mut out);
                (&trimmed[len..], start + indent + len)
            }
            None if trimmed.starts_with('|') => {
                block.flush(&mut out);
                let row = trimmed.trim_end().trim_matches('|');
                if row.chars().all(|c| matches!(c, '-' | ':' | '|' | ' ')) {
                    continue;
                }
                (row, start + indent + 1)
            }
            None if trimmed.starts_with('>') => {
                let q = trimmed.trim_start_matches('>');
                let q_trim = q.trim_start();
                (q_trim, start + indent + (trimmed.len() - q_trim.len()))
            }
            None => (trimmed, start + indent),
        };
        block.push(content, at, i + 1);
        if trimmed.starts_with('|') {
            block.flush(&mut out);
        }
    }
    block.flush(&mut out);
    out
}

/// Length of a list item's marker (`- `, `* `, `+ `, `12. `, `3) `).
fn list_marker(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'-' | b'*' | b'+') && b[1] == b' ' {
        return Some(2);
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && digits < 10 && b.len() > digits + 1 && matches!(b[digits], b'.' | b')') && b[digits + 1] == b' ' {
        return Some(digits + 2);
    }
    None
}

/// A paragraph, list item or table row: its lines joined with spaces, and
/// for every byte of the joined text the offset it came from.
#[derive(Default)]
struct Block {
    text: String,
    origin: Vec<usize>,
    lines: Vec<usize>,
    /// Where a line ended on a citation marker and the next opens with a
    /// capital or a label: a sentence ends there even without a full stop
    /// ("Listing 8-25: Counting words [6]" before an "Example [6]:" line).
    /// A line going on in lower case ("cites [4]" / "and goes on.") is the
    /// same sentence wrapped.
    breaks: Vec<usize>,
}

impl Block {
    fn push(&mut self, content: &str, at: usize, line: usize) {
        let before = self.text.trim_end();
        let ends_on_marker = before.rfind('[').is_some_and(|k| marker_at(&before[k..]) == Some(before.len() - k));
        let opens_anew = content.starts_with(|c: char| c.is_uppercase() || c == '*' || c == '_');
        if ends_on_marker && opens_anew {
            self.breaks.push(self.text.len());
        }
        if !self.text.is_empty() {
            let last = self.origin.last().map_or(at, |o| o + 1);
            self.text.push(' ');
            self.origin.push(last);
            self.lines.push(*self.lines.last().unwrap_or(&line));
        }
        for (k, _) in content.bytes().enumerate() {
            self.origin.push(at + k);
            self.lines.push(line);
        }
        self.text.push_str(content);
    }

    fn flush(&mut self, out: &mut Vec<Statement>) {
        if !self.text.is_empty() {
            for (from, to) in sentences(&self.text, &self.breaks) {
                let piece = &self.text[from..to];
                let parsed = parse_piece(piece);
                if parsed.cites.is_empty() && parsed.links.is_empty() {
                    continue;
                }
                let start = self.origin.get(from).copied().unwrap_or(0);
                let end = self.origin.get(to - 1).map_or(start, |o| o + 1);
                let line = self.lines.get(to - 1).copied().unwrap_or(0);
                out.push(Statement { start, end, line, ..parsed });
            }
        }
        *self = Block::default();
    }
}

/// Words before a full stop that do not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "cf", "dr", "mr", "mrs", "ms", "st", "no", "fig", "al", "approx", "inc", "ltd", "jr",
    "sr", "vol", "pp", "ch", "sec", "eq",
];

/// Byte ranges of the sentences of `text`. A piece that is only citation
/// markers or links joins the sentence before it (`… 7 pm. [1]`), and so
/// do markers that open a piece (`A. [1] B. [2]` is `A. [1]`, `B. [2]`).
/// `breaks` end a sentence without a full stop (see `Block::breaks`).
fn sentences(text: &str, breaks: &[usize]) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut cuts = vec![0];
    let mut i = 0;
    while i < bytes.len() {
        if matches!(bytes[i], b'.' | b'!' | b'?') && !abbreviation_before(text, i) {
            let mut j = i + 1;
            while j < bytes.len() && matches!(bytes[j], b'"' | b'\'' | b')' | b'*' | b'_') {
                j += 1;
            }
            // Closing typographic quotes (3 bytes each).
            while text[j..].starts_with('\u{201d}') || text[j..].starts_with('\u{2019}') {
                j += 3;
            }
            if j < bytes.len() && bytes[j].is_ascii_whitespace() {
                cuts.push(j);
                i = j;
                continue;
            }
        }
        i += 1;
    }
    cuts.extend(breaks.iter().filter(|&&b| b > 0 && b < text.len()));
    cuts.push(text.len());
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for w in cuts.windows(2) {
        let (mut from, to) = (w[0], w[1]);
        // Markers opening a piece belong to the sentence before.
        let lead = leading_citations(&text[from..to]);
        if lead > 0
            && let Some(prev) = out.last_mut()
        {
            prev.1 = from + lead;
            from += lead;
        }
        let piece = &text[from..to];
        if piece.trim().is_empty() {
            continue;
        }
        if !has_words(piece)
            && let Some(prev) = out.last_mut()
        {
            prev.1 = to;
            continue;
        }
        // Keep the range tight: no trailing whitespace in a sentence.
        let trimmed_end = from + piece.trim_end().len();
        let trimmed_start = to - piece.trim_start().len();
        out.push((trimmed_start.min(trimmed_end), trimmed_end));
    }
    for s in &mut out {
        let t = &text[s.0..s.1];
        s.1 = s.0 + t.trim_end().len();
    }
    out
}

fn abbreviation_before(text: &str, dot: usize) -> bool {
    if text.as_bytes()[dot] != b'.' {
        return false;
    }
    let before = &text[..dot];
    let word: String = before
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '.')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let lower = word.to_lowercase();
    // A single capital is an initial ("J. Smith"); a number before a dot
    // inside a sentence is a list or a decimal (handled by the whitespace rule).
    (word.chars().count() == 1 && word.chars().all(|c| c.is_uppercase())) || ABBREVIATIONS.contains(&lower.as_str())
}

/// Bytes of citation markers (and whitespace) at the start of `piece`.
fn leading_citations(piece: &str) -> usize {
    let mut at = 0;
    loop {
        let rest = &piece[at..];
        let ws = rest.len() - rest.trim_start().len();
        let rest = &rest[ws..];
        match marker_at(rest).or_else(|| paren_link_at(rest)) {
            Some(len) => {
                at += ws + len;
                // A full stop after the marker still belongs with it.
                let r = &piece[at..];
                if r.starts_with(['.', ',', ';']) {
                    at += 1;
                }
            }
            None => return if at == 0 { 0 } else { at },
        }
    }
}

/// Length of a `[n]`, `[n, m]` or `[^n]` marker at the start of `s`.
fn marker_at(s: &str) -> Option<usize> {
    let inner_end = s.strip_prefix('[')?.find(']')?;
    let inner = &s[1..1 + inner_end];
    let after = &s[inner_end + 2..];
    if after.starts_with('(') || after.starts_with(':') {
        return None;
    }
    numbers(inner).map(|_| inner_end + 2)
}

/// Length of a `([label](url))` citation link at the start of `s`.
fn paren_link_at(s: &str) -> Option<usize> {
    let rest = s.strip_prefix('(')?;
    let (_, _, len) = link_at(rest)?;
    rest[len..].starts_with(')').then_some(len + 2)
}

/// The numbers of a marker's inside: `1`, `1, 2`, `^3`.
fn numbers(inner: &str) -> Option<Vec<u32>> {
    let inner = inner.strip_prefix('^').unwrap_or(inner);
    let nums: Option<Vec<u32>> = inner.split(',').map(|p| p.trim().parse::<u32>().ok()).collect();
    nums.filter(|n| !n.is_empty())
}

/// `(label, url, length)` of a Markdown link `[label](url)` at the start
/// of `s` whose URL is a web or file address.
fn link_at(s: &str) -> Option<(&str, &str, usize)> {
    let rest = s.strip_prefix('[')?;
    let close = rest.find("](")?;
    let label = &rest[..close];
    if label.contains('[') {
        return None;
    }
    let after = &rest[close + 2..];
    let end = after.find(')')?;
    let target = after[..end].split_whitespace().next().unwrap_or("");
    let target = target.trim_start_matches('<').trim_end_matches('>');
    let lower = target.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("file://")) {
        return None;
    }
    Some((label, target, 1 + close + 2 + end + 1))
}

/// Whether `piece` has words of its own beside markers and links.
fn has_words(piece: &str) -> bool {
    parse_piece(piece).text.chars().any(char::is_alphanumeric)
}

/// A sentence's text, citations and quotes.
fn parse_piece(piece: &str) -> Statement {
    let mut text = String::with_capacity(piece.len());
    let mut cites: Vec<u32> = Vec::new();
    let mut links: Vec<String> = Vec::new();
    let mut in_code = false;
    let mut i = 0;
    let mut rest_piece = piece.to_string();
    for m in MARKS {
        rest_piece = rest_piece.replace(m, "");
    }
    let piece = rest_piece.as_str();
    while i < piece.len() {
        let rest = &piece[i..];
        let c = rest.chars().next().unwrap_or(' ');
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            if let Some(len) = paren_link_at(rest) {
                if let Some((_, url, _)) = link_at(&rest[1..]) {
                    push_unique(&mut links, url.to_string());
                }
                i += len;
                continue;
            }
            if let Some((label, url, len)) = link_at(rest) {
                push_unique(&mut links, url.to_string());
                text.push_str(label);
                i += len;
                continue;
            }
            if let Some(len) = marker_at(rest) {
                for n in numbers(&rest[1..len - 1]).unwrap_or_default() {
                    if !cites.contains(&n) {
                        cites.push(n);
                    }
                }
                i += len;
                continue;
            }
        }
        text.push(c);
        i += c.len_utf8();
    }
    let text = tidy(&text);
    let quotes = quoted(&text);
    Statement { text, cites, links, quotes, start: 0, end: 0, line: 0 }
}

fn push_unique(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

/// Whitespace collapsed, no space before punctuation left by a removed
/// marker (`7 pm .` → `7 pm.`), no empty parentheses.
fn tidy(text: &str) -> String {
    let collapsed = text.replace("()", "").split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(collapsed.len());
    for c in collapsed.chars() {
        if matches!(c, '.' | ',' | ';' | ':' | '!' | '?') && out.ends_with(' ') {
            out.pop();
        }
        out.push(c);
    }
    out.trim().to_string()
}

/// Spans in quotation marks of three words or more.
fn quoted(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('\u{201c}', '\u{201d}'), ('"', '"')] {
        let mut rest = text;
        while let Some(a) = rest.find(open) {
            let after = &rest[a + open.len_utf8()..];
            let Some(b) = after.find(close) else { break };
            let inner = after[..b].trim();
            if inner.split_whitespace().count() >= 3 {
                out.push(inner.to_string());
            }
            rest = &after[b + close.len_utf8()..];
        }
    }
    out
}

/// Every `[n]` number cited in `markdown`'s statements (a set).
pub fn cited_numbers(statements: &[Statement]) -> BTreeSet<u32> {
    statements.iter().flat_map(|s| s.cites.iter().copied()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(md: &str) -> Vec<(String, Vec<u32>)> {
        cited_statements(md).into_iter().map(|s| (s.text, s.cites)).collect()
    }

    #[test]
    fn sleuth_markers_after_the_full_stop_belong_to_the_sentence_before() {
        let md = "# Q\n\nWatering is allowed before 8 am. [1] Hoses need a nozzle. [2]\n\nNo citation here.\n";
        assert_eq!(
            texts(md),
            vec![("Watering is allowed before 8 am.".into(), vec![1]), ("Hoses need a nozzle.".into(), vec![2])]
        );
        let s = cited_statements(md);
        assert_eq!(&md[s[0].start..s[0].end], "Watering is allowed before 8 am. [1]");
        assert_eq!(&md[s[1].start..s[1].end], "Hoses need a nozzle. [2]");
        assert!(md[..s[1].end].ends_with("nozzle. [2]"));
        assert_eq!(s[1].line, 3);
    }

    #[test]
    fn open_deep_research_markers_and_its_sources_list() {
        let md = "## Findings\n\nThe fine is 50 euros [1][2]. It doubles after a second breach [2].\n\n### Sources\n\n[1] City rules: https://a.example/rules\n[2] News: https://b.example/n\n";
        assert_eq!(
            texts(md),
            vec![("The fine is 50 euros.".into(), vec![1, 2]), ("It doubles after a second breach.".into(), vec![2])]
        );
    }

    #[test]
    fn gpt_researcher_links_are_citations_and_quotes_are_kept() {
        let md = "The council said \u{201c}watering is allowed only at night\u{201d} ([City of X, 2024](https://x.example/water)). \
                  See the [rules page](https://x.example/rules) for more.\n\n## References\n\n- [https://x.example/water](https://x.example/water)\n";
        let s = cited_statements(md);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].links, vec!["https://x.example/water".to_string()]);
        assert_eq!(s[0].quotes, vec!["watering is allowed only at night".to_string()]);
        assert_eq!(s[0].text, "The council said \u{201c}watering is allowed only at night\u{201d}.");
        assert_eq!(s[1].text, "See the rules page for more.");
    }

    #[test]
    fn code_headings_tables_and_notes_are_read_as_they_should() {
        let md = "# Title [1]\n\n```\nlet x = a[5];\n```\n\n| rule | value |\n|---|---|\n| fine | 50 euros [3] |\n\n- item one cites [4]\n  and goes on.\n\n`v[0]` is indexing.\n\n## Verification\n\n- Arc is collected [2] — quote not found\n\n## Sources\n\n- [1] T — https://x\n\n## Session\n\n**Sources:** 2 new ([1] [2])\n";
        assert_eq!(
            texts(md),
            vec![("fine | 50 euros".into(), vec![3]), ("item one cites and goes on.".into(), vec![4])]
        );
    }

    #[test]
    fn a_line_ending_on_a_marker_ends_its_sentence_when_the_next_opens_anew() {
        let md = "*Maps:* Listing 8-25: Counting words in a map [6]\nExample [6]:\n```\nlet n = 1;\n```\n";
        assert_eq!(texts(md), vec![("*Maps:* Listing 8-25: Counting words in a map".into(), vec![6])]);
    }

    #[test]
    fn abbreviations_and_initials_do_not_end_a_sentence() {
        let md = "Types, e.g. Vec and J. Smith's Box, are heap allocated [1]. Next one [2].";
        assert_eq!(texts(md).len(), 2);
        assert!(texts(md)[0].0.starts_with("Types, e.g. Vec and J. Smith"));
    }

    #[test]
    fn sleuths_marks_are_not_part_of_the_sentence() {
        let md = "It also makes coffee [2]. **[unsupported]**\n";
        assert_eq!(texts(md), vec![("It also makes coffee.".into(), vec![2])]);
    }

    #[test]
    fn a_legacy_section_with_its_own_sources_list_is_followed_by_more_prose() {
        let md = "## A\n\nOne [1].\n\n### Sources\n1. https://a\n\n## B\n\nTwo [1].\n\n### Sources\n1. https://b\n";
        assert_eq!(texts(md), vec![("One.".into(), vec![1]), ("Two.".into(), vec![1])]);
    }
}
