//! The small Markdown reading the shared formats need: blocks (headings,
//! paragraphs, list items, tables, code, quotes, rules) holding inlines
//! (text with bold/italic/code, links, `[n]` citations, and the claim
//! boundaries `share` marks with private-use characters). HTML and PDF
//! render the same blocks.

/// Opens claim `k`: `CLAIM_OPEN k CLAIM_NUM_END`.
pub const CLAIM_OPEN: char = '\u{E000}';
pub const CLAIM_NUM_END: char = '\u{E001}';
/// Closes the open claim.
pub const CLAIM_CLOSE: char = '\u{E002}';

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    pub bold: bool,
    pub italic: bool,
    pub code: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    Text {
        text: String,
        style: Style,
    },
    Link {
        text: String,
        url: String,
    },
    /// A `[n]` citation of source n.
    Cite(u32),
    /// Claim k (1-based, the order of `ShareDoc::claims`) begins / ends.
    ClaimStart(usize),
    ClaimEnd(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocBlock {
    Heading { level: usize, inlines: Vec<Inline> },
    Para(Vec<Inline>),
    Item { ordered: Option<u32>, inlines: Vec<Inline> },
    Quote(Vec<Inline>),
    Code(String),
    Table(Vec<Vec<Vec<Inline>>>),
    Rule,
}

/// The blocks of `markdown`.
pub fn blocks(markdown: &str) -> Vec<DocBlock> {
    let mut out = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let mut item: Option<(Option<u32>, Vec<&str>)> = None;
    let mut table: Vec<Vec<Vec<Inline>>> = Vec::new();
    let mut code: Option<String> = None;
    let flush = |out: &mut Vec<DocBlock>,
                 para: &mut Vec<&str>,
                 item: &mut Option<(Option<u32>, Vec<&str>)>,
                 table: &mut Vec<Vec<Vec<Inline>>>| {
        if !para.is_empty() {
            let text = para.join(" ");
            let quote = text.starts_with('>');
            let inl = inlines(text.trim_start_matches('>').trim_start());
            out.push(if quote { DocBlock::Quote(inl) } else { DocBlock::Para(inl) });
            para.clear();
        }
        if let Some((ordered, lines)) = item.take() {
            out.push(DocBlock::Item { ordered, inlines: inlines(&lines.join(" ")) });
        }
        if !table.is_empty() {
            out.push(DocBlock::Table(std::mem::take(table)));
        }
    };
    for line in markdown.lines() {
        let t = line.trim();
        if let Some(c) = code.as_mut() {
            if t.starts_with("```") || t.starts_with("~~~") {
                out.push(DocBlock::Code(std::mem::take(c)));
                code = None;
            } else {
                c.push_str(line);
                c.push('\n');
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            flush(&mut out, &mut para, &mut item, &mut table);
            code = Some(String::new());
            continue;
        }
        if t.is_empty() {
            flush(&mut out, &mut para, &mut item, &mut table);
            continue;
        }
        if let Some((level, title)) = crate::engine::check::heading(t) {
            flush(&mut out, &mut para, &mut item, &mut table);
            out.push(DocBlock::Heading { level, inlines: inlines(title) });
            continue;
        }
        if t.chars().all(|c| matches!(c, '-' | '*' | '_' | ' '))
            && t.chars().filter(|c| !c.is_whitespace()).count() >= 3
        {
            flush(&mut out, &mut para, &mut item, &mut table);
            out.push(DocBlock::Rule);
            continue;
        }
        if t.starts_with('|') {
            if !table.is_empty() || para.is_empty() && item.is_none() {
                let row = t.trim_matches('|');
                if !row.chars().all(|c| matches!(c, '-' | ':' | '|' | ' ')) {
                    table.push(row.split('|').map(|cell| inlines(cell.trim())).collect());
                }
                continue;
            }
        } else if !table.is_empty() {
            flush(&mut out, &mut para, &mut item, &mut table);
        }
        if let Some((ordered, rest)) = list_item(t) {
            flush(&mut out, &mut para, &mut item, &mut table);
            item = Some((ordered, vec![rest]));
            continue;
        }
        match item.as_mut() {
            Some((_, lines)) => lines.push(t),
            None => para.push(t),
        }
    }
    if let Some(c) = code {
        out.push(DocBlock::Code(c));
    }
    flush(&mut out, &mut para, &mut item, &mut table);
    out
}

fn list_item(t: &str) -> Option<(Option<u32>, &str)> {
    if let Some(rest) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).or_else(|| t.strip_prefix("+ ")) {
        return Some((None, rest));
    }
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && digits < 10 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")) {
        return Some((t[..digits].parse().ok(), &t[digits + 2..]));
    }
    None
}

