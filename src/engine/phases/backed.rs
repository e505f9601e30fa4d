//! VERIFY checks what is printed: a statement of the report that cites a
//! source but that no verified claim backs is marked, so a reader can tell
//! it from the statements whose quotes were found.

use std::collections::HashSet;

use crate::engine::citations::citation_markers;
use crate::engine::model::{Claim, Verification};
use crate::text::content_terms;

/// The mark after a cited line no verified claim backs.
pub(crate) const UNBACKED: &str = "*[no verified quote]*";

/// A supported claim backs a line when at least this share of its content
/// words occur in it (the report words a claim more freely than the claim).
const BACKING_SHARE: f64 = 0.5;

/// `markdown` with every cited line that no supported claim backs marked.
/// Lines holding an unsupported claim (marked as such afterwards), headings
/// and code are left alone.
pub(crate) fn mark_unbacked(markdown: &str, claims: &[Claim], v: &Verification) -> String {
    let failed: HashSet<&str> = v.unsupported.iter().map(|u| u.claim.trim()).collect();
    let backing: Vec<Vec<String>> = claims
        .iter()
        .filter(|c| !failed.contains(c.text.trim()))
        .map(|c| content_terms(&c.text))
        .filter(|t| !t.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        let plain =
            in_fence || line.trim_start().starts_with('#') || failed.iter().any(|f| !f.is_empty() && line.contains(*f));
        if plain || citation_markers(line).is_empty() {
            out.push(line.to_string());
            continue;
        }
        let words: HashSet<String> = content_terms(line).into_iter().collect();
        let backed = backing.iter().any(|terms| {
            let shared = terms.iter().filter(|t| words.contains(*t)).count();
            shared as f64 >= terms.len() as f64 * BACKING_SHARE
        });
        out.push(if backed { line.to_string() } else { format!("{line} {UNBACKED}") });
    }
    let mut text = out.join("\n");
    if markdown.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{Citation, SourceId};

    fn claim(text: &str) -> Claim {
        Claim { text: text.into(), citations: vec![Citation { source: SourceId(1), quote: "q".into() }], aspect: None }
    }

    #[test]
    fn cited_lines_without_a_verified_claim_are_marked() {
        let claims = [claim("The question mark operator converts errors with From")];
        let v = Verification {
            cited: vec![SourceId(1)],
            unknown_ids: vec![],
            claims_checked: 1,
            claims_supported: 1,
            unsupported: vec![],
        };
        let md = "# Answer\n\nThe ? operator converts errors with From::from [1].\n\nIt also makes coffee [2].\n\nNo citation here.\n";
        let marked = mark_unbacked(md, &claims, &v);
        assert!(marked.contains("From::from [1].\n"), "{marked}");
        assert!(marked.contains(&format!("It also makes coffee [2]. {UNBACKED}")), "{marked}");
        assert!(marked.contains("No citation here.\n") && marked.starts_with("# Answer\n"));
    }
}
