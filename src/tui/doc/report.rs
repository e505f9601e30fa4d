//! The draft while researching, then the final report as it streams, with
//! citation ids highlighted; caveats and unsupported claims at the end.

use ratatui::text::{Line, Span};

use crate::tui::app::App;
use crate::tui::text::{ProseStyles, inline, prose, wrap};
use crate::tui::theme::heading;

/// The report is arriving (its end is followed unless scrolled up).
pub fn streaming(app: &App) -> bool {
    app.state.report.is_none() && !app.state.report_stream.is_empty() && !viewing_earlier(app)
}

/// Live, the user selected an iteration before the latest (`h`): the
/// panes show that iteration's draft and numbers, not the latest ones.
pub fn viewing_earlier(app: &App) -> bool {
    app.is_live() && app.selected.is_some_and(|n| n < app.state.iteration())
}

/// The pane's lines wrapped to `width`.
pub fn lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let s = &app.state;
    let mut out = Vec::new();
    let earlier = viewing_earlier(app);
    let body = if let Some(r) = s.report.as_ref().filter(|_| !earlier) {
        let from = r.based_on_iteration.map_or(String::new(), |n| format!(" from the draft of iteration {n}"));
        let verified = match &s.verification {
            Some(v) if !v.statements.is_empty() => format!(
                " · {} of {} claims verified · {} of {} cited sentences backed",
                v.claims_supported,
                v.claims_checked,
                v.statements_supported(),
                v.statements.len()
            ),
            Some(v) => format!(" · {} of {} claims verified", v.claims_supported, v.claims_checked),
            None => " · verifying…".to_string(),
        };
        out.push(Line::from(Span::styled(format!("Final report{from}{verified}"), t.heading)));
        r.markdown.as_str()
    } else if !s.report_stream.is_empty() && !earlier {
        out.push(Line::from(Span::styled("Writing the report…", t.heading)));
        s.report_stream.as_str()
    } else if let Some((n, d)) = app.shown_iteration().and_then(|it| it.draft.as_ref().map(|d| (it.iteration, d))) {
        out.push(Line::from(Span::styled(
            format!("Draft of iteration {n} · {} claims, {} sources cited", d.claims.len(), d.cited_sources().len()),
            t.heading,
        )));
        d.markdown.as_str()
    } else {
        out.push(Line::from(Span::styled("no draft yet", t.muted)));
        ""
    };
    out.push(Line::default());
    out.extend(prose(body, ProseStyles { base: t.text, cite: t.citation, heading: t.heading, code: t.quote }, None));
    if let Some(r) = &s.report
        && !earlier
        && !r.caveats.is_empty()
    {
        out.push(Line::default());
        out.push(heading(t, "Caveats"));
        for c in &r.caveats {
            out.push(Line::from(Span::styled(format!("  • {}", inline(c)), t.severity_medium)));
        }
    }
    if let Some(v) = &s.verification
        && !earlier
        && (!v.unsupported.is_empty() || !v.unknown_ids.is_empty())
    {
        out.push(Line::default());
        out.push(heading(t, "Not verified"));
        for u in &v.unsupported {
            let src = u.source.map_or(String::new(), |id| format!(" {id}"));
            out.push(Line::from(vec![
                Span::styled(format!("  ✗{src} "), t.unverified),
                Span::styled(format!("{} — {}", inline(&u.claim), inline(&u.why)), t.text),
            ]));
        }
        for id in &v.unknown_ids {
            out.push(Line::from(Span::styled(format!("  ✗ [{id}] names no retrieved source"), t.unverified)));
        }
    }
    // `sleuth recheck`: the sources fetched again after the end.
    if let Some(r) = s.rechecks.last().filter(|_| !earlier) {
        out.push(Line::default());
        let at = crate::session::export::iso_datetime(r.at_ms);
        out.push(heading(t, format!("Rechecked {at}: {}", inline(&r.headline()))));
        for c in r.claims.iter().filter(|c| c.status.fallen() || c.page_changed) {
            let style = if c.status.fallen() { t.unverified } else { t.muted };
            out.push(Line::from(vec![
                Span::styled(format!("  {} ", c.status.label()), style),
                Span::styled(format!("{} — {}", inline(&c.text), inline(&c.why)), t.text),
            ]));
        }
    }
    wrap(out, width)
}
