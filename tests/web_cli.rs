//! The web path as a user meets it: the real binary (`sleuth run`,
//! `sleuth doctor`) against SearXNG-format and Tavily servers on loopback
//! (wiremock), `SLEUTH_HOME` a temp dir. What was sent is read from the
//! requests the servers received; what happened, from the session's log
//! and the report on stdout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::support;
use crate::support::web_mock::*;
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const QUESTION: &str = "How do widgets connect to gadgets?";

fn fact(i: usize) -> String {
    format!(
        "Widget model {i} connects to gadget port {} over a shielded cable, and the gadget answers within {} \
         milliseconds once the widget has sent its greeting frame",
        i * 7,
        i * 3 + 2
    )
}

/// A page about the question.
fn on_topic(i: usize) -> String {
    article(
        &format!("Widget note {i}"),
        "2025-06-01",
        &[
            &format!("{}. It was measured in lab {i} during the spring trials.", fact(i)),
            "The cable that connects widgets to gadgets is rated for outdoor use, engineers reported after field tests.",
        ],
    )
}

/// A page about something else, whose words recur from page to page.
fn off_topic(i: usize) -> String {
    let p = format!(
        "Casino jackpot night {i}: the lottery bonus pays tonight, slots and poker tables open late, \
         jackpot winners collect their lottery prize at the casino desk before the poker tournament starts."
    );
    article(&format!("Casino {i}"), "2025-06-01", &[&p, &p.replace("night", "evening")])
}

/// `sleuth run` of `QUESTION` with `config` as the config file; thresholds
/// it cannot meet, so it runs `iterations` iterations unless it converges.
async fn run(home: &Path, config: &str, iterations: u32, extra: &[&str]) -> (String, String) {
    std::fs::write(home.join("config.toml"), config).unwrap();
    let n = iterations.to_string();
    let mut args = vec!["run", "--max-iterations", &n, "--time-limit", "0"];
    for set in [
        "decide.confidence_threshold=1.0",
        "decide.coverage_threshold=1.0",
        "decide.diminishing_returns_window=50",
        "decide.severity_plateau_window=50",
    ] {
        args.extend(["--set", set]);
    }
    args.extend(extra);
    args.push(QUESTION);
    let out = support::bin::run_async(home, &[], &args).await;
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    // 4: finished, but the sources do not answer (strict mode can filter every page).
    assert!(matches!(out.status.code(), Some(0 | 4)), "exit {:?}\n{stderr}", out.status);
    (stdout, stderr)
}

/// The session's events, as JSON.
fn events(home: &Path) -> Vec<Value> {
    let ids = support::e2e::session_ids(home);
    let id = ids.last().expect("a session");
    let log = std::fs::read_to_string(home.join("sessions").join(id).join("events.jsonl")).unwrap();
    log.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["event"].clone()).collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn searxng_config(server: &MockServer, more: &str) -> String {
    format!(
        "[search]\nchains = [[\"searxng\"]]\n{more}\n[web]\nsearxng_url = \"{}\"\npoliteness_delay_ms = 0\n",
        server.uri()
    )
}

async fn searches(server: &MockServer) -> Vec<String> {
    server.received_requests().await.unwrap().iter().filter(|r| r.url.path() == "/search").map(query_of).collect()
}

