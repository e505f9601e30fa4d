//! `export --format pdf`: the shared report as a paginated A4 PDF, built
//! with krilla (pure Rust; the font is subset and embedded with a ToUnicode
//! map, so any PDF reader's text extraction returns the report's words).
//! Citations `[n]` jump to their source, each claim's ✓/✗ mark jumps to its
//! evidence (the quote or passage, the rule, why), addresses open.
//!
//! Text is drawn glyph by glyph from the font's character map and
//! advances: left-to-right scripts render as they should; a character the
//! font lacks shows as a box but is still extracted as itself.

mod layout;

use krilla::Document;
use krilla::action::{Action, LinkAction};
use krilla::annotation::{Annotation, LinkAnnotation, Target};
use krilla::color::rgb;
use krilla::destination::{Destination, XyzDestination};
use krilla::geom::{Point, Rect};
use krilla::metadata::Metadata;
use krilla::page::PageSettings;
use krilla::paint::{Fill, Stroke};
use krilla::text::{Font, GlyphId, KrillaGlyph};

use super::ShareDoc;
use super::markdown::{DocBlock, Inline, is_address, plain};
use crate::engine::model::CheckRule;
use layout::{FONT, Layout, Link, Look, MARGIN, Metrics, PAGE_H, PAGE_W, Piece, Placed};

#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("the embedded font could not be read")]
    Font,
    #[error("the PDF could not be written: {0}")]
    Write(String),
}

/// The PDF's bytes.
pub fn pdf(doc: &ShareDoc) -> Result<Vec<u8>, PdfError> {
    let m = Metrics::new().ok_or(PdfError::Font)?;
    let layout = lay_out(doc, &m);
    draw(doc, &layout, &m)
}

fn lay_out(doc: &ShareDoc, m: &Metrics) -> Layout {
    let mut l = Layout::new();
    let meta = format!("sleuth session {} · {} · exported {}", doc.session_id, doc.status, doc.exported_at);
    l.paragraph(m, &[Piece::new(meta, Look::META)], 0.0);
    l.paragraph(m, &[Piece::new(format!("{} Verdicts: {}.", doc.summary, doc.verdicts_from), Look::META)], 0.0);
    for r in &doc.rechecks {
        l.paragraph(m, &[Piece::new(r.clone(), Look::META)], 0.0);
    }
    l.gap(6.0);
    for b in &doc.blocks {
        block(&mut l, m, b, doc);
    }
    if !doc.claims.is_empty() {
        l.gap(10.0);
        l.paragraph(m, &[Piece::new("Claims and their evidence", Look::heading(2))], 0.0);
        for c in &doc.claims {
            l.gap(4.0);
            l.anchor(format!("evidence-{}", c.number));
            let look = if c.supported() { Look::OK } else { Look::BAD };
            let mut head = vec![
                Piece::new(format!("{} ", c.mark()), look),
                Piece::new(format!("{}. {} ", c.number, c.text), Look::BODY),
            ];
            head.extend(c.cites.iter().map(|n| cite(*n)));
            l.paragraph(m, &head, 0.0);
            if !c.evidence.is_empty() {
                let label = if c.rule == CheckRule::Quote { "Quote" } else { "Closest passage" };
                let src = c.source.map(|n| format!(" from [{n}]")).unwrap_or_default();
                l.paragraph(m, &[Piece::new(format!("{label}{src}: “{}”", c.evidence), Look::CODE)], 14.0);
            }
            l.paragraph(
                m,
                &[Piece::new(format!("Decided by the {} rule: {}.", c.rule.label(), c.why), Look::META)],
                14.0,
            );
        }
    }
    if !doc.sources.is_empty() {
        l.gap(10.0);
        l.paragraph(m, &[Piece::new("Sources", Look::heading(2))], 0.0);
        for s in &doc.sources {
            l.gap(3.0);
            l.anchor(format!("source-{}", s.id));
            let url = if is_address(&s.url) {
                Piece::linked(format!("{} ", s.url), Look::LINK, Link::Uri(s.url.clone()))
            } else {
                Piece::new(format!("{} ", s.url), Look::BODY)
            };
            l.paragraph(m, &[Piece::new(format!("[{}] {} — ", s.id, s.title), Look::BODY), url], 0.0);
            let hash =
                s.sha256.as_deref().map_or("the stored text was lost; no hash".to_string(), |h| format!("SHA-256 {h}"));
            l.paragraph(m, &[Piece::new(format!("retrieved {} · {hash}", s.retrieved_at), Look::META)], 14.0);
        }
    }
    l
}

fn cite(n: u32) -> Piece {
    Piece::linked(format!("[{n}] "), Look::LINK, Link::Anchor(format!("source-{n}")))
}

