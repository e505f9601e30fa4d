//! VERIFY (DESIGN §1, seed 001 §11): every cited id must name a retrieved
//! source, and every claim's quote must occur (normalised) in that source's
//! stored text. Claims that fail are flagged in the report, never dropped
//! silently.

use std::collections::BTreeSet;

use super::model::{Claim, SourceId, UnsupportedClaim, Verification};
use crate::text::normalize_for_match;

/// Whether a claim is supported: at least one citation names a known source
/// whose text contains the quote. When it is not, one entry per citation,
/// each with that citation's source, quote and reason (one entry saying
/// "no citation" when it has none).
pub fn check_claim<'t>(
    claim: &Claim,
    text_of: &dyn Fn(SourceId) -> Option<&'t str>,
) -> Result<(), Vec<UnsupportedClaim>> {
    let mut failed = Vec::new();
    for c in &claim.citations {
        let why = match text_of(c.source) {
            None => format!("{} is not a retrieved source", c.source),
            Some(_) if c.quote.trim().is_empty() => format!("no quote from {}", c.source),
            Some(text) if text.contains(&normalize_for_match(&c.quote)) => return Ok(()),
            Some(_) => format!("quote not found in {}", c.source),
        };
        failed.push(UnsupportedClaim {
            claim: claim.text.clone(),
            source: Some(c.source),
            quote: c.quote.clone(),
            why,
        });
    }
    if failed.is_empty() {
        failed.push(UnsupportedClaim {
            claim: claim.text.clone(),
            source: None,
            quote: String::new(),
            why: "no citation".into(),
        });
    }
    Err(failed)
}

/// Checks a report: ids cited in its text and claims, quotes in sources
/// (`text_of` as for [`check_claim`]).
pub fn verify<'t>(markdown: &str, claims: &[Claim], text_of: &dyn Fn(SourceId) -> Option<&'t str>) -> Verification {
    let mut cited: BTreeSet<SourceId> = BTreeSet::new();
    let mut unknown: BTreeSet<u32> = BTreeSet::new();
    for n in citation_markers(markdown) {
        let id = SourceId(n);
        if text_of(id).is_some() {
            cited.insert(id);
        } else {
            unknown.insert(n);
        }
    }
    let mut unsupported = Vec::new();
    let mut supported = 0;
    for claim in claims {
        for c in &claim.citations {
            if text_of(c.source).is_some() {
                cited.insert(c.source);
            } else {
                unknown.insert(c.source.0);
            }
        }
        match check_claim(claim, text_of) {
            Ok(()) => supported += 1,
            Err(mut u) => unsupported.append(&mut u),
        }
    }
    Verification {
        cited: cited.into_iter().collect(),
        unknown_ids: unknown.into_iter().collect(),
        claims_checked: claims.len(),
        claims_supported: supported,
        unsupported,
    }
}

