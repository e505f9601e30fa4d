//! `sleuth mcp` driven by the official SDK's client over stdio: the real
//! binary, a fixture corpus, the built-in reasoner. Every await on the
//! child is under a time limit (`support::mcp`); a hung server fails the
//! test and is killed with its client.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support;
use crate::support::bin::DEFAULT_LIMIT;
use crate::support::mcp::{self, step};
use crate::support::mercury::mercury_docs;
use crate::support::serve::{corpus_flag, listed};
use rmcp::model::{CallToolRequestParams, ProgressNotificationParam, ReadResourceRequestParams};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

/// Counts the progress notifications the server sends, and keeps their messages.
#[derive(Clone, Default)]
struct Counting {
    progress: Arc<AtomicUsize>,
    messages: Arc<std::sync::Mutex<Vec<String>>>,
}

impl ClientHandler for Counting {
    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let message = params.message.unwrap_or_default();
        assert!(!message.is_empty());
        self.messages.lock().expect("lock").push(message);
        self.progress.fetch_add(1, Ordering::SeqCst);
    }
}

fn args(v: Value) -> rmcp::model::JsonObject {
    v.as_object().cloned().expect("object")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_client_researches_gets_progress_and_answers_an_ask() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (docs, mercury, home) = (dir.path().join("docs"), dir.path().join("mercury"), dir.path().join("home"));
    support::e2e::write_corpus(&docs);
    mercury_docs(&mercury);
    // One corpus of both folders' pages.
    support::serve::copy_into(&mercury, &docs);
    let flag = corpus_flag(&docs);
    let handler = Counting::default();
    let progress = handler.progress.clone();
    let messages = handler.messages.clone();
    // Answered at once: nothing is indexed before the first call needs it.
    let started = std::time::Instant::now();
    let client = mcp::connect(handler, &home, &["--set".into(), flag], &[]).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "initialize took {:?}", started.elapsed());
    assert!(!home.join("index").exists(), "no index before a call needs one");

    // A limit out of the config's range is refused as the config refuses it.
    let params = CallToolRequestParams::new("research")
        .with_arguments(args(json!({"question": "What is the latency of widget 5?", "max_iterations": 1000})));
    let refused = step("research", client.call_tool(params)).await.expect_err("out of range");
    assert!(refused.to_string().contains("max_iterations`: must be between 1 and 100 (got 1000)"), "{refused}");
    assert!(listed(&home).is_empty(), "nothing was started");
    // So is a question longer than research.max_question_chars, at once.
    let long = "why does the widget latency grow ".repeat(2_000);
    let params = CallToolRequestParams::new("research").with_arguments(args(json!({"question": long})));
    let asked = std::time::Instant::now();
    let refused = step("research", client.call_tool(params)).await.expect_err("too long");
    assert!(refused.to_string().contains("characters long; the limit is"), "{refused}");
    assert!(asked.elapsed() < std::time::Duration::from_secs(5), "refused before any work: {:?}", asked.elapsed());
    assert!(listed(&home).is_empty(), "nothing was started");

    let info = client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().map(|i| i.name.as_str()), Some("sleuth"));
    let tools = step("listing the tools", client.list_all_tools()).await.expect("tools");
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(names, ["answer", "get_report", "list_sessions", "research", "search"]);
    assert!(tools.iter().all(|t| t.description.as_ref().is_some_and(|d| d.len() > 80)));

    // research: the report as text, the numbers as structured content, progress meanwhile.
    let params = CallToolRequestParams::new("research")
        .with_arguments(args(json!({"question": "What is the latency of widget 5?", "preset": "simple"})));
    let result =
        serde_json::to_value(step("research", client.call_tool(params)).await.expect("research")).expect("json");
    let text = result["content"][0]["text"].as_str().expect("text");
    assert!(text.contains("## Sources"), "{result}");
    let structured = &result["structuredContent"];
    assert_eq!(structured["status"], "finished", "{structured}");
    assert!(structured["sources"].as_array().is_some_and(|s| !s.is_empty()), "{structured}");
    let first_id = structured["session_id"].as_str().expect("session").to_string();
    assert!(progress.load(Ordering::SeqCst) > 0, "progress notifications were sent");
    let said = messages.lock().expect("lock").clone();
    assert!(said.iter().any(|m| m.contains("index")), "the first call said it was indexing: {said:?}");

    // An ambiguous question comes back as a question to answer with `answer`.
    let params = CallToolRequestParams::new("research").with_arguments(args(json!({"question": "What is mercury?"})));
    let asked =
        serde_json::to_value(step("research", client.call_tool(params)).await.expect("research")).expect("json");
    let s = &asked["structuredContent"];
    assert_eq!(s["status"], "waiting_on_ask", "{asked}");
    assert!(asked["content"][0]["text"].as_str().is_some_and(|t| t.contains("`answer`")), "{asked}");
    let options: Vec<String> = s["ask"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| o.as_str().unwrap_or_default().to_string())
        .collect();
    let metal = options.iter().find(|o| o.to_lowercase().contains("metal")).expect("a metal option").clone();
    let params = CallToolRequestParams::new("answer").with_arguments(args(json!({
        "session_id": s["session_id"], "ask_id": s["ask"]["ask_id"], "answer": metal
    })));
    let answered = serde_json::to_value(step("answer", client.call_tool(params)).await.expect("answer")).expect("json");
    assert_eq!(answered["structuredContent"]["status"], "finished", "{answered}");
    let report = answered["content"][0]["text"].as_str().expect("text").to_lowercase();
    let body = report.split("## sources").next().unwrap_or_default();
    assert!(body.contains("metal") || body.contains("thermometer"), "{report}");

    // search, list_sessions, get_report and the report resource.
    let params = CallToolRequestParams::new("search")
        .with_arguments(args(json!({"query": "gadget buffers frames", "limit": 2})));
    let found = serde_json::to_value(step("search", client.call_tool(params)).await.expect("search")).expect("json");
    assert_eq!(found["structuredContent"]["hits"].as_array().map(Vec::len), Some(2), "{found}");
    let params = CallToolRequestParams::new("list_sessions");
    let sessions = serde_json::to_value(step("list", client.call_tool(params)).await.expect("list")).expect("json");
    assert_eq!(sessions["structuredContent"]["sessions"].as_array().map(Vec::len), Some(2), "{sessions}");
    let params = CallToolRequestParams::new("get_report").with_arguments(args(json!({"session_id": first_id})));
    let got = serde_json::to_value(step("report", client.call_tool(params)).await.expect("report")).expect("json");
    assert_eq!(got["content"][0]["text"].as_str(), Some(text), "{got}");
    let resources = step("listing the resources", client.list_all_resources()).await.expect("resources");
    let uri = format!("sleuth://sessions/{first_id}/report");
    assert!(resources.iter().any(|r| r.uri == uri), "{resources:?}");
    let read = serde_json::to_value(
        step("reading the report", client.read_resource(ReadResourceRequestParams::new(uri))).await.expect("read"),
    )
    .expect("json");
    assert_eq!(read["contents"][0]["text"].as_str(), Some(text));
    step("closing the client", client.cancel()).await.expect("close");

    // Both sessions are in the CLI's store.
    let statuses: Vec<Value> = listed(&home).iter().map(|s| s["status"].clone()).collect();
    assert_eq!(statuses, [json!("finished"), json!("finished")]);
}

