//! Small drawing helpers shared by the panes.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Widget};

use crate::tui::text::mark as mark_term;
use crate::tui::theme::Theme;

/// A pane's frame: the focused one stands out.
pub fn pane_block<'a>(theme: &Theme, title: Line<'a>, focused: bool) -> Block<'a> {
    let border = if focused { theme.border_focused } else { theme.border };
    Block::bordered()
        .border_type(if focused { BorderType::Thick } else { BorderType::Plain })
        .border_style(border)
        .title(title)
        .style(theme.text)
}

/// A modal window's frame, cleared underneath.
pub fn modal(area: Rect, buf: &mut Buffer, theme: &Theme, title: &str) -> Rect {
    ratatui::widgets::Clear.render(area, buf);
    let block = Block::bordered()
        .border_type(BorderType::Double)
        .border_style(theme.modal_border)
        .title(Line::from(format!(" {title} ")))
        .style(theme.modal);
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

/// Draws `lines` from `scroll` on, one per row, matches of a search term
/// marked on the visible rows, and a scroll mark in the right-most column
/// of `mark` when there is more than fits.
pub fn scrolled(
    lines: &[Line<'static>],
    scroll: usize,
    area: Rect,
    buf: &mut Buffer,
    mark: Option<(Rect, Style)>,
    search: Option<(&str, Style)>,
) {
    let h = area.height as usize;
    let scroll = scroll.min(lines.len().saturating_sub(h));
    for (i, line) in lines.iter().skip(scroll).take(h).enumerate() {
        let y = area.y + i as u16;
        match search {
            Some((term, style)) => buf.set_line(area.x, y, &mark_term(line.clone(), Some(term), style), area.width),
            None => buf.set_line(area.x, y, line, area.width),
        };
    }
    if let Some((col, style)) = mark
        && lines.len() > h
        && h > 0
        && col.height > 0
    {
        let max = lines.len() - h;
        let pos = (scroll * (h - 1)).checked_div(max).unwrap_or(0);
        buf.set_string(col.x, col.y + pos as u16, "┃", style);
    }
}

/// A horizontal gauge with the threshold marked: `████████│░░░`.
pub struct ThresholdGauge<'a> {
    pub value: f64,
    pub threshold: f64,
    pub theme: &'a Theme,
}

impl ThresholdGauge<'_> {
    /// The style of a value against its threshold.
    pub fn level_style(theme: &Theme, value: f64, threshold: f64) -> Style {
        if value >= threshold {
            theme.confidence_high
        } else if value >= threshold / 2.0 {
            theme.confidence_mid
        } else {
            theme.confidence_low
        }
    }
}

impl Widget for ThresholdGauge<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let w = area.width as usize;
        if w == 0 {
            return;
        }
        let filled = ((self.value.clamp(0.0, 1.0) * w as f64).round() as usize).min(w);
        let mark = ((self.threshold.clamp(0.0, 1.0) * w as f64).round() as usize).min(w.saturating_sub(1));
        let fill = Self::level_style(self.theme, self.value, self.threshold);
        // Runs, not cells: filled and empty before the mark, the mark, then after it.
        let empty = self.theme.gauge_empty;
        let before_filled = filled.min(mark);
        let after = w - mark - 1;
        let after_filled = filled.saturating_sub(mark + 1).min(after);
        let runs = [
            ("█", before_filled, fill),
            ("░", mark - before_filled, empty),
            ("│", 1, self.theme.threshold),
            ("█", after_filled, fill),
            ("░", after - after_filled, empty),
        ];
        let mut x = area.x;
        for (sym, n, style) in runs {
            if n > 0 {
                buf.set_string(x, area.y, sym.repeat(n), style);
                x += n as u16;
            }
        }
    }
}

/// Bars for values in `[0, 1]`: `▁▃▅▇`.
pub fn spark(values: impl Iterator<Item = f64>) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    values.map(|v| BARS[((v.clamp(0.0, 1.0) * 7.0).round() as usize).min(7)]).collect()
}

/// `label  value` with the label muted.
pub fn field<'a>(theme: &Theme, label: &'a str, value: Vec<Span<'a>>) -> Line<'a> {
    let mut spans = vec![Span::styled(format!("{label:<11}"), theme.muted)];
    spans.extend(value);
    Line::from(spans)
}

pub use crate::tui::theme::heading;

/// Tokens as `12.3k`.
pub fn tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.2}M", n as f64 / 1_000_000.0),
    }
}
