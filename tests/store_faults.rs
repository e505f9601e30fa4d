//! The store and the corpus under faults, on the real binary:
//! source texts deleted before a resume, a full disk, a link out of the
//! corpus folder, one huge file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use crate::support;
use sleuth::session::SessionDir;
use support::bin::{DEFAULT_LIMIT, hermetic, output, output_of, sleuth_cmd, sleuth_command, sleuth_path, texts};
use support::e2e::{files_under, long_session, session_ids, write_corpus};

#[test]
fn resume_with_the_source_texts_deleted_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, corpus) = (tmp.path().join("home"), tmp.path().join("corpus"));
    write_corpus(&corpus);
    let mut args = vec!["run".to_string()];
    args.extend(long_session(&corpus));
    args.push("How does widget 3 connect to its gadget?".into());
    sleuth_cmd(&home).args(&args).assert().success();
    let id = session_ids(&home).pop().unwrap();
    let dir = SessionDir::new(&home.join("sessions"), &id);
    // Killed in iteration 2, after its first sources were stored.
    let text = std::fs::read_to_string(dir.log_path()).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let second = lines.iter().position(|l| l.contains("\"iteration_started\",\"iteration\":2")).unwrap();
    std::fs::write(dir.log_path(), lines[..second + 2].concat()).unwrap();
    std::fs::remove_file(dir.summary_path()).unwrap();
    let (code, _, err) = output(sleuth_cmd(&home).args(["resume", &id, "--time-limit", "2", "--headless"]));
    assert!(code.is_some(), "{err}");
    assert!(!err.contains("source texts are missing"), "nothing is missing yet: {err}");

    std::fs::write(dir.log_path(), lines[..second + 2].concat()).unwrap();
    std::fs::remove_dir_all(dir.sources_dir()).unwrap();
    let (_, _, err) = output(sleuth_cmd(&home).args(["resume", &id, "--time-limit", "2", "--headless"]));
    assert!(err.contains("source texts are missing") && err.contains(&format!("sleuth fork {id} --from 0")), "{err}");
}

#[cfg(unix)]
#[test]
fn a_full_disk_leaves_no_temporary_file_and_says_so_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, corpus) = (tmp.path().join("home"), tmp.path().join("corpus"));
    write_corpus(&corpus);
    // One page far larger than what the disk has room for.
    let long: String = (0..6000).map(|i| format!("Widget {i} connects to the gadget bus under load. ")).collect();
    std::fs::write(corpus.join("big.md"), format!("# Widget bus\n\n{long}\n")).unwrap();
    sleuth_cmd(&home).arg("index").arg(&corpus).assert().success();
    // A file may not grow past 128 KiB: writes beyond fail with EFBIG, as
    // on a full disk (the signal that would kill the process is ignored).
    let script = format!(
        "trap '' XFSZ; ulimit -f 128; exec \"$0\" run --set local.corpus={} 'How does a widget connect to the gadget bus?'",
        corpus.display()
    );
    let mut bash = std::process::Command::new("bash");
    bash.args(["-c", &script, sleuth_path().to_str().unwrap()]);
    let out = output_of(hermetic(&mut bash, &home), DEFAULT_LIMIT).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("File too large").count(), 1, "the OS error once: {err}");
    assert!(err.contains("cannot store the text of source"), "{err}");
    let leftovers: Vec<_> =
        files_under(&home.join("sessions")).into_iter().filter(|p| p.to_string_lossy().ends_with(".tmp")).collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_corpus_is_neither_indexed_nor_cited() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, corpus, outside) = (tmp.path().join("home"), tmp.path().join("corpus"), tmp.path().join("etc"));
    write_corpus(&corpus);
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("passwd"), "root:x:0:0:zanzibarcanary:/root:/bin/bash\n").unwrap();
    std::os::unix::fs::symlink(outside.join("passwd"), corpus.join("passwd.txt")).unwrap();
    let (code, out, err) = output(sleuth_cmd(&home).arg("index").arg(&corpus));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("link out of the corpus") && out.contains("passwd.txt"), "{out}");
    let (_, report, _) = output(sleuth_cmd(&home).args([
        "run",
        "--set",
        &format!("local.corpus={}", corpus.display()),
        "What is zanzibarcanary?",
    ]));
    assert!(!report.contains("zanzibarcanary:/root"), "{report}");
    for file in files_under(&home.join("sessions")) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
        assert!(!text.contains("/bin/bash"), "{} holds the linked file", file.display());
    }
}

// The peak is read from /proc.
#[cfg(target_os = "linux")]
#[test]
fn a_large_file_of_one_paragraph_is_indexed_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, corpus) = (tmp.path().join("home"), tmp.path().join("corpus"));
    std::fs::create_dir_all(&corpus).unwrap();
    // 10 MB of lines and no blank line: one paragraph of text.
    const SIZE: usize = 10_000_000;
    let words = ["widget", "gadget", "bus", "latency", "power", "thermal", "lab", "frames"];
    let mut text = String::with_capacity(SIZE + 100);
    let mut i = 0usize;
    while text.len() < SIZE {
        for k in 0..12 {
            text.push_str(words[(i * 7 + k * 3) % words.len()]);
            text.push(' ');
        }
        text.push_str("measured.\n");
        i += 1;
    }
    std::fs::write(corpus.join("log.txt"), &text).unwrap();
    drop(text);
    let mut index = sleuth_command(&home);
    index.arg("index").arg(&corpus);
    // Its own peak, not that of every child of this binary's tests.
    let (out, peak) = support::bin::output_and_peak_rss(&mut index, DEFAULT_LIMIT);
    let (code, out, err) = texts(out);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("1 page"), "{out}");
    assert!(peak < 16 * SIZE as u64, "peak resident size {} MiB for a {} MB file", peak >> 20, SIZE / 1_000_000);
}
