//! The keyless providers against loopback servers answering in each API's
//! documented shapes (`tests/fixtures/<api>/`, sources noted there):
//! search, metadata, full text (PDF, JATS, article extracts) with the
//! abstract standing in, errors, rate limits (429 + Retry-After, MediaWiki's
//! maxlag, OpenAlex's 403), keys sent as documented, and the documented
//! spacing between requests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;
use std::time::{Duration, Instant};

use sleuth::search::local::extract::test_pdf;
use sleuth::search::scholarly::{self, ScholarlyConfig};
use sleuth::search::web::WebConfig;
use sleuth::search::{ProviderError, RouterSettings, SearchProvider, SearchQuery, SearchRouter};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::bin::rerun_with_env;

/// A fixture with `{{BASE}}` pointing at `server`.
fn fixture(server: &MockServer, file: &str) -> String {
    let text = std::fs::read_to_string(format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    text.replace("{{BASE}}", &server.uri())
}

/// Every provider pointed at `server`, at full speed (a loopback server is
/// one's own: the documented floor applies to the public services only).
fn config(server: &MockServer) -> ScholarlyConfig {
    let mut c = ScholarlyConfig::default();
    c.wikipedia.base_url = server.uri();
    c.wikipedia.min_interval_ms = 0;
    c.arxiv.base_url = server.uri();
    c.arxiv.min_interval_ms = 0;
    c.openalex.base_url = server.uri();
    c.openalex.min_interval_ms = 0;
    c.openalex.api_key_env = "SLEUTH_TEST_OPENALEX_KEY_UNSET".into();
    c.semanticscholar.base_url = server.uri();
    c.semanticscholar.min_interval_ms = 0;
    c.semanticscholar.api_key_env = "SLEUTH_TEST_S2_KEY_UNSET".into();
    c.europepmc.base_url = server.uri();
    c.europepmc.min_interval_ms = 0;
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    c
}

fn web() -> WebConfig {
    WebConfig { contact_email: Some("maintainer@example.org".into()), ..WebConfig::default() }
}

fn build(name: &str, cfg: &ScholarlyConfig) -> Arc<dyn SearchProvider> {
    scholarly::build(name, cfg, &web()).unwrap()
}

fn q(text: &str) -> SearchQuery {
    SearchQuery { text: text.into(), exclude: vec![], limit: 5 }
}

fn json(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).insert_header("content-type", "application/json").set_body_string(body)
}

fn pdf(pages: &[&str]) -> ResponseTemplate {
    ResponseTemplate::new(200).insert_header("content-type", "application/pdf").set_body_bytes(test_pdf(pages, None))
}

#[tokio::test]
async fn wikipedia_searches_reads_an_article_and_identifies_itself() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/w/api.php"))
        .and(query_param("list", "search"))
        .and(query_param("maxlag", "5"))
        .and(query_param("formatversion", "2"))
        .and(header("user-agent", "sleuth/0.1.0 (terminal research agent; mailto:maintainer@example.org) reqwest"))
        .respond_with(json(fixture(&server, "wikipedia/search.json")))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/w/api.php"))
        .and(query_param("prop", "extracts"))
        .and(query_param("titles", "Boiling point"))
        .respond_with(json(fixture(&server, "wikipedia/extract.json")))
        .mount(&server)
        .await;
    let wiki = build("wikipedia", &config(&server));
    let hits = wiki.search(&q("boiling point altitude")).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].locator, format!("{}/wiki/Boiling_point", server.uri()));
    assert!(hits[0].snippet.starts_with("The boiling point of a substance"), "tags stripped: {}", hits[0].snippet);
    assert!(hits[0].scholarly.is_none());
    let doc = wiki.fetch(&hits[0]).await.unwrap();
    assert!(doc.text.contains("## Saturation temperature and pressure"), "{}", doc.text);
    assert!(doc.text.contains("water boils at about 93 °C at an altitude of 2,000 metres"));
}

