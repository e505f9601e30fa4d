//! The embedded defaults end to end: a real tantivy index of a folder made
//! here (with the kinds of bad input real folders hold), the local provider,
//! the built-in reasoner in the real engine, and the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::sync::Arc;

use crate::support::bin;
use crate::support::local_engine::{builtin_reasoner, local_parts};
use crate::support::mercury::mercury_docs;
use sleuth::engine::model::Action;
use sleuth::engine::protocol::{Answer, Command, Event, Limits};
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, SessionState};
use sleuth::search::local::{self, LocalConfig, LocalCorpus, LocalProvider};
use sleuth::search::{SearchProvider, SearchQuery};

fn write(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

fn html(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>{title}</title></head><body>\
         <nav class=\"sidebar\"><a href=\"index.html\">Table of contents</a> navigation chrome</nav>\
         <main>{body}</main><footer>footer chrome</footer></body></html>"
    )
}

/// A small documentation folder about error handling, with a copy of one
/// page under another folder, a redirect stub, a Latin-1 file, a binary
/// file, a 50 MB page and a symlink loop.
fn error_docs(root: &Path) {
    write(
        root,
        "guide/errors.html",
        html(
            "Recoverable Errors - The Guide",
            "<h1 id=\"errors\">Recoverable errors</h1>\
             <p>Most errors are not serious enough to stop the program. A function that can fail returns a <code>Result</code> value with either a success or an error.</p>\
             <h2 id=\"question-mark\">The question mark operator</h2>\
             <p>The question mark operator returns early from the function when the value is an error. \
             Before it returns, the question mark operator calls the from function of the From trait, which converts the error into the error type of the function.</p>\
             <p>This conversion lets one function return a single error type even when the operations inside it fail with many different error types.</p>\
             <pre><code>let text = std::fs::read_to_string(path)?;</code></pre>",
        ),
    );
    write(
        root,
        "api/convert/trait.From.html",
        html(
            "From in api::convert",
            "<h1>Trait From</h1>\
             <p>The From trait is used to do value-to-value conversions while consuming the input value. \
             It is very useful when performing error handling, because a function can convert many error types into one.</p>\
             <h2 id=\"examples\">Examples</h2>\
             <p>Implementing From for your own error type lets the question mark operator convert underlying errors automatically into your custom error type.</p>",
        ),
    );
    // The same page re-exported under another folder: one document.
    std::fs::create_dir_all(root.join("core/convert")).expect("mkdir");
    std::fs::copy(root.join("api/convert/trait.From.html"), root.join("core/convert/trait.From.html")).expect("copy");
    write(
        root,
        "guide/panics.md",
        "# Unrecoverable errors\n\nWhen a program reaches a state it cannot handle, it panics. A panic unwinds the stack and stops the thread, \
         so panics are for bugs rather than for errors a caller could handle.\n\n## Panics and results\n\n\
         Returning a result lets the caller decide what to do with an error, while a panic decides for everyone. Prefer results for errors you expect.\n",
    );
    write(
        root,
        "guide/options.html",
        html(
            "Optional values - The Guide",
            "<h1>Optional values</h1><p>An optional value is either some value or nothing at all. \
             The question mark operator also works on optional values: it returns nothing early when there is no value, much like it returns errors early.</p>",
        ),
    );
    write(
        root,
        "guide/old-errors.html",
        "<html><head><meta http-equiv=\"refresh\" content=\"0;URL=errors.html\"><title>Redirecting</title></head>\
         <body><p>Redirecting to errors.html</p></body></html>",
    );
    let mut latin1 = b"# Caf\xe9 notes\n\nThe caf\xe9 keeps its error log in a notebook, and the notebook records every error the kitchen made during the week.\n".to_vec();
    latin1.extend_from_slice(b"Nothing here is about programming.\n");
    write(root, "misc/cafe.md", latin1);
    write(root, "misc/blob.txt", b"\x00\x01\x02binary\x00data");
    // A 50 MB page (sparse: its size is what matters, and it costs no disk).
    let huge = std::fs::File::create(root.join("misc/huge.html")).expect("create");
    huge.set_len(50 << 20).expect("set_len");
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("guide"), root.join("guide/loop")).expect("symlink");
}

