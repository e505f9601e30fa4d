//! The real binary with the LLM reasoner: the API key never reaches a file
//! or a log, an unreachable endpoint fails fast with the URL and the fix,
//! and `sleuth doctor` reports on the endpoint. `SLEUTH_HOME` is a temp dir
//! in every test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::support;
use crate::support::bin::run_async;
use crate::support::llm::{Behaviour, FakeLlm};
use crate::support::scripted;
use scripted::{ScriptedProvider, corpus};
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::ports::MemoryTexts;
use sleuth::engine::protocol::Command as EngineCommand;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::llm::endpoint::Endpoint;
use sleuth::llm::prompts::Prompts;
use sleuth::llm::{LlmConfig, LlmReasoner};
use sleuth::search::{SearchProvider, SearchRouter};
use sleuth::session::{LogWriter, SessionDir};

const KEY: &str = "sk-test-SECRET-4f9a2c7e1b";

fn write_config(home: &Path, body: &str) {
    std::fs::create_dir_all(home).unwrap();
    std::fs::write(home.join("config.toml"), body).unwrap();
}

/// Every run has the key in its environment and logs at trace level (the
/// key must not reach the log either).
const ENV: &[(&str, &str)] = &[("SLEUTH_TEST_API_KEY", KEY), ("SLEUTH_LOG", "trace")];

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
        }
    }
    out
}