/// The Python `mcp` package's stdio client (a client we did not write)
/// against the real binary; skipped when that package is not installed,
/// failed instead in CI.
#[test]
fn the_python_mcp_client_lists_tools_and_researches() {
    let python = std::env::var("SLEUTH_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let probe = support::bin::output_of(
        std::process::Command::new(&python).args(["-c", "import mcp"]),
        support::bin::TOOL_LIMIT,
    );
    let install = "pip install mcp; SLEUTH_TEST_PYTHON picks the interpreter";
    if support::bin::missing_tool("the Python `mcp` package", probe.is_ok_and(|o| o.status.success()), install) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (docs, home) = (dir.path().join("docs"), dir.path().join("home"));
    support::e2e::write_corpus(&docs);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/mcp_client.py");
    let mut cmd = std::process::Command::new(&python);
    // The client starts the binary itself, with this environment.
    support::bin::hermetic(&mut cmd, &home).arg(script).arg(support::bin::sleuth_path()).arg(&docs);
    let out = support::bin::run_limited(cmd, "", DEFAULT_LIMIT);
    let stdout = out.stdout;
    assert_eq!(out.code, Some(0), "{stdout}\n{}", out.stderr);
    assert!(stdout.contains("tools: answer, get_report, list_sessions, research, search"), "{stdout}");
    assert!(stdout.contains("refused: max_iterations 1000"), "{stdout}");
    assert!(stdout.contains("research: finished"), "{stdout}");
}

/// A client that can elicit: it answers the question with the option
/// naming the planet, as a user picking it in a form would.
#[derive(Clone, Default)]
struct Eliciting {
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for Eliciting {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let caps = rmcp::model::ClientCapabilities::builder().enable_elicitation().build();
        rmcp::model::ClientConfig::new(caps, rmcp::model::Implementation::new("eliciting-test", "1"))
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let request = serde_json::to_value(&request).expect("json");
        let message = request["message"].as_str().unwrap_or_default().to_string();
        let line =
            message.lines().find(|l| l.to_lowercase().contains("planet") && l.contains(". ")).unwrap_or_default();
        let number = line.split('.').next().unwrap_or_default().trim().to_string();
        let mut result = rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept);
        result.content = Some(json!({"answer": number}));
        Ok(result)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_can_elicit_is_asked_the_question_directly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mercury, home) = (dir.path().join("mercury"), dir.path().join("home"));
    mercury_docs(&mercury);
    let flag = corpus_flag(&mercury);
    let handler = Eliciting::default();
    let asked = handler.asked.clone();
    let client = mcp::connect(handler, &home, &["--set".into(), flag], &[]).await;
    let params = CallToolRequestParams::new("research").with_arguments(args(json!({"question": "What is mercury?"})));
    let result =
        serde_json::to_value(step("research", client.call_tool(params)).await.expect("research")).expect("json");
    assert_eq!(asked.load(Ordering::SeqCst), 1, "{result}");
    assert_eq!(result["structuredContent"]["status"], "finished", "{result}");
    let report = result["content"][0]["text"].as_str().expect("text").to_lowercase();
    let body = report.split("## sources").next().unwrap_or_default();
    assert!(body.contains("orbit") || body.contains("planet"), "{report}");
    assert!(!body.contains("thermometer"), "the other meaning stays out: {report}");
    step("closing the client", client.cancel()).await.expect("close");
}
