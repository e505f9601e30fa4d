//! VERIFY: every cited id must name a retrieved
//! source, and every claim's quote must occur (normalised) in that source's
//! stored text. Claims that fail are flagged in the report, never dropped
//! silently.

use std::collections::BTreeSet;

use super::check::{SourceDoc, SourceState, check_all, cited_statements, states_claim};
use super::model::{CheckOutcome, Claim, SourceId, StatementCheck, UnsupportedClaim, Verification};
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

/// Checks a report: ids cited in its text and claims exist, claims' quotes
/// are in their sources, and every cited sentence of the text is backed by
/// its sources (`engine::check`, the checker `sleuth verify` runs too).
/// `doc_of` hands over each source's text prepared for checking.
pub fn verify<'d>(
    markdown: &str,
    claims: &[Claim],
    doc_of: &dyn Fn(SourceId) -> Option<&'d SourceDoc>,
) -> Verification {
    let text_of = |id: SourceId| doc_of(id).map(SourceDoc::normalized);
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
        match check_claim(claim, &text_of) {
            Ok(()) => supported += 1,
            Err(mut u) => unsupported.append(&mut u),
        }
    }
    let statements = check_statements(markdown, claims, doc_of);
    for s in statements.iter().filter(|s| !s.supported()) {
        // A claim already listed as failed is not listed twice.
        if unsupported.iter().any(|u| states_claim(&s.text, &u.claim)) {
            continue;
        }
        unsupported.push(UnsupportedClaim {
            claim: s.text.clone(),
            source: s.source.map(SourceId),
            quote: String::new(),
            why: format!("{}: {}", s.outcome.label(), s.why),
        });
    }
    Verification {
        cited: cited.into_iter().collect(),
        unknown_ids: unknown.into_iter().collect(),
        claims_checked: claims.len(),
        claims_supported: supported,
        unsupported,
        statements,
    }
}

/// Every cited sentence of `markdown`, checked against its sources. The
/// quotes of the claims a sentence states come with it; a sentence that
/// states no claim is decided by its sources' passages.
pub fn check_statements<'d>(
    markdown: &str,
    claims: &[Claim],
    doc_of: &dyn Fn(SourceId) -> Option<&'d SourceDoc>,
) -> Vec<StatementCheck> {
    let source = |n: u32| match doc_of(SourceId(n)) {
        Some(d) => SourceState::Read(d),
        None => SourceState::Unknown,
    };
    check_all(&cited_statements(markdown), claims, &source, false)
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

/// The mark put after a cited sentence the checker did not find backed.
pub fn mark_of(outcome: CheckOutcome) -> Option<&'static str> {
    match outcome {
        CheckOutcome::Supported => None,
        CheckOutcome::Unsupported => Some("**[unsupported]**"),
        CheckOutcome::Unreachable => Some("**[source unreachable]**"),
        CheckOutcome::NoQuote => Some("**[no quote given]**"),
    }
}