fn assert_no_key(dir: &Path) -> usize {
    let all = files(dir);
    for (path, bytes) in &all {
        assert!(!String::from_utf8_lossy(bytes).contains(KEY), "the API key leaked into {}", path.display());
    }
    all.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_key_never_reaches_a_file_a_log_or_the_terminal() {
    let fake = FakeLlm::start().await;
    // A server that echoes the key back in its error bodies.
    *fake.state.echo.lock().unwrap() = Some(format!("Incorrect API key provided: {KEY}"));
    let home = tempfile::tempdir().unwrap();
    let corpus_dir = home.path().join("corpus");
    std::fs::create_dir_all(&corpus_dir).unwrap();
    std::fs::write(corpus_dir.join("widgets.md"), "# Widgets\n\nWidgets connect to gadgets by a bolt.\n").unwrap();
    write_config(
        home.path(),
        &format!(
            "[research]\nreasoner = \"llm\"\npreset = \"simple\"\nask = \"first\"\n[local]\ncorpus = {:?}\n[llm]\nbase_url = \"{}\"\napi_key_env = \"SLEUTH_TEST_API_KEY\"\nmodel = \"test-model\"\n",
            corpus_dir.display().to_string(),
            fake.base_url()
        ),
    );
    fake.queue("draft", Behaviour::Status(401, None, "unauthorized".into()));
    let doctor = run_async(home.path(), ENV, &["doctor", "--skip-search"]).await;
    let run = run_async(home.path(), ENV, &["run", "How do widgets connect to gadgets?"]).await;
    for out in [&doctor, &run] {
        for stream in [&out.stdout, &out.stderr] {
            assert!(!String::from_utf8_lossy(stream).contains(KEY), "the key was printed");
        }
    }
    let doctor_out = String::from_utf8_lossy(&doctor.stdout);
    assert!(doctor_out.contains("$SLEUTH_TEST_API_KEY is set (value not shown)"), "{doctor_out}");
    // The key was really sent, to the endpoint only.
    let auth = fake.state.auth.lock().unwrap().clone();
    assert!(auth.iter().any(|a| a.as_deref() == Some(&format!("Bearer {KEY}"))), "{auth:?}");
    let written = assert_no_key(home.path());
    let log = std::fs::read_to_string(home.path().join("logs/sleuth.log")).unwrap_or_default();
    assert!(log.contains("LLM endpoint reachable"), "the trace log was written: {written} files");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_log_keeps_the_key_out_even_when_the_server_echoes_it() {
    let fake = FakeLlm::start().await;
    *fake.state.echo.lock().unwrap() = Some(format!("Incorrect API key provided: {KEY}"));
    fake.queue("plan", Behaviour::Status(401, None, "unauthorized".into()));
    let home = tempfile::tempdir().unwrap();
    let dir = SessionDir::create(&home.path().join("sessions"), "key-test").unwrap();
    let mut c = LlmConfig { base_url: fake.base_url(), model: "test-model".into(), ..LlmConfig::default() };
    c.api_key_env = Some("SLEUTH_TEST_API_KEY".into());
    let endpoint = Endpoint::with_env(&c.resolved_endpoints()[0], &c, |_| Some(KEY.to_string())).unwrap();
    let reasoner = Arc::new(LlmReasoner::with_endpoints(c, Prompts::builtin(), vec![endpoint]).unwrap());
    let settings = support::llm::settings(2);
    let provider: Arc<dyn SearchProvider> = Arc::new(ScriptedProvider::new("web", corpus(6)));
    let parts = EngineParts {
        reasoner,
        search: Arc::new(SearchRouter::new(
            vec![vec![provider]],
            &sleuth::search::RouterSettings {
                backoff_min_ms: 1,
                backoff_max_ms: 5,
                ..sleuth::search::RouterSettings::default()
            },
        )),
        texts: Arc::new(MemoryTexts::default()),
        memory: Arc::new(InMemoryStore::new(MemorySettings::default())) as Arc<dyn MemoryStore>,
        log: Box::new(LogWriter::open(&dir.log_path()).unwrap()),
    };
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    handle.commands.send(EngineCommand::Start { question: "How do widgets connect to gadgets?".into() }).unwrap();
    let state = engine.run().await.unwrap();
    let err = state.errors.iter().find(|e| e.phase.as_str() == "plan").expect("the 401 was recorded");
    assert!(err.message.contains("HTTP 401") && err.message.contains("[redacted]"), "{}", err.message);
    let log = std::fs::read_to_string(dir.log_path()).unwrap();
    assert!(log.contains("Incorrect API key provided: [redacted]"));
    assert!(assert_no_key(home.path()) >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_endpoint_fails_fast_with_the_url_and_the_fix() {
    let home = tempfile::tempdir().unwrap();
    // Port 1 on loopback: nothing listens there.
    write_config(home.path(), "[llm]\nbase_url = \"http://127.0.0.1:1/v1\"\n");
    let started = Instant::now();
    let out = run_async(home.path(), ENV, &["run", "--reasoner", "llm", "What is a widget?"]).await;
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot reach the LLM endpoint at http://127.0.0.1:1/v1"), "{err}");
    assert!(err.contains("--reasoner builtin") && err.contains("base_url"), "{err}");
    // Nothing was recorded as a session.
    let logs: Vec<_> =
        files(&home.path().join("sessions")).into_iter().filter(|(p, _)| p.ends_with("events.jsonl")).collect();
    assert!(logs.iter().all(|(_, b)| b.is_empty()), "{logs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_marks_an_unreachable_endpoint_and_skips_a_schema_probe_it_cannot_make() {
    let home = tempfile::tempdir().unwrap();
    write_config(home.path(), "[research]\nreasoner = \"llm\"\n[llm]\nbase_url = \"http://127.0.0.1:1/v1\"\n");
    let out = run_async(home.path(), ENV, &["doctor", "--skip-search"]).await;
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}");
    let header = table.lines().find(|l| l.starts_with("llm endpoint `default`")).unwrap_or_default();
    assert!(header.contains("FAIL") && header.contains("unreachable"), "the header row shows the failure:\n{table}");
    assert!(!header.contains(" ok "), "{table}");

    // `omit_params` names response_format: the schema is never sent, so not probed.
    let fake = FakeLlm::start().await;
    write_config(
        home.path(),
        &format!(
            "[research]\nreasoner = \"llm\"\n[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\nomit_params = [\"response_format\"]\n",
            fake.base_url()
        ),
    );
    let out = run_async(home.path(), ENV, &["doctor", "--skip-search"]).await;
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{table}");
    let schema = table.lines().find(|l| l.contains("json_schema output")).unwrap_or_default();
    assert!(schema.contains("not probed (response_format omitted)") && !schema.contains("supported"), "{table}");
    assert!(
        table.lines().any(|l| l.contains("chat round trip") && l.contains(" ok ")),
        "still one round trip:\n{table}"
    );
    let sent = fake.state.requests.lock().unwrap().clone();
    assert!(!sent.is_empty() && sent.iter().all(|b| b.get("response_format").is_none()), "{sent:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_reports_models_schema_support_and_round_trip() {
    let fake = FakeLlm::start().await;
    let home = tempfile::tempdir().unwrap();
    let base =
        format!("[research]\nreasoner = \"llm\"\n[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\n", fake.base_url());
    write_config(home.path(), &format!("{base}[llm.roles]\nreview = \"fast-model\"\n"));
    let ok = run_async(home.path(), ENV, &["doctor", "--skip-search"]).await;
    let table = String::from_utf8_lossy(&ok.stdout);
    assert_eq!(ok.status.code(), Some(0), "{table}");
    for want in [
        "reachable",
        "model test-model (plan, draft, critique, write, clarify)",
        "model fast-model (review)",
        "json_schema output",
        "supported",
        "chat round trip",
        "all required checks passed",
    ] {
        assert!(table.contains(want), "missing `{want}` in\n{table}");
    }
    // A model the endpoint does not serve, and an endpoint without json_schema.
    fake.state.reject_schema.store(true, Ordering::SeqCst);
    write_config(home.path(), &format!("{base}[llm.roles]\nreview = \"missing-model\"\n"));
    let bad = run_async(home.path(), ENV, &["doctor", "--skip-search"]).await;
    let table = String::from_utf8_lossy(&bad.stdout);
    assert_eq!(bad.status.code(), Some(1), "{table}");
    assert!(table.contains("model missing-model (review)") && table.contains("not among the models listed"), "{table}");
    assert!(table.contains("rejected") && table.contains("structured_output"), "{table}");
    assert!(table.contains("1 required check failed"), "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_models_and_without_json_schema_is_probed_remembered_and_used() {
    let fake = FakeLlm::start().await;
    fake.state.no_models.store(true, Ordering::SeqCst);
    fake.state.schema_500.store(true, Ordering::SeqCst);
    let home = tempfile::tempdir().unwrap();
    let corpus_dir = home.path().join("corpus");
    std::fs::create_dir_all(&corpus_dir).unwrap();
    let text: String =
        (0..12).map(|i| format!("Widgets connect to gadgets by bolt number {i}, the manual says. ")).collect();
    std::fs::write(corpus_dir.join("widgets.md"), format!("# Widgets\n\n{text}\n")).unwrap();
    write_config(
        home.path(),
        &format!(
            "[research]\npreset = \"simple\"\n[local]\ncorpus = {:?}\n[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\n",
            corpus_dir.display().to_string(),
            fake.base_url()
        ),
    );
    // The research flags are accepted: doctor checks what a run would use.
    let doctor = run_async(home.path(), ENV, &["doctor", "--skip-search", "--reasoner", "llm"]).await;
    let table = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "{table}");
    assert!(table.contains("no /models (HTTP 404)"), "{table}");
    let used = table.lines().find(|l| l.contains("structured output used")).unwrap_or_default();
    assert!(used.contains("json_object"), "{table}");
    assert!(table.contains("reasoner = llm"), "{table}");
    let before = fake.state.requests.lock().unwrap().len();
    let run = run_async(home.path(), ENV, &["run", "--reasoner", "llm", "How do widgets connect to gadgets?"]).await;
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!err.contains("HTTP 404"), "{err}");
    assert!(!String::from_utf8_lossy(&run.stdout).trim().is_empty(), "a report was printed: {err}");
    // The run started in the mode doctor found: no json_schema request met the 500 again.
    let sent: Vec<String> = fake.state.requests.lock().unwrap()[before..]
        .iter()
        .map(|b| b["response_format"]["type"].as_str().unwrap_or("none").to_string())
        .collect();
    assert!(sent.iter().any(|f| f == "json_object"), "{sent:?}");
    assert!(!sent.iter().any(|f| f == "json_schema"), "{sent:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_phases_fell_back_exits_with_the_degraded_status() {
    let fake = FakeLlm::start().await;
    // Every DRAFT call is refused (a 400 is not retried): the built-in
    // drafter stands in, and the run must say so by its exit status.
    for _ in 0..20 {
        fake.queue("draft", Behaviour::Status(400, None, "the model cannot do this".into()));
    }
    let home = tempfile::tempdir().unwrap();
    let corpus_dir = home.path().join("corpus");
    std::fs::create_dir_all(&corpus_dir).unwrap();
    let text: String =
        (0..12).map(|i| format!("Widgets connect to gadgets by bolt number {i}, the manual says. ")).collect();
    std::fs::write(corpus_dir.join("widgets.md"), format!("# Widgets\n\n{text}\n")).unwrap();
    write_config(
        home.path(),
        &format!(
            "[research]\npreset = \"simple\"\n[local]\ncorpus = {:?}\n[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\n",
            corpus_dir.display().to_string(),
            fake.base_url()
        ),
    );
    let run = run_async(home.path(), ENV, &["run", "--reasoner", "llm", "How do widgets connect to gadgets?"]).await;
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(fake.count("draft") >= 1, "the draft was asked for: {err}");
    assert_eq!(run.status.code(), Some(6), "{err}");
    let report = String::from_utf8_lossy(&run.stdout);
    assert!(report.contains("the model could not do: draft"), "the caveat names the phase: {report}");
    // The same setup with a server that answers everything exits 0.
    let healthy = FakeLlm::start().await;
    write_config(
        home.path(),
        &format!(
            "[research]\npreset = \"simple\"\n[local]\ncorpus = {:?}\n[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\n",
            corpus_dir.display().to_string(),
            healthy.base_url()
        ),
    );
    let ok = run_async(home.path(), ENV, &["run", "--reasoner", "llm", "How do widgets connect to gadgets?"]).await;
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_that_is_a_json_array_is_refused_and_the_run_exits_degraded() {
    let fake = FakeLlm::start().await;
    fake.state.full_coverage_from.store(1, Ordering::SeqCst);
    // A confused model answers WRITE with its search queries.
    // One query even cites, and the claim verifies: only its shape gives it away.
    let claims = r#"{"claims": [{"text": "Widgets connect to gadgets by bolt number 0", "aspect": null, "citations": [{"source": 1, "quote": "Widgets connect to gadgets by bolt number 0"}]}]}"#;
    fake.queue(
        "write",
        Behaviour::Content(format!("[\"widgets gadgets [1]\", \"widget bolt manual\"]\n===CLAIMS===\n{claims}")),
    );
    let home = tempfile::tempdir().unwrap();
    let corpus_dir = home.path().join("corpus");
    std::fs::create_dir_all(&corpus_dir).unwrap();
    let text: String =
        (0..12).map(|i| format!("Widgets connect to gadgets by bolt number {i}, the manual says. ")).collect();
    std::fs::write(corpus_dir.join("widgets.md"), format!("# Widgets\n\n{text}\n")).unwrap();
    write_config(
        home.path(),
        &format!(
            "[research]\npreset = \"simple\"\n[local]\ncorpus = {:?}\n[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\nwrite_with_model = true\n",
            corpus_dir.display().to_string(),
            fake.base_url()
        ),
    );
    let run = run_async(home.path(), ENV, &["run", "--reasoner", "llm", "How do widgets connect to gadgets?"]).await;
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(fake.count("write"), 1, "{err}");
    assert_eq!(run.status.code(), Some(6), "{err}");
    let report = String::from_utf8_lossy(&run.stdout);
    assert!(!report.contains("widget bolt manual"), "the array is not the report: {report}");
    assert!(report.contains("[1]"), "the built-in writer's report cites: {report}");
    assert!(report.contains("the model could not do: write"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_picks_ollamas_native_format_when_json_schema_is_ignored_and_runs_use_it() {
    // An Ollama whose OpenAI-compatible endpoint ignores json_schema but
    // whose native /api/chat honours `format`.
    let fake = FakeLlm::start().await;
    fake.state.schema_ignored.store(true, Ordering::SeqCst);
    fake.serve_ollama_native().await;
    let home = tempfile::tempdir().unwrap();
    let corpus_dir = home.path().join("corpus");
    std::fs::create_dir_all(&corpus_dir).unwrap();
    let text: String =
        (0..12).map(|i| format!("Widgets connect to gadgets by bolt number {i}, the manual says. ")).collect();
    std::fs::write(corpus_dir.join("widgets.md"), format!("# Widgets\n\n{text}\n")).unwrap();
    write_config(
        home.path(),
        &format!(
            "[research]\npreset = \"simple\"\n[local]\ncorpus = {:?}\n[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\n",
            corpus_dir.display().to_string(),
            fake.base_url()
        ),
    );
    let doctor = run_async(home.path(), ENV, &["doctor", "--skip-search", "--reasoner", "llm"]).await;
    let table = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "{table}");
    let used = table.lines().find(|l| l.contains("structured output used")).unwrap_or_default();
    assert!(used.contains("ollama_format"), "{table}");
    let native_before = fake.state.native.lock().unwrap().len();
    let v1_before = fake.state.requests.lock().unwrap().len();
    let run = run_async(home.path(), ENV, &["run", "--reasoner", "llm", "How do widgets connect to gadgets?"]).await;
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{err}");
    // The run started where doctor left it: JSON calls native with the
    // schema in `format`, no json_schema request to /v1 meeting prose again.
    let native = fake.state.native.lock().unwrap()[native_before..].to_vec();
    assert!(native.len() >= 2 && native.iter().all(|b| b["format"].is_object()), "{native:?}");
    let v1: Vec<String> = fake.state.requests.lock().unwrap()[v1_before..]
        .iter()
        .map(|b| b["response_format"]["type"].as_str().unwrap_or("none").to_string())
        .collect();
    assert!(!v1.iter().any(|f| f == "json_schema"), "{v1:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_on_a_server_without_the_native_api_skips_ollama_format() {
    let fake = FakeLlm::start().await;
    let home = tempfile::tempdir().unwrap();
    write_config(home.path(), &format!("[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\n", fake.base_url()));
    let doctor = run_async(home.path(), ENV, &["doctor", "--skip-search", "--reasoner", "llm"]).await;
    let table = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "{table}");
    let used = table.lines().find(|l| l.contains("structured output used")).unwrap_or_default();
    assert!(used.contains("json_schema"), "{table}");
    // json_schema worked, so the native API was not even asked.
    assert!(fake.state.native.lock().unwrap().is_empty());
    let row = table.lines().find(|l| l.contains("ollama_format output")).unwrap_or_default();
    assert!(row.contains("not probed"), "{table}");
}
