use super::*;
use crate::config::Preset;
use crate::engine::preset::SessionPreset;

fn corpus_config(home: &std::path::Path) -> Config {
    let docs = home.join("docs");
    std::fs::create_dir_all(&docs).expect("docs");
    std::fs::write(docs.join("tides.md"), "# Tides\n\nThe moon's pull raises the tides twice a day.\n").expect("doc");
    std::fs::write(docs.join("winds.md"), "# Winds\n\nWarm air rises and cooler air flows in below it.\n")
        .expect("doc");
    let mut config = Config::default();
    config.local.corpus = Some(docs);
    config.search.chains = vec![vec!["local".into()]];
    config
}

async fn built(config: Config, home: &std::path::Path) -> Runtime {
    Runtime::build(config, Paths::under(home), &|_| {}).await.expect("runtime")
}

fn assert_shareable<T: Send + Sync>() {}

#[test]
fn a_runtime_can_be_shared_by_concurrent_sessions() {
    assert_shareable::<Runtime>();
}

#[tokio::test]
async fn the_corpus_is_opened_once_and_shared_by_every_session_and_every_request() {
    let home = tempfile::tempdir().expect("tempdir");
    let indexed = std::sync::Mutex::new(0usize);
    let progress = |_: &str| *indexed.lock().expect("lock") += 1;
    let rt = Runtime::build(corpus_config(home.path()), Paths::under(home.path()), &progress).await.expect("runtime");
    let said_while_building = *indexed.lock().expect("lock");
    let corpus = rt.providers.opened_corpus().expect("the local chain opened the corpus");
    let held = Arc::strong_count(&corpus);
    let first = rt.parts(&rt.sessions().dir("a"), Box::new(crate::engine::ports::MemorySink::default()));
    let second = rt.parts(&rt.sessions().dir("b"), Box::new(crate::engine::ports::MemorySink::default()));
    // Each session's built-in reasoner reads the same opened corpus (its
    // term statistics, its links and its definitions: three handles each).
    assert_eq!(Arc::strong_count(&corpus), held + 6);
    assert!(!Arc::ptr_eq(&first.search, &second.search), "each session has its own breakers");
    // A request for another preset and other chains of the same providers
    // gets new settings and parts over the same corpus: nothing is rebuilt.
    let mut config = rt.config().clone();
    config.research.preset = Preset::Deep;
    config.limits.max_iterations = Some(7);
    config.search.chains = vec![vec!["local".into()], vec!["local".into()]];
    assert!(rt.serves(&config));
    let before = Arc::strong_count(&corpus);
    let prepared = rt.prepare(&config).await.expect("prepared");
    assert_eq!(prepared.settings.limits.max_iterations, 7);
    assert_eq!(prepared.settings.preset, SessionPreset::Named(Preset::Deep));
    assert_eq!(prepared.settings.config_snapshot["limits"]["max_iterations"], 7);
    assert!(Arc::strong_count(&corpus) > before, "the new session's reasoner reads the same opened corpus");
    assert!(Arc::ptr_eq(&corpus, &rt.providers.opened_corpus().expect("corpus")));
    assert_eq!(*indexed.lock().expect("lock"), said_while_building, "nothing was indexed again");
    let mut other = rt.config().clone();
    other.local.corpus = Some(home.path().join("elsewhere"));
    assert!(!rt.serves(&other), "another corpus needs a runtime of its own");
}

#[tokio::test]
async fn a_chain_that_cannot_start_fails_the_build_before_any_session_folder() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut config = Config::default();
    config.web.tavily_api_key_env = "SLEUTH_TEST_KEY_THAT_IS_NEVER_SET".into();
    config.search.chains = vec![vec!["tavily".into()]];
    let err = Runtime::build(config, Paths::under(home.path()), &|_| {}).await.err().expect("no provider");
    assert!(matches!(&err, BuildError::Search(e) if e.name == "tavily"), "{err}");
    assert!(!Paths::under(home.path()).sessions_dir().exists());
}

