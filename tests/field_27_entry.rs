//! Issue 27 at the entry points, as a new user meets them on the real binary
//! (every child under a time limit, `SLEUTH_HOME` a temp dir): `resume` and
//! `fork` with `--theme` (item 18), `doctor` on another corpus and an
//! unreachable model (item 17), a degraded session in `sessions`, over HTTP
//! and MCP (item 3), a headless ASK answered with a number no option has
//! (item 8).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::time::Duration;

use crate::support;
use crate::support::llm::{Behaviour, FakeLlm};
use crate::support::mercury::mercury_docs;
use crate::support::serve::Server;
use rmcp::model::CallToolRequestParams;
use serde_json::Value;
use support::bin::{DEFAULT_LIMIT, Ran, output_async, run_limited, sleuth, sleuth_cmd, sleuth_command};
use support::e2e::{session_ids, write_corpus};

/// `--set local.corpus=<dir>`.
fn corpus_flag(dir: &Path) -> String {
    format!("local.corpus={}", dir.display())
}

/// A finished session of two iterations on the widget corpus, recorded in
/// step mode (headless, it runs on: nobody can step without a terminal).
fn two_iterations_in_step_mode(home: &Path) -> String {
    let corpus = home.join("corpus");
    write_corpus(&corpus);
    let flag = corpus_flag(&corpus);
    let ran = sleuth(
        home,
        &[
            "run",
            "--set",
            &flag,
            "--set",
            "decide.confidence_threshold=1.0",
            "--max-iterations",
            "2",
            "--step",
            "How does widget 3 connect to its gadget?",
        ],
    );
    assert!(matches!(ran.code, Some(0) | Some(4)), "{}", ran.stderr);
    session_ids(home).pop().expect("the session")
}

fn log_of(home: &Path, id: &str) -> Vec<u8> {
    std::fs::read(home.join("sessions").join(id).join("events.jsonl")).unwrap()
}

fn refused(ran: &Ran, needles: &[&str]) {
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    for n in needles {
        assert!(ran.stderr.contains(n), "`{n}` missing from:\n{}", ran.stderr);
    }
}

/// 27.18: `resume` and `fork` take `--theme` as `sleuth` and `open` do, and
/// a bad one is refused before the session is touched.
#[test]
fn resume_and_fork_take_the_theme_flag_and_check_it_before_touching_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let id = two_iterations_in_step_mode(home);
    let log = log_of(home, &id);

    let ran = sleuth(home, &["resume", &id, "--headless", "--theme", "light"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stderr.contains("has ended"), "{}", ran.stderr);

    // No such theme: refused, and nothing written or created.
    refused(&sleuth(home, &["resume", &id, "--theme", "nope"]), &["unknown theme `nope`", "high-contrast"]);
    refused(&sleuth(home, &["fork", &id, "--from", "1", "--theme", "nope"]), &["unknown theme `nope`"]);
    assert_eq!(session_ids(home), vec![id.clone()], "no fork was made");
    assert_eq!(log_of(home, &id), log, "the session's log is untouched");

    // A theme file with a bad modifier: its file, line and key, and what to write.
    std::fs::create_dir_all(home.join("themes")).unwrap();
    let theme = home.join("themes/mine.toml");
    std::fs::write(&theme, "extends = \"light\"\n[styles]\ntitle = { modifiers = [\"bold\", \"blink\"] }\n").unwrap();
    refused(
        &sleuth(home, &["fork", &id, "--from", "1", "--create-only", "--theme", "mine"]),
        &[&theme.display().to_string(), "line 3", "styles.title.modifiers", "`blink`", "crossed_out"],
    );
    assert_eq!(session_ids(home), vec![id.clone()], "no fork was made");

    // A good user theme: the fork is made.
    std::fs::write(&theme, "extends = \"light\"\n[styles]\ntitle = { modifiers = [\"bold\", \"italic\"] }\n").unwrap();
    let ran = sleuth(home, &["fork", &id, "--from", "1", "--create-only", "--theme", "mine"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(session_ids(home).len(), 2, "{}", ran.stderr);
}

/// A folder of garden rules; `titled` gives each page a title of several
/// words, else one word (as short notes often have).
fn garden_corpus(dir: &Path, titled: bool) {
    std::fs::create_dir_all(dir).unwrap();
    let pages = [
        (
            "watering.md",
            "Watering during a drought",
            "Watering",
            "During a declared drought, gardens may be watered only before eight in the morning and after seven in the evening, with a watering can and never with a hose. Neighbours report hoses to the committee.",
        ),
        (
            "fees.md",
            "Plot fees and payment",
            "Fees",
            "A garden plot costs forty-five euros per year. The fee is paid to the treasurer in March, in cash or by transfer.",
        ),
        ("compost.md", "Compost bins", "Compost", "Compost bins are emptied every Friday by the volunteers."),
    ];
    for (file, long, short, text) in pages {
        let title = if titled { long } else { short };
        std::fs::write(dir.join(file), format!("# {title}\n\n{text}\n")).unwrap();
    }
}

/// The `provider local` row of a doctor table: (status, query probed).
fn local_probe(table: &str) -> (String, String) {
    let row = table.lines().find(|l| l.trim_start().starts_with("provider local")).unwrap_or_else(|| panic!("{table}"));
    let status = row.split_whitespace().nth(2).unwrap_or_default().to_string();
    let query = row.split('"').nth(1).unwrap_or_else(|| panic!("no query in {row}")).to_string();
    (status, query)
}

/// 27.17: `doctor` on another corpus probes it with words of that corpus
/// (a title, or the words of a page when titles are single words), and
/// says where its settings came from when `--set` gave them.
#[test]
fn doctor_on_another_corpus_probes_it_with_its_own_words_and_names_where_settings_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    for titled in [true, false] {
        let corpus = dir.path().join(if titled { "titled" } else { "notes" });
        garden_corpus(&corpus, titled);
        let text: String = std::fs::read_dir(&corpus)
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap().to_lowercase())
            .collect();
        let ran = sleuth(&home, &["doctor", "--set", &corpus_flag(&corpus)]);
        assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
        let (status, query) = local_probe(&ran.stdout);
        assert_eq!(status, "ok", "the probe finds the corpus's pages:\n{}", ran.stdout);
        assert!(!query.contains("rust") && query != "boiling point of water", "{}", ran.stdout);
        for word in query.split_whitespace() {
            assert!(text.contains(word), "`{word}` of the probe \"{query}\" is not in the corpus:\n{}", ran.stdout);
        }
        if titled {
            assert!(["watering during a drought", "plot fees and payment"].contains(&query.as_str()), "{query}");
        }
        // No config file, one --set: named in the order they apply.
        let header = ran.stdout.lines().next().unwrap_or_default();
        assert!(!header.contains("config: built-in defaults"), "{header}");
        assert!(header.contains("--set local.corpus"), "{header}");
        let file = home.join("config.toml");
        assert!(header.contains(&format!("no config file at {}", file.display())), "{header}");
        assert!(
            header.find("--set local.corpus") < header.find("built-in defaults"),
            "--set is named before what it overrides: {header}"
        );
    }
}

