//! Fuzzing the log reader: real logs, mutated the ways disks,
//! crashes and people damage files (lines swapped, doubled, dropped or
//! repeated; a cut anywhere; a flipped bit; a number changed), then every
//! command that reads a log run on each. None may hang, panic, or grow a
//! file without bound; each either works or says what is wrong.
//!
//! Deterministic (a fixed seed) and bounded: `MUTATIONS` mutated logs go
//! through the commands' library code in-process (listing, export in
//! every format, stats, fork, and resume under a one-second time limit
//! with the builder's real parts), and the first `BINARY_SAMPLE` of them
//! through the real binary as well. `SLEUTH_FUZZ_MUTATIONS` and
//! `SLEUTH_FUZZ_SEED` change the run (a failure prints the seed and the
//! mutation to replay it).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support;
use sleuth::builder::Runtime;
use sleuth::config::Config;
use sleuth::engine::{Engine, SessionState};
use sleuth::paths::Paths;
use sleuth::session::export::{ExportFormat, export};
use sleuth::session::fork::fork_session;
use sleuth::session::list::list_sessions;
use sleuth::session::stats::compute;
use sleuth::session::summary::SessionSummary;
use sleuth::session::{SessionDir, open_session, read_log};
use support::bin::sleuth_within;
use support::e2e::{files_under, long_session, session_ids, write_corpus};

const MUTATIONS: usize = 300;
const BINARY_SAMPLE: usize = 12;
const SEED: u64 = 0x2525;
/// Any one command on one log; a hang fails here, not in CI's timeout.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
const ID: &str = "20990101-000000-fuzz";

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Real logs to mutate: a finished session of three iterations, the same
/// session cut at a quarter, half and three quarters (what a kill leaves,
/// and what `resume` works on), and the fixture logs of every schema
/// version.
fn base_logs(home: &Path, corpus: &Path) -> Vec<(String, Vec<u8>)> {
    let mut args = vec!["run".to_string()];
    args.extend(long_session(corpus));
    args.iter_mut().for_each(|a| {
        if a == "8" {
            *a = "3".into();
        }
    });
    args.push("How does widget 3 connect to its gadget?".into());
    sleuth_within(home, COMMAND_TIMEOUT).args(&args).assert().success();
    let finished = session_ids(home).pop().unwrap();
    let log = std::fs::read(SessionDir::new(&home.join("sessions"), &finished).log_path()).unwrap();
    let lines: Vec<&[u8]> = log.split_inclusive(|b| *b == b'\n').collect();
    let mut out = vec![("finished".to_string(), log.clone())];
    for quarter in 1..=3 {
        let kept = lines.len() * quarter / 4;
        out.push((format!("cut at line {kept}"), lines[..kept].concat()));
    }
    for v in ["schema-v1", "schema-v2"] {
        let text = std::fs::read(format!("tests/fixtures/{v}.jsonl")).unwrap();
        out.push((v.to_string(), text));
    }
    out
}

/// The event kind of a log line, if it has one.
fn kind_of(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    v["event"]["type"].as_str().map(str::to_string)
}

/// A line of `lines` chosen by event kind first (each kind as likely as
/// any other, however often it occurs), then among that kind's lines.
fn line_by_kind(rng: &mut fastrand::Rng, lines: &[String]) -> usize {
    let mut kinds: Vec<String> = lines.iter().filter_map(|l| kind_of(l)).collect();
    kinds.sort();
    kinds.dedup();
    if kinds.is_empty() {
        return rng.usize(..lines.len());
    }
    let kind = &kinds[rng.usize(..kinds.len())];
    let of_kind: Vec<usize> = (0..lines.len()).filter(|i| kind_of(&lines[*i]).as_ref() == Some(kind)).collect();
    of_kind[rng.usize(..of_kind.len())]
}

/// A whole number somewhere in a JSON value (the record's own fields and
/// its event's), changed.
fn change_a_field(rng: &mut fastrand::Rng, line: &str) -> Option<(String, String)> {
    let mut v: serde_json::Value = serde_json::from_str(line).ok()?;
    let mut fields: Vec<(bool, String)> = Vec::new();
    for (k, x) in v.as_object()? {
        if x.is_u64() {
            fields.push((false, k.clone()));
        }
    }
    for (k, x) in v["event"].as_object()? {
        if x.is_u64() {
            fields.push((true, k.clone()));
        }
    }
    if fields.is_empty() {
        return None;
    }
    let (in_event, key) = fields[rng.usize(..fields.len())].clone();
    let slot = if in_event { &mut v["event"][&key] } else { &mut v[&key] };
    let old = slot.as_u64()?;
    let new = match rng.u8(0..4) {
        0 => old.saturating_sub(1),
        1 => old.saturating_add(1),
        2 => 0,
        _ => rng.u64(..1_000_000),
    };
    *slot = new.into();
    Some((v.to_string() + "\n", format!("{key}: {old} → {new}")))
}