#[tokio::test]
async fn a_new_session_is_locked_logged_and_set_from_the_configuration() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut config = corpus_config(home.path());
    config.research.preset = Preset::Simple;
    let rt = built(config, home.path()).await;
    let prepared = rt.new_session().expect("session");
    let dir = prepared.dir.clone();
    // Nothing is on disk until the engine records the header (an abandoned
    // start leaves no empty session).
    assert!(!dir.path.exists());
    assert_eq!(prepared.settings.session_id, dir.id);
    assert_eq!(prepared.settings.preset, SessionPreset::Named(Preset::Simple));
    assert_eq!(prepared.settings.limits, rt.config().limits.resolve(Preset::Simple));
    assert_eq!(&prepared.settings.config_snapshot, rt.snapshot());
    let (engine, handle) =
        crate::engine::Engine::new(prepared.settings, prepared.parts, crate::engine::SessionState::default());
    handle.commands.send(crate::engine::Command::Start { question: "q".into() }).expect("start");
    handle.commands.send(crate::engine::Command::Cancel).expect("cancel");
    engine.run().await.expect("runs");
    assert!(dir.log_path().is_file() && dir.sources_dir().is_dir());
    assert_eq!(rt.sessions().resolve("last").expect("listed"), dir.id);
}

#[tokio::test]
async fn research_choices_made_at_the_start_change_the_settings_and_the_snapshot() {
    let home = tempfile::tempdir().expect("tempdir");
    let rt = built(corpus_config(home.path()), home.path()).await;
    let mut research = rt.config().research.clone();
    research.preset = Preset::Deep;
    research.step_mode = true;
    let s = rt.settings_with("x", &research);
    assert_eq!(s.preset, SessionPreset::Named(Preset::Deep));
    assert!(s.step_mode);
    assert_eq!(s.limits, rt.config().limits.resolve(Preset::Deep));
    assert_eq!(s.config_snapshot["research"]["preset"], "deep");
    assert_eq!(rt.settings_with("x", &rt.config().research.clone()).config_snapshot, *rt.snapshot());
}

#[test]
fn with_a_model_confidence_is_the_weighted_average_and_its_threshold() {
    let mut config = Config::default();
    let builtin = settings_from(&config, serde_json::Value::Null, Redactor::default(), "a");
    assert!(builtin.evaluate.calibration.enabled);
    assert_eq!(builtin.decide.confidence_threshold, 0.6);
    config.research.reasoner = ReasonerKind::Llm;
    let model = settings_from(&config, serde_json::Value::Null, Redactor::default(), "b");
    assert!(!model.evaluate.calibration.enabled, "fitted on the built-in's sessions only");
    assert_eq!(model.decide.confidence_threshold, UNCALIBRATED_THRESHOLD);
    config.decide.confidence_threshold = 0.7;
    let chosen = settings_from(&config, serde_json::Value::Null, Redactor::default(), "c");
    assert_eq!(chosen.decide.confidence_threshold, 0.7, "a threshold the user set is kept");
}

#[test]
fn the_calibrated_confidence_holds_only_on_the_corpus_it_was_fitted_on() {
    let settings = |c: &Config| settings_from(c, serde_json::Value::Null, Redactor::default(), "a");
    let default = Config::default();
    assert!(settings(&default).evaluate.calibration.enabled, "the default corpus: the fit's own");
    // A folder of one's own, or another provider: the weighted average and its threshold.
    let mut folder = Config::default();
    folder.local.corpus = Some("/tmp/notes".into());
    let mut cluster = Config::default();
    cluster.search.chains = vec![vec!["opensearch".into()]];
    for other in [&folder, &cluster] {
        let s = settings(other);
        assert!(!s.evaluate.calibration.enabled);
        assert_eq!(s.decide.confidence_threshold, UNCALIBRATED_THRESHOLD);
    }
    // A mapping refitted on one's own corpus says so.
    folder.evaluate.calibration.applies_to = crate::engine::calibration::CalibrationScope::AnyCorpus;
    assert!(settings(&folder).evaluate.calibration.enabled);
    assert_eq!(settings(&folder).decide.confidence_threshold, 0.6);
}
