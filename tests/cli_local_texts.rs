//! The real binary on a local corpus with hostile and plain-text files:
//! control characters never reach a stored source text, a `.txt` file's
//! title is its first line, and an ambiguous session prefix shows a few ids
//! and the count.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use crate::support;
use sleuth::session::{SessionDir, read_log};
use support::bin::sleuth_cmd;
use support::e2e::session_ids;

#[test]
fn local_texts_lose_escapes_and_a_txt_title_is_its_first_line() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(
        corpus.join("bolts.md"),
        "# Bolts\n\nWidgets connect to gadgets by a bolt.\x1b[2J\x1b]0;owned\x07 The bolt is steel.\x07\n",
    )
    .unwrap();
    std::fs::write(
        corpus.join("clamp-notes.txt"),
        "Clamp wiring notes\n\nGadgets hold widgets with a clamp; the clamp connects widgets to gadgets firmly.\n",
    )
    .unwrap();
    let home = tmp.path().join("home");
    let corpus_set = format!("local.corpus={}", corpus.display());
    sleuth_cmd(&home)
        .args(["run", "--preset", "simple", "--set", &corpus_set, "How do widgets connect to gadgets?"])
        .assert()
        // The two short pages answer it (a bolt, a clamp); what is stored is
        // the point here.
        .code(0);
    let id = session_ids(&home).pop().unwrap();
    let dir = SessionDir::new(&home.join("sessions"), &id);
    let texts: Vec<String> = std::fs::read_dir(dir.sources_dir())
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(texts.iter().any(|t| t.contains("The bolt is steel")), "{texts:?}");
    for t in &texts {
        assert!(!t.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "{t:?}");
    }
    let state = sleuth::engine::SessionState::replay(&read_log(&dir.log_path()).unwrap().records);
    let notes =
        state.sources.iter().find(|s| s.meta.locator.contains("clamp-notes.txt")).expect("the notes were found");
    assert_eq!(notes.meta.title, "Clamp wiring notes");

    // Seven sessions share a prefix: the first five ids and the count.
    for i in 0..7 {
        std::fs::create_dir_all(home.join("sessions").join(format!("20250101-00000{i}-aaaa"))).unwrap();
    }
    let out = sleuth_cmd(&home).args(["export", "2025"]).assert().failure().get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`2025` matches 7 sessions (20250101-000000-aaaa, "), "{err}");
    assert!(err.contains("20250101-000004-aaaa, …)") && !err.contains("000005"), "{err}");
}