/// One damage done to a log, as a replayable description.
fn mutate(rng: &mut fastrand::Rng, log: &[u8]) -> (Vec<u8>, String) {
    let mut bytes = log.to_vec();
    let mut what = Vec::new();
    for _ in 0..rng.usize(1..=2) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let mut lines: Vec<String> = text.split_inclusive('\n').map(String::from).collect();
        let n = lines.len().max(1);
        match rng.u8(0..8) {
            0 if lines.len() > 1 => {
                let (a, b) = (rng.usize(..n), rng.usize(..n));
                lines.swap(a, b);
                what.push(format!("swap lines {} and {}", a + 1, b + 1));
            }
            1 if !lines.is_empty() => {
                let (a, b) = (rng.usize(..n), rng.usize(..=n));
                let line = lines[a].clone();
                lines.insert(b.min(lines.len()), line);
                what.push(format!("copy line {} before line {}", a + 1, b + 1));
            }
            2 if !lines.is_empty() => {
                let a = rng.usize(..n);
                lines.remove(a);
                what.push(format!("drop line {}", a + 1));
            }
            3 => {
                let cut = rng.usize(..=bytes.len());
                bytes.truncate(cut);
                what.push(format!("cut at byte {cut}"));
                continue;
            }
            4 if !bytes.is_empty() => {
                let (at, bit) = (rng.usize(..bytes.len()), rng.u8(0..8));
                bytes[at] ^= 1 << bit;
                what.push(format!("flip bit {bit} of byte {at}"));
                continue;
            }
            5 => {
                // A number changed: to 0, one more or less, ten times, the largest, or anything.
                let digits: Vec<(usize, usize)> = number_spans(&bytes);
                if let Some(&(start, end)) = (!digits.is_empty()).then(|| &digits[rng.usize(..digits.len())]) {
                    let old: u64 = std::str::from_utf8(&bytes[start..end]).unwrap().parse().unwrap_or(0);
                    let new = match rng.u8(0..6) {
                        0 => 0,
                        1 => old.saturating_add(1),
                        2 => old.saturating_sub(1),
                        3 => old.saturating_mul(10),
                        4 => u64::MAX,
                        _ => rng.u64(..1_000_000),
                    };
                    bytes.splice(start..end, new.to_string().into_bytes());
                    what.push(format!("number at byte {start}: {old} → {new}"));
                }
                continue;
            }
            6 if !lines.is_empty() => {
                let a = line_by_kind(rng, &lines);
                if let Some((changed, how)) = change_a_field(rng, &lines[a]) {
                    lines[a] = changed;
                    what.push(format!("line {}: {how}", a + 1));
                }
            }
            _ if lines.len() > 2 => {
                // An event repeated at the end, renumbered to follow (the
                // pattern of the looping log).
                let a = line_by_kind(rng, &lines[1..]) + 1;
                let next_seq = lines.len() + 1;
                let line = lines[a].replacen(&format!("\"seq\":{}", a + 1), &format!("\"seq\":{next_seq}"), 1);
                lines.push(if line.ends_with('\n') { line } else { line + "\n" });
                what.push(format!("repeat line {} at the end as seq {next_seq}", a + 1));
            }
            _ => continue,
        }
        bytes = lines.concat().into_bytes();
    }
    (bytes, what.join("; "))
}

fn lines_in(log: &[u8]) -> usize {
    log.iter().filter(|b| **b == b'\n').count()
}

fn number_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() && i - start < 19 {
                i += 1;
            }
            out.push((start, i));
        }
        i += 1;
    }
    out
}

fn folder_bytes(root: &Path) -> u64 {
    files_under(root).iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum()
}

/// Every read-only command's library code on the session in `root`.
fn read_commands(root: &Path) {
    let listed = list_sessions(root).unwrap();
    let summaries: Vec<&SessionSummary> = listed.iter().filter_map(|s| s.summary.as_ref()).collect();
    let damaged = listed.len() - summaries.len();
    compute(&summaries, damaged);
    let dir = SessionDir::new(root, ID);
    if let Ok(log) = read_log(&dir.log_path()) {
        let state = SessionState::replay(&log.records);
        let summary = SessionSummary::from_state(ID, &state, log.bytes);
        for format in [ExportFormat::Markdown, ExportFormat::Json, ExportFormat::Bibtex, ExportFormat::CslJson] {
            export(&state, &summary, format);
        }
        let from = state.iteration().min(1);
        let _ = fork_session(root, ID, from, "20990101-000001-fork", None);
    }
}

/// `resume` on the session in `root`: opened, continued by the builder's
/// parts under a one-second limit.
async fn resume(runtime: &Runtime, root: &Path) {
    let Ok(opened) = open_session(root, ID) else { return };
    if opened.state.is_finished() || opened.state.header.is_none() {
        return;
    }
    let mut settings = runtime.settings(ID);
    settings.limits.time_limit_secs = 1;
    let parts = runtime.parts(&opened.dir, Box::new(opened.log));
    let (engine, handle) = Engine::new(settings, parts, opened.state);
    drop(handle);
    let _ = engine.run().await;
    drop(opened.lock);
}

