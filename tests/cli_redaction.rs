//! Keys blanked by the engine as events leave it reach nothing sleuth
//! writes or prints: the lessons of reflexion memory and `memory list`, the
//! headless ASK lines on stderr, and the stored source texts. With the real binary, a fake
//! OpenAI-compatible server, and `SLEUTH_HOME` in a temp dir.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;

use crate::support;
use crate::support::llm::{Behaviour, FakeLlm};
use serde_json::json;
use support::bin::run_async;

const KEY: &str = "sk-test-SECRET-7d3b91e0aa";

/// The key every run has in its environment.
const KEYED: &[(&str, &str)] = &[("SLEUTH_TEST_API_KEY", KEY)];

fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if String::from_utf8_lossy(&std::fs::read(&p).unwrap()).contains(needle) {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_in_the_question_an_ask_option_and_a_page_is_blanked_in_memory_stderr_and_sources() {
    let fake = FakeLlm::start().await;
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(
        corpus.join("widgets.md"),
        format!("# Widgets\n\nWidgets connect to gadgets by a bolt; the bench token {KEY} opens the lab.\n"),
    )
    .unwrap();
    std::fs::write(corpus.join("gadgets.md"), "# Gadgets\n\nGadgets hold widgets with a clamp.\n").unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[research]\nreasoner = \"llm\"\npreset = \"simple\"\nask = \"first\"\n[local]\ncorpus = {:?}\n[llm]\nbase_url = \"{}\"\napi_key_env = \"SLEUTH_TEST_API_KEY\"\nmodel = \"test-model\"\nself_check = false\nreview_with_model = true\n",
            corpus.display().to_string(),
            fake.base_url()
        ),
    )
    .unwrap();
    // The first critique asks which widget, with the key in an option (a
    // model that echoes what it was shown); the second finds the gap fixed,
    // so the first critique's issue becomes a lesson. The critique is its own
    // call and the model reviews (both off by default), so the
    // short test pages are kept and the critic's words reach the session.
    let ask = json!({ "question": format!("Which widget, the one behind {KEY}?"), "options": [format!("the widget of {KEY}"), "the red widget"] });
    let critique = json!({
        "verdict": "WARN",
        "issues": [{ "severity": "medium", "description": format!("gadgets missing for {KEY}"), "aspect": "gadgets" }],
        "aspects_required": ["widgets", "gadgets"], "aspects_addressed": ["widgets"],
        "weak_aspects": [], "gaps": ["gadgets"], "contradictions": [],
        "needs_clarification": ask,
        "dimensions": { "completeness": 0.9, "accuracy": 0.95, "relevance": 0.95, "freshness": 0.9, "coherence": 0.9 }
    });
    fake.queue("critique", Behaviour::Content(critique.to_string()));
    fake.queue("clarify", Behaviour::Content(ask.to_string()));

    let run =
        run_async(home.path(), KEYED, &["run", &format!("How do widgets connect to gadgets with key {KEY}?")]).await;
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(err.contains("answer: "), "the ASK was answered on stderr: {err}");
    assert!(!err.contains(KEY) && !String::from_utf8_lossy(&run.stdout).contains(KEY), "{err}");

    let memory = std::fs::read_to_string(home.path().join("memory.jsonl")).expect("a lesson was stored");
    assert!(memory.contains("[redacted]"), "{memory}");
    let list = run_async(home.path(), KEYED, &["memory", "list"]).await;
    let json = run_async(home.path(), KEYED, &["memory", "list", "--json"]).await;
    for out in [&list, &json] {
        assert!(out.status.success());
        assert!(!String::from_utf8_lossy(&out.stdout).contains(KEY));
    }
    let id: String =
        serde_json::from_slice::<serde_json::Value>(&json.stdout).unwrap()[0]["id"].as_str().unwrap().to_string();
    // `memory show` takes the start of an id.
    let show = run_async(home.path(), KEYED, &["memory", "show", &id[..id.len() - 2]]).await;
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(show.status.success() && shown.contains(&id), "{shown}");
    assert!(!shown.contains(KEY), "{shown}");

    let sessions = home.path().join("sessions");
    let sources: Vec<_> = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .flat_map(|s| std::fs::read_dir(s.path().join("sources")).unwrap().flatten())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(sources.iter().any(|t| t.contains("bench token [redacted]")), "{sources:?}");
    // Only the user's own page holds it, and the search index of that page.
    let holding = files_holding(home.path(), KEY);
    let (corpus_dir, index_dir) = (corpus.display().to_string(), home.path().join("index").display().to_string());
    assert!(holding.iter().all(|p| p.starts_with(&corpus_dir) || p.starts_with(&index_dir)), "{holding:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lessons_stored_before_redaction_are_blanked_when_printed() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path()).unwrap();
    let lesson = json!({
        "id": "20250101-000000-aaaa-1-0", "question": format!("Why does {KEY} fail?"),
        "mistake": format!("quoted {KEY}"), "correction": "fixed", "tags": [KEY], "created_at_ms": 1
    });
    std::fs::write(home.path().join("memory.jsonl"), format!("{lesson}\n")).unwrap();
    let keyed = ["--set", "llm.api_key_env=SLEUTH_TEST_API_KEY"];
    for args in [&["memory", "list"][..], &["memory", "list", "--json"], &["memory", "show", "20250101"]] {
        let out = run_async(home.path(), KEYED, &[&keyed[..], args].concat()).await;
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!text.contains(KEY) && text.contains("[redacted]"), "{args:?}: {text}");
    }
}
