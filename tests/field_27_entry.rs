//! Issue 27 at the entry points, as a new user meets them on the real binary
//! (every child under a time limit, `SLEUTH_HOME` a temp dir): `resume` and
//! `fork` with `--theme` (item 18), `doctor` on another corpus and an
//! unreachable model (item 17), a degraded session in `sessions`, over HTTP
//! and MCP (item 3), a headless ASK answered with a number no option has
//! (item 8).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::Path;

use support::bin::{DEFAULT_LIMIT, Ran, run_limited, sleuth, sleuth_command};
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
    assert_eq!(session_ids(home), [id.clone()], "no fork was made");
    assert_eq!(log_of(home, &id), log, "the session's log is untouched");

    // A theme file with a bad modifier: its file, line and key, and what to write.
    std::fs::create_dir_all(home.join("themes")).unwrap();
    let theme = home.join("themes/mine.toml");
    std::fs::write(&theme, "extends = \"light\"\n[styles]\ntitle = { modifiers = [\"bold\", \"blink\"] }\n").unwrap();
    refused(
        &sleuth(home, &["fork", &id, "--from", "1", "--create-only", "--theme", "mine"]),
        &[&theme.display().to_string(), "line 3", "styles.title.modifiers", "`blink`", "crossed_out"],
    );
    assert_eq!(session_ids(home), [id.clone()], "no fork was made");

    // A good user theme: the fork is made.
    std::fs::write(&theme, "extends = \"light\"\n[styles]\ntitle = { modifiers = [\"bold\", \"italic\"] }\n").unwrap();
    let ran = sleuth(home, &["fork", &id, "--from", "1", "--create-only", "--theme", "mine"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(session_ids(home).len(), 2, "{}", ran.stderr);
    let _ = (run_limited, sleuth_command, DEFAULT_LIMIT);
}

/// A folder of garden rules; `titled` gives each page a title of several
/// words, else one word (as short notes often have).
fn garden_corpus(dir: &Path, titled: bool) {
    std::fs::create_dir_all(dir).unwrap();
    let pages = [
        ("watering.md", "Watering during a drought", "Watering", "During a declared drought, gardens may be watered only before eight in the morning and after seven in the evening, with a watering can and never with a hose. Neighbours report hoses to the committee."),
        ("fees.md", "Plot fees and payment", "Fees", "A garden plot costs forty-five euros per year. The fee is paid to the treasurer in March, in cash or by transfer."),
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
    let at = lines.iter().position(|l| l.starts_with("llm endpoint `default`")).unwrap_or_else(|| panic!("{}", doctor.stdout));
    assert!(lines[at].contains("FAIL") && lines[at].contains("unreachable"), "{}", doctor.stdout);
    let fix = lines[at + 1].trim();
    assert!(fix.starts_with("fix: start the server") && fix.contains("--reasoner builtin"), "{}", doctor.stdout);
    assert!(doctor.stdout.contains("1 required check failed: llm endpoint `default`"), "{}", doctor.stdout);

    // `run` on the same setup says the same fix.
    let run = sleuth(&home, &["run", "--reasoner", "llm", "--set", &url, "--set", &flag, "What does a plot cost?"]);
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    let run_fix = run.stderr.lines().find(|l| l.trim_start().starts_with("fix:")).unwrap_or_else(|| panic!("{}", run.stderr));
    let shared = "start the server (Ollama: `ollama serve`; llama.cpp: `llama-server -m model.gguf --port 8080`; vLLM: `vllm serve MODEL`), or set [llm] base_url to where it runs";
    assert!(run_fix.contains(shared) && fix.contains(shared), "doctor: {fix}\nrun: {run_fix}");
}