#[tokio::test]
async fn wikipedia_maxlag_is_a_wait_the_server_names() {
    let server = MockServer::start().await;
    Mock::given(path("/w/api.php"))
        .respond_with(
            json(fixture(&server, "wikipedia/maxlag.json"))
                .insert_header("retry-after", "5")
                .insert_header("x-database-lag", "6"),
        )
        .mount(&server)
        .await;
    let err = build("wikipedia", &config(&server)).search(&q("boiling")).await.unwrap_err();
    assert!(err.is_transient(), "{err}");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(5)));
    assert!(err.to_string().contains("6.2 seconds lagged"), "{err}");
}

#[tokio::test]
async fn arxiv_reads_the_feed_marks_preprints_and_reads_the_pdf() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/query"))
        .and(query_param("search_query", "all:boiling AND all:altitude"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "application/atom+xml; charset=utf-8")
                .set_body_string(fixture(&server, "arxiv/query.atom")),
        )
        .mount(&server)
        .await;
    Mock::given(path("/pdf/2401.01234v2"))
        .respond_with(pdf(&[
            "Boiling point depression of water at high altitude\nAbstract. We measure the boiling point of water at twelve\nstations between sea level and 4,500 metres. The boiling point falls\nby about one degree Celsius for every 300 metres of altitude.",
            "Method\nWe boiled water in an open pot at twelve stations.",
            "Results\nAt 3,000 metres water boiled at 89.9 degrees Celsius.\nThe boiling point fell by one degree per 300 metres.",
        ]))
        .mount(&server)
        .await;
    let arxiv = build("arxiv", &config(&server));
    let hits = arxiv.search(&q("boiling at altitude")).await.unwrap();
    assert_eq!(hits.len(), 2);
    let paper = &hits[0];
    assert_eq!(paper.locator, "https://arxiv.org/abs/2401.01234v2");
    assert_eq!(paper.title, "Boiling point depression of water at high altitude: a field study");
    assert_eq!(paper.canonical.as_deref(), Some("arxiv:2401.01234"), "every version is one work");
    let meta = paper.scholarly.as_deref().unwrap();
    assert_eq!(meta.authors, ["Maria Alvarez", "Tenzing Sherpa"]);
    assert!(meta.preprint);
    assert_eq!(meta.year, Some(2024));
    let published = hits[1].scholarly.as_deref().unwrap();
    assert!(!published.preprint, "a journal ref and a DOI: published");
    assert_eq!(published.doi.as_deref(), Some("10.1140/epjc/s2003-01326-x"));
    assert_eq!(published.venue.as_deref(), Some("Eur.Phys.J.C31:17-29,2003"));

    let doc = arxiv.fetch(paper).await.unwrap();
    assert!(doc.text.contains("## p. 3"), "{}", doc.text);
    assert_eq!(sleuth::text::pages::page_of(&doc.text, "water boiled at 89.9 degrees Celsius"), Some(3));
    assert_eq!(doc.title.as_deref(), Some(paper.title.as_str()));
}

#[tokio::test]
async fn arxiv_without_its_pdf_gives_the_abstract_and_its_error_feed_is_an_error() {
    let server = MockServer::start().await;
    Mock::given(path("/api/query"))
        .and(query_param("search_query", "all:boiling"))
        .respond_with(ResponseTemplate::new(200).set_body_string(fixture(&server, "arxiv/query.atom")))
        .mount(&server)
        .await;
    Mock::given(path("/api/query"))
        .and(query_param("search_query", "all:1234.12345"))
        .respond_with(ResponseTemplate::new(200).set_body_string(fixture(&server, "arxiv/error.atom")))
        .mount(&server)
        .await;
    // No PDF route: 404.
    let arxiv = build("arxiv", &config(&server));
    let hits = arxiv.search(&q("boiling")).await.unwrap();
    let doc = arxiv.fetch(&hits[0]).await.unwrap();
    assert!(doc.text.starts_with("We measure the boiling point of water at twelve stations"), "{}", doc.text);
    let err = arxiv.search(&q("1234.12345")).await.unwrap_err();
    assert!(!err.is_transient() && err.to_string().contains("incorrect id format for 1234.12345"), "{err}");
}

