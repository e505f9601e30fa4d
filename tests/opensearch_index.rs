//! `sleuth index --to opensearch` against a one-node cluster on loopback
//! that keeps what it is sent: the index created with a mapping and the
//! `_bulk` actions valid under the official API specification, NDJSON
//! framing, near-duplicates folded, incremental runs (unchanged files
//! skipped, changed and removed ones deleted), push-back retried, and the
//! binary's `index --to opensearch` and `doctor` as a user runs them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;

use crate::support::bin;
use crate::support::opensearch::{cluster, schema};
use cluster::FakeCluster;
use serde_json::{Value, json};
use sleuth::search::local::LocalConfig;
use sleuth::search::opensearch::{OpenSearchConfig, OpenSearchProvider, index_folder};
use sleuth::search::{SearchProvider, SearchQuery};

fn section(topic: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("The {topic} note {i} explains how a widget meets its gadget on port {}.", i * 3))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Three pages, one of them twice (a near-identical copy in another folder).
fn corpus(dir: &Path) {
    let cables =
        format!("# Cables\n\n## Shielding\n\n{}\n\n## Length\n\n{}\n", section("shielding", 12), section("length", 12));
    std::fs::create_dir_all(dir.join("guide")).unwrap();
    std::fs::create_dir_all(dir.join("mirror")).unwrap();
    std::fs::write(dir.join("guide/cables.md"), &cables).unwrap();
    std::fs::write(dir.join("mirror/cables.md"), &cables).unwrap();
    std::fs::write(dir.join("guide/ports.md"), format!("# Ports\n\n{}\n", section("ports", 10))).unwrap();
    std::fs::write(dir.join("notes.txt"), format!("Notes\n\n{}\n", section("notes", 8))).unwrap();
}

fn config(url: String) -> OpenSearchConfig {
    OpenSearchConfig {
        url: vec![url],
        index: "docs".into(),
        bulk_docs: 4,
        bulk_in_flight: 2,
        ..OpenSearchConfig::default()
    }
}

fn quiet(_: &str) {}

