//! An index used after its folder changed: before a run,
//! the folder is compared with the index and what changed is indexed
//! again, so the edited text is quoted and the new file found; or, with
//! `stale_check = "warn"`, the run says so and names the command.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::time::Duration;

use crate::support;
use support::bin::sleuth_cmd;

fn corpus(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("plots.md"),
        "# Garden plots\n\nA garden plot costs 45 euros per year. Plots are assigned in March.\n",
    )
    .unwrap();
    std::fs::write(dir.join("tools.md"), "# Tools\n\nThe shed holds spades, rakes and two wheelbarrows.\n").unwrap();
    std::fs::write(dir.join("hours.md"), "# Opening hours\n\nThe gardens open at seven in the morning.\n").unwrap();
}

fn run(home: &Path, dir: &Path, extra: &[&str], question: &str) -> (String, String) {
    let out = sleuth_cmd(home)
        .args(["run", "--set", &format!("local.corpus={}", dir.display())])
        .args(extra)
        .arg(question)
        .output()
        .unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The edit: the price changes and a file is added.
fn edit(dir: &Path) {
    // File times tick coarsely: the edit must not share the index's tick.
    std::thread::sleep(Duration::from_millis(50));
    std::fs::write(
        dir.join("plots.md"),
        "# Garden plots\n\nA garden plot costs 60 euros per year. Plots are assigned in March.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("water.md"),
        "# Water\n\nWatering with the rain tank water is free for every plot holder.\n",
    )
    .unwrap();
}

#[test]
fn a_run_after_the_folder_changed_quotes_the_new_text() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, dir) = (tmp.path().join("home"), tmp.path().join("garden"));
    corpus(&dir);
    sleuth_cmd(&home).arg("index").arg(&dir).assert().success();
    let (report, _) = run(&home, &dir, &[], "How much does a plot cost per year?");
    assert!(report.contains("45 euros"), "{report}");
    edit(&dir);
    let (report, err) = run(&home, &dir, &[], "How much does a plot cost per year?");
    assert!(err.contains("changed since it was indexed (1 changed, 1 new): updating the index"), "{err}");
    assert!(report.contains("60 euros") && !report.contains("45 euros"), "{report}");
    let (report, err) = run(&home, &dir, &[], "Is watering with rain tank water free?");
    assert!(!err.contains("changed since it was indexed"), "up to date now: {err}");
    assert!(report.contains("rain tank water is free"), "the new file is found: {report}");
}

#[test]
fn with_warn_the_run_names_the_command_and_uses_the_old_index() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, dir) = (tmp.path().join("home"), tmp.path().join("garden"));
    corpus(&dir);
    sleuth_cmd(&home).arg("index").arg(&dir).assert().success();
    edit(&dir);
    let (report, err) =
        run(&home, &dir, &["--set", "local.stale_check=\"warn\""], "How much does a plot cost per year?");
    assert!(err.contains("changed since it was indexed (1 changed, 1 new)"), "{err}");
    assert!(err.contains(&format!("sleuth index {}", dir.canonicalize().unwrap().display())), "{err}");
    assert!(report.contains("45 euros"), "{report}");
}
