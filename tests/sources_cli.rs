//! Sources as a user meets them, on the real binary (every child under a
//! timeout, `SLEUTH_HOME` a temp dir): `sleuth run --sources academic`
//! against the four scholarly APIs answering on loopback in their
//! documented shapes; `sleuth doctor` probing them; a folder of PDFs
//! indexed and cited by page.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::time::Duration;

use crate::support::bin;
use sleuth::search::local::extract::test_pdf;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fixture(server: &MockServer, file: &str) -> String {
    let text = std::fs::read_to_string(format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    text.replace("{{BASE}}", &server.uri())
}

fn json(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).insert_header("content-type", "application/json").set_body_string(body)
}

/// The four scholarly APIs under one loopback server, each under its own
/// path (its "base URL"), answering with the fixtures.
async fn scholarly_server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(path("/arxiv/api/query"))
        .respond_with(ResponseTemplate::new(200).set_body_string(fixture(&server, "arxiv/query.atom")))
        .mount(&server)
        .await;
    Mock::given(path("/pdf/2401.01234v2"))
        .respond_with(ResponseTemplate::new(200).insert_header("content-type", "application/pdf").set_body_bytes(
            test_pdf(
                &[
                    "Boiling point depression of water at high altitude\nAbstract. We measure the boiling point of water at twelve\nstations between sea level and 4,500 metres.",
                    "Results\nThe boiling point of water falls by about one degree Celsius for every 300 metres\nof altitude, because the atmospheric pressure falls with height.\nAt 3,000 metres water boiled at 89.9 degrees Celsius in our measurements.",
                ],
                Some("Boiling point depression of water at high altitude"),
            ),
        ))
        .mount(&server)
        .await;
    Mock::given(path("/openalex/works"))
        .respond_with(json(fixture(&server, "openalex/works.json")))
        .mount(&server)
        .await;
    Mock::given(path("/s2/graph/v1/paper/search"))
        .respond_with(json(fixture(&server, "semanticscholar/search.json")))
        .mount(&server)
        .await;
    Mock::given(path("/epmc/search"))
        .respond_with(json(fixture(&server, "europepmc/search.json")))
        .mount(&server)
        .await;
    Mock::given(path("/epmc/PMC6910996/fullTextXML"))
        .respond_with(ResponseTemplate::new(200).set_body_string(fixture(&server, "europepmc/fulltext.xml")))
        .mount(&server)
        .await;
    server
}

/// Environment pointing every scholarly provider at `server`, at full speed.
fn scholarly_env(server: &MockServer) -> Vec<(String, String)> {
    let mut env = Vec::new();
    for (name, prefix) in
        [("ARXIV", "arxiv"), ("OPENALEX", "openalex"), ("SEMANTICSCHOLAR", "s2"), ("EUROPEPMC", "epmc")]
    {
        env.push((format!("SLEUTH__{name}__BASE_URL"), format!("{}/{prefix}", server.uri())));
        env.push((format!("SLEUTH__{name}__MIN_INTERVAL_MS"), "0".into()));
    }
    env
}

/// `env` as the pairs of names and values `bin::run_within` takes.
fn pairs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

