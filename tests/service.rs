//! The session service seen from every front end at once, on the real
//! binary: one session's status in `sleuth run`'s exit code, `sleuth
//! sessions`, HTTP and MCP; one typed answer through stdin and HTTP; keys
//! with reserved characters through every output.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support;
use crate::support::mercury::mercury_docs;
use crate::support::serve::{Server, corpus_flag, listed};
use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use serde_json::{Value, json};
use support::bin::{DEFAULT_LIMIT, run_limited, sleuth, sleuth_command};

fn client() -> reqwest::Client {
    sleuth::tls::install_crypto_provider();
    reqwest::Client::builder().timeout(Duration::from_secs(120)).build().expect("client")
}

async fn post_json(c: &reqwest::Client, url: &str, body: Value) -> (u16, Value) {
    let r = c.post(url).json(&body).send().await.expect("request");
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

async fn get_json(c: &reqwest::Client, url: &str) -> (u16, Value) {
    let r = c.get(url).send().await.expect("request");
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// `sleuth mcp` with `--set` flags and `envs`, driven by the SDK's client.
async fn mcp(home: &Path, sets: &[String], envs: &[(&str, &str)]) -> RunningService<RoleClient, ()> {
    let args: Vec<String> = sets.iter().flat_map(|s| ["--set".to_string(), s.clone()]).collect();
    support::mcp::connect((), home, &args, envs).await
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> Value {
    let params =
        CallToolRequestParams::new(tool.to_string()).with_arguments(args.as_object().cloned().expect("object"));
    let result = support::mcp::step(&format!("the `{tool}` call"), client.call_tool(params)).await;
    match result {
        Ok(r) => serde_json::to_value(r).expect("json"),
        Err(e) => json!({"protocol_error": e.to_string()}),
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Three pages on closures: nothing in them answers a bread question.
fn closures_corpus(root: &Path) {
    write(
        root,
        "closures.md",
        "# Closures\n\nA closure is an anonymous function that captures variables from the scope it is defined in. Closures can capture by reference, by mutable reference or by value.\n",
    );
    write(
        root,
        "capture.md",
        "# Capturing\n\nA closure that moves its captured variables takes ownership of them with the move keyword. The compiler infers how each variable is captured from how the closure body uses it.\n",
    );
    write(
        root,
        "traits.md",
        "# Closure traits\n\nEvery closure implements one or more of three traits depending on how it uses its captures: calling it once, calling it by mutable reference, or calling it by shared reference.\n",
    );
}

const UNANSWERABLE: &str = "Which sourdough bread recipe bakes best?";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_that_ends_unanswered_is_unanswered_in_the_list_over_http_and_mcp_and_exits_4() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("docs"), dir.path().join("home"));
    closures_corpus(&corpus);
    let flag = corpus_flag(&corpus);

    let run = sleuth(&home, &["run", "--set", &flag, "--ask", "first", UNANSWERABLE]);
    assert_eq!(run.code, Some(4), "exit 4 = unanswered: {}", run.stderr);
    let rows = listed(&home);
    assert_eq!((rows.len(), rows[0]["status"].as_str()), (1, Some("unanswered")), "{rows:?}");
    assert_eq!(rows[0]["summary"]["status"], "unanswered");

    let server = Server::start(&home, &["--set", &flag], &[]);
    let c = client();
    let (code, answer) = post_json(&c, &server.url("/run"), json!({"task": UNANSWERABLE, "ask": "first"})).await;
    assert_eq!((code, answer["status"].as_str()), (200, Some("unanswered")), "{answer}");
    let (_, job) = get_json(&c, &server.url(&format!("/jobs/{}", answer["job_id"].as_str().unwrap()))).await;
    assert_eq!(job["status"], "unanswered", "{job}");
    let (_, one) = get_json(&c, &server.url(&format!("/sessions/{}", answer["session_id"].as_str().unwrap()))).await;
    assert_eq!(one["status"], "unanswered", "{one}");
    drop(server);

    let client = mcp(&home, std::slice::from_ref(&flag), &[]).await;
    let result = call(&client, "research", json!({"question": UNANSWERABLE, "preset": "simple"})).await;
    assert_eq!(result["structuredContent"]["status"], "unanswered", "{result}");
    assert!(result["content"][0]["text"].as_str().unwrap().contains("do not answer"), "{result}");
    let sessions = call(&client, "list_sessions", json!({})).await;
    let text = sessions["content"][0]["text"].as_str().unwrap();
    assert_eq!(text.matches("unanswered").count(), 3, "{text}");
    let _ = support::mcp::step("closing the client", client.cancel()).await;
    let statuses: Vec<Value> = listed(&home).iter().map(|r| r["status"].clone()).collect();
    assert_eq!(statuses, vec![json!("unanswered"); 3]);
}

/// The ids of the sessions in the store.
fn ids(home: &Path) -> Vec<String> {
    listed(home).iter().map(|r| r["id"].as_str().unwrap_or_default().to_string()).collect()
}

/// The answer a session recorded and the meaning it narrowed to, by id.
fn answered(home: &Path, id: &str) -> (Value, Value, Value) {
    let out = sleuth(home, &["export", id, "--format", "json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("json");
    let s = &v["session"];
    (s["asks"][0]["answer"].clone(), s["interpretation"].clone(), s["verification"]["cited"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_typed_answer_narrows_identically_through_stdin_and_http_and_a_wrong_number_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("mercury"), dir.path().join("home"));
    mercury_docs(&corpus);
    let flag = corpus_flag(&corpus);
    let question = "What is mercury?";

    // A number no option has: refused with the options shown again, then
    // (stdin ended) the session waits for an answer.
    let mut cmd = sleuth_command(&home);
    cmd.args(["run", "--set", &flag, "--ask", "stdin", question]);
    let refused = run_limited(cmd, "7\n", DEFAULT_LIMIT);
    assert_eq!(refused.code, Some(3), "{}", refused.stderr);
    assert!(refused.stderr.contains("7 is not an option's number; choose 1–"), "{}", refused.stderr);
    assert_eq!(listed(&home)[0]["status"], "waiting_on_ask");

    // Words of one option, typed at the terminal.
    let before = ids(&home);
    let mut cmd = sleuth_command(&home);
    cmd.args(["run", "--set", &flag, "--ask", "stdin", question]);
    let typed = run_limited(cmd, "the metal\n", DEFAULT_LIMIT);
    assert!(matches!(typed.code, Some(0) | Some(4)), "{}", typed.stderr);
    let by_stdin = ids(&home).into_iter().find(|id| !before.contains(id)).expect("a new session");

    // The same words over HTTP.
    let server = Server::start(&home, &["--set", &flag], &[]);
    let c = client();
    let (code, asked) = post_json(&c, &server.url("/run"), json!({"task": question})).await;
    assert_eq!((code, asked["status"].as_str()), (200, Some("waiting_on_ask")), "{asked}");
    let (job, ask_id) = (asked["job_id"].as_str().unwrap(), asked["ask"]["ask_id"].as_str().unwrap());
    let answer_url = server.url(&format!("/jobs/{job}/answer"));
    let (code, e) = post_json(&c, &answer_url, json!({"ask_id": ask_id, "answer": "7"})).await;
    assert_eq!((code, e["error"]["field"].as_str()), (400, Some("answer")), "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("choose 1–"), "{e}");
    let (code, view) = post_json(&c, &answer_url, json!({"ask_id": ask_id, "answer": "the metal"})).await;
    assert_eq!(code, 200, "{view}");
    let deadline = Instant::now() + Duration::from_secs(120);
    let by_http = loop {
        let (_, v) = get_json(&c, &server.url(&format!("/jobs/{job}"))).await;
        if v["answer"].is_object() {
            break v["session_id"].as_str().unwrap().to_string();
        }
        assert!(Instant::now() < deadline, "{v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (a, b) = (answered(&home, &by_stdin), answered(&home, &by_http));
    assert_eq!(a.0["kind"], "choice", "the words picked the option: {:?}", a.0);
    assert_eq!(a, b, "same answer, same narrowing, same cited sources");
    assert!(a.1["excluded"].as_array().is_some_and(|x| !x.is_empty()), "the planet was ruled out: {:?}", a.1);
}

/// A key with characters URLs encode, in the variable the Tavily provider
/// reads. The fake Tavily echoes it into every hit (title raw, snippet
/// form-encoded, URL percent-encoded) and the page it points to.
const CANARY: &str = "tvly-CANARY/Ab+Cd=Ef9 x";

async fn echoing_tavily() -> wiremock::MockServer {
    use wiremock::matchers::{method, path};
    let server = wiremock::MockServer::start().await;
    let encoded = "tvly-CANARY%2FAb%2BCd%3DEf9%20x";
    let form = "tvly-CANARY%2FAb%2BCd%3DEf9+x";
    let page = format!("{}/widgets?k={encoded}", server.uri());
    let hits = json!({"query": "q", "answer": null, "images": [], "response_time": 0.1, "results": [
        {"title": format!("Widgets and {CANARY}"), "url": page, "content": format!("widgets connect to gadgets by a bolt, key={form}"), "score": 0.9},
        {"title": "Gadgets", "url": format!("{}/gadgets?key={}", server.uri(), "tvly-CANARY/Ab%2BCd%3DEf9%20x"), "content": "gadgets hold widgets with a clamp", "score": 0.8}
    ]});
    wiremock::Mock::given(method("POST"))
        .and(path("/search"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(hits))
        .mount(&server)
        .await;
    for p in ["/widgets", "/gadgets"] {
        let html = format!(
            "<html><head><title>Widgets</title></head><body><article><h1>Widgets</h1><p>Widgets connect to gadgets by a \
             bolt of width four millimetres; the lab key {CANARY} opens the bench, also written {encoded}.</p><p>Gadgets \
             hold widgets with a clamp and buffer eleven frames.</p></article></body></html>"
        );
        wiremock::Mock::given(method("GET"))
            .and(path(p))
            .respond_with(wiremock::ResponseTemplate::new(200).set_body_raw(html.into_bytes(), "text/html"))
            .mount(&server)
            .await;
    }
    server
}

/// Every file under `root` whose text holds any form of the canary.
fn leaking(root: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| leaks(&String::from_utf8_lossy(&std::fs::read(e.path()).unwrap_or_default())))
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// The key's start survives no redaction: any form of the key shows it.
fn leaks(text: &str) -> bool {
    text.contains("CANARY")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_with_reserved_characters_reaches_no_output_in_any_encoding() {
    let tavily = echoing_tavily().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let sets = [
        r#"search.chains=[["tavily"]]"#.to_string(),
        format!("web.tavily_url=\"{}\"", tavily.uri()),
        "web.politeness_delay_ms=0".into(),
        "research.preset=\"simple\"".into(),
    ];
    let mut args: Vec<&str> = Vec::new();
    for s in &sets {
        args.extend(["--set", s]);
    }
    let question = "How do widgets connect to gadgets?";
    let env = [("TAVILY_API_KEY", CANARY), ("SLEUTH_LOG", "trace")];

    // The CLI: stdout, stderr (progress at trace level), then every export.
    let mut cmd = sleuth_command(&home);
    cmd.args(["run", "--ask", "first"]).args(&args).arg(question).envs(env);
    let run = run_limited(cmd, "", DEFAULT_LIMIT);
    assert!(matches!(run.code, Some(0) | Some(4)), "{}", run.stderr);
    assert!(run.stdout.contains("[redacted]"), "the key was met: {}\n{}", run.stdout, run.stderr);
    for (name, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        assert!(!leaks(text), "{name}: {text}");
    }
    let iterations = dir.path().join("iterations");
    for format in ["md", "json", "bibtex", "csl-json"] {
        let mut cmd = sleuth_command(&home);
        cmd.args(["export", "last", "--format", format, "--iterations"]).arg(&iterations).envs(env);
        let out = run_limited(cmd, "", DEFAULT_LIMIT);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        assert!(!leaks(&out.stdout) && !leaks(&out.stderr), "export {format}: {}", out.stdout);
    }

    // The server at trace: /search, a streamed /run, the report and exports.
    let server = Server::start(&home, &args, &env);
    let c = client();
    let r = c.get(server.url("/search?q=widgets%20gadgets")).send().await.expect("search");
    let found = r.text().await.expect("text");
    assert!(found.contains("[redacted]") && !leaks(&found), "{found}");
    let r = c
        .post(server.url("/run"))
        .json(&json!({"task": question, "stream": true, "ask": "first"}))
        .send()
        .await
        .expect("run");
    let streamed = r.text().await.expect("stream");
    assert!(streamed.contains("event: answer") && !leaks(&streamed), "{streamed}");
    let (_, all) = get_json(&c, &server.url("/sessions")).await;
    assert!(!leaks(&all.to_string()));
    for id in all.as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_string()) {
        for path in
            [format!("/sessions/{id}/report"), format!("/sessions/{id}/export?format=json"), format!("/sessions/{id}")]
        {
            let text = c.get(server.url(&path)).send().await.expect("get").text().await.expect("text");
            assert!(!leaks(&text), "{path}: {text}");
        }
    }
    assert!(!leaks(&server.lines.text()), "the server's stderr");
    drop(server);

    // The MCP server at trace: search, research, the report, the list.
    let client = mcp(&home, &sets, &env).await;
    for (tool, args) in [
        ("search", json!({"query": "widgets gadgets"})),
        ("research", json!({"question": question, "preset": "simple"})),
        ("list_sessions", json!({})),
    ] {
        let result = call(&client, tool, args).await;
        assert!(!leaks(&result.to_string()), "{tool}: {result}");
    }
    let id = listed(&home)[0]["id"].as_str().unwrap().to_string();
    let report = call(&client, "get_report", json!({"session_id": id})).await;
    assert!(!leaks(&report.to_string()), "{report}");
    let _ = support::mcp::step("closing the client", client.cancel()).await;

    // Every file sleuth wrote: session logs, sources, summaries, the log
    // file at trace, memory, the iteration files.
    let logs = home.join("logs");
    assert!(std::fs::read_dir(&logs).is_ok_and(|mut d| d.next().is_some()), "a log file was written");
    assert_eq!(leaking(&home), Vec::<PathBuf>::new());
    assert_eq!(leaking(&iterations), Vec::<PathBuf>::new());
}

/// Small things a user sees on the command line.
#[test]
fn an_empty_store_and_an_empty_memory_are_said_plainly_and_help_matches_what_commands_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let export = sleuth(&home, &["export", "last"]);
    assert_eq!(export.code, Some(1));
    assert!(export.stderr.contains("no sessions yet"), "{}", export.stderr);
    assert!(!export.stderr.contains("no session `last`"), "{}", export.stderr);
    let clear = sleuth(&home, &["memory", "clear"]);
    assert_eq!(clear.code, Some(0), "nothing to clear is no error: {}", clear.stderr);
    assert!(clear.stderr.contains("no lessons"), "{}", clear.stderr);
    let doctor = sleuth(&home, &["doctor", "--help"]);
    assert!(doctor.stdout.contains("--reasoner") && !doctor.stdout.contains("--step"), "{}", doctor.stdout);
    let help = sleuth(&home, &["sessions", "--help"]);
    assert!(help.stdout.contains("JSON array"), "{}", help.stdout);
    let list = sleuth(&home, &["sessions", "--json"]);
    assert_eq!(serde_json::from_str::<Value>(&list.stdout).expect("json"), json!([]), "an array, as the help says");
    // Typed flags are checked by the config's own ranges, named by their flag.
    let run = sleuth(&home, &["run", "--max-iterations", "1000", "What is a widget?"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("--max-iterations: must be between 1 and 100 (got 1000)"), "{}", run.stderr);
    let long = "why ".repeat(3_000);
    let run = sleuth(&home, &["run", &long]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("research.max_question_chars"), "{}", run.stderr);
    assert!(!home.join("sessions").exists(), "nothing was started");
}
