//! Scholarly metadata in the bibliographies: BibTeX and CSL-JSON carry
//! authors, venue, year, DOI, e-print and status.

use crate::engine::model::{Scholarly, SourceId, SourceKind, SourceMeta, SourceVerdict};
use crate::engine::state::{SessionState, SourceEntry};

fn work(id: u32, title: &str, scholarly: Scholarly) -> SourceEntry {
    SourceEntry {
        meta: SourceMeta {
            id: SourceId(id),
            locator: format!("https://doi.org/10.1000/x{id}"),
            canonical: format!("https://doi.org/10.1000/x{id}"),
            title: title.into(),
            site: "doi.org".into(),
            provider: "openalex".into(),
            kind: SourceKind::Web,
            tier: Some(2),
            source_type: None,
            heading: None,
            published: None,
            accessed_at_ms: 1_700_000_000_000,
            iteration: 1,
            query: "q".into(),
            score: 1.0,
            text_len: 10,
            text_hash: String::new(),
            scholarly: Some(scholarly),
        },
        verdict: Some(SourceVerdict { id: SourceId(id), kept: true, reason: None, relevance: 1.0, signals: vec![] }),
        duplicates: vec![],
    }
}

fn state() -> SessionState {
    let mut s = SessionState::default();
    s.sources.push(work(
        1,
        "Water boils at 100 °C",
        Scholarly {
            authors: vec!["Ada Lovelace".into(), "Grace Hopper".into()],
            venue: Some("Journal of Heat".into()),
            year: Some(2021),
            doi: Some("10.1000/heat.1".into()),
            cited_by: Some(12),
            ..Scholarly::default()
        },
    ));
    s.sources.push(work(
        2,
        "Boiling on mountains",
        Scholarly {
            authors: vec!["Alan Turing".into()],
            venue: Some("arXiv".into()),
            year: Some(2024),
            preprint: true,
            arxiv: Some("2401.00001".into()),
            ..Scholarly::default()
        },
    ));
    s
}

#[test]
fn bibtex_entries_carry_authors_venue_year_doi_and_preprint_status() {
    let bib = super::bibtex(&state(), "20250101-000000-ab12");
    let (article, preprint) = bib.split_once("\n\n").expect("two entries");
    assert!(article.starts_with("@article{sleuth:20250101-000000-ab12:1,"), "{article}");
    assert!(article.contains("author = {{Ada Lovelace} and {Grace Hopper}},"), "{article}");
    assert!(article.contains("journaltitle = {Journal of Heat},"), "{article}");
    assert!(article.contains("doi = {10.1000/heat.1},"), "{article}");
    assert!(article.contains("date = {2021},"), "{article}");
    assert!(!article.contains("pubstate"), "{article}");
    assert!(preprint.starts_with("@online{"), "{preprint}");
    assert!(preprint.contains("eprint = {2401.00001},") && preprint.contains("eprinttype = {arxiv},"), "{preprint}");
    assert!(preprint.contains("pubstate = {preprint},"), "{preprint}");
}

#[test]
fn csl_items_carry_authors_container_doi_issued_and_status() {
    let items: serde_json::Value = serde_json::from_str(&super::csl_json(&state(), "s")).expect("json");
    let a = &items[0];
    assert_eq!(a["type"], "article-journal");
    assert_eq!(a["author"][1]["literal"], "Grace Hopper");
    assert_eq!(a["container-title"], "Journal of Heat");
    assert_eq!(a["DOI"], "10.1000/heat.1");
    assert_eq!(a["issued"]["date-parts"][0][0], 2021);
    assert!(a.get("status").is_none());
    let p = &items[1];
    assert_eq!(p["type"], "article");
    assert_eq!(p["status"], "preprint");
    assert_eq!(p["number"], "arXiv:2401.00001");
}
