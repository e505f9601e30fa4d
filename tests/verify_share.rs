//! Reports to share and sessions compared: `sleuth diff` of a session and
//! its fork after a steering change (the engine with scripted parts writing
//! real session folders, then the real binary), the HTML export parsed by
//! an HTML parser, and the PDF export's text read by an independent tool
//! (`pdftotext`, poppler-utils).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::sync::Arc;

use crate::support;
use serde_json::Value;
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::model::SourceId;
use sleuth::engine::protocol::{Command, Event, Steer};
use sleuth::engine::{Engine, SessionState};
use sleuth::session::{fork, open_session, read_log};
use support::bin::{TOOL_LIMIT, output, output_of, sleuth_cmd};
use support::disk::{OnAsk, parts, run_new};
use support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};

const QUESTION: &str = "How do widgets connect to gadgets?";

fn turns() -> Vec<Turn> {
    let mut first = Turn::coverage(1, 3);
    first.cite = 3;
    let mut second = Turn::coverage(2, 3);
    second.cite = 3;
    vec![first, second, Turn::coverage(3, 3)]
}

fn memory() -> Arc<dyn MemoryStore> {
    Arc::new(InMemoryStore::new(MemorySettings::default()))
}

/// Session `orig` (2 iterations) and `fork1`, forked from its iteration 1,
/// where the user bans the source the first claim cites before it goes on.
async fn session_and_steered_fork(root: &Path) -> (SessionState, SessionState, SourceId) {
    let provider = || ScriptedProvider::new("scripted", corpus(8));
    let orig = run_new(
        root,
        "orig",
        support::settings(2),
        ScriptedReasoner::new(turns()),
        provider(),
        memory(),
        QUESTION,
        OnAsk::Choose(0),
    )
    .await;
    let banned = orig.report.as_ref().unwrap().claims[0].citations[0].source;
    // The fork pauses after the iteration it decides again (step mode), as
    // a user forking to steer would have it.
    let step = |h: &mut sleuth::engine::SessionHeader| h.step_mode = true;
    fork::fork_session(root, "orig", 1, "fork1", Some(&step)).unwrap();
    let opened = open_session(root, "fork1").unwrap();
    let mut settings = support::settings(3);
    settings.session_id = "fork1".into();
    let p = parts(
        &opened.dir,
        &settings,
        Arc::new(ScriptedReasoner::new(turns())),
        Arc::new(provider()),
        memory(),
        Box::new(opened.log),
    );
    let (engine, handle) = Engine::new(settings, p, opened.state);
    let task = tokio::spawn(engine.run());
    let sleuth::engine::EngineHandle { commands, mut events } = handle;
    while let Some(r) = events.recv().await {
        match r.event {
            Event::Paused { .. } => {
                commands.send(Command::Steer { edit: Steer::BanSource { id: banned } }).unwrap();
                commands.send(Command::Continue).unwrap();
            }
            Event::SessionEnded { .. } => break,
            _ => {}
        }
    }
    drop(commands);
    let forked = task.await.unwrap().unwrap();
    drop(opened.lock);
    (orig, forked, banned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_shows_what_a_steered_fork_changed_claim_by_claim() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let (orig, forked, banned) = session_and_steered_fork(&root).await;
    assert!(forked.banned.contains(&banned));

    let banned_at = orig.source(banned).unwrap().meta.canonical.clone();

    let d = sleuth::verify::diff::diff("orig", &orig, "fork1", &forked);
    assert_eq!(d.relation, "B is a fork of A from iteration 1");
    use sleuth::verify::diff::Change;
    let removed: Vec<&str> =
        d.claims.iter().filter(|c| c.change == Change::Removed).filter_map(|c| c.before.as_deref()).collect();
    let first = &orig.report.as_ref().unwrap().claims[0].text;
    assert!(removed.contains(&first.as_str()), "the claim on the banned source is gone: {:#?}", d.claims);
    assert!(d.sources_lost.iter().any(|s| s.locator == banned_at), "{:?}", d.sources_lost);
    assert!(!d.sources_gained.is_empty(), "the fork drafted from other sources");
    let confidence = d.scores.iter().find(|s| s.name == "confidence").unwrap();
    assert!(confidence.before.is_some() && confidence.after.is_some());
    assert_eq!(d.scores.len(), 8, "confidence, coverage and the six components");

    // The same through the binary.
    let (code, out, err) = output(sleuth_cmd(home.path()).args(["diff", "orig", "fork1", "--json"]));
    assert_eq!(code, Some(0), "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["relation"], "B is a fork of A from iteration 1");
    assert!(json["claims"].as_array().unwrap().iter().any(|c| c["change"] == "removed"));
    let (_, text, _) = output(sleuth_cmd(home.path()).args(["diff", "orig", "fork1"]));
    assert!(text.contains(&format!("  - {first}")), "{text}");
    assert!(text.contains("citation density") && text.contains("Sources: "), "{text}");
}

/// A finished session on a small corpus whose report has several claims
/// and a non-ASCII word; its id.
fn shared_session(home: &Path) -> String {
    let corpus = home.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(
        corpus.join("watering.md"),
        "# Watering\n\nDuring a drought, garden watering is allowed only before 8 am and after 7 pm. \
         Hoses must have a trigger nozzle.\n\n## Fines\n\n\
         A first breach of the watering rules costs a fine of 50 euros; the café terrace is exempt from the rules.\n",
    )
    .unwrap();
    let set = format!("local.corpus={}", corpus.display());
    let (code, _, err) = output(sleuth_cmd(home).args([
        "run",
        "--preset",
        "simple",
        "--set",
        &set,
        "When may I water my garden during a drought, and what are the fines?",
    ]));
    assert_eq!(code, Some(0), "{err}");
    support::e2e::session_ids(home).pop().unwrap()
}

#[test]
fn the_html_export_is_self_contained_and_every_claim_carries_its_mark_and_quote() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let id = shared_session(home);
    let file = tmp.path().join("report.html");
    let (code, _, err) =
        output(sleuth_cmd(home).args(["export", &id, "--format", "html", "-o", file.to_str().unwrap()]));
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(&file).unwrap();
    let state = SessionState::replay(&read_log(&home.join("sessions").join(&id).join("events.jsonl")).unwrap().records);
    let v = state.verification.as_ref().unwrap();
    assert!(v.statements.len() >= 2, "{v:?}");

    let doc = dom_query::Document::from(html.as_str());
    // Every cited sentence is a claim with its verdict, hover text and evidence.
    let claims = doc.select("span.claim");
    assert_eq!(claims.length(), v.statements.len(), "{html}");
    for (k, check) in v.statements.iter().enumerate() {
        let n = k + 1;
        let span = doc.select(&format!("span#claim-{n}"));
        let title = span.attr("title").unwrap().to_string();
        assert!(title.starts_with(if check.supported() { "✓ supported" } else { "✗" }), "{title}");
        assert!(!check.evidence.is_empty() && title.contains(check.evidence.trim()), "the quote on hover: {title}");
        let mark = doc.select(&format!("a.mark[href=\"#evidence-{n}\"]"));
        assert_eq!(mark.text().to_string(), if check.supported() { "✓" } else { "✗" });
        let details = doc.select(&format!("details#evidence-{n}"));
        assert_eq!(details.length(), 1);
        assert!(details.select("blockquote").text().contains(check.evidence.trim()), "the quote on expand");
    }
    // Citations link to the sources, which carry their hashes.
    let cite = doc.select("a.cite").first();
    let target = cite.attr("href").unwrap().to_string();
    let source = doc.select(&target);
    assert_eq!(source.length(), 1, "{target}");
    let hash = source.select(".hash").text().to_string();
    assert!(hash.contains("SHA-256") && hash.split_whitespace().last().unwrap().len() == 64, "{hash}");
    // Nothing is loaded from anywhere, and nothing needs a script.
    assert_eq!(doc.select("script").length(), 0);
    assert_eq!(doc.select("[src]").length(), 0);
    assert_eq!(doc.select("link").length(), 0);
    assert!(!html.contains("@import") && !html.contains("url("), "no stylesheet fetches anything");
    assert!(html.contains("café"), "Unicode survives");
}

#[test]
fn the_pdf_export_holds_the_reports_sentences_and_citations_as_text() {
    // Independent extraction by poppler's pdftotext (`.ci/run` installs poppler-utils).
    let probe = output_of(std::process::Command::new("pdftotext").arg("-v"), TOOL_LIMIT);
    assert!(probe.is_ok(), "pdftotext (poppler-utils) is needed for this test: apt-get install poppler-utils");
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let id = shared_session(home);
    let file = tmp.path().join("report.pdf");
    let (code, _, err) =
        output(sleuth_cmd(home).args(["export", &id, "--format", "pdf", "-o", file.to_str().unwrap()]));
    assert_eq!(code, Some(0), "{err}");
    let bytes = std::fs::read(&file).unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    // Links as poppler reads them: the sources' addresses, and citations
    // that jump inside the document.
    let xml = output_of(std::process::Command::new("pdftohtml").args(["-xml", "-stdout", "-i"]).arg(&file), TOOL_LIMIT)
        .unwrap();
    let xml = String::from_utf8_lossy(&xml.stdout).into_owned();
    assert!(xml.contains("<a href=\"file://"), "clickable addresses: {xml}");
    assert!(xml.contains(".html#"), "in-document links: {xml}");
    let out = output_of(std::process::Command::new("pdftotext").arg(&file).arg("-"), TOOL_LIMIT).unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let state = SessionState::replay(&read_log(&home.join("sessions").join(&id).join("events.jsonl")).unwrap().records);
    let v = state.verification.as_ref().unwrap();
    for s in &v.statements {
        let sentence = s.text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&sentence), "missing from the PDF's text: {sentence}\n{flat}");
        for n in &s.cites {
            assert!(flat.contains(&format!("[{n}]")), "citation [{n}] missing");
        }
    }
    assert!(flat.contains("café"), "Unicode survives extraction: {flat}");
    assert!(flat.contains("Claims and their evidence") && flat.contains("SHA-256"), "{flat}");
    assert!(flat.contains("page 1 of"), "paginated: {flat}");
}