/// 27.17: an unreachable model is one failure, with the fix `run` gives.
#[test]
fn doctor_gives_an_unreachable_model_the_fix_run_gives_and_counts_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let corpus = dir.path().join("garden");
    garden_corpus(&corpus, true);
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("llm.base_url=http://127.0.0.1:{port}/v1");
    let flag = corpus_flag(&corpus);
    let doctor = sleuth(&home, &["doctor", "--reasoner", "llm", "--set", &url, "--set", &flag]);
    assert_eq!(doctor.code, Some(1), "{}", doctor.stdout);
    let lines: Vec<&str> = doctor.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("llm endpoint `default`"))
        .unwrap_or_else(|| panic!("{}", doctor.stdout));
    assert!(lines[at].contains("FAIL") && lines[at].contains("unreachable"), "{}", doctor.stdout);
    let fix = lines[at + 1].trim();
    assert!(fix.starts_with("fix: start the server") && fix.contains("--reasoner builtin"), "{}", doctor.stdout);
    assert!(doctor.stdout.contains("1 required check failed: llm endpoint `default`"), "{}", doctor.stdout);

    // `run` on the same setup says the same fix.
    let run = sleuth(&home, &["run", "--reasoner", "llm", "--set", &url, "--set", &flag, "What does a plot cost?"]);
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    let run_fix =
        run.stderr.lines().find(|l| l.trim_start().starts_with("fix:")).unwrap_or_else(|| panic!("{}", run.stderr));
    let shared = "start the server (Ollama: `ollama serve`; llama.cpp: `llama-server -m model.gguf --port 8080`; vLLM: `vllm serve MODEL`), or set [llm] base_url to where it runs";
    assert!(run_fix.contains(shared) && fix.contains(shared), "doctor: {fix}\nrun: {run_fix}");
}

/// 27.17: a search chain whose one provider fails is one failure, named
/// once (not "search chain 1, provider local").
#[test]
fn doctor_counts_a_failed_chain_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-folder");
    let ran = sleuth(&dir.path().join("home"), &["doctor", "--set", &corpus_flag(&missing)]);
    assert_eq!(ran.code, Some(1), "{}", ran.stdout);
    let chain = ran.stdout.lines().find(|l| l.starts_with("search chain 1")).unwrap_or_default();
    assert!(chain.contains("FAIL"), "{}", ran.stdout);
    assert!(ran.stdout.contains("1 required check failed: search chain 1\n"), "{}", ran.stdout);
}