#[tokio::test]
async fn arxiv_requests_are_spaced_by_its_interval() {
    let server = MockServer::start().await;
    Mock::given(path("/api/query"))
        .respond_with(ResponseTemplate::new(200).set_body_string(fixture(&server, "arxiv/query.atom")))
        .mount(&server)
        .await;
    let mut cfg = config(&server);
    cfg.arxiv.min_interval_ms = 400;
    let arxiv = build("arxiv", &cfg);
    let started = Instant::now();
    let (qa, qb, qc) = (q("a b"), q("c d"), q("e f"));
    let (a, b, c) = tokio::join!(arxiv.search(&qa), arxiv.search(&qb), arxiv.search(&qc));
    assert!(a.is_ok() && b.is_ok() && c.is_ok());
    assert!(started.elapsed() >= Duration::from_millis(800), "three starts 400 ms apart: {:?}", started.elapsed());
    // The public service's three seconds cannot be configured away.
    cfg.arxiv.base_url = "https://export.arxiv.org".into();
    assert!(cfg.problems().iter().any(|(k, _)| k == "arxiv.min_interval_ms"));
}

#[tokio::test]
async fn openalex_rebuilds_abstracts_reads_metadata_and_the_open_access_copy() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/works"))
        .and(query_param("search", "boiling water altitude"))
        .and(query_param("mailto", "maintainer@example.org"))
        .respond_with(json(fixture(&server, "openalex/works.json")))
        .mount(&server)
        .await;
    Mock::given(path("/oa/altitude.pdf"))
        .respond_with(pdf(&[
            "Cooking at altitude\nWater boils when its vapour pressure equals the surrounding pressure. At higher\naltitudes it therefore boils at lower temperatures, since the atmospheric pressure\nfalls with height, and pasta needs longer to cook.",
            "At 2,500 metres the boiling point of water is 91.7 degrees Celsius, and pasta needs about three minutes longer.",
        ]))
        .mount(&server)
        .await;
    let oa = build("openalex", &config(&server));
    let hits = oa.search(&q("boiling water altitude")).await.unwrap();
    assert_eq!(hits.len(), 2);
    let work = &hits[0];
    assert_eq!(work.locator, "https://doi.org/10.1000/altitude.2019.7");
    assert_eq!(work.canonical.as_deref(), Some("doi:10.1000/altitude.2019.7"));
    assert!(work.snippet.starts_with("Water boils when its vapour pressure equals the surrounding pressure."));
    let m = work.scholarly.as_deref().unwrap();
    assert_eq!(m.authors, ["Jonas Keller", "Ana Lima"]);
    assert_eq!(m.venue.as_deref(), Some("Journal of Food Physics"));
    assert_eq!((m.year, m.cited_by, m.preprint, m.retracted), (Some(2019), Some(42), false, false));
    assert_eq!(m.pmid.as_deref(), Some("31000001"));
    assert_eq!(m.oa_url.as_deref(), Some(format!("{}/oa/altitude.pdf", server.uri()).as_str()));
    assert!(hits[1].scholarly.as_deref().unwrap().retracted);
    let doc = oa.fetch(work).await.unwrap();
    assert_eq!(sleuth::text::pages::page_of(&doc.text, "the boiling point of water is 91.7 degrees"), Some(2));
    // No open-access copy: the rebuilt abstract is the text.
    let doc = oa.fetch(&hits[1]).await.unwrap();
    assert!(doc.text.starts_with("We report that water boils at 120 degrees"), "{}", doc.text);
}

