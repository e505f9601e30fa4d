//! Text for drawing: untrusted text made safe (`sanitize`), `[n]` markers
//! and other ranges styled, and lines wrapped to a width by display cells.

use std::ops::Range;

use ratatui::style::{Modifier, Style};
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

/// The styles of prose: body text, `[n]` markers, headings, `code`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProseStyles {
    pub base: Style,
    pub cite: Style,
    pub heading: Style,
    pub code: Style,
}

/// Untrusted multi-line text as lines: `[n]` markers in `cite`, markdown
/// headings (`## …`) in `heading` without their hashes, inline emphasis
/// (`*a*`, `_a_`), strong (`**a**`, `__a__`) and `code` drawn as such
/// without their marks, matches of `search` in their style.
pub fn prose(text: &str, styles: ProseStyles, search: Option<(&str, Style)>) -> Vec<Line<'static>> {
    clean(text)
        .lines()
        .map(|l| {
            let title = l.trim_start_matches('#');
            let (l, base) = if title.len() < l.len() && (title.is_empty() || title.starts_with(' ')) {
                (title.trim_start(), styles.heading)
            } else {
                (l, styles.base)
            };
            let (l, mut ranges) = inline_markup(l, styles.code);
            ranges.extend(citation_ranges(&l).into_iter().map(|r| (r, styles.cite)));
            if let Some((term, style)) = search {
                ranges.extend(find_all(&l, term).into_iter().map(|r| (r, style)));
            }
            Line::from(styled(&l, base, &ranges))
        })
        .collect()
}

/// Inline markdown of one line: the text without its emphasis, strong and
/// code marks, and the ranges to style. A mark opens only before a
/// non-space and after a non-alphanumeric (so `snake_case`, `2 * 3` and
/// bullets stay as they are) and closes only where it is matched.
fn inline_markup(line: &str, code: Style) -> (String, Vec<(Range<usize>, Style)>) {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut ranges = Vec::new();
    let mut i = 0;
    let at = |k: usize| chars.get(k).copied();
    while i < chars.len() {
        let c = chars[i];
        if c == '`'
            && let Some(len) = chars[i + 1..].iter().position(|&x| x == '`').filter(|&n| n > 0)
        {
            let start = out.len();
            out.extend(&chars[i + 1..i + 1 + len]);
            ranges.push((start..out.len(), code));
            i += len + 2;
            continue;
        }
        if c == '*' || c == '_' {
            let n = if at(i + 1) == Some(c) { 2 } else { 1 };
            let opens = i.checked_sub(1).and_then(at).is_none_or(|p| !p.is_alphanumeric())
                && at(i + n).is_some_and(|x| !x.is_whitespace() && x != c);
            let close = (i + n + 1..chars.len()).find(|&k| {
                (0..n).all(|j| at(k + j) == Some(c))
                    && at(k + n) != Some(c)
                    && !chars[k - 1].is_whitespace()
                    && at(k + n).is_none_or(|x| !x.is_alphanumeric())
            });
            if opens && let Some(k) = close {
                // The inside may hold code or the other kind of emphasis.
                let (inner, inner_ranges) = inline_markup(&chars[i + n..k].iter().collect::<String>(), code);
                let start = out.len();
                out.push_str(&inner);
                let m = if n == 2 { Modifier::BOLD } else { Modifier::ITALIC };
                ranges.push((start..out.len(), Style::new().add_modifier(m)));
                ranges.extend(inner_ranges.into_iter().map(|(r, st)| (r.start + start..r.end + start, st)));
                i = k + n;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    (out, ranges)
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

/// Restyles every match of `term` in `line`, also where a match runs
/// across spans of different styles.
pub fn mark(line: Line<'static>, term: Option<&str>, style: Style) -> Line<'static> {
    let Some(term) = term.filter(|t| !t.is_empty()) else { return line };
    let matches = find_all(&plain(&line), term);
    if matches.is_empty() {
        return line;
    }
    let line_style = line.style;
    let mut start = 0;
    let mut spans: Vec<Span<'static>> = Vec::with_capacity(line.spans.len() + 2);
    for s in line.spans {
        let end = start + s.content.len();
        // The matches' parts inside this span, relative to it.
        let ranges: Vec<(Range<usize>, Style)> = matches
            .iter()
            .filter(|m| m.start < end && m.end > start)
            .map(|m| (m.start.max(start) - start..m.end.min(end) - start, style))
            .collect();
        start = end;
        if ranges.is_empty() {
            spans.push(s);
        } else {
            spans.extend(styled(&s.content, s.style, &ranges));
        }
    }
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
        let l = prose("a \x1b]0;pwned\x07b \x1b[2Jc\tz\n## Title", ProseStyles::default(), None);
        assert_eq!(plain(&l[0]), "a b c    z");
        assert_eq!(plain(&l[1]), "Title");
    }

    #[test]
    fn inline_markdown_is_drawn_not_shown() {
        let code = Style::new().fg(Color::Green);
        let styles = ProseStyles { code, ..ProseStyles::default() };
        let l = prose("_This answer is extractive [2]._ Use **`Rc`** or `RefCell`, see *docs*.", styles, None);
        assert_eq!(plain(&l[0]), "This answer is extractive [2]. Use Rc or RefCell, see docs.");
        let style_of = |text: &str| l[0].spans.iter().find(|s| s.content.contains(text)).map(|s| s.style);
        assert!(style_of("extractive").is_some_and(|s| s.add_modifier.contains(Modifier::ITALIC)));
        assert_eq!(style_of("RefCell").and_then(|s| s.fg), Some(Color::Green));
        assert!(style_of("docs").is_some_and(|s| s.add_modifier.contains(Modifier::ITALIC)));
        // Marks that are not emphasis stay as written.
        for raw in ["snake_case_name", "2 * 3 * 4", "* a bullet", "a ** b", "__init__py", "`", "_open"] {
            assert_eq!(plain(&prose(raw, styles, None)[0]), raw);
        }
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
    fn marks_matches_across_spans() {
        let red = Style::new().fg(Color::Red);
        let line = Line::from(vec![Span::raw("see [1"), Span::styled("] now", red)]);
        let marked = mark(line, Some("1] n"), Style::new().bg(Color::Yellow));
        let parts: Vec<(&str, Option<Color>)> = marked.spans.iter().map(|s| (s.content.as_ref(), s.style.bg)).collect();
        assert_eq!(
            parts,
            vec![("see [", None), ("1", Some(Color::Yellow)), ("] n", Some(Color::Yellow)), ("ow", None)]
        );
        assert_eq!(marked.spans[2].style.fg, Some(Color::Red), "the span keeps its own colour");
    }

    #[test]
    fn search_is_case_insensitive_and_truncate_marks_cuts() {
        assert_eq!(find_all("Foo foo FOO", "foo").len(), 3);
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
