//! The `opensearch` provider against clusters on loopback (wiremock)
//! answering in OpenSearch's documented JSON shapes: the search body it
//! sends (checked against the official API specification's schema),
//! highlighted hits as passages, failover between nodes, retries through
//! the router, page fetches.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;

use crate::support::opensearch::{cluster, schema};
use serde_json::{Value, json};
use sleuth::search::opensearch::{OpenSearchConfig, OpenSearchProvider};
use sleuth::search::{RouterSettings, SearchHit, SearchProvider, SearchQuery, SearchRouter};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn config(urls: &[String]) -> OpenSearchConfig {
    OpenSearchConfig { url: urls.to_vec(), index: "docs".into(), ..OpenSearchConfig::default() }
}

fn query(text: &str, exclude: &[&str]) -> SearchQuery {
    SearchQuery { text: text.into(), exclude: exclude.iter().map(|s| s.to_string()).collect(), limit: 5 }
}

/// A `_search` answer as OpenSearch sends it: two passages of one page and
/// one of another, with highlights.
fn answer() -> Value {
    json!({
        "took": 4, "timed_out": false,
        "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
        "hits": { "total": { "value": 3, "relation": "eq" }, "max_score": 7.5, "hits": [
            { "_index": "docs", "_id": "guide/cables.md#0", "_score": 7.5,
              "_source": { "path": "guide/cables.md", "url": "file:///srv/docs/guide/cables.md", "anchor": "shielding",
                           "title": "Cables", "heading": "Shielding", "text": "Widgets connect to gadgets over a shielded cable.", "words": 60 },
              "highlight": { "text": ["Widgets <em>connect</em> to <em>gadgets</em> over a shielded cable."] } },
            { "_index": "docs", "_id": "guide/ports.md#2", "_score": 6.0,
              "_source": { "path": "guide/ports.md", "url": "file:///srv/docs/guide/ports.md",
                           "title": "Ports", "text": "Gadget ports accept one widget each.", "words": 60 },
              "highlight": { "text": ["<em>Gadget</em> ports accept one widget each."] } },
            { "_index": "docs", "_id": "guide/cables.md#1", "_score": 2.0,
              "_source": { "path": "guide/cables.md", "url": "file:///srv/docs/guide/cables.md", "anchor": "length",
                           "title": "Cables", "heading": "Length", "text": "Cables run up to ten metres.", "words": 60 } }
        ] }
    })
}

#[tokio::test]
async fn search_sends_a_spec_valid_body_and_turns_highlighted_hits_into_passages() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/docs/_search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(answer()))
        .expect(1)
        .mount(&server)
        .await;
    let provider = OpenSearchProvider::new(&config(&[server.uri()])).unwrap();
    let hits = provider.search(&query("how do widgets connect to gadgets", &["wireless"])).await.unwrap();

    let received = server.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(received[0].headers.get("content-type").unwrap(), "application/json");
    let errors = schema::Schema::fixture("search_body.json").errors(&body);
    assert!(errors.is_empty(), "the search body breaks the specification: {errors:#?}\n{body:#}");
    let mm = &body["query"]["bool"]["must"][0]["multi_match"];
    assert_eq!(mm["query"], "how do widgets connect to gadgets");
    assert_eq!(mm["fields"], json!(["text^1", "title^2", "heading^1.5"]));
    assert_eq!(body["query"]["bool"]["must_not"][1]["multi_match"]["query"], "wireless");
    assert_eq!(body["highlight"]["fields"]["text"]["number_of_fragments"], 3);

    // One hit per page, the page with two passages first (7.5 + 0.5 × 2).
    assert_eq!(hits.len(), 2);
    let first: &SearchHit = &hits[0];
    assert_eq!(first.locator, "file:///srv/docs/guide/cables.md#shielding");
    assert_eq!(first.canonical.as_deref(), Some("guide/cables.md"));
    assert_eq!(first.heading.as_deref(), Some("Shielding"));
    assert_eq!(first.title, "Cables");
    assert_eq!(first.snippet, "Widgets connect to gadgets over a shielded cable.");
    assert!((first.score - 8.5).abs() < 1e-4, "{}", first.score);
    assert_eq!(first.site.as_deref(), Some("guide"));
    assert_eq!(first.tier, Some(1));
    assert_eq!(hits[1].locator, "file:///srv/docs/guide/ports.md");
}

