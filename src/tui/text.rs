//! Text for drawing: untrusted text made safe (`sanitize`), `[n]` markers
//! and other ranges styled, and lines wrapped to a width by display cells.

use std::ops::Range;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::text::{sanitize, sanitize_inline};

/// Multi-line untrusted text, safe to draw (tabs become spaces: a tab in a
/// terminal cell would move the cursor).
pub fn clean(s: &str) -> String {
    sanitize(s).replace('\t', "    ")
}

/// One-line untrusted text, safe to draw.
pub fn inline(s: &str) -> String {
    sanitize_inline(s)
}

/// Display width in terminal cells.
pub fn width(s: &str) -> usize {
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// `s` cut to `max` cells, with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > max {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// Byte ranges of `[n]`, `[n, m]` citation markers in `s`.
pub fn citation_ranges(s: &str) -> Vec<Range<usize>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            let mut j = i + 1;
            let mut digits = 0;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b',' || b[j] == b' ') {
                digits += usize::from(b[j].is_ascii_digit());
                j += 1;
            }
            if j < b.len() && b[j] == b']' && digits > 0 && b[i + 1].is_ascii_digit() {
                out.push(i..j + 1);
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Byte ranges of every case-insensitive occurrence of `needle` in `hay`.
pub fn find_all(hay: &str, needle: &str) -> Vec<Range<usize>> {
    if needle.is_empty() {
        return Vec::new();
    }
    let lower_hay = hay.to_lowercase();
    let lower_needle = needle.to_lowercase();
    // Lower-casing can change byte lengths; fall back to exact matching then.
    let (h, n) = if lower_hay.len() == hay.len() { (lower_hay.as_str(), lower_needle.as_str()) } else { (hay, needle) };
    let mut out = Vec::new();
    let mut start = 0;
    while let Some(pos) = h[start..].find(n) {
        let at = start + pos;
        out.push(at..at + n.len());
        start = at + n.len().max(1);
    }
    out
}

/// `text` as spans in `base`, with `ranges` restyled (later ranges win
/// where they overlap; ranges need not be sorted).
pub fn styled(text: &str, base: Style, ranges: &[(Range<usize>, Style)]) -> Vec<Span<'static>> {
    if ranges.is_empty() {
        return vec![Span::styled(text.to_string(), base)];
    }
    // Boundaries where the style may change.
    let mut cuts: Vec<usize> = vec![0, text.len()];
    for (r, _) in ranges {
        if r.start <= text.len()
            && r.end <= text.len()
            && text.is_char_boundary(r.start)
            && text.is_char_boundary(r.end)
        {
            cuts.push(r.start);
            cuts.push(r.end);
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut spans: Vec<Span<'static>> = Vec::new();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        if a == b {
            continue;
        }
        let style = ranges.iter().rev().find(|(r, _)| r.start <= a && b <= r.end).map_or(base, |(_, s)| base.patch(*s));
        match spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(&text[a..b]),
            _ => spans.push(Span::styled(text[a..b].to_string(), style)),
        }
    }
    spans
}

/// Untrusted multi-line text as lines: `[n]` markers in `cite`, markdown
/// headings (`## …`) in `heading` without their hashes, matches of `search`
/// in their style.
pub fn prose(
    text: &str,
    base: Style,
    cite: Style,
    heading: Style,
    search: Option<(&str, Style)>,
) -> Vec<Line<'static>> {
    clean(text)
        .lines()
        .map(|l| {
            let title = l.trim_start_matches('#');
            let (l, base) = if title.len() < l.len() && (title.is_empty() || title.starts_with(' ')) {
                (title.trim_start(), heading)
            } else {
                (l, base)
            };
            let mut ranges: Vec<(Range<usize>, Style)> = citation_ranges(l).into_iter().map(|r| (r, cite)).collect();
            if let Some((term, style)) = search {
                ranges.extend(find_all(l, term).into_iter().map(|r| (r, style)));
            }
            Line::from(styled(l, base, &ranges))
        })
        .collect()
}

/// Word-wraps styled lines to `width` cells. Words longer than a line are
/// split; leading spaces of continuation lines are dropped.
pub fn wrap(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line_width(&line) <= width {
            out.push(line);
            continue;
        }
        wrap_one(line, width, &mut out);
    }
    out
}

fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| width(&s.content)).sum()
}

