//! `sleuth verify`, evidence bundles and `sleuth recheck` as a user meets
//! them: the real binary, `SLEUTH_HOME` a temp dir, sources on disk and on
//! loopback HTTP servers (wiremock), every child process under a timeout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::support;
use crate::support::bin::{run_async, texts};
use crate::support::web_mock;
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// A small corpus: watering rules and fines.
fn corpus(dir: &Path) -> PathBuf {
    let c = dir.join("corpus");
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(
        c.join("watering.md"),
        "# Watering\n\nDuring a drought, garden watering is allowed only before 8 am and after 7 pm. \
         Hoses must have a trigger nozzle that stops the flow when released.\n\n## Fines\n\n\
         A first breach of the watering rules costs a fine of 50 euros; a second breach costs 150 euros.\n",
    )
    .unwrap();
    std::fs::write(c.join("plots.md"), "# Plots\n\nA plot in the community garden costs 45 euros per year.\n").unwrap();
    c
}

/// A finished session on the corpus; its report as printed.
async fn session(home: &Path, corpus: &Path) -> String {
    let set = format!("local.corpus={}", corpus.display());
    let (code, report, err) = texts(
        run_async(
            home,
            &[],
            &["run", "--preset", "simple", "--set", &set, "How much does a first breach of the watering rules cost?"],
        )
        .await,
    );
    assert_eq!(code, Some(0), "{err}");
    report
}