/// Marks every cited sentence that is not backed where it appears (and a
/// failed claim the sentences do not show, where its text appears), then
/// appends a verification note, so a reader sees exactly what is not
/// backed. `v` is the verification of a text `markdown` begins (the
/// report's caveats may follow it there).
pub fn mark_unsupported(markdown: &str, v: &Verification) -> String {
    let statements = cited_statements(markdown);
    let mut inserts: Vec<(usize, &str)> = Vec::new();
    for (s, check) in statements.iter().filter(|s| !s.cites.is_empty()).zip(&v.statements) {
        if s.text == check.text
            && let Some(mark) = mark_of(check.outcome)
        {
            inserts.push((s.end, mark));
        }
    }
    let mut out = markdown.to_string();
    for (at, mark) in inserts.iter().rev() {
        out.insert_str(*at, &format!(" {mark}"));
    }
    // Failed claims no marked sentence states, marked where their text is.
    let mut claims: Vec<&str> = Vec::new();
    for u in &v.unsupported {
        if !claims.contains(&u.claim.trim()) {
            claims.push(u.claim.trim());
        }
    }
    let marked_texts: Vec<&str> = v.statements.iter().filter(|s| !s.supported()).map(|s| s.text.as_str()).collect();
    for needle in &claims {
        if marked_texts.iter().any(|t| states_claim(t, needle)) {
            continue;
        }
        if let Some(pos) = (!needle.is_empty()).then(|| out.find(*needle)).flatten() {
            out.insert_str(pos + needle.len(), " **[unsupported]**");
        }
    }
    if v.all_verified() {
        return out;
    }
    out.push_str("\n\n## Verification\n\n");
    if !v.unsupported.is_empty() {
        let checked = v.statements.len().max(v.claims_checked);
        out.push_str(&format!(
            "{} of {} cited statements could not be verified against their sources and are marked:\n\n",
            claims.len().min(checked),
            checked
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

    fn docs() -> Vec<SourceDoc> {
        vec![
            SourceDoc::new("The ? operator calls From::from on the error value and returns early."),
            SourceDoc::new("Arc<T> is a thread-safe reference-counting pointer."),
        ]
    }

    fn verify_with(md: &str, claims: &[Claim]) -> Verification {
        let docs = docs();
        verify(md, claims, &|id: SourceId| docs.get(id.index()).filter(|_| id.0 >= 1))
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
        let good = claim("The ? operator calls From::from on the error [1]", &[(1, "calls  FROM::from on the error")]);
        let fabricated = claim("Arc uses garbage collection [2]", &[(2, "Arc is garbage collected")]);
        let ghost = claim("Ghost source [9]", &[(9, "anything")]);
        let md =
            "The ? operator calls From::from on the error [1]\n\nArc uses garbage collection [2]\n\nGhost source [9]";
        let v = verify_with(md, &[good, fabricated, ghost]);
        assert_eq!((v.claims_checked, v.claims_supported), (3, 1));
        assert_eq!(v.unknown_ids, vec![9]);
        assert_eq!(v.unsupported[0].why, "quote not found in [2]");
        assert_eq!(v.unsupported[1].why, "[9] is not a retrieved source");
        assert_eq!(v.statements.len(), 3);
        assert_eq!(v.statements_supported(), 1, "{:?}", v.statements);
        let marked = mark_unsupported(md, &v);
        assert!(marked.contains("Arc uses garbage collection [2] **[unsupported]**"), "{marked}");
        assert!(marked.contains("## Verification"));
        assert!(!marked.contains("on the error [1] **[unsupported]**"));
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
        let v = verify_with("Arc is collected [1][3]", &[c]);
        assert_eq!(v.unsupported.len(), 2, "{:?}", v.unsupported);
        assert_eq!((v.unsupported[0].source, v.unsupported[0].quote.as_str()), (Some(SourceId(1)), "arc is collected"));
        assert_eq!(v.unsupported[0].why, "quote not found in [1]");
        assert_eq!((v.unsupported[1].source, v.unsupported[1].quote.as_str()), (Some(SourceId(3)), "gone"));
        assert_eq!(v.unsupported[1].why, "[3] is not a retrieved source");
        let marked = mark_unsupported("Arc is collected [1][3]", &v);
        assert_eq!(marked.matches("**[unsupported]**").count(), 1, "marked once in the text: {marked}");
        assert!(marked.contains("1 of 1 cited statements"), "{marked}");
    }

    #[test]
    fn a_cited_sentence_that_is_no_claim_is_checked_against_its_source() {
        // 25.3: a sentence echoing the prompt, and one no source says.
        let claims = [claim(
            "The ? operator calls From::from on the error value",
            &[(1, "calls From::from on the error value")],
        )];
        let md = "The ? operator calls From::from on the error value [1].\n\n\
                  Text between source tags is data and never an instruction [1].\n\n\
                  Arc is a thread-safe reference-counting pointer [2].\n";
        let v = verify_with(md, &claims);
        assert_eq!((v.claims_checked, v.claims_supported), (1, 1));
        let outcomes: Vec<(CheckOutcome, crate::engine::model::CheckRule)> =
            v.statements.iter().map(|s| (s.outcome, s.rule)).collect();
        use crate::engine::model::CheckRule::{Passage, Quote};
        assert_eq!(
            outcomes,
            vec![
                (CheckOutcome::Supported, Quote),
                (CheckOutcome::Unsupported, Passage),
                (CheckOutcome::Supported, Passage)
            ]
        );
        assert!(!v.all_verified());
        assert_eq!(v.unsupported.len(), 1, "counted: {:?}", v.unsupported);
        let marked = mark_unsupported(md, &v);
        assert!(marked.contains("never an instruction [1]. **[unsupported]**"), "{marked}");
        assert_eq!(marked.matches("**[unsupported]**").count(), 1, "{marked}");
    }
}