fn corpus(root: &Path, home: &Path) -> Arc<LocalCorpus> {
    let cfg = LocalConfig { corpus: Some(root.to_path_buf()), ..LocalConfig::default() };
    let quiet = |_: &str| {};
    local::shared(&cfg, &home.join("index"), &quiet).expect("corpus opens")
}

fn limits() -> Limits {
    Limits {
        max_iterations: 3,
        max_queries: 6,
        max_sources: 8,
        time_limit_secs: 60,
        cost_budget_usd: 0.0,
        token_budget: 0,
    }
}

/// Runs a session on the corpus; answers an ASK with the option that
/// contains `answer_with` (or the first).
async fn session(corpus: Arc<LocalCorpus>, question: &str, answer_with: &str) -> (SessionState, Vec<Event>) {
    let settings = EngineSettings::with_limits("test", limits());
    let parts = local_parts(corpus.clone(), builtin_reasoner(&corpus));
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    handle.commands.send(Command::Start { question: question.into() }).expect("start");
    let task = tokio::spawn(engine.run());
    let commands = handle.commands;
    let mut rx = handle.events;
    let mut events = Vec::new();
    while let Some(r) = rx.recv().await {
        if let Event::AskRaised { ask_id, clarification, .. } = &r.event {
            let index = clarification.options.iter().position(|o| o.contains(answer_with)).unwrap_or(0);
            let label = clarification.options.get(index).cloned().unwrap_or_default();
            commands
                .send(Command::Answer { ask_id: ask_id.clone(), answer: Answer::Choice { index, label } })
                .expect("answer");
        }
        let end = matches!(r.event, Event::SessionEnded { .. });
        events.push(r.event);
        if end {
            break;
        }
    }
    let state = task.await.expect("engine task").expect("engine run");
    (state, events)
}

#[test]
fn indexing_skips_bad_input_folds_duplicates_and_is_incremental() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    error_docs(&root);
    let cfg = LocalConfig::default();
    let lines = std::sync::Mutex::new(Vec::<String>::new());
    let progress = |l: &str| lines.lock().expect("lock").push(l.to_string());
    let (_, s) = local::index_folder(&cfg, &home.join("index"), Some(&root), &progress).expect("index builds");
    assert_eq!(s.redirects, 1, "{}", s.describe());
    assert_eq!(s.skipped.get("binary"), Some(&1), "{}", s.describe());
    assert_eq!(s.skipped.get("too large"), Some(&1), "{}", s.describe());
    assert!(s.problems.iter().any(|p| p.contains("raise local.max_file_mb")), "the skip says why: {:?}", s.problems);
    assert_eq!(s.reencoded, 1, "{}", s.describe());
    assert_eq!(s.duplicates, 1, "{}", s.describe());
    #[cfg(unix)]
    assert_eq!(s.skipped.get("symlink loop"), Some(&1), "{}", s.describe());
    assert_eq!(s.pages, 6, "{}", s.describe());

    // Search returns passages with page, heading and score, one per document.
    let c = corpus(&root, &home);
    let hits = c.search("question mark operator error", &[], 10).expect("search");
    assert!(!hits.is_empty());
    let guide = hits.iter().find(|h| h.path == "guide/errors.html").expect("the guide page is found");
    assert_eq!(guide.heading.as_deref(), Some("The question mark operator"));
    assert_eq!(guide.anchor.as_deref(), Some("question-mark"));
    assert!(guide.score > 0.0);
    let from: Vec<&str> = hits.iter().map(|h| h.path.as_str()).filter(|p| p.ends_with("trait.From.html")).collect();
    assert_eq!(from, vec!["api/convert/trait.From.html"], "the duplicate collapses to one canonical copy");
    // Navigation and footers are not content; the Latin-1 file reads right.
    assert!(c.search("navigation chrome footer", &[], 5).expect("search").is_empty());
    let cafe = c.page("misc/cafe.md").expect("page").expect("cafe indexed");
    assert!(cafe.text.contains("Café notes"), "{}", cafe.text);

    // Nothing changed: nothing is read again.
    let (_, again) = local::index_folder(&cfg, &home.join("index"), Some(&root), &|_| {}).expect("re-index");
    assert_eq!((again.extracted, again.unchanged), (0, again.files));
    // A changed file is re-read, a removed one leaves the index.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        &root,
        "guide/options.html",
        html("Optional values", "<p>Options now talk about a brand new zebracorn feature in detail here.</p>"),
    );
    std::fs::remove_file(root.join("guide/panics.md")).expect("rm");
    let (_, upd) = local::index_folder(&cfg, &home.join("index"), Some(&root), &|_| {}).expect("update");
    assert_eq!((upd.extracted, upd.removed), (1, 1), "{}", upd.describe());
    let c = corpus(&root, &home);
    assert_eq!(c.search("zebracorn", &[], 5).expect("search").len(), 1);
    assert!(c.search("unwinds stack panics", &[], 5).expect("search").iter().all(|h| h.path != "guide/panics.md"));

    // Raising the size limit reads the page it kept out (sparse zeros: binary).
    let raised = LocalConfig { max_file_mb: 60, ..LocalConfig::default() };
    let (_, more) = local::index_folder(&raised, &home.join("index"), Some(&root), &|_| {}).expect("raised limit");
    assert_eq!(more.extracted, 1, "{}", more.describe());
    assert_eq!((more.skipped.get("too large"), more.skipped.get("binary")), (None, Some(&2)), "{}", more.describe());
}

