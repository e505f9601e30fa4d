//! Laying a shared report out on A4 pages: words measured with the
//! embedded font's advances, lines filled greedily, pages broken at the
//! bottom margin. Pure: the result is a list of pages of positioned runs
//! (each with its link, if any) and where each anchor landed, which
//! `pdf::draw` turns into PDF.

use std::collections::HashMap;

use skrifa::MetadataProvider;
use skrifa::instance::{LocationRef, Size};
use skrifa::metrics::GlyphMetrics;
use skrifa::raw::FontRef;

pub const PAGE_W: f32 = 595.28;
pub const PAGE_H: f32 = 841.89;
pub const MARGIN: f32 = 56.0;
const LINE: f32 = 1.35;

/// The one embedded font (DejaVu Sans: Latin, Greek, Cyrillic and more).
pub static FONT: &[u8] = include_bytes!("../../../../../assets/fonts/DejaVuSans.ttf");

/// Glyph lookup and advances of [`FONT`].
pub struct Metrics {
    font: FontRef<'static>,
    glyphs: GlyphMetrics<'static>,
    upem: f32,
}

impl Metrics {
    pub fn new() -> Option<Self> {
        let font = FontRef::new(FONT).ok()?;
        let glyphs = font.glyph_metrics(Size::unscaled(), LocationRef::default());
        let upem = font.metrics(Size::unscaled(), LocationRef::default()).units_per_em as f32;
        Some(Self { font, glyphs, upem })
    }

    /// Each character's glyph id and advance (in ems).
    pub fn glyphs(&self, text: &str) -> Vec<(u32, f32)> {
        let cmap = self.font.charmap();
        text.chars()
            .map(|c| {
                let gid = cmap.map(c).unwrap_or_default();
                let adv = self.glyphs.advance_width(gid).unwrap_or(0.0) / self.upem.max(1.0);
                (gid.to_u32(), adv)
            })
            .collect()
    }

    /// Width of `text` at `size` points.
    pub fn width(&self, text: &str, size: f32) -> f32 {
        self.glyphs(text).iter().map(|(_, a)| a).sum::<f32>() * size
    }
}

/// Where a click goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Link {
    /// An anchor of this document ("source-3", "evidence-2").
    Anchor(String),
    Uri(String),
}

/// How a run is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    pub size: f32,
    pub bold: bool,
    pub rgb: (u8, u8, u8),
}

impl Look {
    pub const BODY: Look = Look { size: 10.5, bold: false, rgb: (29, 29, 31) };
    pub const META: Look = Look { size: 8.5, bold: false, rgb: (85, 85, 85) };
    pub const CODE: Look = Look { size: 9.0, bold: false, rgb: (60, 60, 60) };
    pub const LINK: Look = Look { size: 10.5, bold: false, rgb: (26, 84, 170) };
    pub const OK: Look = Look { size: 10.5, bold: true, rgb: (19, 115, 51) };
    pub const BAD: Look = Look { size: 10.5, bold: true, rgb: (179, 38, 30) };

    pub fn heading(level: usize) -> Look {
        let size = match level {
            1 => 17.0,
            2 => 13.5,
            _ => 11.5,
        };
        Look { size, bold: true, rgb: (0, 0, 0) }
    }

    pub fn sized(self, size: f32) -> Look {
        Look { size, ..self }
    }
}

/// A piece of text to lay out, with its look and link.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub text: String,
    pub look: Look,
    pub link: Option<Link>,
}

impl Piece {
    pub fn new(text: impl Into<String>, look: Look) -> Self {
        Self { text: text.into(), look, link: None }
    }

    pub fn linked(text: impl Into<String>, look: Look, link: Link) -> Self {
        Self { text: text.into(), look, link: Some(link) }
    }
}

/// A run placed on a page: `y` is its baseline, from the page's top.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub text: String,
    pub look: Look,
    pub link: Option<Link>,
}

#[derive(Debug, Default)]
pub struct Layout {
    pub pages: Vec<Vec<Placed>>,
    /// Anchor → (page index, top y).
    pub anchors: HashMap<String, (usize, f32)>,
    y: f32,
}

impl Layout {
    pub fn new() -> Self {
        Self { pages: vec![Vec::new()], anchors: HashMap::new(), y: MARGIN }
    }

    fn page(&self) -> usize {
        self.pages.len() - 1
    }