fn block(l: &mut Layout, m: &Metrics, b: &DocBlock, doc: &ShareDoc) {
    match b {
        DocBlock::Heading { level, inlines } => {
            l.gap(8.0);
            l.paragraph(m, &[Piece::new(plain(inlines), Look::heading(*level))], 0.0);
            l.gap(2.0);
        }
        DocBlock::Para(i) | DocBlock::Quote(i) => {
            let indent = if matches!(b, DocBlock::Quote(_)) { 14.0 } else { 0.0 };
            l.paragraph(m, &pieces(i, doc), indent);
            l.gap(5.0);
        }
        DocBlock::Item { ordered, inlines } => {
            let bullet = ordered.map_or("• ".to_string(), |n| format!("{n}. "));
            let mut p = vec![Piece::new(bullet, Look::BODY)];
            p.extend(pieces(inlines, doc));
            l.paragraph(m, &p, 10.0);
            l.gap(2.0);
        }
        DocBlock::Code(c) => {
            for line in c.lines() {
                l.paragraph(m, &[Piece::new(line, Look::CODE)], 10.0);
            }
            l.gap(5.0);
        }
        DocBlock::Table(rows) => {
            for row in rows {
                let mut p = Vec::new();
                for (k, cell) in row.iter().enumerate() {
                    if k > 0 {
                        p.push(Piece::new(" | ", Look::META));
                    }
                    p.extend(pieces(cell, doc));
                }
                l.paragraph(m, &p, 0.0);
            }
            l.gap(5.0);
        }
        DocBlock::Rule => l.gap(8.0),
    }
}

fn pieces(inlines: &[Inline], doc: &ShareDoc) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut open = None;
    for i in inlines {
        match i {
            Inline::Text { text, style } => {
                let look = if style.code { Look::CODE } else { Look { bold: style.bold, ..Look::BODY } };
                out.push(Piece::new(text.clone(), look));
            }
            Inline::Link { text, url } if is_address(url) && !url.starts_with('#') => {
                out.push(Piece::linked(text.clone(), Look::LINK, Link::Uri(url.clone())));
            }
            Inline::Link { text, .. } => out.push(Piece::new(text.clone(), Look::BODY)),
            Inline::Cite(n) => out.push(cite(*n)),
            Inline::ClaimStart(k) => open = doc.claims.get(k.saturating_sub(1)),
            Inline::ClaimEnd(_) => {
                if let Some(c) = open.take() {
                    let (mark, look) = if c.supported() { ("✓", Look::OK) } else { ("✗", Look::BAD) };
                    let link = Link::Anchor(format!("evidence-{}", c.number));
                    out.push(Piece::linked(format!("{mark} "), look.sized(9.0), link));
                }
            }
        }
    }
    out
}

fn draw(doc: &ShareDoc, layout: &Layout, m: &Metrics) -> Result<Vec<u8>, PdfError> {
    let font = Font::new(FONT.to_vec().into(), 0).ok_or(PdfError::Font)?;
    let mut document = Document::new();
    document.set_metadata(
        Metadata::new()
            .title(doc.title.clone())
            .creator(format!("sleuth {}", env!("CARGO_PKG_VERSION")))
            .description(format!("sleuth session {}", doc.session_id)),
    );
    let total = layout.pages.len();
    for (index, runs) in layout.pages.iter().enumerate() {
        let settings = PageSettings::from_wh(PAGE_W, PAGE_H).ok_or(PdfError::Write("page size".into()))?;
        let mut page = document.start_page_with(settings);
        let mut annotations = Vec::new();
        {
            let mut surface = page.surface();
            for run in runs {
                text(&mut surface, &font, m, run);
                if let Some(a) = annotation(run, layout) {
                    annotations.push(a);
                }
            }
            let footer = Placed {
                x: MARGIN,
                y: PAGE_H - MARGIN / 2.0,
                width: 0.0,
                text: format!("sleuth session {} · page {} of {total}", doc.session_id, index + 1),
                look: Look::META,
                link: None,
            };
            text(&mut surface, &font, m, &footer);
            surface.finish();
        }
        for a in annotations {
            page.add_annotation(a);
        }
        page.finish();
    }
    document.finish().map_err(|e| PdfError::Write(format!("{e:?}")))
}

fn text(surface: &mut krilla::surface::Surface<'_>, font: &Font, m: &Metrics, run: &Placed) {
    let (r, g, b) = run.look.rgb;
    let paint = rgb::Color::new(r, g, b);
    surface.set_fill(Some(Fill { paint: paint.into(), ..Fill::default() }));
    // No bold face is embedded: bold is the regular face with a hairline stroke.
    surface.set_stroke(run.look.bold.then(|| Stroke { paint: paint.into(), width: 0.35, ..Stroke::default() }));
    let mut glyphs = Vec::new();
    for ((start, c), (gid, adv)) in run.text.char_indices().zip(m.glyphs(&run.text)) {
        glyphs.push(KrillaGlyph::new(GlyphId::new(gid), adv, 0.0, 0.0, 0.0, start..start + c.len_utf8(), None));
    }
    surface.draw_glyphs(Point::from_xy(run.x, run.y), &glyphs, font.clone(), &run.text, run.look.size, false);
}

fn annotation(run: &Placed, layout: &Layout) -> Option<Annotation> {
    let link = run.link.as_ref()?;
    let rect = Rect::from_xywh(run.x, run.y - run.look.size, run.width.max(1.0), run.look.size * 1.25)?;
    let target = match link {
        Link::Uri(u) => Target::Action(Action::Link(LinkAction::new(u.clone()))),
        Link::Anchor(a) => {
            let (page, y) = layout.anchors.get(a)?;
            Target::Destination(Destination::Xyz(XyzDestination::new(*page, Point::from_xy(MARGIN, *y))))
        }
    };
    Some(Annotation::new_link(LinkAnnotation::new(rect, target), Some(run.text.trim().to_string())))
}