#[tokio::test]
async fn openalex_rate_limits_are_transient_and_name_the_key() {
    let server = MockServer::start().await;
    Mock::given(path("/works"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "2")
                .set_body_string(r#"{"error":"Rate limit exceeded","message":"Too many requests"}"#),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(path("/works"))
        .respond_with(ResponseTemplate::new(403).set_body_string(r#"{"error":"Forbidden","message":"slow down"}"#))
        .mount(&server)
        .await;
    let oa = build("openalex", &config(&server));
    let e = oa.search(&q("x")).await.unwrap_err();
    assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));
    assert!(e.to_string().contains("SLEUTH_TEST_OPENALEX_KEY_UNSET"), "{e}");
    let e = oa.search(&q("x")).await.unwrap_err();
    assert!(e.is_transient(), "OpenAlex's 403 means slow down: {e}");
}

#[tokio::test]
async fn semantic_scholar_sends_its_key_reads_papers_and_explains_the_shared_pool() {
    // The provider reads its key from the process environment: the test runs
    // in a child of this binary that has it, never set here, where the
    // binary's other tests run on other threads.
    if std::env::var_os("SLEUTH_TEST_S2_KEY_SET").is_none() {
        let name = "semantic_scholar_sends_its_key_reads_papers_and_explains_the_shared_pool";
        return rerun_with_env(module_path!(), name, &[("SLEUTH_TEST_S2_KEY_SET", "s2-canary-key")]);
    }
    let server = MockServer::start().await;
    Mock::given(path("/graph/v1/paper/search"))
        .and(header("x-api-key", "s2-canary-key"))
        .and(query_param("query", "pressure cooker boiling"))
        .respond_with(json(fixture(&server, "semanticscholar/search.json")))
        .mount(&server)
        .await;
    Mock::given(path("/graph/v1/paper/search"))
        .respond_with(ResponseTemplate::new(429).set_body_string(
            r#"{"message": "Too Many Requests. Please wait and try again or apply for a key for higher rate limits.", "code": "429"}"#,
        ))
        .mount(&server)
        .await;
    let mut cfg = config(&server);
    // Without a key: the keyless pool answered 429, and the error says what a key does.
    let e = build("semanticscholar", &cfg).search(&q("pressure cooker boiling")).await.unwrap_err();
    assert!(e.is_transient() && e.to_string().contains("SLEUTH_TEST_S2_KEY_UNSET"), "{e}");
    // With a key: sent as x-api-key, never shown.
    cfg.semanticscholar.api_key_env = "SLEUTH_TEST_S2_KEY_SET".into();
    let s2 = build("semanticscholar", &cfg);
    let hits = s2.search(&q("pressure cooker boiling")).await.unwrap();
    assert_eq!(hits.len(), 2);
    let m = hits[0].scholarly.as_deref().unwrap();
    assert_eq!(m.venue.as_deref(), Some("Journal of Appropriate Technology"));
    assert_eq!(m.doi.as_deref(), Some("10.1000/cooker.2020.2"));
    assert_eq!(m.oa_url, None, "an empty openAccessPdf url is none");
    assert!(!m.preprint);
    let e2 = hits[1].scholarly.as_deref().unwrap();
    assert!(e2.preprint, "an arXiv.org venue is a preprint server");
    assert_eq!(hits[1].canonical.as_deref(), Some("arxiv:2401.01234"), "the same work as arXiv's");
    // Excluded terms are filtered out of the answer.
    let only = s2
        .search(&SearchQuery { text: "pressure cooker boiling".into(), exclude: vec!["villages".into()], limit: 5 })
        .await
        .unwrap();
    assert_eq!(only.len(), 1);
}

#[tokio::test]
async fn europe_pmc_reads_core_records_retractions_and_the_open_access_full_text() {
    let server = MockServer::start().await;
    Mock::given(path("/search"))
        .and(query_param("resultType", "core"))
        .and(query_param("format", "json"))
        .respond_with(json(fixture(&server, "europepmc/search.json")))
        .mount(&server)
        .await;
    Mock::given(path("/PMC6910996/fullTextXML"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "application/xml")
                .set_body_string(fixture(&server, "europepmc/fulltext.xml")),
        )
        .mount(&server)
        .await;
    let pmc = build("europepmc", &config(&server));
    let hits = pmc.search(&q("boiling point water altitude")).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].locator, "https://europepmc.org/article/MED/31836719");
    let m = hits[0].scholarly.as_deref().unwrap();
    assert_eq!(m.authors, ["Hiro Nakamura", "Katrin Bauer"]);
    assert_eq!(hits[0].title, "Dehydration and cooking water at high altitude expeditions");
    assert_eq!(m.venue.as_deref(), Some("High Altitude Medicine & Biology"));
    assert_eq!((m.year, m.pmid.as_deref(), m.retracted), (Some(2019), Some("31836719"), false));
    assert!(hits[0].snippet.contains("Results: At 5,000 metres"), "{}", hits[0].snippet);
    assert!(hits[1].scholarly.as_deref().unwrap().retracted, "pubType Retracted Publication");
    let doc = pmc.fetch(&hits[0]).await.unwrap();
    assert!(doc.text.contains("## Results"), "{}", doc.text);
    assert!(doc.text.contains("at the summit of Mount Everest the boiling point is about 70 degrees Celsius"));
    assert!(!doc.text.contains("Reference one"), "references left out");
    // A closed record reads as its abstract.
    let doc = pmc.fetch(&hits[1]).await.unwrap();
    assert_eq!(doc.text, "Drinking water boiled at altitude cures hypoxia.");
}