fn wrap_one(line: Line<'static>, width: usize, out: &mut Vec<Line<'static>>) {
    let style = line.style;
    let spans = &line.spans;
    // (char, span index) cells, then greedy wrapping on word boundaries.
    const INDENT: usize = usize::MAX;
    let cells: Vec<(char, usize)> =
        spans.iter().enumerate().flat_map(|(i, s)| s.content.chars().map(move |c| (c, i))).collect();
    // Continuation lines hang under the text of an indented or bulleted line.
    let lead = cells.iter().take_while(|(c, _)| *c == ' ').count();
    let bullet = matches!(cells.get(lead..lead + 2), Some([(b, _), (' ', _)]) if matches!(b, '•' | '-' | '*' | '✗'));
    let indent = (lead + if bullet { 2 } else { 0 }).min(width / 2);
    let mut current: Vec<(char, usize)> = Vec::with_capacity(width + 1);
    let mut cur_w = 0;
    let mut i = 0;
    let first = out.len();
    let flush = |current: &mut Vec<(char, usize)>, out: &mut Vec<Line<'static>>| {
        while current.last().is_some_and(|(c, _)| *c == ' ') {
            current.pop();
        }
        out.push(group(current, spans).style(style));
        current.clear();
    };
    // Starts a continuation line: the hanging indent.
    let hang = |current: &mut Vec<(char, usize)>| {
        current.extend(std::iter::repeat_n((' ', INDENT), indent));
        indent
    };
    while i < cells.len() {
        if cells[i].0 == ' ' {
            let cw = 1;
            if cur_w + cw > width {
                flush(&mut current, out);
                cur_w = hang(&mut current);
            } else if cur_w > indent || out.len() == first {
                current.push(cells[i]);
                cur_w += cw;
            }
            i += 1;
            continue;
        }
        let end = cells[i..].iter().position(|(c, _)| *c == ' ').map_or(cells.len(), |p| i + p);
        let word = &cells[i..end];
        let ww: usize = word.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
        if cur_w + ww > width && cur_w > 0 && (out.len() == first || cur_w > indent) {
            flush(&mut current, out);
            cur_w = hang(&mut current);
        }
        if cur_w + ww <= width {
            current.extend_from_slice(word);
            cur_w += ww;
        } else {
            for &cell in word {
                let cw = cell.0.width().unwrap_or(0);
                if cur_w + cw > width {
                    flush(&mut current, out);
                    cur_w = hang(&mut current);
                }
                current.push(cell);
                cur_w += cw;
            }
        }
        i = end;
    }
    if !current.is_empty() {
        flush(&mut current, out);
    }
}

/// Cells back into spans: runs of one source span become one span.
fn group(cells: &[(char, usize)], spans: &[Span<'static>]) -> Line<'static> {
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut last = None;
    for &(c, i) in cells {
        match out.last_mut() {
            Some(span) if last == Some(i) => span.content.to_mut().push(c),
            _ => {
                let style = spans.get(i).map_or_else(Style::default, |s| s.style);
                out.push(Span::styled(c.to_string(), style));
                last = Some(i);
            }
        }
    }
    Line::from(out)
}

/// Restyles every match of `term` inside each span of `line`.
pub fn mark(line: Line<'static>, term: Option<&str>, style: Style) -> Line<'static> {
    let Some(term) = term.filter(|t| !t.is_empty()) else { return line };
    let line_style = line.style;
    let spans: Vec<Span<'static>> = line
        .spans
        .into_iter()
        .flat_map(|s| {
            let ranges: Vec<(Range<usize>, Style)> =
                find_all(&s.content, term).into_iter().map(|r| (r, style)).collect();
            if ranges.is_empty() { vec![s] } else { styled(&s.content, s.style, &ranges) }
        })
        .collect();
    Line::from(spans).style(line_style)
}

/// Plain text of a line (for searching what is drawn).
pub fn plain(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[cfg(test)]
mod tests {
    use ratatui::style::{Color, Stylize};

    use super::*;

    #[test]
    fn escapes_never_survive() {
        let l = prose("a \x1b]0;pwned\x07b \x1b[2Jc\tz\n## Title", Style::new(), Style::new(), Style::new(), None);
        assert_eq!(plain(&l[0]), "a b c    z");
        assert_eq!(plain(&l[1]), "Title");
    }

    #[test]
    fn citation_markers_are_found() {
        let s = "x [1] y [2, 3] z [a] [] [4";
        let r: Vec<&str> = citation_ranges(s).into_iter().map(|r| &s[r]).collect();
        assert_eq!(r, vec!["[1]", "[2, 3]"]);
    }

    #[test]
    fn styled_ranges_split_spans() {
        let red = Style::new().fg(Color::Red);
        let spans = styled("see [1] here", Style::new(), &[(4..7, red)]);
        let parts: Vec<(&str, Style)> = spans.iter().map(|s| (s.content.as_ref(), s.style)).collect();
        assert_eq!(parts, vec![("see ", Style::new()), ("[1]", red), (" here", Style::new())]);
    }

    #[test]
    fn wraps_on_words_and_splits_long_ones() {
        let lines = wrap(vec![Line::from("alpha beta gamma"), Line::from("abcdefghij")], 6);
        let text: Vec<String> = lines.iter().map(plain).collect();
        assert_eq!(text, vec!["alpha", "beta", "gamma", "abcdef", "ghij"]);
        for l in &lines {
            assert!(line_width(l) <= 6);
        }
    }

    #[test]
    fn continuation_lines_hang_under_bullets() {
        let lines = wrap(vec![Line::from("  • one two three four")], 12);
        assert_eq!(lines.iter().map(plain).collect::<Vec<_>>(), vec!["  • one two", "    three", "    four"]);
    }

    #[test]
    fn wrapping_keeps_styles_and_wide_chars_fit() {
        let l = Line::from(vec![Span::raw("ab "), "漢字漢字".red()]);
        let lines = wrap(vec![l], 5);
        assert_eq!(lines.iter().map(plain).collect::<Vec<_>>(), vec!["ab", "漢字", "漢字"]);
        assert_eq!(lines[1].spans[0].style.fg, Some(Color::Red));
    }

    #[test]
    fn search_is_case_insensitive_and_truncate_marks_cuts() {
        assert_eq!(find_all("Foo foo FOO", "foo").len(), 3);
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