#[tokio::test]
async fn an_index_sleuth_did_not_create_is_read_through_the_configured_fields() {
    let server = MockServer::start().await;
    let answer = json!({ "hits": { "hits": [
        { "_id": "KB-17", "_score": 3.0, "_source": { "body": ["Reset the router, then the modem."],
          "subject": "Resetting", "link": "https://wiki.example/kb/17", "section": "Steps" } } ] } });
    Mock::given(method("POST"))
        .and(path("/tickets/_search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(answer))
        .mount(&server)
        .await;
    let cfg = OpenSearchConfig {
        index: "tickets".into(),
        text_field: "body".into(),
        title_field: "subject".into(),
        url_field: "link".into(),
        heading_field: "section".into(),
        anchor_field: String::new(),
        ..config(&[server.uri()])
    };
    let hits = OpenSearchProvider::new(&cfg).unwrap().search(&query("reset router", &[])).await.unwrap();
    assert_eq!(hits[0].locator, "https://wiki.example/kb/17");
    assert_eq!(hits[0].title, "Resetting");
    assert_eq!(hits[0].heading.as_deref(), Some("Steps"));
    assert_eq!(hits[0].site.as_deref(), Some("wiki.example"));
    let body: Value = serde_json::from_slice(&server.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!(
        body["query"]["bool"]["must"][0]["multi_match"]["fields"],
        json!(["body^1", "subject^2", "section^1.5"])
    );
    assert!(schema::Schema::fixture("search_body.json").errors(&body).is_empty());
}

#[tokio::test]
async fn a_failing_node_hands_the_request_to_the_next_which_then_goes_first() {
    // Node 1 is down (a closed port), node 2 is overloaded (503), node 3 answers.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let busy = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(503)).mount(&busy).await;
    let good = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/docs/_search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(answer()))
        .mount(&good)
        .await;
    let provider = OpenSearchProvider::new(&config(&[closed, busy.uri(), good.uri()])).unwrap();
    assert_eq!(provider.search(&query("widgets", &[])).await.unwrap().len(), 2);
    assert_eq!(provider.search(&query("gadgets", &[])).await.unwrap().len(), 2);
    assert_eq!(
        busy.received_requests().await.unwrap().len(),
        1,
        "the second search went straight to the node that answered"
    );
    assert_eq!(good.received_requests().await.unwrap().len(), 2);

    // Every node failing is a transient error naming each.
    let provider = OpenSearchProvider::new(&config(&[busy.uri()])).unwrap();
    let err = provider.search(&query("widgets", &[])).await.unwrap_err();
    assert!(err.is_transient() && err.to_string().contains("503"), "{err}");
}

#[tokio::test]
async fn the_router_retries_a_429_and_a_bad_request_is_not_retried() {
    let server = MockServer::start().await;
    let too_many =
        json!({ "error": { "type": "es_rejected_execution_exception", "reason": "search queue full" }, "status": 429 });
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_json(too_many).insert_header("retry-after", "0"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/docs/_search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(answer()))
        .mount(&server)
        .await;
    let provider: Arc<dyn SearchProvider> = Arc::new(OpenSearchProvider::new(&config(&[server.uri()])).unwrap());
    let settings = RouterSettings { attempts: 3, backoff_min_ms: 1, backoff_max_ms: 5, ..RouterSettings::default() };
    let router = SearchRouter::new(vec![vec![provider]], &settings);
    let routed = sleuth::engine::ports::Searcher::search(&router, &query("widgets", &[])).await;
    assert!(routed.error.is_none(), "{:?}", routed.error);
    assert_eq!(routed.hits.len(), 2);
    assert_eq!(routed.hits[0].0, "opensearch");
    assert_eq!(routed.attempts, 2);

    // A 400 (a query the cluster refuses) is permanent: one attempt.
    let bad = MockServer::start().await;
    let refused = json!({ "error": { "type": "search_phase_execution_exception", "reason": "all shards failed" }, "status": 400 });
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(400).set_body_json(refused)).mount(&bad).await;
    let provider: Arc<dyn SearchProvider> = Arc::new(OpenSearchProvider::new(&config(&[bad.uri()])).unwrap());
    let router = SearchRouter::new(vec![vec![provider]], &settings);
    let routed = sleuth::engine::ports::Searcher::search(&router, &query("widgets", &[])).await;
    assert_eq!(bad.received_requests().await.unwrap().len(), 1);
    assert!(routed.error.unwrap().contains("search_phase_execution_exception: all shards failed"));
}

#[tokio::test]
async fn a_fetch_reads_the_page_document_or_else_joins_the_pages_passages() {
    let (server, fake) = cluster::FakeCluster::start().await;
    {
        let mut s = fake.state();
        let mut docs = std::collections::BTreeMap::new();
        docs.insert(
            "page:guide/cables.md".to_string(),
            json!({ "kind": "page", "path": "guide/cables.md",
            "page_title": "Cables", "page_text": "# Cables\n\nWidgets connect to gadgets.\u{1b}[2J" }),
        );
        docs.insert("kb.md#10".to_string(), json!({ "kind": "passage", "url": "https://kb/x#c", "text": "third" }));
        docs.insert("kb.md#2".to_string(), json!({ "kind": "passage", "url": "https://kb/x#b", "text": "second" }));
        s.indexes.insert("docs".into(), (json!({}), docs));
    }
    let provider = OpenSearchProvider::new(&config(&[server.uri()])).unwrap();
    let hit = |canonical: &str| SearchHit {
        locator: canonical.into(),
        title: String::new(),
        snippet: String::new(),
        score: 1.0,
        kind: sleuth::engine::model::SourceKind::Local,
        canonical: Some(canonical.into()),
        heading: None,
        published: None,
        site: None,
        tier: None,
        scholarly: None,
    };
    let doc = provider.fetch(&hit("guide/cables.md")).await.unwrap();
    assert_eq!(doc.title.as_deref(), Some("Cables"));
    assert_eq!(doc.text, "# Cables\n\nWidgets connect to gadgets.", "escapes stripped");
    let requested: Vec<String> = fake.state().requests.iter().map(|r| r.1.clone()).collect();
    assert!(requested.contains(&"docs/_doc/page:guide/cables.md".to_string()), "{requested:?}");

    // No page document (an index sleuth did not write): the page's
    // passages by URL, in their order within the page.
    let doc = provider.fetch(&hit("https://kb/x")).await.unwrap();
    assert_eq!(doc.text, "second\n\nthird");

    // Nothing holds the page: a permanent error when nothing else holds the page.
    let err = provider.fetch(&hit("missing.md")).await.unwrap_err();
    assert!(!err.is_transient() && err.to_string().contains("missing.md"), "{err}");
}

#[test]
fn the_schema_check_catches_a_misspelt_key_a_wrong_value_and_a_missing_field() {
    let schema = schema::Schema::fixture("search_body.json");
    let good =
        json!({ "size": 5, "query": { "multi_match": { "query": "x", "fields": ["a^2"], "type": "most_fields" } } });
    assert!(schema.errors(&good).is_empty(), "{:?}", schema.errors(&good));
    let typo = json!({ "size": 5, "hightlight": {} });
    assert!(schema.errors(&typo).iter().any(|e| e.contains("hightlight")), "{:?}", schema.errors(&typo));
    let wrong_type = json!({ "query": { "multi_match": { "query": "x", "type": "most_field" } } });
    assert!(!schema.errors(&wrong_type).is_empty());
    let no_query = json!({ "query": { "multi_match": { "fields": ["a"] } } });
    assert!(schema.errors(&no_query).iter().any(|e| e.contains("`query`")), "{:?}", schema.errors(&no_query));
    let size_text = json!({ "size": "five" });
    assert!(!schema.errors(&size_text).is_empty());
}