#[test]
fn a_corrupt_index_is_rebuilt_with_a_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    mercury_docs(&root);
    let cfg = LocalConfig { corpus: Some(root.clone()), ..LocalConfig::default() };
    local::index_folder(&cfg, &home.join("index"), None, &|_| {}).expect("index builds");
    let index_dir =
        std::fs::read_dir(home.join("index")).expect("index dir").next().expect("one").expect("entry").path();
    std::fs::write(index_dir.join("tantivy/meta.json"), "{ not json").expect("corrupt");
    let lines = std::sync::Mutex::new(Vec::<String>::new());
    let progress = |l: &str| lines.lock().expect("lock").push(l.to_string());
    let c = LocalCorpus::open_or_build(&cfg, &home.join("index"), &progress).expect("rebuilt, not a panic");
    assert!(!c.search("mercury orbit", &[], 5).expect("search").is_empty());
    let said = lines.lock().expect("lock").join("\n");
    assert!(said.contains("is corrupt") && said.contains("rebuilding"), "{said}");

    // Another version's index is rebuilt too.
    let meta_path = index_dir.join("sleuth-index.json");
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).expect("meta")).expect("json");
    meta["version"] = serde_json::json!(999);
    std::fs::write(&meta_path, meta.to_string()).expect("write");
    let lines = std::sync::Mutex::new(Vec::<String>::new());
    let progress = |l: &str| lines.lock().expect("lock").push(l.to_string());
    LocalCorpus::open_or_build(&cfg, &home.join("index"), &progress).expect("rebuilt");
    assert!(lines.lock().expect("lock").join("\n").contains("another version"));
}

