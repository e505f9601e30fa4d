//! Where confidence comes from: its components and their weights, the
//! fitted mapping to the probability of a good answer, the critique's
//! dimensions, and coverage.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::monitor::thresholds;
use super::widgets::{heading, modal};
use crate::tui::app::App;
use crate::tui::layout::centered;
use crate::tui::text::inline;

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let Some(it) = app.shown_iteration() else { return };
    let Some((n, e)) = it.evaluation.as_ref().map(|e| (it.iteration, e)) else {
        return;
    };
    let (conf_t, cov_t) = thresholds(&app.state);
    let c = &e.components;
    let w = &e.weights;
    let row = |name: &str, v: f64, weight: f64| {
        Line::from(vec![
            Span::styled(format!("  {name:<17}"), t.modal),
            Span::styled(format!("{v:>5.2}"), t.modal),
            Span::styled(format!("  × {weight:.2}"), t.muted),
            Span::styled(format!("  = {:.3}", v * weight), t.modal),
        ])
    };
    let sum = w.sum().max(f64::EPSILON);
    let d = &e.dimensions;
    let mut lines = vec![
        heading(t, format!("Confidence {:.2} (threshold {conf_t:.2}) · iteration {n}", e.confidence)),
        row("answer relevance", c.answer_relevance, w.answer_relevance),
        row("source quality", c.source_quality, w.source_quality),
        row("coverage", c.coverage, w.coverage),
        row("citation density", c.citation_density, w.citation_density),
        row("consistency", c.consistency, w.consistency),
        row("recency", c.recency, w.recency),
        Line::from(Span::styled(format!("  weighted average (÷ {sum:.2} total weight)"), t.muted)),
    ];
    // The fitted mapping that turned the features into the probability of
    // a good answer (absent when calibration is off, or in older logs).
    if let Some(m) = e.calibration.as_ref().and_then(|c| c.mapping.as_ref()) {
        lines.push(Line::from(Span::styled(format!("  probability of a good answer {:.2}", m.probability), t.modal)));
        lines.push(Line::from(Span::styled(
            format!("    = σ(log-odds {:+.2}) × citation density {:.2}", m.log_odds, m.citation_density),
            t.muted,
        )));
        lines.push(Line::from(vec![
            Span::styled(format!("    {:<19}", "intercept"), t.modal),
            Span::styled(format!("{:>24}", format!("{:+.3}", m.intercept)), t.modal),
        ]));
        for term in &m.terms {
            lines.push(Line::from(vec![
                Span::styled(format!("    {:<19}", term.feature.replace('_', " ")), t.modal),
                Span::styled(format!("{:>5.2}", term.value), t.modal),
                Span::styled(format!("  × {:+.2}", term.coefficient), t.muted),
                Span::styled(format!("  = {:+.3}", term.value * term.coefficient), t.modal),
            ]));
        }
    }
    if let Some(why) = &e.held_back {
        lines.push(Line::from(Span::styled(format!("  held back: {}", inline(why)), t.muted)));
    }
    lines.extend([
        Line::default(),
        heading(t, format!("Coverage {:.2} (threshold {cov_t:.2})", e.coverage)),
        Line::from(Span::styled(
            format!("  {} of {} required aspects addressed", e.aspects_addressed, e.aspects_required),
            t.modal,
        )),
    ]);
    // The aspects behind the count, as the critic named them.
    if let Some(c) = it.critique.as_ref().filter(|c| !c.aspects_required.is_empty()) {
        let missing: Vec<String> =
            c.aspects_required.iter().filter(|a| !c.aspects_addressed.contains(a)).cloned().collect();
        let list = |items: &[String]| if items.is_empty() { "none".to_string() } else { inline(&items.join("; ")) };
        lines.push(Line::from(vec![
            Span::styled("  covered: ", t.kept),
            Span::styled(list(&c.aspects_addressed), t.modal),
        ]));
        lines.push(Line::from(vec![Span::styled("  missing: ", t.rejected), Span::styled(list(&missing), t.modal)]));
    }
    if !e.gaps.is_empty() {
        lines.push(Line::from(Span::styled(format!("  gaps: {}", inline(&e.gaps.join("; "))), t.muted)));
    }
    lines.push(Line::default());
    lines.push(heading(t, format!("Critique dimensions (quality {:.2})", e.quality)));
    lines.push(Line::from(Span::styled(
        format!("  completeness {:.2} · accuracy {:.2} · relevance {:.2}", d.completeness, d.accuracy, d.relevance),
        t.modal,
    )));
    lines.push(Line::from(Span::styled(
        format!("  freshness {:.2} · coherence {:.2}", d.freshness, d.coherence),
        t.modal,
    )));
    let frame = centered(area, area.width.saturating_sub(8).min(96), lines.len() as u16 + 3);
    let inner = modal(frame, buf, t, "Confidence breakdown");
    for (i, l) in lines.iter().enumerate().take(inner.height as usize) {
        buf.set_line(inner.x + 1, inner.y + i as u16, l, inner.width.saturating_sub(2));
    }
}
