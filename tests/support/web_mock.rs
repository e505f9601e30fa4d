//! Loopback servers for the web tests: search APIs answering in their
//! documented JSON shapes, and pages. Several "sites" share one server;
//! the client resolves their names to it (as curl's `--resolve`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::ports::MemorySink;
use sleuth::engine::protocol::{Command, Event, EventRecord};
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::tiers::{TierEntry, TierTable};
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::search::web::{WebClient, WebConfig};
use sleuth::search::{SearchProvider, SearchRouter};
use sleuth::session::DirTexts;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::support::scripted::ScriptedReasoner;

/// A result as the search mocks list it: (url, title, snippet).
pub type Hit = (String, String, String);

pub fn hit(url: &str, title: &str) -> Hit {
    (url.to_string(), title.to_string(), format!("snippet of {title}"))
}

/// SearXNG's `format=json` answer.
pub fn searxng_answer(q: &str, hits: &[Hit]) -> Value {
    let results: Vec<Value> = hits
        .iter()
        .enumerate()
        .map(|(i, (url, title, content))| {
            json!({"url": url, "title": title, "content": content, "engine": "duckduckgo",
                   "parsed_url": ["http", "", "", "", "", ""], "template": "default.html",
                   "engines": ["duckduckgo", "bing"], "positions": [i + 1], "publishedDate": null,
                   "score": 2.0 / (i as f64 + 1.0), "category": "general"})
        })
        .collect();
    json!({"query": q, "number_of_results": results.len(), "results": results, "answers": [],
           "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []})
}

/// Tavily's `/search` answer.
pub fn tavily_answer(q: &str, hits: &[Hit]) -> Value {
    let results: Vec<Value> = hits
        .iter()
        .enumerate()
        .map(|(i, (url, title, content))| {
            json!({"title": title, "url": url, "content": content, "score": 0.9 - i as f64 * 0.1, "raw_content": null})
        })
        .collect();
    json!({"query": q, "follow_up_questions": null, "answer": null, "images": [], "results": results, "response_time": 0.42})
}

/// Brave's `/res/v1/web/search` answer.
pub fn brave_answer(q: &str, hits: &[Hit]) -> Value {
    let results: Vec<Value> = hits
        .iter()
        .map(|(url, title, content)| {
            json!({"type": "search_result", "title": title, "url": url, "is_source_local": false,
                   "is_source_both": false, "description": format!("<strong>{content}</strong>"),
                   "page_age": "2025-02-03T04:05:06", "age": "February 3, 2025", "language": "en",
                   "family_friendly": true,
                   "meta_url": {"scheme": "http", "netloc": "x", "hostname": "x", "path": "›"}})
        })
        .collect();
    json!({"type": "search", "query": {"original": q, "show_strict_warning": false, "more_results_available": false},
           "mixed": {"type": "mixed", "main": [], "top": [], "side": []},
           "web": {"type": "search", "results": results, "family_friendly": true}})
}

/// The `q` parameter of a request (SearXNG, Brave) or its JSON `query` (Tavily).
pub fn query_of(r: &Request) -> String {
    r.url
        .query_pairs()
        .find(|(k, _)| k == "q")
        .map(|(_, v)| v.into_owned())
        .or_else(|| r.body_json::<Value>().ok().and_then(|b| b["query"].as_str().map(str::to_string)))
        .unwrap_or_default()
}

/// Mounts a SearXNG whose answer depends on the query.
pub async fn searxng(server: &MockServer, answer: impl Fn(&str) -> Vec<Hit> + Send + Sync + 'static) {
    Mock::given(method("GET"))
        .and(path("/search"))
        .respond_with(move |r: &Request| {
            let q = query_of(r);
            ResponseTemplate::new(200).set_body_json(searxng_answer(&q, &answer(&q)))
        })
        .mount(server)
        .await;
}

/// An HTML article: no `h1`, so its first paragraph opens the extracted text.
pub fn article(title: &str, published: &str, paragraphs: &[&str]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title>\
         <meta property=\"article:published_time\" content=\"{published}\"></head><body>\
         <nav><a href=\"/\">Home</a> | <a href=\"/about\">About us</a></nav>\
         <article>{body}</article><footer>Copyright notice. All rights reserved.</footer></body></html>"
    )
}

pub async fn page(server: &MockServer, at: &str, template: ResponseTemplate) {
    Mock::given(method("GET")).and(path(at)).respond_with(template).mount(server).await;
}

pub async fn html_page(server: &MockServer, at: &str, html: String) {
    page(server, at, ResponseTemplate::new(200).set_body_raw(html.into_bytes(), "text/html; charset=utf-8")).await;
}

/// Fast, still polite settings for loopback.
pub fn web_config() -> WebConfig {
    WebConfig { search_timeout_secs: 5, fetch_timeout_secs: 5, politeness_delay_ms: 20, ..WebConfig::default() }
}

/// A client resolving each of `hosts` to `server`.
pub fn client(cfg: &WebConfig, server: &MockServer, hosts: &[&str]) -> Arc<WebClient> {
    let resolve: Vec<(String, std::net::SocketAddr)> =
        hosts.iter().map(|h| (h.to_string(), *server.address())).collect();
    WebClient::with_resolve(cfg, &resolve).unwrap()
}

pub fn tiers(entries: &[(&str, u8, &str)]) -> TierTable {
    let map: BTreeMap<String, TierEntry> = entries
        .iter()
        .map(|(d, t, ty)| (d.to_string(), TierEntry { tier: *t, source_type: Some(ty.to_string()) }))
        .collect();
    TierTable::new(map)
}

pub struct Finished {
    pub state: SessionState,
    pub records: Vec<EventRecord>,
    pub texts: DirTexts,
}

impl Finished {
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.records.iter().map(|r| &r.event)
    }

    pub fn skipped(&self) -> Vec<(String, String)> {
        self.events()
            .filter_map(|e| match e {
                Event::SourceSkipped { locator, reason, .. } => Some((locator.clone(), reason.clone())),
                _ => None,
            })
            .collect()
    }

    pub fn report(&self) -> String {
        self.state.report.as_ref().map(|r| r.markdown.clone()).unwrap_or_default()
    }
}

/// Runs a whole session with source texts stored on disk under `dir`.
pub async fn run(
    settings: EngineSettings,
    chains: Vec<Vec<Arc<dyn SearchProvider>>>,
    reasoner: ScriptedReasoner,
    question: &str,
    dir: &Path,
) -> Finished {
    let sink = MemorySink::default();
    let texts = DirTexts::new(dir.join("sources"));
    let parts = EngineParts {
        reasoner: Arc::new(reasoner),
        search: Arc::new(SearchRouter::new(
            chains,
            &sleuth::search::RouterSettings {
                backoff_min_ms: 1,
                backoff_max_ms: 5,
                ..sleuth::search::RouterSettings::default()
            },
        )),
        texts: Arc::new(texts.clone()),
        memory: Arc::new(InMemoryStore::new(MemorySettings::default())) as Arc<dyn MemoryStore>,
        log: Box::new(sink.clone()),
    };
    let (engine, mut handle) = Engine::new(settings, parts, SessionState::default());
    handle.commands.send(Command::Start { question: question.to_string() }).unwrap();
    let drain = tokio::spawn(async move { while handle.events.recv().await.is_some() {} });
    let state = engine.run().await.expect("engine run");
    drain.abort();
    Finished { state, records: sink.records(), texts }
}
