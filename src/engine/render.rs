//! Assembling the final report around the writer's body: title, caveats,
//! the list of cited sources. Also the fallback body used when there is no
//! writer output (cancel, or WRITE failed).

use super::model::{Draft, SourceId};
use super::state::SessionState;
use super::tiers::tier_mark;
use crate::text::sanitize_inline;

pub fn assemble(state: &SessionState, body: &str, cited: &[SourceId], caveats: &[String]) -> String {
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
            // A passage's heading, unless it only repeats the page's title.
            let heading = m
                .heading
                .as_deref()
                .filter(|h| !h.trim().eq_ignore_ascii_case(m.title.trim()))
                .map(|h| format!(" — {}", sanitize_inline(h)))
                .unwrap_or_default();
            let mark = tier_mark(m.tier, m.source_type.as_deref())
                .map(|t| format!("{} ", sanitize_inline(&t)))
                .unwrap_or_default();
            out.push_str(&format!("- [{}] {mark}{}{} — {}\n", id.0, sanitize_inline(&m.title), heading, m.locator));
        }
    }
    out
}

/// The body when no writer ran: the best draft as it stands.
pub fn fallback_body(draft: Option<&Draft>) -> String {
    match draft {
        Some(d) if !d.markdown.trim().is_empty() => d.markdown.clone(),
        _ => "No answer was drafted before the session stopped.".to_string(),
    }
}
