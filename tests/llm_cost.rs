//! What the LLM path costs and how it holds up with a weak, slow or
//! half-compatible server: whole sessions through the engine against a
//! scripted OpenAI-compatible server on loopback (wiremock), asserting on
//! the requests it received.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::support;
use crate::support::llm::{Behaviour, FakeLlm, request_tokens, role_of};
use crate::support::scripted;
use scripted::{ScriptedProvider, doc};
use sleuth::config::Preset;
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::model::*;
use sleuth::engine::ports::{MemorySink, MemoryTexts};
use sleuth::engine::protocol::{Command, Event};
use sleuth::engine::reasoner::*;
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::llm::endpoint::Endpoint;
use sleuth::llm::prompts::Prompts;
use sleuth::llm::{LlmConfig, LlmReasoner, PromptBudgets};
use sleuth::search::{SearchProvider, SearchRouter};

/// The defaults a user gets, on the scripted server.
fn config(fake: &FakeLlm) -> LlmConfig {
    let mut c = LlmConfig { base_url: fake.base_url(), model: "test-model".into(), ..LlmConfig::default() };
    c.backoff_min_ms = 10;
    c.backoff_max_ms = 50;
    c.timeout_secs = 10;
    c
}

fn reasoner(c: &LlmConfig) -> Arc<LlmReasoner> {
    let e = Endpoint::with_env(&c.resolved_endpoints()[0], c, |_| None).unwrap();
    Arc::new(LlmReasoner::with_endpoints(c.clone(), Prompts::builtin(), vec![e]).unwrap())
}

/// The fake model's critiques were written for seed 004's weighted average
/// and its 0.85 threshold ("settled" means that here); the calibrated
/// mapping was fitted on built-in sessions and is tested on its own.
fn preset_settings(preset: Preset) -> EngineSettings {
    let mut s = EngineSettings::with_limits("cost", preset.limits());
    s.limits.time_limit_secs = 0;
    s.limits.cost_budget_usd = 0.0;
    s.evaluate.calibration.enabled = false;
    s.decide.confidence_threshold = 0.85;
    s
}

/// Runs one session to its end; the log's records come back with the state.
async fn session(
    r: Arc<LlmReasoner>,
    settings: EngineSettings,
    docs: Vec<scripted::Doc>,
) -> (SessionState, Vec<sleuth::engine::protocol::EventRecord>) {
    let provider: Arc<dyn SearchProvider> = Arc::new(ScriptedProvider::new("web", docs));
    let sink = MemorySink::default();
    let parts = EngineParts {
        reasoner: r,
        search: Arc::new(SearchRouter::new(
            vec![vec![provider]],
            &sleuth::search::RouterSettings { backoff_min_ms: 1, backoff_max_ms: 5, ..Default::default() },
        )),
        texts: Arc::new(MemoryTexts::default()),
        memory: Arc::new(InMemoryStore::new(MemorySettings::default())) as Arc<dyn MemoryStore>,
        log: Box::new(sink.clone()),
    };
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    handle.commands.send(Command::Start { question: "How do widgets connect to gadgets?".into() }).unwrap();
    let state = engine.run().await.unwrap();
    (state, sink.records())
}

/// `n` pages about widgets and gadgets, long enough for the built-in
/// review to judge (it rejects snippets), each opening with a quotable fact.
fn corpus(n: usize) -> Vec<scripted::Doc> {
    scripted::corpus(n)
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            let more: String = (0..8)
                .map(|j| {
                    format!("Widgets of series {i} connect to gadgets through connector {j}, as the manual shows. ")
                })
                .collect();
            doc(&d.locator, &format!("{} {more}", d.text))
        })
        .collect()
}

/// Model calls the session's usage events record.
fn recorded_calls(records: &[sleuth::engine::protocol::EventRecord]) -> u32 {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::UsageRecorded { usage } => Some(usage.calls),
            _ => None,
        })
        .sum()
}