fn statements(json: &Value) -> Vec<(String, String, String)> {
    json["statements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["text"].as_str().unwrap().to_string(),
                s["outcome"].as_str().unwrap().into(),
                s["rule"].as_str().unwrap().into(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sleuths_own_report_verifies_from_its_files_and_from_its_session() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let report = session(&home, &corpus(tmp.path())).await;
    let file = tmp.path().join("report.md");
    std::fs::write(&file, &report).unwrap();

    // The sources fetched again: the corpus files, by their file:// addresses.
    let (code, out, err) = texts(run_async(&home, &[], &["verify", file.to_str().unwrap(), "--json"]).await);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let s = statements(&json);
    assert!(!s.is_empty());
    assert!(s.iter().all(|(_, outcome, _)| outcome == "supported"), "{s:?}");
    assert_eq!(json["cites"], "numbered markers [n]");
    assert!(json["sources"][0]["sha256"].as_str().unwrap().len() == 64);

    // From the session: its claims' quotes decide, by the quote rule.
    let (code, out, err) = texts(run_async(&home, &[], &["verify", "--session", "last"]).await);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("✓ supported") && out.contains("quote"), "{out}");
    assert!(out.contains("0 unsupported"), "{out}");

    // The exported Markdown (with its sources list and appendix) verifies too.
    let (_, md, _) = texts(run_async(&home, &[], &["export", "last"]).await);
    std::fs::write(&file, &md).unwrap();
    let (code, out, _) =
        texts(run_async(&home, &[], &["verify", file.to_str().unwrap(), "--session", "last", "--json"]).await);
    assert_eq!(code, Some(0), "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(statements(&json).len(), s.len(), "the appendix and the sources list are not claims");
}

/// A loopback site: the city's watering page and a newspaper's fines page.
async fn site() -> MockServer {
    let server = MockServer::start().await;
    web_mock::html_page(
        &server,
        "/water",
        web_mock::article(
            "Watering rules",
            "2025-06-01",
            &[
                "During a drought, garden watering is allowed only before 8 am and after 7 pm.",
                "Hoses must have a trigger nozzle that stops the flow when released.",
            ],
        ),
    )
    .await;
    web_mock::html_page(
        &server,
        "/fines",
        web_mock::article(
            "Fines",
            "2025-06-02",
            &["A first breach costs 50 euros. A second breach of the watering rules costs 150 euros."],
        ),
    )
    .await;
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gpt_researcher_report_with_one_fabricated_quote_is_flagged() {
    let server = site().await;
    let tmp = tempfile::tempdir().unwrap();
    let u = server.uri();
    // gpt-researcher's format: APA-style inline links at the end of each
    // sentence, a References list of links (its prompts.py and
    // actions/markdown_processing.py `add_references`).
    let report = format!(
        "# Watering rules during a drought\n\n## Introduction\n\n\
         During a drought, garden watering is allowed only before 8 am and after 7 pm ([City of Example, 2025]({u}/water)). \
         The city states that \"hoses must have a trigger nozzle\" ([City of Example, 2025]({u}/water)).\n\n\
         ## Fines\n\nAccording to the local paper, \"a first breach is forgiven without any fine\" ([Example Gazette, 2025]({u}/fines)). \
         A second breach of the rules costs 150 euros ([Example Gazette, 2025]({u}/fines)).\n\n\
         ## References\n\n- City of Example. (2025). Watering rules. [{u}/water]({u}/water)\n\
         - Example Gazette. (2025). Fines. [{u}/fines]({u}/fines)\n"
    );
    let file = tmp.path().join("gpt-researcher.md");
    std::fs::write(&file, report).unwrap();
    let home = tmp.path().join("home");
    let (code, out, err) = texts(run_async(&home, &[], &["verify", file.to_str().unwrap(), "--json"]).await);
    assert_eq!(code, Some(7), "an unsupported claim fails: {out}\n{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["cites"], "inline links");
    let s = statements(&json);
    assert_eq!(s.len(), 4, "{s:?}");
    let verdicts: Vec<(&str, &str)> = s.iter().map(|(_, o, r)| (o.as_str(), r.as_str())).collect();
    assert_eq!(
        verdicts,
        vec![("supported", "passage"), ("supported", "quote"), ("unsupported", "quote"), ("supported", "passage")]
    );
    let why = json["statements"][2]["why"].as_str().unwrap();
    assert!(why.contains("a first breach is forgiven without any fine"), "{why}");
    assert_eq!(json["summary"]["unsupported"], 1);

    // The table names the rule that decided each sentence.
    let (code, table, _) = texts(run_async(&home, &[], &["verify", file.to_str().unwrap()]).await);
    assert_eq!(code, Some(7));
    assert!(table.contains("✗ unsupported") && table.contains("the quote is not in any cited source"), "{table}");
    assert!(table.contains("Rules: quote:") || table.contains("quote: a quote given"), "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_that_cannot_be_fetched_is_unreachable_not_unsupported() {
    let server = site().await;
    Mock::given(method("GET"))
        .and(path("/slow"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(5)).set_body_string("late"))
        .mount(&server)
        .await;
    Mock::given(method("GET")).and(path("/busy")).respond_with(ResponseTemplate::new(503)).mount(&server).await;
    let u = server.uri();
    // open_deep_research's format: [n] markers, `### Sources` with `[n] Title: URL`.
    let report = format!(
        "# Watering\n\nGarden watering is allowed only before 8 am and after 7 pm [1]. \
         Watering with sprinklers is banned all day [2]. Car washing at home is banned [3].\n\n\
         ### Sources\n\n[1] Watering rules: {u}/water\n[2] Sprinklers: {u}/slow\n[3] Car washing: {u}/busy\n"
    );
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("odr.md");
    std::fs::write(&file, report).unwrap();
    let home = tmp.path().join("home");
    let started = std::time::Instant::now();
    let (code, out, err) = texts(
        run_async(&home, &[], &["verify", file.to_str().unwrap(), "--json", "--set", "web.fetch_timeout_secs=1"]).await,
    );
    assert!(started.elapsed() < Duration::from_secs(30), "the fetch timeout holds");
    assert_eq!(code, Some(8), "nothing unsupported, two claims unchecked: {out}\n{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let outcomes: Vec<String> = statements(&json).into_iter().map(|(_, o, _)| o).collect();
    assert_eq!(outcomes, vec!["supported", "unreachable", "unreachable"]);
    let errors: Vec<&str> = json["sources"].as_array().unwrap().iter().filter_map(|s| s["error"].as_str()).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("503")), "{errors:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bundle_rechecks_offline_and_any_changed_byte_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let corpus = corpus(tmp.path());
    session(&home, &corpus).await;
    let bundle = tmp.path().join("evidence.bundle.json");
    let (code, _, err) =
        texts(run_async(&home, &[], &["export", "last", "--format", "bundle", "-o", bundle.to_str().unwrap()]).await);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("its SHA-256: "), "{err}");
    // Offline: the corpus is gone, the session too.
    std::fs::remove_dir_all(&corpus).unwrap();
    std::fs::remove_dir_all(home.join("sessions")).unwrap();
    let (code, out, err) = texts(run_async(&home, &[], &["verify", bundle.to_str().unwrap()]).await);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("every byte is as exported") && out.contains("agrees with the verification recorded"),
        "{out}"
    );

    let bytes = std::fs::read(&bundle).unwrap();
    let json: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["content"]["format"], "sleuth evidence bundle");
    assert!(json["content"]["log"]["jsonl"].as_str().unwrap().contains("\"session_started\""));
    let source = &json["content"]["sources"][0];
    assert_eq!(
        source["sha256"].as_str().unwrap(),
        sleuth::text::sha256_hex(source["text"].as_str().unwrap().as_bytes())
    );
    assert!(source["url"].as_str().unwrap().starts_with("file://") && source["retrieved_at"].is_string());

    let text = String::from_utf8(bytes.clone()).unwrap();
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle} not in the bundle"));
    // One byte in a source's text, one in the JSON's spacing-free frame, one in the digest.
    let in_text = at("only before 8 am") + "only before ".len();
    let in_json = at("\"version\":1") + "\"version\":".len();
    let in_digest = "{\"sleuth_bundle\":1,\"sha256\":\"".len() + 3;
    for (pos, to) in [(in_text, b'9'), (in_json, b'2'), (in_digest, b'0'), (bytes.len() - 1, b' ')] {
        let mut changed = bytes.clone();
        changed[pos] = if changed[pos] == to { b'1' } else { to };
        std::fs::write(&bundle, &changed).unwrap();
        let (code, out, _) = texts(run_async(&home, &[], &["verify", bundle.to_str().unwrap(), "--json"]).await);
        assert_eq!(code, Some(7), "byte {pos} changed must fail: {out}");
        let json: Value = serde_json::from_str(&out).unwrap();
        assert!(!json["changed"].as_array().unwrap().is_empty(), "{out}");
    }
}

/// A SearXNG on loopback listing one page whose text changes with `version`.
async fn changing_site(version: Arc<AtomicUsize>) -> MockServer {
    let server = MockServer::start().await;
    let page_url = format!("{}/widgets", server.uri());
    web_mock::searxng(&server, move |_| vec![web_mock::hit(&page_url, "Widget wiring")]).await;
    Mock::given(method("GET"))
        .and(path("/widgets"))
        .respond_with(move |_: &Request| {
            let fact = if version.load(Ordering::SeqCst) == 0 {
                "Widgets connect to gadgets through a shielded copper cable rated for outdoor use."
            } else {
                "Widgets now pair with gadgets over a short-range radio link."
            };
            let html = web_mock::article(
                "Widget wiring",
                "2025-06-01",
                &[fact, "The lab measured the connection over many spring trials with care and patience."],
            );
            ResponseTemplate::new(200).set_body_raw(html.into_bytes(), "text/html; charset=utf-8")
        })
        .mount(&server)
        .await;
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recheck_finds_the_quote_gone_after_the_page_changed_and_records_it() {
    let version = Arc::new(AtomicUsize::new(0));
    let server = changing_site(version.clone()).await;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "[search]\nchains = [[\"searxng\"]]\n[web]\nsearxng_url = \"{}\"\npoliteness_delay_ms = 0\n",
            server.uri()
        ),
    )
    .unwrap();
    let (code, report, err) =
        texts(run_async(&home, &[], &["run", "--preset", "simple", "How do widgets connect to gadgets?"]).await);
    assert!(matches!(code, Some(0 | 4)), "{err}");
    assert!(report.contains("shielded copper cable"), "{report}\n{err}");

    // Unchanged: every claim stands.
    let (code, out, err) = texts(run_async(&home, &[], &["recheck", "last"]).await);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("unchanged") && out.contains("claims still stand"), "{out}");

    // The page changes between two fetches.
    version.store(1, Ordering::SeqCst);
    let (code, out, err) = texts(run_async(&home, &[], &["recheck", "last", "--json"]).await);
    assert_eq!(code, Some(7), "a claim no longer stands: {out}\n{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["sources"][0]["status"], "changed");
    let statuses: Vec<&str> =
        json["claims"].as_array().unwrap().iter().map(|c| c["status"].as_str().unwrap()).collect();
    assert!(statuses.contains(&"quote_gone"), "{statuses:?}");

    // Both rechecks are events of the session: the exports show them.
    let id = support::e2e::session_ids(&home).pop().unwrap();
    let log = std::fs::read_to_string(home.join("sessions").join(&id).join("events.jsonl")).unwrap();
    assert_eq!(log.matches("\"type\":\"rechecked\"").count(), 2);
    let state = sleuth::engine::SessionState::replay(
        &sleuth::session::read_log(&home.join("sessions").join(&id).join("events.jsonl")).unwrap().records,
    );
    assert_eq!(state.rechecks.len(), 2);
    assert!(state.rechecks[1].fallen() > 0);
    let (_, md, _) = texts(run_async(&home, &[], &["export", "last"]).await);
    assert!(md.contains("- rechecked ") && md.contains("quote gone"), "{md}");
    let (code, _, _) = texts(run_async(&home, &[], &["recheck", "last", "--dry-run"]).await);
    assert_eq!(code, Some(7));
    let log = std::fs::read_to_string(home.join("sessions").join(&id).join("events.jsonl")).unwrap();
    assert_eq!(log.matches("\"type\":\"rechecked\"").count(), 2, "--dry-run records nothing");

    // Gone: 404 now.
    server.reset().await;
    let (code, out, _) = texts(run_async(&home, &[], &["recheck", "last", "--json"]).await);
    assert_eq!(code, Some(7), "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["sources"][0]["status"], "gone");
    assert!(json["claims"].as_array().unwrap().iter().any(|c| c["status"] == "page_gone"), "{out}");
}