/// Checks every `_bulk` body: each action line valid under the spec and
/// followed by its source line (none after a delete), a final newline.
fn check_bulk_bodies(fake: &FakeCluster) -> usize {
    let schema = schema::Schema::fixture("bulk_action.json");
    let bodies = fake.bodies("POST", "_bulk");
    for body in &bodies {
        assert!(body.ends_with('\n'), "no final newline: {body:?}");
        let lines: Vec<&str> = body.split_terminator('\n').collect();
        let mut i = 0;
        while i < lines.len() {
            let action: Value = serde_json::from_str(lines[i]).unwrap();
            let errors = schema.errors(&action);
            assert!(errors.is_empty(), "{errors:?}: {action}");
            if action.get("delete").is_some() {
                i += 1;
            } else {
                let source: Value = serde_json::from_str(lines.get(i + 1).expect("a source line")).unwrap();
                assert!(
                    source.is_object() && source.get("index").is_none() && source.get("delete").is_none(),
                    "{source}"
                );
                i += 2;
            }
        }
    }
    bodies.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indexing_creates_a_spec_valid_mapping_and_loads_canonical_pages_in_batches() {
    let (server, fake) = FakeCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let summary = index_folder(&config(server.uri()), &LocalConfig::default(), &root, &quiet).await.unwrap();

    assert_eq!(summary.created, vec!["docs", "docs-files"]);
    let create = schema::Schema::fixture("indices_create_body.json");
    for index in ["docs", "docs-files"] {
        let body: Value = serde_json::from_str(&fake.bodies("PUT", index)[0]).unwrap();
        let errors = create.errors(&body);
        assert!(errors.is_empty(), "{index}: {errors:#?}");
    }
    let mapping: Value = serde_json::from_str(&fake.bodies("PUT", "docs")[0]).unwrap();
    for f in ["text", "title", "heading"] {
        assert_eq!(mapping["mappings"]["properties"][f], json!({ "type": "text", "analyzer": "english" }));
    }
    for f in ["path", "anchor", "url"] {
        assert_eq!(mapping["mappings"]["properties"][f]["type"], "keyword");
    }

    let batches = check_bulk_bodies(&fake);
    assert!(batches >= 3, "4 documents per batch make several batches ({batches})");
    let docs = fake.docs("docs");
    let pages: Vec<&str> = docs.values().filter(|d| d["kind"] == "page").map(|d| d["path"].as_str().unwrap()).collect();
    assert_eq!(pages.len(), 3, "the copy is folded into its canonical page: {pages:?}");
    assert!(pages.contains(&"guide/ports.md") && pages.contains(&"notes.txt"));
    assert_eq!(summary.corpus.duplicates, 1);
    assert_eq!(summary.corpus.pages, 4);
    let shielding = docs.values().find(|d| d["heading"] == "Shielding").unwrap();
    assert_eq!(shielding["anchor"], "shielding");
    assert_eq!(shielding["title"], "Cables");
    assert!(shielding["url"].as_str().unwrap().starts_with("file:///"));
    assert!(shielding["words"].as_u64().unwrap() > 20);
    // Every file is recorded beside the index, the folded copy as not present.
    let files = fake.docs("docs-files");
    let files: Vec<&Value> = files.values().filter(|f| f.get("path").is_some()).collect();
    assert_eq!(files.len(), 4);
    assert_eq!(files.iter().filter(|f| f["present"] == false).count(), 1);

    // What was loaded is searchable and fetchable through the provider.
    let provider = OpenSearchProvider::new(&config(server.uri())).unwrap();
    let q = SearchQuery { text: "shielding".into(), exclude: vec![], limit: 3 };
    let hits = provider.search(&q).await.unwrap();
    assert_eq!(hits[0].heading.as_deref(), Some("Shielding"));
    assert!(hits[0].locator.ends_with("cables.md#shielding"), "{}", hits[0].locator);
    let page = provider.fetch(&hits[0]).await.unwrap();
    assert!(page.text.contains("Length") && page.text.contains("shielding note 11"), "{}", page.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_run_skips_unchanged_files_and_deletes_removed_and_shrunken_ones() {
    let (server, fake) = FakeCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (cfg, local) = (config(server.uri()), LocalConfig { passage_words: 40, ..LocalConfig::default() });
    index_folder(&cfg, &local, &root, &quiet).await.unwrap();
    let before = fake.docs("docs");

    // Nothing changed: nothing is written.
    let bulks = fake.bodies("POST", "_bulk").len();
    let again = index_folder(&cfg, &local, &root, &quiet).await.unwrap();
    assert_eq!(again.corpus.unchanged, 4);
    assert_eq!(again.corpus.extracted, 0);
    assert_eq!(fake.bodies("POST", "_bulk").len(), bulks, "no _bulk request for an unchanged corpus");
    assert_eq!(fake.docs("docs"), before);

    // notes.txt removed; ports.md shrinks to one passage.
    let ports_passages = before.keys().filter(|k| k.starts_with("guide/ports.md#")).count();
    assert!(ports_passages >= 2, "{ports_passages}");
    std::fs::remove_file(root.join("notes.txt")).unwrap();
    std::fs::write(
        root.join("guide/ports.md"),
        "# Ports\n\nOne short paragraph about gadget ports and nothing more.\n",
    )
    .unwrap();
    let third = index_folder(&cfg, &local, &root, &quiet).await.unwrap();
    assert_eq!((third.corpus.removed, third.corpus.extracted), (1, 1));
    check_bulk_bodies(&fake);
    let after = fake.docs("docs");
    assert!(!after.values().any(|d| d["path"] == "notes.txt"), "the removed file's documents are gone");
    let ports: Vec<&String> = after.keys().filter(|k| k.starts_with("guide/ports.md#")).collect();
    assert_eq!(ports, vec!["guide/ports.md#0"], "stale passages of the changed file are deleted");
    assert!(after["guide/ports.md#0"]["text"].as_str().unwrap().contains("nothing more"));
    assert!(!fake.docs("docs-files").values().any(|f| f["path"] == "notes.txt"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushback_from_the_cluster_is_retried_until_everything_is_written() {
    let (server, fake) = FakeCluster::start().await;
    {
        let mut s = fake.state();
        s.refuse_bulk = 2;
        s.reject_items = 3;
    }
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let summary = index_folder(&config(server.uri()), &LocalConfig::default(), &root, &quiet).await.unwrap();
    assert!(summary.bulk.failed.is_empty(), "{:?}", summary.bulk.failed);
    assert!(summary.bulk.retried >= 2, "{}", summary.bulk.retried);
    // Every passage of the three canonical pages and their page documents arrived.
    let docs = fake.docs("docs");
    let passages = docs.values().filter(|d| d["kind"] == "passage").count();
    let pages = docs.values().filter(|d| d["kind"] == "page").count();
    assert_eq!(pages, 3);
    let files = fake.docs("docs-files");
    let present: u64 =
        files.values().filter(|f| f["present"] == true).map(|f| f["record"]["passages"].as_u64().unwrap()).sum();
    assert_eq!(passages as u64, present);
    let s = fake.state();
    assert_eq!((s.refuse_bulk, s.reject_items), (0, 0), "the cluster pushed back as set");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_more_batches_are_in_flight_than_configured() {
    let (server, fake) = FakeCluster::start().await;
    let delay = std::time::Duration::from_millis(300);
    fake.state().bulk_delay = delay;
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let cfg = OpenSearchConfig { bulk_docs: 2, bulk_in_flight: 2, ..config(server.uri()) };
    index_folder(&cfg, &LocalConfig::default(), &root, &quiet).await.unwrap();
    let arrivals = fake.state().bulk_arrivals.clone();
    assert!(arrivals.len() >= 4, "{} batches", arrivals.len());
    // Each answer takes `delay`: requests that arrive closer together than
    // that were in flight at once, and there are never more than two.
    let window = delay.mul_f64(0.8);
    let most =
        arrivals.iter().map(|t| arrivals.iter().filter(|u| **u >= *t && **u - *t < window).count()).max().unwrap();
    assert!(most <= 2, "{most} batches in flight at once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_indexes_into_the_cluster_and_doctor_reports_on_it_without_showing_the_key() {
    let (server, fake) = FakeCluster::start().await;
    let secret = "os-key-5f1e-never-shown";
    fake.state().auth = Some(format!("ApiKey {secret}"));
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let config = format!(
        "[search]\nchains = [[\"opensearch\"]]\n\n[opensearch]\nurl = \"{}\"\nindex = \"docs\"\napi_key_env = \"SLEUTH_TEST_OS_KEY\"\n",
        server.uri()
    );
    std::fs::write(home.path().join("config.toml"), &config).unwrap();
    let key = [("SLEUTH_TEST_OS_KEY", secret)];
    let out = bin::run_async(home.path(), &key, &["index", "--to", "opensearch", dir.path().to_str().unwrap()]).await;
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("into docs (opensearch)") && stdout.contains("4 pages"), "{stdout}");
    assert!(stdout.contains("1 near-duplicate pages folded"), "{stdout}");
    assert!(stderr.contains("opensearch: 4 files, 4 new or changed, 0 removed"), "{stderr}");
    assert!(!fake.docs("docs").is_empty());

    let out = bin::run_async(home.path(), &key, &["doctor", "--query", "shielding"]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for row in ["reachable", "auth", "cluster health", "index", "documents", "mapping", "test query"] {
        assert!(stdout.lines().any(|l| l.trim_start().starts_with(row) && l.contains(" ok ")), "row {row}:\n{stdout}");
    }
    assert!(stdout.contains("opensearch 2.19.1"), "{stdout}");
    assert!(stdout.contains("fields: ") && stdout.contains("text (text)"), "{stdout}");
    assert!(!stdout.contains(secret));

    // A wrong key: the auth row fails, and the run says so with exit 1.
    let out = bin::run_async(home.path(), &[("SLEUTH_TEST_OS_KEY", "wrong")], &["doctor"]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    let auth = stdout.lines().find(|l| l.trim_start().starts_with("auth")).unwrap();
    assert!(auth.contains("FAIL") && auth.contains("401") && auth.contains("api_key_env"), "{auth}");
    assert!(!stdout.contains("ApiKey"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_research_run_over_the_cluster_cites_its_pages() {
    let (server, _fake) = FakeCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let root = std::fs::canonicalize(dir.path()).unwrap();
    index_folder(&config(server.uri()), &LocalConfig::default(), &root, &quiet).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let config = format!(
        "[search]\nchains = [[\"opensearch\"]]\n\n[opensearch]\nurl = \"{}\"\nindex = \"docs\"\n",
        server.uri()
    );
    std::fs::write(home.path().join("config.toml"), &config).unwrap();
    let out = bin::run_async(
        home.path(),
        &[],
        &["run", "--max-iterations", "1", "--time-limit", "0", "How does shielding help a widget meet its gadget?"],
    )
    .await;
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("cables.md#shielding"), "the report cites the cluster's passage:\n{stdout}\n{stderr}");
}