/// The inlines of a line of text.
pub fn inlines(text: &str) -> Vec<Inline> {
    let mut out: Vec<Inline> = Vec::new();
    let mut style = Style::default();
    let mut buf = String::new();
    let flush = |out: &mut Vec<Inline>, buf: &mut String, style: Style| {
        if !buf.is_empty() {
            out.push(Inline::Text { text: std::mem::take(buf), style });
        }
    };
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let Some(c) = rest.chars().next() else { break };
        if c == CLAIM_OPEN {
            let num: String = rest[c.len_utf8()..].chars().take_while(char::is_ascii_digit).collect();
            flush(&mut out, &mut buf, style);
            out.push(Inline::ClaimStart(num.parse().unwrap_or(0)));
            i += c.len_utf8() + num.len();
            if text[i..].starts_with(CLAIM_NUM_END) {
                i += CLAIM_NUM_END.len_utf8();
            }
            continue;
        }
        if c == CLAIM_CLOSE {
            flush(&mut out, &mut buf, style);
            out.push(Inline::ClaimEnd(0));
            i += c.len_utf8();
            continue;
        }
        if c == '`' {
            if let Some(end) = rest[1..].find('`') {
                flush(&mut out, &mut buf, style);
                let code = Style { code: true, ..style };
                out.push(Inline::Text { text: rest[1..1 + end].to_string(), style: code });
                i += end + 2;
                continue;
            }
        } else if rest.starts_with("**") {
            flush(&mut out, &mut buf, style);
            style.bold = !style.bold;
            i += 2;
            continue;
        } else if (c == '*' && !rest.starts_with("* ")) || (c == '_' && emphasis_underscore(text, i, style.italic)) {
            flush(&mut out, &mut buf, style);
            style.italic = !style.italic;
            i += 1;
            continue;
        } else if c == '[' {
            if let Some((nums, len)) = citation(rest) {
                flush(&mut out, &mut buf, style);
                out.extend(nums.into_iter().map(Inline::Cite));
                i += len;
                continue;
            }
            if let Some((label, url, len)) = link(rest) {
                flush(&mut out, &mut buf, style);
                out.push(Inline::Link { text: label.to_string(), url: url.to_string() });
                i += len;
                continue;
            }
        } else if c == '<'
            && let Some(end) = rest.find('>')
            && is_address(&rest[1..end])
        {
            flush(&mut out, &mut buf, style);
            out.push(Inline::Link { text: rest[1..end].to_string(), url: rest[1..end].to_string() });
            i += end + 1;
            continue;
        }
        buf.push(c);
        i += c.len_utf8();
    }
    flush(&mut out, &mut buf, style);
    out
}

/// Whether the `_` at `i` opens or closes emphasis (not one inside a word,
/// as in `snake_case`).
fn emphasis_underscore(text: &str, i: usize, open: bool) -> bool {
    let before = text[..i].chars().next_back();
    let after = text[i + 1..].chars().next();
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    if open {
        !word(after) && before.is_some_and(|c| !c.is_whitespace())
    } else {
        !word(before) && after.is_some_and(|c| !c.is_whitespace())
    }
}

/// `[n]`, `[n, m]` or `[^n]` at the start of `s` (not a link's label).
fn citation(s: &str) -> Option<(Vec<u32>, usize)> {
    let end = s.find(']')?;
    let inner = s[1..end].trim_start_matches('^');
    if s[end + 1..].starts_with('(') {
        return None;
    }
    let nums: Option<Vec<u32>> = inner.split(',').map(|p| p.trim().parse().ok()).collect();
    nums.filter(|n| !n.is_empty()).map(|n| (n, end + 1))
}

/// `[label](url)` at the start of `s`.
fn link(s: &str) -> Option<(&str, &str, usize)> {
    let close = s.find("](")?;
    let label = &s[1..close];
    let after = &s[close + 2..];
    let end = after.find(')')?;
    let url = after[..end].split_whitespace().next().unwrap_or("");
    Some((label, url, close + 2 + end + 1))
}

/// Addresses a shared report may link to (never a script or data URL).
pub fn is_address(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    ["https://", "http://", "file://", "mailto:"].iter().any(|p| lower.starts_with(p)) || lower.starts_with('#')
}

/// The plain text of inlines (for a PDF's search and a claim's title).
pub fn plain(inlines: &[Inline]) -> String {
    let mut out = String::new();
    for i in inlines {
        match i {
            Inline::Text { text, .. } | Inline::Link { text, .. } => out.push_str(text),
            Inline::Cite(n) => out.push_str(&format!("[{n}]")),
            Inline::ClaimStart(_) | Inline::ClaimEnd(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_inlines_are_read() {
        let md = format!(
            "# Title\n\nA **bold** {CLAIM_OPEN}1{CLAIM_NUM_END}claim [1]{CLAIM_CLOSE} and `code[0]`.\n\n- item [2, 3]\n1. first\n\n| a | b |\n|---|---|\n| x | y [4] |\n\n```\nlet v = a[1];\n```\n---\n> quoted <https://x.example>\n"
        );
        let b = blocks(&md);
        assert_eq!(b.len(), 8, "{b:#?}");
        assert!(matches!(&b[0], DocBlock::Heading { level: 1, .. }));
        let DocBlock::Para(p) = &b[1] else { panic!("{b:?}") };
        assert!(p.contains(&Inline::ClaimStart(1)) && p.contains(&Inline::Cite(1)) && p.contains(&Inline::ClaimEnd(0)));
        assert!(p.contains(&Inline::Text { text: "bold".into(), style: Style { bold: true, ..Style::default() } }));
        assert!(p.contains(&Inline::Text { text: "code[0]".into(), style: Style { code: true, ..Style::default() } }));
        assert!(matches!(&b[2], DocBlock::Item { ordered: None, inlines } if inlines.contains(&Inline::Cite(3))));
        assert!(matches!(&b[3], DocBlock::Item { ordered: Some(1), .. }));
        assert!(matches!(&b[4], DocBlock::Table(rows) if rows.len() == 2));
        assert_eq!(b[5], DocBlock::Code("let v = a[1];\n".into()));
        assert_eq!(b[6], DocBlock::Rule);
        assert!(matches!(&b[7], DocBlock::Quote(q) if q.iter().any(|i| matches!(i, Inline::Link { .. }))));
        let italic = Style { italic: true, ..Style::default() };
        assert_eq!(inlines("_said so._ a snake_case word")[0], Inline::Text { text: "said so.".into(), style: italic });
        assert_eq!(plain(&inlines("_said so._ a snake_case word")), "said so. a snake_case word");
    }
}