    /// Space before the next block; a new page when little room is left.
    pub fn gap(&mut self, points: f32) {
        self.y += points;
        if self.y > PAGE_H - MARGIN - 24.0 {
            self.new_page();
        }
    }

    pub fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = MARGIN;
    }

    pub fn anchor(&mut self, name: String) {
        let at = (self.page(), self.y);
        self.anchors.insert(name, at);
    }

    /// Lays out `pieces` as one paragraph, `indent` points in from the margin.
    pub fn paragraph(&mut self, m: &Metrics, pieces: &[Piece], indent: f32) {
        let left = MARGIN + indent;
        let right = PAGE_W - MARGIN;
        let mut line: Vec<Placed> = Vec::new();
        let mut x = left;
        let mut line_size: f32 = pieces.first().map_or(Look::BODY.size, |p| p.look.size);
        for p in pieces {
            for word in words(&p.text) {
                let w = m.width(word, p.look.size);
                let bare = m.width(word.trim_end(), p.look.size);
                if x + bare > right && x > left {
                    self.flush_line(&mut line, line_size);
                    x = left;
                    line_size = p.look.size;
                }
                line_size = line_size.max(p.look.size);
                // Long words (an address) are cut to fit.
                let (mut text, mut width) = (word.to_string(), w);
                while x + width > right && text.chars().count() > 1 {
                    let fit = fitting(m, &text, p.look.size, right - x);
                    let head: String = text.chars().take(fit).collect();
                    let hw = m.width(&head, p.look.size);
                    push(&mut line, Placed { x, y: 0.0, width: hw, text: head, look: p.look, link: p.link.clone() });
                    self.flush_line(&mut line, line_size);
                    x = left;
                    text = text.chars().skip(fit).collect();
                    width = m.width(&text, p.look.size);
                }
                push(&mut line, Placed { x, y: 0.0, width, text, look: p.look, link: p.link.clone() });
                x += width;
            }
        }
        self.flush_line(&mut line, line_size);
    }

    fn flush_line(&mut self, line: &mut Vec<Placed>, size: f32) {
        if line.is_empty() {
            return;
        }
        let height = size * LINE;
        if self.y + height > PAGE_H - MARGIN {
            self.new_page();
        }
        let baseline = self.y + size;
        let page = self.page();
        for mut p in line.drain(..) {
            p.y = baseline;
            self.pages[page].push(p);
        }
        self.y += height;
    }
}

/// Words with their trailing spaces (so the drawn text keeps its spaces
/// and a PDF reader extracts them).
fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        if c == ' ' {
            in_space = true;
        } else if in_space {
            out.push(&text[start..i]);
            start = i;
            in_space = false;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// How many characters of `text` fit in `room` points (at least one).
fn fitting(m: &Metrics, text: &str, size: f32, room: f32) -> usize {
    let mut used = 0.0;
    let mut n = 0;
    for (_, adv) in m.glyphs(text) {
        used += adv * size;
        if used > room {
            break;
        }
        n += 1;
    }
    n.max(1)
}

/// Adds a run to a line, joining it to the previous one when they look
/// and link alike (fewer, longer runs).
fn push(line: &mut Vec<Placed>, p: Placed) {
    if let Some(last) = line.last_mut()
        && last.look == p.look
        && last.link == p.link
        && (last.x + last.width - p.x).abs() < 0.01
    {
        last.text.push_str(&p.text);
        last.width += p.width;
        return;
    }
    line.push(p);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_paragraphs_wrap_inside_the_margins_and_break_pages() {
        let m = Metrics::new().unwrap();
        let mut l = Layout::new();
        let text = "Widgets connect to gadgets through a bus of sixteen bits. ".repeat(400);
        l.paragraph(&m, &[Piece::new(text, Look::BODY)], 0.0);
        assert!(l.pages.len() > 2, "{} pages", l.pages.len());
        for p in l.pages.iter().flatten() {
            assert!(p.x >= MARGIN && p.x + m.width(p.text.trim_end(), p.look.size) <= PAGE_W - MARGIN + 0.5, "{p:?}");
            assert!(p.y > MARGIN && p.y <= PAGE_H - MARGIN, "{p:?}");
        }
        assert!(m.width("é", 10.0) > 0.0 && m.width("Ж", 10.0) > 0.0, "the font covers Latin-1 and Cyrillic");
    }
}
