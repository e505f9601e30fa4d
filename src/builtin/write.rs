//! WRITE: the report body from the best draft. The direct answer comes
//! first, then a section per aspect with its cited sentences; a closing
//! note says what is thin. The engine adds the title, the caveats and the
//! source list with paths.

use crate::engine::model::{Claim, Draft, Evaluation, StopReason};

pub fn body(draft: &Draft, evaluation: Option<&Evaluation>, stop: StopReason) -> (String, Vec<Claim>) {
    let mut md = draft.markdown.trim().to_string();
    if md.is_empty() {
        md = "The sources found do not answer this question.".to_string();
    }
    if let Some(e) = evaluation {
        let mut notes = Vec::new();
        if e.cited_sources > 0 {
            notes.push(format!(
                "{} of {} claims are quoted verbatim from {}",
                e.supported_claims,
                e.claims,
                crate::text::counted(e.cited_sources, "source", "sources")
            ));
        }
        if e.aspects_required > 0 {
            notes
                .push(format!("{} of {} aspects of the question are covered", e.aspects_addressed, e.aspects_required));
        }
        if !notes.is_empty() {
            md.push_str(&format!("\n\n_This answer is extractive: {}._", notes.join("; ")));
        }
    }
    if matches!(stop, StopReason::Cancelled) {
        md.push_str("\n\n_The session was cancelled before the research finished._");
    }
    md.push('\n');
    (md, draft.claims.clone())
}

/// The body in pieces (paragraphs and sections), as it is streamed.
pub fn chunks(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in md.split_inclusive('\n') {
        if line.starts_with("## ") && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push_str(line);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}