fn session_log(home: &Path) -> String {
    let sessions = home.join("sessions");
    let id = std::fs::read_dir(&sessions).unwrap().filter_map(|e| e.ok()).find(|e| e.path().is_dir()).unwrap();
    std::fs::read_to_string(id.path().join("events.jsonl")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_with_academic_sources_answers_from_papers_and_rejects_retracted_ones() {
    let server = scholarly_server().await;
    let home = tempfile::tempdir().unwrap();
    let env = scholarly_env(&server);
    let args = [
        "run",
        "--sources",
        "academic",
        "--max-iterations",
        "1",
        "How does altitude change the boiling point of water?",
    ];
    let out = tokio::task::spawn_blocking({
        let home = home.path().to_path_buf();
        move || bin::run_within(&home, &pairs(&env), &args, Duration::from_secs(120))
    })
    .await
    .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() || out.status.code() == Some(4), "{stderr}\n{report}");
    // Every scholarly API was asked.
    let asked: Vec<String> =
        server.received_requests().await.unwrap().iter().map(|r| r.url.path().to_string()).collect();
    for p in ["/arxiv/api/query", "/openalex/works", "/s2/graph/v1/paper/search", "/epmc/search"] {
        assert!(asked.iter().any(|a| a == p), "{p} not asked: {asked:?}");
    }
    if std::env::var("SLEUTH_TEST_SHOW").is_ok() {
        eprintln!("REPORT:\n{report}\nSTDERR:\n{stderr}");
    }
    let log = session_log(home.path());
    // The retracted works were rejected with that reason, never cited.
    assert!(log.contains(r#""reason":"retracted""#), "{log}");
    assert!(!report.contains("120 degrees on mountain summits"), "{report}");
    assert!(!report.contains("cures hypoxia"), "{report}");
    // The report answers from the papers and lists them with their metadata.
    assert!(report.contains("## Sources"), "{report}\n{stderr}");
    assert!(
        report.contains("doi.org/10.1000/altitude.2019.7") || report.contains("arxiv.org/abs/2401.01234"),
        "{report}"
    );
    assert!(log.contains(r#""scholarly":{"#), "sources carry their metadata: {log}");

    // The exports carry the metadata.
    let run = |args: &[&str]| {
        let home = home.path().to_path_buf();
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        std::thread::spawn(move || {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            bin::run_within(&home, &[], &a, Duration::from_secs(30))
        })
        .join()
        .unwrap()
    };
    let bib = String::from_utf8_lossy(&run(&["export", "last", "--format", "bibtex"]).stdout).to_string();
    assert!(bib.contains("author = {"), "{bib}");
    assert!(bib.contains("doi = {") || bib.contains("eprinttype = {arxiv}"), "{bib}");
    let csl = String::from_utf8_lossy(&run(&["export", "last", "--format", "csl-json"]).stdout).to_string();
    assert!(csl.contains("\"author\"") && csl.contains("\"literal\""), "{csl}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_probes_each_keyless_provider_and_says_how_to_fix_a_failure() {
    let server = scholarly_server().await;
    // Semantic Scholar's keyless pool is busy.
    let busy = MockServer::start().await;
    Mock::given(path("/graph/v1/paper/search"))
        .respond_with(ResponseTemplate::new(429).set_body_string(r#"{"message": "Too Many Requests.", "code": "429"}"#))
        .mount(&busy)
        .await;
    let home = tempfile::tempdir().unwrap();
    let mut env = scholarly_env(&server);
    env.push(("SLEUTH__SEMANTICSCHOLAR__BASE_URL".into(), busy.uri()));
    let out = tokio::task::spawn_blocking({
        let home = home.path().to_path_buf();
        move || {
            bin::run_within(
                &home,
                &pairs(&env),
                &["doctor", "--sources", "academic", "--set", "web.contact_email=me@example.org"],
                Duration::from_secs(60),
            )
        }
    })
    .await
    .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}");
    assert!(table.contains("reasoner: builtin"), "{table}");
    assert!(table.contains("--set web.contact_email") && !table.contains("me@example.org"), "{table}");
    let line = |needle: &str| table.lines().find(|l| l.contains(needle)).unwrap_or_default().to_string();
    assert!(line("provider arxiv").contains(" ok "), "{table}");
    assert!(line("provider openalex").contains(" ok "), "{table}");
    assert!(
        line("provider semanticscholar").contains("FAIL") && line("provider semanticscholar").contains("429"),
        "{table}"
    );
    assert!(
        table.contains("fix: rate limited: wait a minute, or export an API key in SEMANTIC_SCHOLAR_API_KEY"),
        "{table}"
    );
    // One failure, counted once.
    assert!(table.contains("1 required check failed: search chain 3"), "{table}");
    // Wikipedia is not searched by `academic`, and says what would search it.
    assert!(line("  wikipedia").contains("--sources web"), "{table}");
}

#[test]
fn a_folder_of_pdfs_is_indexed_by_page_and_cited_with_the_page() {
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("papers");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(
        corpus.join("watering.pdf"),
        test_pdf(
            &[
                "Municipal water rules\nThese rules apply to every household connected to the town network.",
                "Billing\nWater is billed every quarter at a flat rate for each household.",
                "Drought measures\nDuring a declared drought, gardens may be watered only before 8 am\nand after 7 pm, with a watering can and never with a hose.",
                "Penalties\nA household that ignores the drought measures pays a fine of 45 euros.",
            ],
            Some("Municipal water rules 2024"),
        ),
    )
    .unwrap();
    std::fs::write(corpus.join("scan.pdf"), test_pdf(&["", ""], None)).unwrap();
    std::fs::write(
        corpus.join("notes.md"),
        "# Notes\n\nThe town library opens at nine on weekdays and closes at six.\n",
    )
    .unwrap();
    let corpus_arg = corpus.display().to_string();
    let out = bin::run_within(home.path(), &[], &["index", &corpus_arg], Duration::from_secs(60));
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert!(said.contains("1 scanned PDFs without a text layer"), "the scan is skipped with its reason: {said}");
    let set = format!("local.corpus={corpus_arg}");
    let out = bin::run_within(
        home.path(),
        &[],
        &["run", "--set", &set, "--max-iterations", "1", "When may gardens be watered during a drought?"],
        Duration::from_secs(60),
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("before 8 am"), "{report}\n{}", String::from_utf8_lossy(&out.stderr));
    if std::env::var("SLEUTH_TEST_SHOW").is_ok() {
        eprintln!("REPORT:\n{report}");
    }
    let source = report.lines().find(|l| l.contains("watering.pdf")).unwrap_or_default();
    // The pages cited ("p. 3", or "pp. 1, 3" when several are quoted) hold the answering page.
    let pages = source.split(" — ").find(|p| p.starts_with("p. ") || p.starts_with("pp. ")).unwrap_or_default();
    let cited: Vec<&str> = pages.trim_start_matches("pp. ").trim_start_matches("p. ").split(", ").collect();
    assert!(cited.contains(&"3"), "the citation names the page: {report}");
    let opening = report.split("\n\n").nth(1).unwrap_or_default();
    assert!(opening.starts_with("*p. 3:*"), "the answer opens with the answering page: {report}");
    assert!(source.contains("#page=3"), "and opens the PDF at it: {report}");
    // The quote was verified against the extracted text.
    let log = session_log(home.path());
    assert!(log.contains(r#""claims_supported":"#), "{log}");
    assert!(!report.contains("[unsupported]") && !report.contains("not found in"), "{report}");
}

/// An OpenAlex work in the documented shape with a short abstract.
fn short_work(id: u32, title: &str, abstract_text: &str) -> serde_json::Value {
    let mut index = serde_json::Map::new();
    for (i, w) in abstract_text.split_whitespace().enumerate() {
        let e = index.entry(w.to_string()).or_insert_with(|| serde_json::json!([]));
        e.as_array_mut().unwrap().push(serde_json::json!(i));
    }
    serde_json::json!({
        "id": format!("https://openalex.org/W{id}"),
        "doi": format!("https://doi.org/10.1000/short.{id}"),
        "display_name": title,
        "publication_year": 2020,
        "authorships": [{"author": {"display_name": "Kim Lee"}}],
        "primary_location": {"landing_page_url": format!("https://doi.org/10.1000/short.{id}"), "version": "publishedVersion",
            "source": {"display_name": "Mountain Science"}},
        "open_access": {"is_oa": false, "oa_url": null},
        "is_retracted": false,
        "cited_by_count": 1,
        "type": "article",
        "abstract_inverted_index": index
    })
}

/// Issue 28, item 5: abstracts and encyclopedia sections are short; the
/// built-in reasoner keeps the one that answers and cites it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_builtin_reasoner_answers_from_short_abstracts_and_encyclopedia_sections() {
    let server = MockServer::start().await;
    let works = serde_json::json!({"meta": {"count": 3}, "results": [
        short_work(1, "Tea customs of the Himalaya", "We survey tea brewing customs in Himalayan villages and their social meaning for hosts and guests."),
        short_work(2, "Boiling at altitude", "Water boils at about 93 degrees Celsius at 2,000 metres because the air pressure is lower there."),
        short_work(3, "Mountain kitchens", "Pressure cookers shorten cooking times in mountain kitchens."),
    ]});
    Mock::given(path("/openalex/works")).respond_with(json(works.to_string())).mount(&server).await;
    let search = serde_json::json!({"batchcomplete": true, "query": {"search": [
        {"ns": 0, "title": "Mountain climate", "pageid": 1, "snippet": "climate of mountains", "timestamp": "2024-01-01T00:00:00Z"}]}});
    Mock::given(path("/wiki/w/api.php"))
        .and(wiremock::matchers::query_param("list", "search"))
        .respond_with(json(search.to_string()))
        .mount(&server)
        .await;
    let extract = serde_json::json!({"batchcomplete": true, "query": {"pages": [{"pageid": 1, "ns": 0, "title": "Mountain climate",
        "extract": "Mountain climate is the climate of high places.\n\n== Air ==\nThe air is thinner and colder as altitude rises."}]}});
    Mock::given(path("/wiki/w/api.php"))
        .and(wiremock::matchers::query_param("prop", "extracts"))
        .respond_with(json(extract.to_string()))
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let env = vec![
        ("SLEUTH__OPENALEX__BASE_URL".to_string(), format!("{}/openalex", server.uri())),
        ("SLEUTH__OPENALEX__MIN_INTERVAL_MS".to_string(), "0".to_string()),
        ("SLEUTH__WIKIPEDIA__BASE_URL".to_string(), format!("{}/wiki", server.uri())),
        ("SLEUTH__WIKIPEDIA__MIN_INTERVAL_MS".to_string(), "0".to_string()),
    ];
    let question = "At what temperature does water boil at 2,000 metres?";
    let args = ["run", "--set", r#"search.chains=[["openalex"],["wikipedia"]]"#, "--max-iterations", "1", question];
    let out = tokio::task::spawn_blocking({
        let home = home.path().to_path_buf();
        move || bin::run_within(&home, &pairs(&env), &args, Duration::from_secs(60))
    })
    .await
    .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    if std::env::var("SLEUTH_TEST_SHOW").is_ok() {
        eprintln!("REPORT:\n{report}\n{}", String::from_utf8_lossy(&out.stderr));
    }
    let first = report.lines().skip(1).find(|l| !l.trim().is_empty()).unwrap_or_default();
    assert!(
        first.contains("Water boils at about 93 degrees Celsius at 2,000 metres"),
        "{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The 17-word abstract that answers is kept and cited with its metadata.
    assert!(report.contains("(Lee, Mountain Science, 2020) — https://doi.org/10.1000/short.2"), "{report}");
}
