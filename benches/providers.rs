//! The keyless providers' own cost per query: each provider searched
//! through the router against a loopback server that answers its
//! documented fixture at once (`tests/fixtures/<api>/`), compared with a
//! bare HTTP GET of the same body from the same server. The difference is
//! what the client adds: building the request, parsing the answer (JSON,
//! Atom), rebuilding abstracts, cleaning text, the router's bookkeeping.
//! The request spacing is set to 0 (a loopback server is one's own; the
//! documented spacing is a wait, not work, and is measured by the tests).
//!
//! `cargo bench --bench providers`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench code: a failure is a panic

use std::time::Instant;

use sleuth::search::scholarly::{self, ScholarlyConfig};
use sleuth::search::web::WebConfig;
use sleuth::search::{RouterSettings, SearchQuery, SearchRouter};
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

const ROUNDS: usize = 200;

fn fixture(file: &str, base: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
        .replace("{{BASE}}", base)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let server = MockServer::start().await;
    let base = server.uri();
    let routes = [
        ("wikipedia", "/w/api.php", "wikipedia/search.json"),
        ("arxiv", "/api/query", "arxiv/query.atom"),
        ("openalex", "/works", "openalex/works.json"),
        ("semanticscholar", "/graph/v1/paper/search", "semanticscholar/search.json"),
        ("europepmc", "/search", "europepmc/search.json"),
    ];
    for (_, p, file) in routes {
        Mock::given(path(p))
            .respond_with(ResponseTemplate::new(200).set_body_string(fixture(file, &base)))
            .mount(&server)
            .await;
    }
    let mut cfg = ScholarlyConfig::default();
    cfg.wikipedia.base_url = base.clone();
    cfg.wikipedia.min_interval_ms = 0;
    cfg.arxiv.base_url = base.clone();
    cfg.arxiv.min_interval_ms = 0;
    cfg.openalex.base_url = base.clone();
    cfg.openalex.min_interval_ms = 0;
    cfg.semanticscholar.base_url = base.clone();
    cfg.semanticscholar.min_interval_ms = 0;
    cfg.europepmc.base_url = base.clone();
    cfg.europepmc.min_interval_ms = 0;
    let web = WebConfig::default();
    sleuth::tls::install_crypto_provider();
    let raw = reqwest::Client::new();
    println!("{:<16} {:>12} {:>12} {:>12}", "provider", "query µs", "bare GET µs", "overhead µs");
    let mut overheads = Vec::new();
    for (name, p, _) in routes {
        let provider = scholarly::build(name, &cfg, &web).unwrap();
        let router = SearchRouter::new(vec![vec![provider]], &RouterSettings::default());
        let q = SearchQuery { text: "boiling point of water at altitude".into(), exclude: vec![], limit: 5 };
        let url = format!("{base}{p}");
        let (mut ours, mut bare) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let t = Instant::now();
            let routed = router.search(&q).await;
            ours.push(t.elapsed().as_secs_f64() * 1e6);
            assert!(!routed.hits.is_empty(), "{name}: {:?}", routed.error);
            let t = Instant::now();
            let body = raw.get(&url).send().await.unwrap().bytes().await.unwrap();
            bare.push(t.elapsed().as_secs_f64() * 1e6);
            assert!(!body.is_empty());
        }
        let (o, b) = (median(&mut ours), median(&mut bare));
        overheads.push(o - b);
        println!("{name:<16} {o:>12.0} {b:>12.0} {:>12.0}", o - b);
    }
    println!(
        "\nmedian overhead per query over the five providers: {:.0} µs ({ROUNDS} queries each)",
        median(&mut overheads)
    );
}