#[test]
fn exports_number_sources_once_say_a_files_date_is_its_modification_and_do_not_repeat_a_heading() {
    // Issue 27.19.
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let id = shared_session(home);
    let state = SessionState::replay(&read_log(&home.join("sessions").join(&id).join("events.jsonl")).unwrap().records);
    let same = state.sources.iter().find(|s| s.meta.heading.as_deref() == Some(s.meta.title.as_str()));
    let same = same.expect("a passage whose heading is its page's title (the first section)");

    let (_, md, _) = output(sleuth_cmd(home).args(["export", &id]));
    let list = md.split("\n## Sources\n\n").nth(1).unwrap().split("\n\n").next().unwrap();
    for line in list.lines() {
        assert!(line.starts_with("- ["), "numbered once, by its id: {line}");
        assert!(!line.contains("published"), "a local file has no publication date: {line}");
    }
    let line = list.lines().find(|l| l.starts_with(&format!("- [{}] ", same.meta.id.0))).unwrap();
    assert!(!line.contains(&format!("{t} — {t}", t = same.meta.title)), "{line}");
    assert!(line.contains(", modified 20"), "{line}");
    let report = &state.report.as_ref().unwrap().markdown;
    assert!(!report.contains(&format!("{t} — {t}", t = same.meta.title)), "{report}");

    let (_, bib, _) = output(sleuth_cmd(home).args(["export", &id, "--format", "bibtex"]));
    assert!(bib.contains("urldate = {") && !bib.contains("  date = {"), "{bib}");
    let (_, csl, _) = output(sleuth_cmd(home).args(["export", &id, "--format", "csl-json"]));
    assert!(!csl.contains("\"issued\""), "{csl}");
}