/// A query as sent: its words, and the terms it excludes (`-term`).
fn split_query(q: &str) -> (Vec<String>, Vec<String>) {
    let (minus, plus): (Vec<&str>, Vec<&str>) = q.split_whitespace().partition(|w| w.starts_with('-'));
    let words = plus
        .iter()
        .flat_map(|w| w.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    (words, minus.iter().map(|w| w.trim_start_matches('-').trim_matches('"').to_lowercase()).collect())
}

/// The Sources list of a report, by id.
fn listed(report: &str) -> Vec<u32> {
    let sources = report.split("\n## Sources\n").nth(1).unwrap_or("");
    sources.lines().filter_map(|l| l.strip_prefix("- [")?.split(']').next()?.parse().ok()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refined_queries_never_exclude_their_own_terms_or_short_words() {
    let server = MockServer::start().await;
    let port = server.address().port();
    for i in 0..40 {
        let html = if i % 4 == 0 { on_topic(i) } else { off_topic(i) };
        html_page(&server, &format!("/p{i}"), html).await;
    }
    // Each query finds four pages of its own, most of them off topic.
    searxng(&server, move |q| {
        let start = q.bytes().map(usize::from).sum::<usize>() % 10 * 4;
        (start..start + 4).map(|i| hit(&format!("http://127.0.0.1:{port}/p{i}"), &format!("hit {i}"))).collect()
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    // The user's rule for off-topic sources names a word the queries search
    // for, a two-letter word and a placeholder, beside a useful one.
    let rules = "[review.refinements.off_topic]\nnegative = [\"widgets\", \"xy\", \"foo\", \"poker\"]\npositive = []\n";
    let config = format!("{}{rules}", searxng_config(&server, ""));
    // Four iterations: which round first rejects enough to suggest
    // exclusions depends on which pages its queries happen to find.
    run(home.path(), &config, 4, &["--max-sources", "8"]).await;

    let asked = searches(&server).await;
    let excluding: Vec<&String> = asked.iter().filter(|q| q.contains(" -")).collect();
    assert!(!excluding.is_empty(), "the refinement excluded something: {asked:?}");
    for q in &asked {
        let (words, excluded) = split_query(q);
        for x in &excluded {
            assert!(!words.contains(x), "`{q}` excludes its own term `{x}`");
            assert!(x.chars().count() > 2 && x != "foo", "`{q}` excludes `{x}`");
        }
    }
    assert!(excluding.iter().all(|q| q.contains("-poker")), "{excluding:?}");
    // Each query's exclusions are its own refinement's, none older.
    for r in of_type(&events(home.path()), "refined") {
        let computed: Vec<&Value> = r["refinement"]["negative_keywords"].as_array().unwrap().iter().collect();
        for q in r["refinement"]["queries"].as_array().unwrap() {
            for x in q["exclude"].as_array().into_iter().flatten() {
                assert!(computed.contains(&x), "{x} in {q} was not computed by {r}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_mode_sends_its_site_exclusions() {
    let server = MockServer::start().await;
    let port = server.address().port();
    for i in 0..3 {
        html_page(&server, &format!("/t{i}"), on_topic(i)).await;
    }
    // The only site found is one strict mode does not keep (unknown tier).
    searxng(&server, move |_| (0..3).map(|i| hit(&format!("http://127.0.0.1:{port}/t{i}"), "thread")).collect()).await;
    let home = tempfile::tempdir().unwrap();
    run(home.path(), &searxng_config(&server, ""), 3, &["--mode", "strict"]).await;

    let events = events(home.path());
    let first_refined = of_type(&events, "refined");
    let suggested = &first_refined.first().expect("the loop refined")["refinement"]["negative_keywords"];
    assert!(suggested.as_array().unwrap().iter().any(|k| k == "site:127.0.0.1"), "{suggested}");
    // Every query after the first iteration was sent with the exclusion.
    let first_iteration = of_type(&events, "query_searched").iter().filter(|e| e["iteration"] == 1).count()
        + of_type(&events, "query_failed").iter().filter(|e| e["iteration"] == 1).count();
    let asked = searches(&server).await;
    let later = &asked[first_iteration..];
    assert!(!later.is_empty(), "{asked:?}");
    assert!(later.iter().all(|q| q.ends_with(" -site:127.0.0.1")), "{later:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_in_the_corpus_and_on_the_web_is_one_source() {
    let server = MockServer::start().await;
    let port = server.address().port();
    // The same page twice: in the local corpus and served by a web site. The
    // corpus's extractor and the web's Readability keep different parts of
    // it around the article (navigation, a long list of related links).
    let related: String =
        (0..120).map(|i| format!("<li><a href=\"/r{i}\">Related gadget topic {i}</a></li>")).collect();
    let body: String = (0..12).map(|i| format!("<p>{}. Section {i} of the wiring guide.</p>", fact(i))).collect();
    let html = format!(
        "<!doctype html><html><head><title>Widget wiring guide</title></head><body>\
         <nav><ul>{related}</ul></nav><main><article><h1>Widget wiring guide</h1>{body}</article></main>\
         <footer>Copyright notice. All rights reserved.</footer></body></html>"
    );
    let corpus = tempfile::tempdir().unwrap();
    std::fs::write(corpus.path().join("wiring.html"), &html).unwrap();
    html_page(&server, "/wiring.html", html).await;
    searxng(&server, move |_| vec![hit(&format!("http://127.0.0.1:{port}/wiring.html"), "Widget wiring guide")]).await;
    let home = tempfile::tempdir().unwrap();
    let config = format!(
        "[search]\nchains = [[\"local\"], [\"searxng\"]]\n[local]\ncorpus = \"{}\"\n[web]\nsearxng_url = \"{}\"\n\
         politeness_delay_ms = 0\n",
        corpus.path().display(),
        server.uri()
    );
    let (report, _) = run(home.path(), &config, 1, &[]).await;

    let events = events(home.path());
    let added = of_type(&events, "source_added");
    assert_eq!(added.len(), 1, "one source: {added:?}");
    assert!(of_type(&events, "source_duplicate").iter().any(|d| d["locator"].as_str().unwrap().starts_with("http")));
    assert_eq!(listed(&report).len(), 1, "{report}");
    // A local citation can be opened: the file's URL, not a relative path.
    let locator = added[0]["source"]["locator"].as_str().unwrap();
    assert!(locator.starts_with("file:///") && locator.contains("/wiring.html"), "{locator}");
    assert!(report.contains(&format!("— {locator}")), "{report}");
}

/// A server on 127.0.0.2: a second site on loopback.
async fn second_site() -> MockServer {
    let listener = TcpListener::bind("127.0.0.2:0").unwrap();
    MockServer::builder().listener(listener).start().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn monitor_mode_lists_and_verifies_every_id_its_caveats_cite() {
    let server = MockServer::start().await;
    let social = second_site().await;
    let (port, social_port) = (server.address().port(), social.address().port());
    for i in 0..4 {
        html_page(&server, &format!("/o{i}"), on_topic(i)).await;
        let claims = [
            "widgets secretly drain gadget batteries overnight when the moon is full, users claim loudly",
            "a widget painted red runs faster than a blue one according to several anonymous posters",
            "gadget firmware phones home to a server on the moon every Tuesday afternoon, one thread insists",
            "widgets hum a tune when connected to gadgets made before the great flood of last spring",
        ];
        let rumour = format!("Rumour {i}: {}.", claims[i]);
        html_page(&social, &format!("/s{i}"), article("Forum thread", "2025-06-01", &[&rumour, &rumour])).await;
    }
    // Many tier-5 threads: the monitor caveat names them all, the body
    // quotes only a few.
    searxng(&server, move |q| {
        let k = q.len() % 4;
        let mut hits: Vec<Hit> =
            (0..2).map(|j| hit(&format!("http://127.0.0.1:{port}/o{}", (k + j) % 4), "official")).collect();
        hits.extend((0..4).map(|j| hit(&format!("http://127.0.0.2:{social_port}/s{}", (k + j) % 4), "thread")));
        hits
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let tiers = "[source_tiers]\n\"127.0.0.1\" = { tier = 1, type = \"official\" }\n\
                 \"127.0.0.2\" = { tier = 5, type = \"social\" }\n";
    let config = format!("{}{tiers}", searxng_config(&server, ""));
    let (report, stderr) = run(home.path(), &config, 2, &["--mode", "monitor"]).await;

    let caveats = report.split("\n## Caveats\n").nth(1).unwrap_or("").split("\n## Sources\n").next().unwrap();
    assert!(caveats.contains("tier-5") || caveats.contains("tier 5"), "{report}");
    let cited = sleuth::engine::citations::citation_markers(report.split("\n## Sources\n").next().unwrap());
    let in_caveats = sleuth::engine::citations::citation_markers(caveats);
    assert!(!in_caveats.is_empty(), "the monitor caveat cites sources: {caveats}");
    let listed = listed(&report);
    for id in &cited {
        assert!(listed.contains(id), "[{id}] is cited but not listed:\n{report}");
    }
    let events = events(home.path());
    let verified = of_type(&events, "verified");
    let v = &verified.last().unwrap()["verification"];
    for id in &in_caveats {
        assert!(v["cited"].as_array().unwrap().iter().any(|c| c == id), "[{id}] not verified: {v}");
    }
    assert!(stderr.contains("0 unknown citation ids"), "{stderr}");
}

/// A SearXNG whose first `failing` searches answer `status` at once and
/// whose later ones answer after `delay`.
async fn flaky_searxng(server: &MockServer, failing: usize, status: u16, delay: Duration) {
    let port = server.address().port();
    let count = Arc::new(AtomicUsize::new(0));
    Mock::given(method("GET"))
        .and(path("/search"))
        .respond_with(move |r: &Request| {
            if count.fetch_add(1, Ordering::SeqCst) < failing {
                return ResponseTemplate::new(status).set_body_string("slow down");
            }
            let q = query_of(r);
            let start = q.len() % 6;
            let hits: Vec<Hit> =
                (start..start + 3).map(|i| hit(&format!("http://127.0.0.1:{port}/p{i}"), "page")).collect();
            ResponseTemplate::new(200).set_body_json(searxng_answer(&q, &hits)).set_delay(delay)
        })
        .mount(server)
        .await;
    for i in 0..10 {
        html_page(server, &format!("/p{i}"), on_topic(i)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_circuit_closed_by_a_success_in_flight_is_recorded_and_the_report_says_so() {
    let server = MockServer::start().await;
    // Four queries at once: three fail at once and open the circuit, the
    // fourth, already sent, succeeds afterwards.
    flaky_searxng(&server, 3, 500, Duration::from_millis(600)).await;
    let home = tempfile::tempdir().unwrap();
    let search = "attempts = 1\nbreaker_failures = 3\nconcurrency = 4\n";
    let (report, stderr) = run(home.path(), &searxng_config(&server, search), 1, &["--max-queries", "4"]).await;

    let events = events(home.path());
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let opened = kinds.iter().position(|k| *k == "circuit_opened").expect("opened");
    let closed = kinds.iter().position(|k| *k == "circuit_closed").unwrap_or_else(|| panic!("{kinds:?}"));
    assert!(opened < closed);
    assert_eq!(events[closed]["provider"], "searxng");
    assert!(!report.contains("searxng is failing"), "{report}");
    assert!(report.contains("provider searxng failed, then recovered"), "{report}");
    // The errors name their provider once.
    assert!(stderr.contains("searxng: HTTP 500") && !stderr.contains("searxng: searxng"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_below_the_degraded_threshold_still_get_a_caveat() {
    let server = MockServer::start().await;
    flaky_searxng(&server, 1, 429, Duration::ZERO).await;
    let home = tempfile::tempdir().unwrap();
    let search = "attempts = 1\nconcurrency = 1\n";
    let (report, _) = run(home.path(), &searxng_config(&server, search), 1, &["--max-queries", "4"]).await;

    let events = events(home.path());
    let failed = of_type(&events, "query_failed").len();
    let searched = of_type(&events, "query_searched").len();
    assert_eq!(failed, 1);
    assert!(of_type(&events, "degraded_mode").is_empty(), "below the threshold");
    let caveat = format!("{failed} of {} search queries failed", failed + searched);
    assert!(report.contains(&caveat), "{caveat}:\n{report}");
    assert!(
        of_type(&events, "query_failed")[0]["error"].as_str().unwrap().starts_with("searxng: HTTP 429"),
        "{:?}",
        of_type(&events, "query_failed")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_counts_unreadable_pages_the_same_way_the_review_does() {
    let server = MockServer::start().await;
    let port = server.address().port();
    for i in 0..3 {
        html_page(&server, &format!("/p{i}"), on_topic(i)).await;
    }
    page(
        &server,
        "/paper.pdf",
        ResponseTemplate::new(200).set_body_raw(b"%PDF-1.7 binary".to_vec(), "application/pdf"),
    )
    .await;
    searxng(&server, move |_| {
        let mut hits: Vec<Hit> = (0..3).map(|i| hit(&format!("http://127.0.0.1:{port}/p{i}"), "page")).collect();
        hits.push(hit(&format!("http://127.0.0.1:{port}/paper.pdf"), "paper"));
        hits
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let (_, stderr) = run(home.path(), &searxng_config(&server, ""), 1, &[]).await;
    assert!(stderr.contains("[1] 3 new sources, 1 unreadable (4 fetched; 3 sources in total)"), "{stderr}");
    assert!(stderr.contains("review: kept 3 of 4 fetched"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_fails_a_chain_whose_only_provider_fails() {
    let server = MockServer::start().await;
    Mock::given(method("GET")).and(path("/search")).respond_with(ResponseTemplate::new(403)).mount(&server).await;
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), searxng_config(&server, "")).unwrap();
    let out = support::bin::run_async(home.path(), &[], &["doctor"]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    let chain = stdout.lines().find(|l| l.starts_with("search chain 1")).unwrap();
    assert!(chain.contains("FAIL") && !chain.contains(" OK "), "{stdout}");
    let provider = stdout.lines().find(|l| l.trim_start().starts_with("provider searxng")).unwrap();
    assert!(provider.contains("FAIL") && provider.contains("searxng: HTTP 403"), "{stdout}");
    assert!(!stdout.contains("searxng: searxng"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chain_provider_without_its_key_is_left_out_when_another_stands_in() {
    let server = MockServer::start().await;
    flaky_searxng(&server, 0, 200, Duration::ZERO).await;
    let home = tempfile::tempdir().unwrap();
    let web = format!(
        "[search]\nchains = [[\"tavily\", \"searxng\"]]\n[web]\nsearxng_url = \"{}\"\npoliteness_delay_ms = 0\n\
         tavily_api_key_env = \"SLEUTH_TEST_UNSET_KEY\"\n",
        server.uri()
    );
    let (report, stderr) = run(home.path(), &web, 1, &[]).await;
    assert!(stderr.contains("SLEUTH_TEST_UNSET_KEY") && stderr.contains("goes on with searxng"), "{stderr}");
    assert!(!listed(&report).is_empty(), "{report}");

    // Alone in its chain, it stops the run at start, naming the variable.
    let alone = web.replace("[\"tavily\", \"searxng\"]", "[\"tavily\"]");
    std::fs::write(home.path().join("config.toml"), alone).unwrap();
    let out = support::bin::run_async(home.path(), &[], &["run", QUESTION]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("SLEUTH_TEST_UNSET_KEY"), "{stderr}");
}
