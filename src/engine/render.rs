//! Assembling the final report around the writer's body: title, caveats,
//! the list of cited sources. Also the fallback body used when there is no
//! writer output (cancel, or WRITE failed).

use std::collections::BTreeMap;

use super::model::Scholarly;
use super::model::{Draft, SourceId};
use super::state::SessionState;
use super::tiers::{preprint_mark, tier_mark};
use crate::text::sanitize_inline;

/// `pages` names, for a paged source (a PDF), the pages its cited quotes
/// stand on: the list shows them in place of the passage heading.
pub fn assemble(
    state: &SessionState,
    body: &str,
    cited: &[SourceId],
    caveats: &[String],
    pages: &BTreeMap<SourceId, String>,
) -> String {
    let mut out = format!("# {}\n\n", sanitize_inline(state.question()).trim());
    out.push_str(body.trim());
    out.push('\n');
    if !caveats.is_empty() {
        out.push_str("\n## Caveats\n\n");
        for c in caveats {
            out.push_str(&format!("- {c}\n"));
        }
    }
    if !cited.is_empty() {
        out.push_str("\n## Sources\n\n");
        for id in cited {
            let Some(s) = state.source(*id) else { continue };
            let m = &s.meta;
            // The cited pages, else the passage's heading unless it only
            // repeats the page's title.
            let own = m.heading.as_deref().filter(|h| !h.trim().eq_ignore_ascii_case(m.title.trim()));
            let heading = pages.get(id).map(String::as_str).or(own);
            let heading = heading.map(|h| format!(" — {}", sanitize_inline(h))).unwrap_or_default();
            let tier = tier_mark(m.tier, m.source_type.as_deref());
            let mut mark = tier.as_deref().map(|t| format!("{} ", sanitize_inline(t))).unwrap_or_default();
            if let Some(p) = preprint_mark(m.scholarly.as_ref(), tier.as_deref()) {
                mark.push_str(p);
                mark.push(' ');
            }
            let byline = m.scholarly.as_ref().map(byline).unwrap_or_default();
            out.push_str(&format!(
                "- [{}] {mark}{}{byline}{} — {}\n",
                id.0,
                sanitize_inline(&m.title),
                heading,
                m.locator
            ));
        }
    }
    out
}

/// ` (Smith et al., Nature, 2021)`: who wrote a scholarly work, where and when.
fn byline(s: &Scholarly) -> String {
    let year = s.year.map(|y| y.to_string());
    let parts: Vec<String> = [s.short_authors(), s.venue.clone(), year].into_iter().flatten().collect();
    if parts.is_empty() { String::new() } else { format!(" ({})", sanitize_inline(&parts.join(", "))) }
}

/// The body when no writer ran: the best draft as it stands.
pub fn fallback_body(draft: Option<&Draft>) -> String {
    match draft {
        Some(d) if !d.markdown.trim().is_empty() => d.markdown.clone(),
        _ => "No answer was drafted before the session stopped.".to_string(),
    }
}