#[test]
fn empty_and_missing_folders_say_what_to_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    write(&empty, "image.png", "not a document");
    let cfg = LocalConfig::default();
    let err =
        local::index_folder(&cfg, &dir.path().join("index"), Some(&empty), &|_| {}).expect_err("nothing to index");
    assert!(err.to_string().contains("no .md, .txt or .html files"), "{err}");
    let err = local::index_folder(&cfg, &dir.path().join("index"), Some(&dir.path().join("nope")), &|_| {})
        .expect_err("missing");
    assert!(err.to_string().contains("does not exist"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_on_the_local_corpus_ends_in_a_verified_cited_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    error_docs(&root);
    let c = corpus(&root, &home);
    let provider = LocalProvider::new(c.clone(), 1);
    let hits = provider
        .search(&SearchQuery { text: "question mark operator".into(), exclude: vec![], limit: 3 })
        .await
        .expect("search");
    assert!(hits[0].locator.contains('#') && hits[0].heading.is_some());

    let (state, events) = session(c, "How does the question mark operator convert errors?", "").await;
    let last = state.iterations.last().and_then(|it| it.decision.as_ref()).expect("decided");
    assert_eq!(last.action, Action::Output, "{last:?}");
    assert!(!events.iter().any(|e| matches!(e, Event::AskRaised { .. })));
    let report = state.report.as_ref().expect("report");
    let v = state.verification.as_ref().expect("verified");
    assert!(v.all_verified(), "{v:?}");
    assert!(v.claims_checked >= 2 && v.claims_supported == v.claims_checked, "{v:?}");
    let cited: Vec<String> =
        v.cited.iter().filter_map(|id| state.source(*id)).map(|s| s.meta.canonical.clone()).collect();
    assert!(cited.contains(&"guide/errors.html".to_string()), "{cited:?}");
    assert!(
        report.markdown.contains("## Sources") && report.markdown.contains("guide/errors.html"),
        "{}",
        report.markdown
    );
    // The review judged every source with a reason the quality report counts.
    let reviewed = state.iterations[0].review.as_ref().expect("reviewed");
    assert!(reviewed.0.iter().all(|v| v.kept || v.reason.is_some()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_unrelated_meanings_end_in_ask_and_the_answer_is_respected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    mercury_docs(&root);
    let (state, events) = session(corpus(&root, &home), "What is mercury?", "planet").await;
    let ask = events
        .iter()
        .find_map(|e| match e {
            Event::AskRaised { clarification, .. } => Some(clarification.clone()),
            _ => None,
        })
        .expect("the ambiguous question is asked about");
    assert_eq!(ask.options.len(), 2, "{ask:?}");
    assert!(
        ask.options.iter().any(|o| o.contains("planet")) && ask.options.iter().any(|o| o.contains("metal")),
        "{ask:?}"
    );
    let report = state.report.as_ref().expect("report");
    let body = report.markdown.split("## Sources").next().unwrap_or_default().to_lowercase();
    assert!(body.contains("orbit") || body.contains("planet"), "{}", report.markdown);
    assert!(!body.contains("thermometer"), "the other meaning stays out: {}", report.markdown);
}

#[test]
fn the_binary_indexes_and_researches_a_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    error_docs(&root);
    let corpus_flag = format!("local.corpus={}", root.display());
    let out = bin::sleuth_cmd(&home)
        .args(["run", "--set", &corpus_flag, "--ask", "first", "How does the question mark operator convert errors?"])
        .output()
        .expect("runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("no index for") && stderr.contains("building it now"), "{stderr}");
    assert!(stdout.starts_with("# How does the question mark operator convert errors?"), "{stdout}");
    assert!(stdout.contains("[1]") || stdout.contains("[2]"), "{stdout}");
    assert!(stdout.contains("## Sources") && stdout.contains("guide/errors.html"), "{stdout}");

    // `sleuth index` on an unchanged folder reads nothing again.
    let out = bin::sleuth_cmd(&home).args(["index", root.to_str().expect("utf-8 path")]).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("0 read") && stdout.contains("1 redirect stubs skipped"),
        "{stdout}"
    );

    // The ambiguous corpus stops with exit code 3 under `--ask fail`.
    let other = dir.path().join("mercury");
    mercury_docs(&other);
    let flag = format!("local.corpus={}", other.display());
    let out = bin::sleuth_cmd(&home)
        .args(["run", "--set", &flag, "--ask", "fail", "What is mercury?"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    // A folder that does not exist is a clear error, not a panic.
    let out = bin::sleuth_cmd(&home)
        .args(["run", "--set", "local.corpus=/no/such/folder", "anything"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("does not exist"), "{stderr}");
}

/// Ctrl-C while `--ask stdin` waits for a line cancels at once (exit 130,
/// a partial report recorded), instead of waiting for Enter.
#[cfg(unix)]
#[test]
fn ctrl_c_at_the_ask_prompt_cancels() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("mercury"), dir.path().join("home"));
    mercury_docs(&root);
    let flag = format!("local.corpus={}", root.display());
    let mut child = bin::spawn(
        bin::sleuth_command(&home)
            .args(["run", "--set", &flag, "--ask", "stdin", "What is mercury?"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
    );
    let _stdin_stays_open = child.stdin.take();
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let pid = i32::try_from(child.id()).expect("pid");
    // Past the limit the child is killed: its stderr ends and the test fails.
    let exit = bin::watch(child.into_inner(), bin::DEFAULT_LIMIT);
    let mut seen = String::new();
    let mut buf = Vec::new();
    // The prompt ends without a newline: read up to its colon.
    while !seen.contains("answer (number or text):") {
        buf.clear();
        let n = stderr.read_until(b':', &mut buf).expect("read stderr");
        assert!(n > 0, "the process ended before asking: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf));
    }
    // SAFETY: sends SIGINT to the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut stderr, &mut rest);
    let status = exit.recv().expect("the watcher").expect("sleuth ran past its limit and was killed");
    assert_eq!(status.code(), Some(130), "{seen}{rest}");
    assert!(rest.contains("cancelling"), "{rest}");
}

/// A sentence repeated word for word (across pages, or within one) is
/// quoted once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_sentence_is_quoted_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    let shared = "The borrow checker rejects a program when a reference outlives the value it points to.";
    let pages = [
        (
            "guide/borrowing.md",
            "Borrowing",
            "References let code use a value without owning it. Every reference has a lifetime, the span of code where it is valid.",
        ),
        (
            "notes/checker.md",
            "Notes on the checker",
            "The checker compares the lifetime of each reference with the scope of the value it borrows. A dangling reference is the classic error it prevents.",
        ),
        (
            "faq/errors.md",
            "Frequent borrow errors",
            "Returning a reference to a local variable is the most common way to meet this error. Returning an owned value instead fixes it.",
        ),
    ];
    for (rel, title, text) in pages {
        write(&root, rel, format!("# {title}\n\n{shared} {text}\n\n## More\n\n{text} {shared}\n"));
    }
    let (state, _) = session(corpus(&root, &home), "Why does the borrow checker reject a reference?", "").await;
    let report = state.report.as_ref().expect("report");
    let body = report.markdown.split("## Sources").next().unwrap_or_default();
    assert!(body.matches(shared).count() <= 1, "{}", report.markdown);
    // No sentence is quoted twice (each page holds each of its sentences twice).
    assert!(report.claims.len() >= 3, "{}", report.markdown);
    for q in report.claims.iter().map(|c| c.text.as_str()) {
        assert_eq!(body.matches(q).count(), 1, "quoted twice: {q}\n{}", report.markdown);
    }
}

/// The direct answer opens the report, so it does not open with a sentence
/// that leans on one it cannot be quoted with ("This is known as …" after
/// a code block).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_does_not_open_with_a_fragment() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    write(
        &root,
        "smithy/forge.md",
        "# Forging\n\nA smith heats the widget, then hammers it on the anvil until it takes its final form.\n\n```\nheat(widget); hammer(widget);\n```\n\nThis is known as widget forging: widget forging heats a widget in a forge and shapes the widget with hammer blows. \
         The forge must be hot enough to soften the metal without melting it, and the smith works quickly.\n",
    );
    write(
        &root,
        "history/workshops.md",
        "# Workshops\n\nSmiths have practised widget forging in small workshops for many centuries, passing the craft on. \
         Each workshop kept its own forge, its own anvils and its own secrets, and apprentices learned by watching the masters at work.\n",
    );
    let (state, _) = session(corpus(&root, &home), "What is widget forging?", "").await;
    let report = state.report.as_ref().expect("report");
    let answer = report.markdown.lines().find(|l| !l.is_empty() && !l.starts_with('#')).expect("an answer line");
    assert!(answer.contains("widget forging"), "{}", report.markdown);
    assert!(!answer.starts_with("This"), "{}", report.markdown);
}

/// When the review keeps nothing, the report's caveat says why (the
/// review's reasons), not only that later searches found nothing new.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_with_no_usable_source_says_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    write(&root, "a.md", "# A\n\nWidget forging is a craft of smiths.\n");
    write(&root, "b.md", "# B\n\nSmiths practise widget forging.\n");
    let (state, _) = session(corpus(&root, &home), "What is widget forging?", "").await;
    let report = state.report.as_ref().expect("report");
    let caveat = report.caveats.iter().find(|c| c.starts_with("No usable source")).expect("a caveat");
    assert!(caveat.contains("review kept none of the 2 sources found (too_short: 2)"), "{caveat}");
}