#[tokio::test]
async fn the_router_retries_a_rate_limited_provider_after_its_wait() {
    let server = MockServer::start().await;
    Mock::given(path("/europepmc/search"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "1"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(path("/europepmc/search"))
        .respond_with(json(fixture(&server, "europepmc/search.json")))
        .mount(&server)
        .await;
    let mut cfg = config(&server);
    cfg.europepmc.base_url = format!("{}/europepmc", server.uri());
    let router = SearchRouter::new(vec![vec![build("europepmc", &cfg)]], &RouterSettings::default());
    let started = Instant::now();
    let routed = router.search(&q("boiling")).await;
    assert_eq!(routed.providers_used, ["europepmc"]);
    assert_eq!(routed.attempts, 2);
    assert!(started.elapsed() >= Duration::from_secs(1), "waited as Retry-After said");
    assert!(matches!(
        router.fetch("europepmc", &routed.hits[1].1).await,
        Ok(doc) if doc.text.contains("cures hypoxia")
    ));
}

#[tokio::test]
async fn any_web_result_that_is_a_pdf_is_read_by_page_and_scans_and_oversize_ones_are_skipped_with_the_reason() {
    let server = MockServer::start().await;
    Mock::given(path("/report.pdf"))
        .respond_with(pdf(&["Annual report", "The reservoir held 41 million cubic metres in August."]))
        .mount(&server)
        .await;
    // Served without a type: recognised by its first bytes.
    Mock::given(path("/download"))
        .respond_with(
            ResponseTemplate::new(200).set_body_bytes(test_pdf(
                &["Untyped download of a report", "A served PDF without a declared type."],
                None,
            )),
        )
        .mount(&server)
        .await;
    Mock::given(path("/scan.pdf")).respond_with(pdf(&["", ""])).mount(&server).await;
    let big: Vec<String> =
        (0..400).map(|i| format!("Page {i} says the same long sentence about reservoirs again.")).collect();
    let big: Vec<&str> = big.iter().map(String::as_str).collect();
    Mock::given(path("/big.pdf")).respond_with(pdf(&big)).mount(&server).await;
    let client =
        sleuth::search::web::WebClient::new(&WebConfig { max_pdf_bytes: 16 * 1024, ..WebConfig::default() }).unwrap();
    let doc = client.fetch_page(&format!("{}/report.pdf", server.uri())).await.unwrap();
    assert_eq!(sleuth::text::pages::page_of(&doc.text, "41 million cubic metres"), Some(2), "{}", doc.text);
    assert_eq!(doc.title.as_deref(), Some("Annual report"));
    let doc = client.fetch_page(&format!("{}/download", server.uri())).await.unwrap();
    assert!(doc.text.contains("## p. 2\n\nA served PDF without a declared type."), "{}", doc.text);
    let e = client.fetch_page(&format!("{}/scan.pdf", server.uri())).await.unwrap_err();
    assert!(matches!(&e, ProviderError::Skipped { reason } if reason.contains("without a text layer")), "{e}");
    let e = client.fetch_page(&format!("{}/big.pdf", server.uri())).await.unwrap_err();
    assert!(matches!(&e, ProviderError::Skipped { reason } if reason.contains("max_pdf_bytes")), "{e}");
}