/// 27.3: a session whose model failed (the built-in took over: exit 6) is
/// `degraded` wherever sessions are listed: `sessions` (table and JSON),
/// `GET /sessions` and `/sessions/{id}`, and the MCP `list_sessions` tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_degraded_session_is_listed_degraded_by_the_cli_http_and_mcp() {
    let fake = FakeLlm::start().await;
    // Every DRAFT call is refused (a 400 is not retried): the built-in drafts.
    for _ in 0..20 {
        fake.queue("draft", Behaviour::Status(400, None, "the model cannot do this".into()));
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let corpus = dir.path().join("corpus");
    write_corpus(&corpus);
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "[research]\npreset = \"simple\"\n[local]\ncorpus = {:?}\n[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\n",
            corpus.display().to_string(),
            fake.base_url()
        ),
    )
    .unwrap();
    let mut cmd = sleuth_cmd(&home);
    cmd.args(["run", "--reasoner", "llm", "What is the latency of widget 5?"]);
    let run = output_async(cmd).await;
    assert_eq!(run.status.code(), Some(6), "{}", String::from_utf8_lossy(&run.stderr));
    let id = session_ids(&home).pop().expect("the session");

    let table = sleuth(&home, &["sessions"]);
    let row = table.stdout.lines().find(|l| l.starts_with(&id)).unwrap_or_else(|| panic!("{}", table.stdout));
    assert!(row.contains(" degraded ") && !row.contains("finished"), "{row}");
    let listed: Value = serde_json::from_str(&sleuth(&home, &["sessions", "--json"]).stdout).unwrap();
    assert_eq!(listed[0]["status"], "degraded", "{listed}");
    assert_eq!(listed[0]["summary"]["status"], "degraded", "{listed}");

    // Over HTTP.
    let server = tokio::task::spawn_blocking({
        let home = home.clone();
        move || Server::start(&home, &[], &[])
    })
    .await
    .unwrap();
    sleuth::tls::install_crypto_provider();
    let c = reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
    let all: Value = c.get(server.url("/sessions")).send().await.unwrap().json().await.unwrap();
    assert_eq!(all[0]["id"], id.as_str(), "{all}");
    assert_eq!(all[0]["status"], "degraded", "{all}");
    let one: Value = c.get(server.url(&format!("/sessions/{id}"))).send().await.unwrap().json().await.unwrap();
    assert_eq!(one["status"], "degraded", "{one}");
    drop(server);

    // Over MCP, with the SDK's client.
    let client = support::mcp::connect((), &home, &[], &[]).await;
    let params = CallToolRequestParams::new("list_sessions");
    let listed = support::mcp::step("list_sessions", client.call_tool(params)).await.unwrap();
    let listed = serde_json::to_value(listed).unwrap();
    assert_eq!(listed["structuredContent"]["sessions"][0]["status"], "degraded", "{listed}");
    let text = listed["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains(&format!("{id} · degraded")), "{text}");
    let _ = support::mcp::step("closing the client", client.cancel()).await;
}

/// 27.8: a headless ASK answered with a number no option has is refused
/// with the options shown again; the next line picks one, and the run
/// ends with a report that has sources of that meaning.
#[test]
fn a_number_no_option_has_is_refused_with_the_options_and_the_next_answer_finishes_with_sources() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, home) = (dir.path().join("mercury"), dir.path().join("home"));
    mercury_docs(&corpus);
    let flag = corpus_flag(&corpus);
    let ask = |input: &str| {
        let mut cmd = sleuth_command(&home);
        cmd.args(["run", "--set", &flag, "--ask", "stdin", "What is mercury?"]);
        run_limited(cmd, input, DEFAULT_LIMIT)
    };
    let ran = ask("7\n2\n");
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    // The options as first shown: "  1. …", "  2. …".
    let options: Vec<String> = ran
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("  1. ").or_else(|| l.strip_prefix("  2. ")))
        .map(str::to_string)
        .collect();
    assert_eq!(options.len(), 2, "{}", ran.stderr);
    let refusal = ran
        .stderr
        .lines()
        .find(|l| l.contains("7 is not an option's number"))
        .unwrap_or_else(|| panic!("{}", ran.stderr));
    assert!(
        refusal.contains(&format!("1. {}", options[0])) && refusal.contains(&format!("2. {}", options[1])),
        "the options are shown again: {refusal}"
    );
    assert_eq!(ran.stderr.matches("answer (number or text):").count(), 2, "asked again: {}", ran.stderr);
    let sources: Vec<&str> = ran.stdout.lines().filter(|l| l.starts_with("- [")).collect();
    assert!(!sources.is_empty(), "the report has sources:\n{}", ran.stdout);
    // The second meaning was chosen: its pages are the sources.
    let chosen = if options[1].contains("planet") { "planet/" } else { "element/" };
    assert!(sources.iter().all(|s| s.contains(chosen)), "{chosen}: {sources:?}");
    let id = session_ids(&home).pop().unwrap();
    let exported: Value = serde_json::from_str(&sleuth(&home, &["export", &id, "--format", "json"]).stdout).unwrap();
    let answer = &exported["session"]["asks"][0]["answer"];
    assert_eq!((answer["kind"].as_str(), answer["index"].as_u64()), (Some("choice"), Some(1)), "{answer}");

    // Words that match no option are kept as a constraint, and the sources stay.
    let ran = ask("bananas\n");
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stdout.contains("you chose “bananas”"), "{}", ran.stdout);
    assert!(ran.stdout.lines().any(|l| l.starts_with("- [")), "sources kept:\n{}", ran.stdout);
}