struct Case {
    index: usize,
    what: String,
    root: PathBuf,
    base_bytes: u64,
}

impl Case {
    fn fail(&self, seed: u64, why: &str) -> ! {
        panic!("seed {seed:#x}, mutation {} ({}): {why}", self.index, self.what)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutated_logs_never_hang_panic_or_grow() {
    let seed = env_or("SLEUTH_FUZZ_SEED", SEED);
    let mutations = env_or("SLEUTH_FUZZ_MUTATIONS", MUTATIONS);
    let tmp = tempfile::tempdir().unwrap();
    let (home, corpus) = (tmp.path().join("home"), tmp.path().join("corpus"));
    write_corpus(&corpus);
    let bases = base_logs(&home, &corpus);
    let shown: Vec<String> = bases.iter().map(|(name, log)| format!("{name} ({} lines)", lines_in(log))).collect();
    eprintln!("base logs: {}", shown.join(", "));
    let mut config = Config::default();
    config.local.corpus = Some(corpus.clone());
    config.search.chains = vec![vec!["local".into()]];
    let runtime = std::sync::Arc::new(Runtime::build(config, Paths::under(&home), &|_| {}).await.unwrap());

    let mut rng = fastrand::Rng::with_seed(seed);
    let started = std::time::Instant::now();
    let (mut damaged, mut resumed) = (0, 0);
    for index in 0..mutations {
        let (name, base) = &bases[rng.usize(..bases.len())];
        let (bytes, what) = mutate(&mut rng, base);
        let case_home = tmp.path().join(format!("case-{index}"));
        let root = case_home.join("sessions");
        let dir = SessionDir::create(&root, ID).unwrap();
        std::fs::write(dir.log_path(), &bytes).unwrap();
        let case = Case { index, what: format!("{name}: {what}"), root: root.clone(), base_bytes: bytes.len() as u64 };

        let listing = {
            let root = case.root.clone();
            tokio::task::spawn_blocking(move || read_commands(&root))
        };
        match tokio::time::timeout(COMMAND_TIMEOUT, listing).await {
            Err(_) => case.fail(seed, "a read-only command hangs"),
            Ok(Err(e)) if e.is_panic() => case.fail(seed, &format!("a read-only command panics: {e}")),
            Ok(_) => {}
        }
        damaged += usize::from(read_log(&dir.log_path()).is_err());
        let work = {
            let (runtime, root) = (runtime.clone(), case.root.clone());
            tokio::spawn(async move { resume(&runtime, &root).await })
        };
        match tokio::time::timeout(COMMAND_TIMEOUT, work).await {
            Err(_) => case.fail(seed, "resume does not stop within its time limit"),
            Ok(Err(e)) if e.is_panic() => case.fail(seed, &format!("resume panics: {e}")),
            Ok(_) => {}
        }
        resumed += usize::from(read_log(&dir.log_path()).is_ok_and(|l| l.bytes > case.base_bytes));
        // Resuming adds a session's worth of events at most; nothing grows without bound.
        let grown = folder_bytes(&case.root);
        if grown > 3 * case.base_bytes + (4 << 20) {
            case.fail(seed, &format!("the session folder grew from {} to {grown} bytes", case.base_bytes));
        }
        if index < BINARY_SAMPLE {
            on_the_binary(&case, &case_home, seed);
        }
        std::fs::remove_dir_all(&case_home).unwrap();
    }
    eprintln!(
        "{mutations} mutated logs in {:.1} s: {damaged} refused as damaged, {resumed} resumed and appended to",
        started.elapsed().as_secs_f64()
    );
    // The mutations reach both sides: damage found, and logs still good enough to go on.
    assert!(damaged > mutations / 4 && resumed > 0, "{damaged} damaged, {resumed} resumed");
}

/// Every command of the real binary on one mutated log: each ends within
/// its timeout, with an exit code (never a panic's 101 or a signal).
fn on_the_binary(case: &Case, home: &Path, seed: u64) {
    for args in [
        &["sessions"][..],
        &["stats"],
        &["export", ID],
        &["export", ID, "--format", "json"],
        &["open", ID],
        &["fork", ID, "--from", "0", "--create-only"],
        &["resume", ID, "--time-limit", "1", "--headless"],
    ] {
        let out = match sleuth_within(home, COMMAND_TIMEOUT).args(args).output() {
            Ok(out) => out,
            Err(e) => case.fail(seed, &format!("`sleuth {}` did not end: {e}", args.join(" "))),
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0..=6) if !stderr.contains("panicked") => {}
            code => case.fail(seed, &format!("`sleuth {}` ended with {code:?}: {stderr}", args.join(" "))),
        }
    }
}