/// Numbers in `[n]`, `[n, m]` and `[n][m]` markers outside code spans and
/// fenced blocks (where `v[0]` is indexing, not a citation).
pub fn citation_markers(markdown: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut in_code = false;
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'`' => in_code = !in_code,
                b'[' if !in_code => {
                    if let Some(end) = line[i + 1..].find(']') {
                        let inner = &line[i + 1..i + 1 + end];
                        let nums: Option<Vec<u32>> = inner.split(',').map(|p| p.trim().parse::<u32>().ok()).collect();
                        if let Some(nums) = nums.filter(|n| !n.is_empty()) {
                            // A `[n]: url` reference definition is not a citation.
                            let after = &line[i + 2 + end..];
                            if !after.starts_with(':') && !after.starts_with('(') {
                                out.extend(nums);
                            }
                            i += end + 1;
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// Marks unsupported claims where they appear in the report and appends a
/// verification note, so a reader sees exactly what is not backed.
pub fn mark_unsupported(markdown: &str, v: &Verification) -> String {
    let mut out = markdown.to_string();
    // One entry per failed citation: a claim is marked once.
    let mut claims: Vec<&str> = Vec::new();
    for u in &v.unsupported {
        if !claims.contains(&u.claim.trim()) {
            claims.push(u.claim.trim());
        }
    }
    for needle in &claims {
        let needle = *needle;
        if let Some(pos) = (!needle.is_empty()).then(|| out.find(needle)).flatten() {
            out.insert_str(pos + needle.len(), " **[unsupported]**");
        }
    }
    if v.all_verified() {
        return out;
    }
    out.push_str("\n\n## Verification\n\n");
    if !v.unsupported.is_empty() {
        out.push_str(&format!(
            "{} of {} claims could not be verified against their sources and are marked **[unsupported]**:\n\n",
            claims.len(),
            v.claims_checked
        ));
        for u in &v.unsupported {
            out.push_str(&format!("- {} — {}\n", u.claim.trim(), u.why));
        }
    }
    if !v.unknown_ids.is_empty() {
        let ids: Vec<String> = v.unknown_ids.iter().map(|n| format!("[{n}]")).collect();
        out.push_str(&format!("\nCited ids that name no retrieved source: {}.\n", ids.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::Citation;

    fn claim(text: &str, cites: &[(u32, &str)]) -> Claim {
        Claim {
            text: text.into(),
            citations: cites.iter().map(|(id, q)| Citation { source: SourceId(*id), quote: q.to_string() }).collect(),
            aspect: None,
        }
    }

    fn texts(id: SourceId) -> Option<&'static str> {
        // Already normalised, as the engine's cache hands them over.
        match id.0 {
            1 => Some("the ? operator calls from::from on the error value and returns early."),
            2 => Some("arc<t> is a thread-safe reference-counting pointer."),
            _ => None,
        }
    }

    #[test]
    fn markers_skip_code_and_definitions() {
        let md = "It converts [1] and [2, 3][4].\n`v[0]` is indexing.\n```\nlet x = a[5];\n```\n[6]: http://x";
        assert_eq!(citation_markers(md), vec![1, 2, 3, 4]);
    }

    #[test]
    fn real_quote_verifies_and_fabricated_is_flagged() {
        let good = claim("? converts errors [1]", &[(1, "calls  FROM::from on the error")]);
        let fabricated = claim("Arc uses garbage collection [2]", &[(2, "Arc is garbage collected")]);
        let ghost = claim("Ghost source [9]", &[(9, "anything")]);
        let md = "? converts errors [1]\n\nArc uses garbage collection [2]\n\nGhost source [9]";
        let v = verify(md, &[good, fabricated, ghost], &texts);
        assert_eq!((v.claims_checked, v.claims_supported), (3, 1));
        assert_eq!(v.unknown_ids, vec![9]);
        assert_eq!(v.unsupported[0].why, "quote not found in [2]");
        assert_eq!(v.unsupported[1].why, "[9] is not a retrieved source");
        let marked = mark_unsupported(md, &v);
        assert!(marked.contains("Arc uses garbage collection [2] **[unsupported]**"));
        assert!(marked.contains("## Verification"));
        assert!(!marked.contains("? converts errors [1] **[unsupported]**"));
    }

    #[test]
    fn any_verified_citation_supports_a_claim() {
        let c = claim("x", &[(2, "not there"), (1, "returns early")]);
        assert!(check_claim(&c, &texts).is_ok());
        let none = claim("y", &[]);
        assert_eq!(check_claim(&none, &texts).map_err(|e| e[0].why.clone()), Err("no citation".to_string()));
    }

    #[test]
    fn each_failed_citation_is_its_own_entry() {
        let c = claim("Arc is collected [1][3]", &[(1, "arc is collected"), (3, "gone")]);
        let v = verify("Arc is collected [1][3]", &[c], &texts);
        assert_eq!(v.unsupported.len(), 2);
        assert_eq!((v.unsupported[0].source, v.unsupported[0].quote.as_str()), (Some(SourceId(1)), "arc is collected"));
        assert_eq!(v.unsupported[0].why, "quote not found in [1]");
        assert_eq!((v.unsupported[1].source, v.unsupported[1].quote.as_str()), (Some(SourceId(3)), "gone"));
        assert_eq!(v.unsupported[1].why, "[3] is not a retrieved source");
        let marked = mark_unsupported("Arc is collected [1][3]", &v);
        assert_eq!(marked.matches("**[unsupported]**").count(), 2, "once in the text, once in the note: {marked}");
        assert!(marked.contains("1 of 1 claims"));
    }
}