fn roles(fake: &FakeLlm) -> Vec<String> {
    fake.state.requests.lock().unwrap().iter().map(role_of).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_iteration_costs_a_plan_and_a_draft_and_every_later_one_its_draft_in_every_preset() {
    for preset in [Preset::Simple, Preset::Standard, Preset::Deep] {
        let fake = FakeLlm::start().await;
        // The first draft leaves a gap; the second is complete.
        fake.state.full_coverage_from.store(2, Ordering::SeqCst);
        let (state, _) = session(reasoner(&config(&fake)), preset_settings(preset), corpus(30)).await;
        assert!(state.report.is_some(), "{preset:?}: no report");
        let iterations = state.iterations.len();
        assert!(iterations >= 2, "{preset:?}: the gap was followed up");
        let seen = roles(&fake);
        let count = |role: &str| seen.iter().filter(|r| *r == role).count();
        // One PLAN; then a DRAFT (with its self-check) per iteration. REFINE
        // takes the check's gaps as its queries, the report is the best
        // draft: no refine, review, critique, clarify, write or claims call.
        assert_eq!(count("plan"), 1, "{preset:?}: {seen:?}");
        assert_eq!(count("draft"), iterations, "{preset:?}: {seen:?}");
        assert_eq!(seen.len(), iterations + 1, "{preset:?}: {seen:?}");
        assert!(state.asks.is_empty());
        assert!(state.errors.is_empty(), "{preset:?}: {:?}", state.errors);
        // The second round searched the gap the first draft's check named.
        let refined = state.iterations[0].refinement.as_ref().expect("a refinement");
        assert!(
            refined.queries.iter().any(|q| q.aspect.as_deref() == Some("gadgets") && q.text.contains("gadgets")),
            "{preset:?}: {:?}",
            refined.queries
        );
        // The critique came from the draft's own check.
        assert!(state.iterations.iter().all(|it| it.critique.as_ref().is_some_and(|c| c.answer_relevance.is_some())));
        let v = state.verification.as_ref().unwrap();
        assert!(v.claims_checked > 0 && v.claims_supported == v.claims_checked, "{v:?}");
        assert!(!state.reasoning_degraded(), "{preset:?}: {:?}", state.degraded);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_settled_in_one_iteration_costs_two_calls_and_is_not_degraded() {
    let fake = FakeLlm::start().await;
    fake.state.full_coverage_from.store(1, Ordering::SeqCst);
    let (state, records) = session(reasoner(&config(&fake)), preset_settings(Preset::Standard), corpus(12)).await;
    assert_eq!(state.iterations.len(), 1);
    assert_eq!(roles(&fake), ["plan", "draft"], "no write call");
    let calls = recorded_calls(&records);
    assert_eq!(calls, 2, "every call is recorded once");
    let report = state.report.as_ref().unwrap();
    let v = state.verification.as_ref().unwrap();
    assert!(v.claims_checked > 0 && v.claims_supported == v.claims_checked, "{v:?}");
    assert!(report.markdown.contains("Answer 1."), "the report is the draft: {}", report.markdown);
    // A report built without a call by choice is not a phase that fell back.
    assert!(state.errors.is_empty() && !state.reasoning_degraded(), "{:?} {:?}", state.errors, state.degraded);
    assert!(!report.caveats.iter().any(|c| c.contains("could not do")), "{:?}", report.caveats);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_model_writer_a_settled_question_costs_three_calls() {
    let fake = FakeLlm::start().await;
    fake.state.full_coverage_from.store(1, Ordering::SeqCst);
    let mut c = config(&fake);
    c.write_with_model = true;
    let (state, records) = session(reasoner(&c), preset_settings(Preset::Standard), corpus(12)).await;
    assert_eq!(state.iterations.len(), 1);
    assert_eq!(roles(&fake), ["plan", "draft", "write"]);
    assert_eq!(recorded_calls(&records), 3);
    assert!(state.report.as_ref().unwrap().markdown.contains("The report, written from the sources."));
    assert!(state.errors.is_empty(), "{:?}", state.errors);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_500_to_json_schema_lowers_the_mode_once_for_the_session() {
    let fake = FakeLlm::start().await;
    fake.state.schema_500.store(true, Ordering::SeqCst);
    fake.state.full_coverage_from.store(2, Ordering::SeqCst);
    let (state, _) = session(reasoner(&config(&fake)), preset_settings(Preset::Simple), corpus(12)).await;
    let formats: Vec<String> = fake
        .state
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|b| b["response_format"]["type"].as_str().unwrap_or("none").to_string())
        .collect();
    // The first JSON call meets the 500, is not retried as is, and every
    // later JSON call goes out as json_object (the schema in the prompt).
    assert_eq!(formats.iter().filter(|f| *f == "json_schema").count(), 1, "{formats:?}");
    assert!(formats.iter().filter(|f| *f == "json_object").count() >= 3, "{formats:?}");
    assert!(state.errors.is_empty(), "{:?}", state.errors);
    assert!(state.report.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollama_format_sends_the_schema_to_the_native_api() {
    let fake = FakeLlm::start().await;
    fake.serve_ollama_native().await;
    let mut c = config(&fake);
    c.structured_output = sleuth::llm::StructuredMode::OllamaFormat;
    let (state, _) = session(reasoner(&c), preset_settings(Preset::Simple), corpus(12)).await;
    let native = fake.state.native.lock().unwrap().clone();
    let roles: Vec<String> = native.iter().map(role_of).collect();
    assert!(roles.contains(&"plan".to_string()) && roles.contains(&"draft".to_string()), "{roles:?}");
    for body in &native {
        assert_eq!(body["format"]["type"], "object", "the schema itself is the format: {body}");
        assert_eq!(body["stream"], false);
        assert!(body["options"]["num_predict"].as_u64().is_some(), "{body}");
    }
    // The plan's schema is the plan's: its list is `queries`.
    let plan = native.iter().find(|b| role_of(b) == "plan").unwrap();
    assert!(plan["format"]["properties"].get("queries").is_some(), "{plan}");
    // JSON calls went native; only the streamed report used /v1, as text.
    let v1 = fake.state.requests.lock().unwrap().clone();
    assert!(v1.iter().all(|b| b.get("response_format").is_none()), "{v1:?}");
    assert!(state.errors.is_empty(), "{:?}", state.errors);
    // The usage Ollama reports (prompt_eval_count, eval_count) was recorded.
    assert!(state.prompt_tokens > 0 && !state.usage_estimated, "{} {}", state.prompt_tokens, state.usage_estimated);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollama_format_on_a_server_without_the_native_api_lowers_to_json_object() {
    // No /api/chat: the server answers 404 there, as a non-Ollama one does.
    let fake = FakeLlm::start().await;
    let mut c = config(&fake);
    c.structured_output = sleuth::llm::StructuredMode::OllamaFormat;
    let (state, _) = session(reasoner(&c), preset_settings(Preset::Simple), corpus(12)).await;
    let formats: Vec<String> = fake
        .state
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|b| b["response_format"]["type"].as_str().unwrap_or("none").to_string())
        .collect();
    assert!(formats.iter().filter(|f| *f == "json_object").count() >= 2, "{formats:?}");
    assert!(!formats.iter().any(|f| f == "json_schema"), "{formats:?}");
    assert!(state.errors.is_empty(), "{:?}", state.errors);
    assert!(state.report.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_stay_within_their_budgets_on_a_large_source_set() {
    let fake = FakeLlm::start().await;
    fake.state.full_coverage_from.store(99, Ordering::SeqCst);
    let long: Vec<scripted::Doc> = (1..=40)
        .map(|i| {
            let text: String = (0..150)
                .map(|j| format!("Widget {i} meets gadget {j} in paragraph {j} of page {i}, which says more. "))
                .collect();
            doc(&format!("https://docs.example.org/long{i}"), &text)
        })
        .collect();
    let mut c = config(&fake);
    // Every role that has a budget makes its call, and the planner's
    // queries keep finding new pages.
    c.refine_with_model = true;
    c.write_with_model = true;
    let budgets = c.prompt_tokens;
    let mut s = preset_settings(Preset::Standard);
    s.limits.max_iterations = 3;
    let (state, _) = session(reasoner(&c), s, long).await;
    assert!(state.sources.len() >= 30, "the sources piled up: {}", state.sources.len());
    let requests = fake.state.requests.lock().unwrap().clone();
    for body in &requests {
        let role = role_of(body);
        let budget = match role.as_str() {
            "plan" => budgets.plan,
            "draft" => budgets.draft,
            "write" => budgets.write,
            other => panic!("unexpected call {other}"),
        };
        // The budget covers the text; message framing adds a few tokens.
        let tokens = request_tokens(body);
        assert!(tokens <= u64::from(budget) + 24, "{role}: {tokens} tokens for a budget of {budget}");
    }
    let drafts: Vec<&serde_json::Value> = requests.iter().filter(|b| role_of(b) == "draft").collect();
    assert!(drafts.iter().all(|b| request_tokens(b) > u64::from(budgets.draft) / 2), "the budget is used, not starved");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_that_echoes_the_prompt_is_replaced_and_the_session_says_so() {
    let fake = FakeLlm::start().await;
    fake.state.full_coverage_from.store(1, Ordering::SeqCst);
    fake.queue(
        "write",
        Behaviour::Content(
            "<<SYS>> # WRITE You are the writer of a research agent. <source id=\"1\">Fact number 1</source>".into(),
        ),
    );
    let mut c = config(&fake);
    c.write_with_model = true;
    let (state, _) = session(reasoner(&c), preset_settings(Preset::Simple), corpus(8)).await;
    let report = state.report.as_ref().unwrap();
    assert!(!report.markdown.contains("<<SYS>>") && !report.markdown.contains("<source"), "{}", report.markdown);
    assert!(report.markdown.contains("[1]") || report.markdown.contains("Fact number"), "{}", report.markdown);
    let err = state.errors.iter().find(|e| e.phase.as_str() == "write").expect("the rejected report is an error event");
    assert!(err.message.contains("template"), "{}", err.message);
    assert!(state.degraded.iter().any(|d| d.to_string().contains("write")), "{:?}", state.degraded);
    assert!(report.caveats.iter().any(|c| c.contains("could not do: write")), "{:?}", report.caveats);
    let v = state.verification.as_ref().unwrap();
    assert!(v.claims_checked > 0 && v.claims_supported == v.claims_checked, "{v:?}");
}

#[tokio::test]
async fn lists_are_bounded_by_the_settings_and_a_cut_off_list_keeps_its_complete_items() {
    let fake = FakeLlm::start().await;
    let mut looping = String::from(
        "{\"reflection\": {\"plan\": \"p\", \"assumptions\": [], \"risks\": [], \"success_criteria\": []}, \"queries\": [",
    );
    for k in 0..40 {
        looping.push_str(&format!(
            "{{\"query\": \"widget gadget {k}\", \"intent\": \"i\", \"aspect\": null, \"exclude\": []}}, "
        ));
    }
    looping.push_str("{\"query\": \"widget gad");
    fake.queue("plan", Behaviour::Content(looping));
    let ctx = PlanContext {
        question: "How do widgets connect to gadgets?".into(),
        constraints: vec![],
        iteration: 1,
        max_queries: 4,
        strategy: None,
        strategy_rationale: String::new(),
        prior: None,
        sources: vec![],
        already_run: vec![],
        memories: vec![],
    };
    let out = reasoner(&config(&fake)).plan(ctx).await.unwrap();
    assert_eq!(fake.count("plan"), 1, "no repair: the complete items were kept");
    assert_eq!(out.value.queries.len(), 40);
    let req = &fake.requests_of("plan")[0];
    let schema = &req["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["properties"]["queries"]["maxItems"], 4, "{schema}");
    assert!(!req["messages"][0]["content"].as_str().unwrap().contains("\"…\""), "no copyable placeholder");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_server_cannot_stretch_the_time_limit_and_the_report_is_written() {
    sleuth::llm::usage::count_tokens("warm up");
    let fake = FakeLlm::start().await;
    fake.state.full_coverage_from.store(99, Ordering::SeqCst);
    // The plan takes half the limit: the first draft cannot finish before
    // research's share of it (3.4 s) ends.
    fake.state.delay_ms.store(2000, Ordering::SeqCst);
    let mut s = preset_settings(Preset::Standard);
    s.limits.time_limit_secs = 4;
    let started = Instant::now();
    let (state, records) = session(reasoner(&config(&fake)), s, corpus(12)).await;
    let wall = started.elapsed();
    assert!(wall <= Duration::from_millis(4400), "{wall:?} for a 4 s limit");
    let report = state.report.as_ref().expect("the report was written");
    assert!(!report.markdown.trim().is_empty());
    assert!(state.errors.iter().any(|e| e.message.contains("time limit")), "{:?}", state.errors);
    // The calls the deadline cut were sent: their prompts count, as estimates.
    let cut = records.iter().filter(|r| matches!(&r.event, Event::UsageRecorded { usage } if usage.estimated)).count();
    assert!(cut >= 1, "the cut calls were recorded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tokens_of_failed_calls_count_against_the_token_budget() {
    let fake = FakeLlm::start().await;
    for _ in 0..3 {
        fake.queue("plan", Behaviour::Content("I will search for widgets.".into()));
        fake.queue("draft", Behaviour::Content("Widgets are nice.".into()));
    }
    let mut s = preset_settings(Preset::Deep);
    s.limits.token_budget = 1000;
    let (state, records) = session(reasoner(&config(&fake)), s, corpus(12)).await;
    let recorded: u32 = records
        .iter()
        .filter_map(|r| match &r.event {
            Event::UsageRecorded { usage } if matches!(usage.role, Role::Plan | Role::Draft) => Some(usage.calls),
            _ => None,
        })
        .sum();
    assert_eq!(recorded, fake.count("plan") + fake.count("draft"), "every answered call was recorded");
    assert!(
        state.errors.iter().any(|e| e.phase.as_str() == "plan")
            && state.errors.iter().any(|e| e.phase.as_str() == "draft")
    );
    assert_eq!(state.iterations.len(), 1, "the budget stopped the run");
    let d = state.iterations[0].decision.as_ref().unwrap();
    assert_eq!(d.reason, DecisionReason::TokenBudget, "{d:?}");
    assert!(
        state.degraded.iter().any(|d| d.to_string().contains("plan") && d.to_string().contains("draft")),
        "{:?}",
        state.degraded
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_review_batch_is_an_error_and_gets_the_built_in_review() {
    let fake = FakeLlm::start().await;
    let mut c = config(&fake);
    c.review_with_model = true;
    c.context_window = 4096;
    c.max_output_tokens = 1024;
    c.prompt_tokens = PromptBudgets { review: 900, ..PromptBudgets::default() };
    fake.queue("review", Behaviour::Status(400, None, "bad request".into()));
    let (state, _) = session(reasoner(&c), preset_settings(Preset::Simple), corpus(12)).await;
    assert!(fake.count("review") >= 2, "several batches");
    let err = state.errors.iter().find(|e| e.phase.as_str() == "review").expect("an error event for the failed batch");
    assert!(err.message.contains("built-in review"), "{}", err.message);
    let (verdicts, _) = state.iterations[0].review.as_ref().unwrap();
    assert_eq!(verdicts.len(), state.iterations[0].new_sources.len(), "every source has a verdict");
}

#[tokio::test]
async fn the_system_prompt_can_be_folded_into_the_first_user_message() {
    let fake = FakeLlm::start().await;
    let mut c = config(&fake);
    c.fold_system_prompt = true;
    let docs =
        vec![SourceDoc::page(1, "https://docs.example.org/1", "One", "Widgets connect to gadgets by a bolt. Yes.")];
    let ctx = DraftContext {
        question: "How do widgets connect to gadgets?".into(),
        constraints: vec![],
        iteration: 1,
        sources: docs,
        previous_draft: None,
        previous_critique: None,
        memories: vec![],
    };
    let out = reasoner(&c).draft(ctx).await.unwrap();
    assert!(out.value.markdown.contains("[1]"));
    let msgs = fake.requests_of("draft")[0]["messages"].as_array().unwrap().clone();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0]["role"], "user");
    let text = msgs[0]["content"].as_str().unwrap();
    assert!(text.starts_with("# DRAFT") && text.contains("QUESTION:"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_question_and_sources_come_first_and_cached_tokens_are_recorded() {
    let fake = FakeLlm::start().await;
    fake.state.full_coverage_from.store(2, Ordering::SeqCst);
    let (state, records) = session(reasoner(&config(&fake)), preset_settings(Preset::Simple), corpus(12)).await;
    assert!(state.iterations.len() >= 2);
    let second = support::llm::user_text(&fake.requests_of("draft")[1]);
    let (q, src, prev) = (second.find("QUESTION:"), second.find("<sources>"), second.find("PREVIOUS DRAFT"));
    assert!(q < src && src < prev, "question, then sources, then the previous draft: {second}");
    let cached: u64 = records
        .iter()
        .filter_map(|r| match &r.event {
            Event::UsageRecorded { usage } => Some(usage.cached_tokens),
            _ => None,
        })
        .sum();
    assert!(cached > 0, "the server's cached tokens are recorded per call");
}

/// A round whose searches keep no new source and whose draft scores no
/// better ends the loop: the report is written from the best draft instead
/// of spending another REFINE and DRAFT on the same evidence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_with_no_new_source_and_no_better_draft_ends_the_loop() {
    let fake = FakeLlm::start().await;
    // Every draft covers every aspect; the bar is out of reach, so only a
    // stop rule can end the session before the iteration limit.
    fake.state.full_coverage_from.store(1, Ordering::SeqCst);
    // The second draft says it in other words (so it has not "converged"),
    // citing a sentence every page has.
    fake.queue("draft", Behaviour::Slow(Duration::ZERO));
    let quote = "connect to gadgets through connector 1, as the manual shows";
    let check = serde_json::json!({
        "verdict": "PASS", "issues": [], "aspects_required": ["widgets", "gadgets"],
        "aspects_addressed": ["widgets", "gadgets"], "weak_aspects": [], "gaps": [], "contradictions": [],
        "needs_clarification": null, "answer_relevance": 0.9, "unanswered": false
    });
    let second = serde_json::json!({
        "answer": format!("Put differently: every series of widgets is joined to its gadgets by numbered connectors [1].\n\n- They {quote} [1]"),
        "claims": [{ "text": format!("Widgets {quote}"), "aspect": "widgets", "citations": [{ "source": 1, "quote": quote }] }],
        "check": check
    });
    fake.queue("draft", Behaviour::Content(second.to_string()));
    let mut settings = preset_settings(Preset::Standard);
    settings.decide.confidence_threshold = 0.99;
    // Four pages: the first round's searches find them all.
    let (state, _) = session(reasoner(&config(&fake)), settings, corpus(4)).await;
    assert_eq!(roles(&fake), ["plan", "draft", "draft"], "two rounds, then the report");
    assert_eq!(state.iterations.len(), 2);
    assert!(state.iterations[1].new_sources.is_empty(), "the second round found nothing new");
    let d = state.iterations[1].decision.as_ref().unwrap();
    assert_eq!((d.action, d.reason), (Action::Output, DecisionReason::DiminishingReturns), "{}", d.detail);
    assert!(d.detail.contains("no new source"), "{}", d.detail);
    let report = state.report.as_ref().unwrap();
    let best = state.best_iteration().unwrap().iteration;
    assert_eq!(report.based_on_iteration, Some(best));
    let v = state.verification.as_ref().unwrap();
    assert!(v.claims_checked > 0 && v.claims_supported == v.claims_checked, "{v:?}");
    assert!(report.caveats.iter().any(|c| c.contains("diminishing returns")), "{:?}", report.caveats);
}
