//! `sleuth serve` end to end: the real binary on a free loopback port,
//! driven with reqwest; the built-in reasoner on small fixture corpora.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::time::{Duration, Instant};

use crate::support;
use crate::support::bin::{output, sleuth_cmd};
use crate::support::mercury::mercury_docs;
use crate::support::serve::{Server, corpus_flag, listed, session_dirs};
use futures::StreamExt;
use serde_json::{Value, json};

fn client() -> reqwest::Client {
    sleuth::tls::install_crypto_provider();
    reqwest::Client::builder().timeout(Duration::from_secs(120)).build().expect("client")
}

async fn get_json(c: &reqwest::Client, url: &str) -> (u16, Value) {
    let r = c.get(url).send().await.expect("request");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn post_json(c: &reqwest::Client, url: &str, body: Value) -> (u16, Value) {
    let r = c.post(url).json(&body).send().await.expect("request");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// Polls `GET /jobs/{id}` until its status is `want`.
async fn wait_status(c: &reqwest::Client, server: &Server, job: &str, want: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (code, view) = get_json(c, &server.url(&format!("/jobs/{job}"))).await;
        assert_eq!(code, 200, "{view}");
        if view["status"] == want {
            return view;
        }
        assert!(Instant::now() < deadline, "job never reached {want}: {view}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One Server-Sent Event.
#[derive(Debug, Default, Clone)]
struct Sse {
    id: Option<u64>,
    event: Option<String>,
    data: String,
}

/// Reads a whole SSE response as it streams.
async fn read_sse(response: reqwest::Response) -> Vec<Sse> {
    let mut stream = response.bytes_stream();
    let mut buffer = String::new();
    let mut events = Vec::new();
    while let Some(chunk) = stream.next().await {
        buffer.push_str(&String::from_utf8_lossy(&chunk.expect("chunk")));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            let mut e = Sse::default();
            for line in frame.lines() {
                if let Some(v) = line.strip_prefix("id:") {
                    e.id = v.trim().parse().ok();
                } else if let Some(v) = line.strip_prefix("event:") {
                    e.event = Some(v.trim().to_string());
                } else if let Some(v) = line.strip_prefix("data:") {
                    e.data.push_str(v.strip_prefix(' ').unwrap_or(v));
                }
            }
            if !e.data.is_empty() {
                events.push(e);
            }
        }
    }
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_synchronous_run_answers_with_verified_sources_in_the_shared_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("docs"), dir.path().join("home"));
    support::e2e::write_corpus(&corpus);
    let server = Server::start(&home, &["--set", &corpus_flag(&corpus)], &[]);
    let c = client();

    let (code, answer) = post_json(
        &c,
        &server.url("/run"),
        json!({"task": "What is the latency of widget 7?", "complexity_tier": "simple"}),
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["status"], "finished", "{answer}");
    let report = answer["final_answer"].as_str().expect("report");
    assert!(report.contains("## Sources"), "{report}");
    let sources = answer["sources"].as_array().expect("sources");
    assert!(!sources.is_empty(), "{answer}");
    for s in sources {
        let marker = format!("[{}]", s["id"]);
        assert!(report.contains(&marker), "a listed source is cited in the report: {marker}");
        let path = s["locator"].as_str().and_then(|l| l.split('#').next()).unwrap_or_default();
        assert!(path.ends_with(".md"), "{s}");
    }
    assert!(answer["iterations"].as_u64().is_some_and(|n| (1..=2).contains(&n)), "{answer}");
    assert!(!answer["summary"].as_str().unwrap_or_default().is_empty(), "{answer}");
    let id = answer["session_id"].as_str().expect("session id").to_string();

    // The same store as the CLI: listed by `sleuth sessions`, finished.
    let sessions = listed(&home);
    let row = sessions.iter().find(|s| s["id"] == id.as_str()).expect("listed by sleuth sessions");
    assert_eq!(row["status"], "finished", "{row}");

    // The session endpoints read it back.
    let r = c.get(server.url(&format!("/sessions/{id}/report"))).send().await.expect("report");
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.text().await.expect("text").trim_end(), report.trim_end());
    let (code, one) = get_json(&c, &server.url(&format!("/sessions/{id}"))).await;
    assert_eq!((code, one["status"].as_str()), (200, Some("finished")), "{one}");
    let r = c.get(server.url(&format!("/sessions/{id}/export?format=bibtex"))).send().await.expect("export");
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.text().await.expect("text").contains('@'));
    let (code, all) = get_json(&c, &server.url("/sessions")).await;
    assert_eq!((code, all.as_array().map(Vec::len)), (200, Some(1)), "{all}");

    // /search calls the providers directly.
    let (code, found) = get_json(&c, &server.url("/search?q=widget%207%20latency&limit=3")).await;
    assert_eq!(code, 200, "{found}");
    let hits = found["hits"].as_array().expect("hits");
    assert!(!hits.is_empty() && hits.len() <= 3, "{found}");
    assert_eq!(hits[0]["provider"], "local");

    // The metrics count the session.
    let text = c.get(server.url("/metrics")).send().await.expect("metrics").text().await.expect("text");
    assert!(text.contains("research_loop_duration_seconds_count 1\n"), "{text}");
    assert!(text.contains("iterations_per_request_count 1\n"), "{text}");
    assert!(text.contains("search_failures_total 0\n") && text.contains("sleuth_sessions_running 0\n"), "{text}");
    let (code, health) = get_json(&c, &server.url("/healthz")).await;
    assert_eq!((code, health["status"].as_str()), (200, Some("ok")));
    let (code, doc) = get_json(&c, &server.url("/openapi.json")).await;
    assert_eq!(code, 200);
    assert!(doc["paths"]["/run"]["post"].is_object(), "{doc}");

    // Errors are ErrorResponse with the right status.
    let (code, e) = post_json(&c, &server.url("/run"), json!({"task": "q", "max_iters": "three"})).await;
    assert_eq!(
        (code, e["error"]["type"].as_str(), e["error"]["field"].as_str()),
        (400, Some("invalid_request"), Some("max_iters")),
        "{e}"
    );
    assert_eq!(e["error"]["retryable"], false);
    let (code, e) = post_json(&c, &server.url("/run"), json!({"task": "q", "complexity_tier": "extreme"})).await;
    assert_eq!((code, e["error"]["field"].as_str()), (400, Some("complexity_tier")), "{e}");
    let (code, e) = get_json(&c, &server.url("/jobs/job-404")).await;
    assert_eq!((code, e["error"]["type"].as_str()), (404, Some("not_found")), "{e}");
    let (code, e) = get_json(&c, &server.url("/sessions/20990101-000000-0000/report")).await;
    assert_eq!(code, 404, "{e}");
    let (code, e) = get_json(&c, &server.url("/search")).await;
    assert_eq!((code, e["error"]["field"].as_str()), (400, Some("q")), "{e}");
    let huge = "x".repeat(200 * 1024);
    let (code, e) = post_json(&c, &server.url("/run"), json!({"task": huge})).await;
    assert_eq!((code, e["error"]["type"].as_str()), (413, Some("payload_too_large")), "{e}");
    // Nothing was started by the refused requests.
    assert_eq!(session_dirs(&home).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_sends_every_logged_event_then_the_answer_and_resumes_after_last_event_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("docs"), dir.path().join("home"));
    support::e2e::write_corpus(&corpus);
    let server = Server::start(&home, &["--set", &corpus_flag(&corpus)], &[]);
    let c = client();

    let r = c
        .post(server.url("/run"))
        .json(&json!({"task": "How much power does widget 4 draw?", "complexity_tier": "simple", "stream": true}))
        .send()
        .await
        .expect("stream");
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers()["content-type"].to_str().expect("ascii").starts_with("text/event-stream"));
    let job = r.headers()["x-sleuth-job"].to_str().expect("job id").to_string();
    let events = read_sse(r).await;
    let (last, engine_events) = events.split_last().expect("events");
    assert_eq!(last.event.as_deref(), Some("answer"), "{last:?}");
    let answer: Value = serde_json::from_str(&last.data).expect("answer json");
    assert_eq!(answer["status"], "finished");
    let id = answer["session_id"].as_str().expect("session").to_string();
    // Every engine event, exactly as the log (and `sleuth run --json`) has it.
    let log = support::e2e::log_lines(&home, &id);
    let data: Vec<&str> = engine_events.iter().map(|e| e.data.as_str()).collect();
    let logged: Vec<&str> = log.iter().map(|l| l.trim_end()).collect();
    assert_eq!(data, logged);
    let first: Value = serde_json::from_str(data[0]).expect("json");
    assert_eq!(first["event"]["type"], "session_started", "{first}");
    let ids: Vec<u64> = engine_events.iter().map(|e| e.id.expect("id")).collect();
    assert_eq!(ids, (1..=ids.len() as u64).collect::<Vec<_>>());

    // Reconnecting with Last-Event-ID sends only what came after it.
    let from = ids.len() as u64 / 2;
    let r = c
        .get(server.url(&format!("/jobs/{job}/events")))
        .header("Last-Event-ID", from.to_string())
        .send()
        .await
        .expect("resume");
    assert_eq!(r.status().as_u16(), 200);
    let resumed = read_sse(r).await;
    let resumed_ids: Vec<u64> = resumed.iter().filter_map(|e| e.id).collect();
    assert_eq!(resumed_ids, ((from + 1)..=ids.len() as u64).collect::<Vec<_>>());
    assert_eq!(resumed.last().and_then(|e| e.event.as_deref()), Some("answer"));
    let r =
        c.get(server.url(&format!("/jobs/{job}/events"))).header("Last-Event-ID", "soon").send().await.expect("bad id");
    assert_eq!(r.status().as_u16(), 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_in_the_task_never_reaches_the_event_stream_or_the_answer() {
    const KEY: &str = "sk-test-serve-5e4d3c2b1a";
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("docs"), dir.path().join("home"));
    support::e2e::write_corpus(&corpus);
    let server = Server::start(
        &home,
        &["--set", &corpus_flag(&corpus), "--set", "llm.api_key_env=SLEUTH_SERVE_TEST_KEY"],
        &[("SLEUTH_SERVE_TEST_KEY", KEY)],
    );
    let c = client();
    let task = format!("How much power does widget 4 draw with key {KEY}?");
    let r = c
        .post(server.url("/run"))
        .json(&json!({"task": task, "complexity_tier": "simple", "stream": true}))
        .send()
        .await
        .expect("stream");
    assert_eq!(r.status().as_u16(), 200);
    let job = r.headers()["x-sleuth-job"].to_str().expect("job id").to_string();
    let live = read_sse(r).await;
    // The stream again from its start, as a reconnecting client reads it.
    let r = c.get(server.url(&format!("/jobs/{job}/events"))).send().await.expect("replay");
    let replayed = read_sse(r).await;
    for (name, events) in [("live", &live), ("replayed", &replayed)] {
        assert!(events.len() > 3, "{name}: {events:?}");
        for e in events.iter() {
            assert!(!e.data.contains(KEY), "{name} stream leaks the key: {}", e.data);
        }
        let first: Value = serde_json::from_str(&events[0].data).expect("json");
        assert_eq!(first["event"]["question"], "How much power does widget 4 draw with key [redacted]?", "{first}");
    }
    let answer: Value = serde_json::from_str(&live.last().expect("answer").data).expect("answer json");
    let id = answer["session_id"].as_str().expect("session");
    let (code, report) = get_json(&c, &server.url(&format!("/sessions/{id}"))).await;
    assert_eq!(code, 200, "{report}");
    assert!(!report.to_string().contains(KEY), "{report}");
    assert!(!server.stderr.lock().expect("lock").contains(KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_stops_a_synchronous_run_and_an_async_job_is_answered_or_cancelled() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("mercury"), dir.path().join("home"));
    mercury_docs(&corpus);
    let server = Server::start(&home, &["--set", &corpus_flag(&corpus)], &[]);
    let c = client();

    // Asynchronous: 202 with the job, which stops at the question.
    let (code, accepted) = post_json(&c, &server.url("/run"), json!({"task": "What is mercury?", "async": true})).await;
    assert_eq!(code, 202, "{accepted}");
    let job = accepted["job_id"].as_str().expect("job").to_string();
    let view = wait_status(&c, &server, &job, "waiting_on_ask").await;
    let ask = &view["ask"];
    let options: Vec<String> = ask["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| o.as_str().unwrap_or_default().to_lowercase())
        .collect();
    let planet = options.iter().position(|o| o.contains("planet")).expect("a planet option") + 1;
    let ask_id = ask["ask_id"].as_str().expect("ask id").to_string();
    let (code, e) =
        post_json(&c, &server.url(&format!("/jobs/{job}/answer")), json!({"ask_id": "nope", "answer": "1"})).await;
    assert_eq!((code, e["error"]["type"].as_str()), (409, Some("conflict")), "{e}");
    let (code, _) = post_json(
        &c,
        &server.url(&format!("/jobs/{job}/answer")),
        json!({"ask_id": ask_id, "answer": planet.to_string()}),
    )
    .await;
    assert_eq!(code, 200);
    let done = wait_status(&c, &server, &job, "finished").await;
    let report = done["answer"]["final_answer"].as_str().expect("report").to_lowercase();
    let body = report.split("## sources").next().unwrap_or_default();
    assert!(body.contains("orbit") || body.contains("planet"), "{report}");
    assert!(!body.contains("thermometer"), "the other meaning stays out: {report}");
    // Answering a job that is not waiting is a conflict.
    let (code, _) =
        post_json(&c, &server.url(&format!("/jobs/{job}/answer")), json!({"ask_id": ask_id, "answer": "1"})).await;
    assert_eq!(code, 409);

    // Synchronous: the question and the job id come back instead of a guess.
    let (code, asked) = post_json(&c, &server.url("/run"), json!({"task": "What is mercury?"})).await;
    assert_eq!(code, 200, "{asked}");
    assert_eq!(asked["status"], "waiting_on_ask", "{asked}");
    assert!(asked["ask"]["question"].as_str().is_some_and(|q| !q.is_empty()), "{asked}");
    let waiting = asked["job_id"].as_str().expect("job").to_string();
    let (code, _) = post_json(&c, &server.url(&format!("/jobs/{waiting}/cancel")), json!({})).await;
    assert_eq!(code, 200);
    let cancelled = wait_status(&c, &server, &waiting, "cancelled").await;
    assert_eq!(cancelled["answer"]["status"], "cancelled");
    let (code, e) = post_json(&c, &server.url(&format!("/jobs/{waiting}/cancel")), json!({})).await;
    assert_eq!((code, e["error"]["type"].as_str()), (409, Some("conflict")), "{e}");

    // `"ask": "first"` takes the first option and finishes.
    let (code, first) = post_json(&c, &server.url("/run"), json!({"task": "What is mercury?", "ask": "first"})).await;
    assert_eq!((code, first["status"].as_str()), (200, Some("finished")), "{first}");
    let statuses: Vec<String> =
        listed(&home).iter().map(|s| s["status"].as_str().unwrap_or_default().to_string()).collect();
    let mut sorted = statuses.clone();
    sorted.sort();
    assert_eq!(sorted, ["cancelled", "finished", "finished"], "{statuses:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_answers_429_with_retry_after_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("mercury"), dir.path().join("home"));
    mercury_docs(&corpus);
    let flag = corpus_flag(&corpus);
    let server = Server::start(&home, &["--set", &flag, "--max-concurrent", "1", "--max-queued", "1"], &[]);
    let c = client();
    let run = json!({"task": "What is mercury?", "async": true});
    // The first holds the only slot (it waits on its question), the second queues.
    let (code, first) = post_json(&c, &server.url("/run"), run.clone()).await;
    assert_eq!(code, 202);
    let first = first["job_id"].as_str().expect("job").to_string();
    wait_status(&c, &server, &first, "waiting_on_ask").await;
    let (code, second) = post_json(&c, &server.url("/run"), run.clone()).await;
    assert_eq!(code, 202);
    let second = second["job_id"].as_str().expect("job").to_string();
    assert_eq!(wait_status(&c, &server, &second, "queued").await["status"], "queued");
    let r = c.post(server.url("/run")).json(&run).send().await.expect("third");
    assert_eq!(r.status().as_u16(), 429);
    let retry_after: u64 = r.headers()["retry-after"].to_str().expect("ascii").parse().expect("seconds");
    assert!(retry_after >= 1);
    let e: Value = r.json().await.expect("json");
    assert_eq!(
        (e["error"]["type"].as_str(), e["error"]["retryable"].as_bool()),
        (Some("queue_full"), Some(true)),
        "{e}"
    );
    let text = c.get(server.url("/metrics")).send().await.expect("metrics").text().await.expect("text");
    assert!(text.contains("sleuth_sessions_running 1\n") && text.contains("sleuth_sessions_queued 1\n"), "{text}");
    assert!(text.contains("sleuth_requests_rejected_total 1\n"), "{text}");
    // Only the running job has a session; the queued and the refused wrote nothing.
    assert_eq!(session_dirs(&home).len(), 1);
    // Cancelling the queued job frees its place: the next request is admitted.
    let (code, _) = post_json(&c, &server.url(&format!("/jobs/{second}/cancel")), json!({})).await;
    assert_eq!(code, 200);
    assert_eq!(wait_status(&c, &server, &second, "cancelled").await["session_id"], Value::Null);
}

#[test]
fn off_loopback_a_token_is_required_and_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let (code, _, err) = output(sleuth_cmd(&home).args(["serve", "--bind", "0.0.0.0:0"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("SLEUTH_SERVE_TOKEN") && err.contains("token"), "{err}");

    let corpus = dir.path().join("docs");
    support::e2e::write_corpus(&corpus);
    let server = Server::start(&home, &["--set", &corpus_flag(&corpus)], &[("SLEUTH_SERVE_TOKEN", "s3cret-t0ken")]);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let c = client();
        let r = c.get(server.url("/sessions")).send().await.expect("request");
        assert_eq!(r.status().as_u16(), 401);
        let body = r.text().await.expect("text");
        assert!(body.contains("unauthorized") && !body.contains("s3cret"), "{body}");
        let r = c.get(server.url("/sessions")).bearer_auth("s3cret-t0keN").send().await.expect("request");
        assert_eq!(r.status().as_u16(), 401);
        let r = c.get(server.url("/sessions")).bearer_auth("s3cret-t0ken").send().await.expect("request");
        assert_eq!(r.status().as_u16(), 200);
    });
}

/// A SearXNG that answers every search with no hits, slowly: sessions
/// searching it take seconds per iteration.
async fn slow_searxng() -> wiremock::MockServer {
    use wiremock::matchers::{method, path};
    let server = wiremock::MockServer::start().await;
    wiremock::Mock::given(method("GET"))
        .and(path("/search"))
        .respond_with(
            wiremock::ResponseTemplate::new(200)
                .set_body_json(json!({"query": "q", "results": []}))
                .set_delay(Duration::from_millis(1500)),
        )
        .mount(&server)
        .await;
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_session_stops_it_at_a_checkpoint_interrupted_and_resumable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("docs"), dir.path().join("home"));
    support::e2e::write_corpus(&corpus);
    let searx = slow_searxng().await;
    let sets = [
        corpus_flag(&corpus),
        format!("web.searxng_url={}", searx.uri()),
        r#"search.chains=[["local"], ["searxng"]]"#.to_string(),
        "decide.confidence_threshold=1.0".into(),
        "decide.coverage_threshold=1.0".into(),
        "decide.diminishing_returns_window=50".into(),
        "decide.severity_plateau_window=50".into(),
    ];
    let mut args: Vec<&str> = Vec::new();
    for s in &sets {
        args.extend(["--set", s.as_str()]);
    }
    let server = Server::start(&home, &args, &[]);
    let c = client();
    let run = json!({"task": "Which gadget pairs with widget 3?", "async": true, "max_iters": 8, "max_queries": 2, "max_execution_time_s": 0});
    let (code, accepted) = post_json(&c, &server.url("/run"), run).await;
    assert_eq!(code, 202, "{accepted}");
    let job = accepted["job_id"].as_str().expect("job").to_string();
    // Mid-session: the first iteration is searching (each search takes 1.5 s).
    let deadline = Instant::now() + Duration::from_secs(60);
    let id = loop {
        let (_, view) = get_json(&c, &server.url(&format!("/jobs/{job}"))).await;
        assert!(view["status"] == "running" || view["status"] == "queued", "{view}");
        if view["events"].as_u64().unwrap_or(0) >= 3 {
            break view["session_id"].as_str().expect("session").to_string();
        }
        assert!(Instant::now() < deadline, "{view}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let status = server.terminate();
    assert!(status.success(), "{status:?}");

    // Stopped at a checkpoint: the log ends with the start of an iteration,
    // nothing half-written, no end recorded.
    let log = support::e2e::log_lines(&home, &id);
    let last: Value = serde_json::from_str(log.last().expect("events")).expect("whole json line");
    assert_eq!(last["event"]["type"], "iteration_started", "{last}");
    assert!(log.iter().all(|l| l.ends_with('\n') && !l.contains("\"session_ended\"")));
    let row = listed(&home).into_iter().find(|s| s["id"] == id.as_str()).expect("listed");
    assert_eq!(row["status"], "interrupted", "{row}");
    // A restarted server lists it as interrupted too.
    let again = Server::start(&home, &args, &[]);
    let (code, one) = get_json(&c, &again.url(&format!("/sessions/{id}"))).await;
    assert_eq!((code, one["status"].as_str()), (200, Some("interrupted")), "{one}");
    drop(again);

    // `sleuth resume` continues it to the end.
    let mut resume = vec!["resume", id.as_str(), "--headless", "--max-iterations", "2"];
    resume.extend(args.iter().copied());
    let (code, out, err) = output(sleuth_cmd(&home).args(&resume));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("# Which gadget pairs with widget 3?"), "{out}");
    let row = listed(&home).into_iter().find(|s| s["id"] == id.as_str()).expect("listed");
    assert_eq!(row["status"], "finished", "{row}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_while_a_session_waits_on_its_question_leaves_it_waiting_and_resumable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("mercury"), dir.path().join("home"));
    mercury_docs(&corpus);
    let flag = corpus_flag(&corpus);
    let server = Server::start(&home, &["--set", &flag], &[]);
    let c = client();
    let (code, accepted) = post_json(&c, &server.url("/run"), json!({"task": "What is mercury?", "async": true})).await;
    assert_eq!(code, 202);
    let job = accepted["job_id"].as_str().expect("job").to_string();
    let view = wait_status(&c, &server, &job, "waiting_on_ask").await;
    let id = view["session_id"].as_str().expect("session").to_string();
    let status = server.terminate();
    assert!(status.success(), "{status:?}");

    // Nobody writes it any more; it still waits on its question.
    let row = listed(&home).into_iter().find(|s| s["id"] == id.as_str()).expect("listed");
    assert_eq!(row["status"], "waiting_on_ask", "{row}");
    assert!(row.get("pid").is_none(), "{row}");

    // `sleuth resume` asks the question again and finishes the session.
    let (code, out, err) =
        output(sleuth_cmd(&home).args(["resume", &id, "--headless", "--ask", "first", "--set", &flag]));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("## Sources"), "{out}");
    let row = listed(&home).into_iter().find(|s| s["id"] == id.as_str()).expect("listed");
    assert_eq!(row["status"], "finished", "{row}");
}

/// `curl` with `args`, printing the status code last: (status, body).
fn curl(args: &[&str]) -> (u16, String) {
    let mut cmd = std::process::Command::new("curl");
    cmd.args(["-s", "-m", "30", "-w", "\n%{http_code}"]).args(args);
    let ran = support::bin::run_limited(cmd, "", Duration::from_secs(60));
    let (body, code) = ran.stdout.rsplit_once('\n').unwrap_or(("", ""));
    (code.trim().parse().unwrap_or(0), body.to_string())
}

/// A page on another origin may send a "simple" request (no preflight):
/// `text/plain`, its own `Origin`. A DNS-rebinding page reaches 127.0.0.1
/// under its own name, which is the `Host` its browser sends. Both are
/// refused by the real server, and nothing is started or read; the same
/// requests from a program on this machine (or a listed proxy name) work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_on_other_origins_and_rebinding_pages_cannot_use_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("docs"), dir.path().join("home"));
    support::e2e::write_corpus(&corpus);
    let server = Server::start(
        &home,
        &["--set", &corpus_flag(&corpus), "--set", r#"serve.allowed_hosts=["sleuth.example.org"]"#],
        &[],
    );
    let run = server.url("/run");
    let task = r#"{"task": "What is the latency of widget 7?", "async": true}"#;
    // The browser's simple cross-origin POST, as a page's fetch() sends it.
    let (code, body) = curl(&[
        "-X",
        "POST",
        "-H",
        "Origin: http://evil.example",
        "-H",
        "Content-Type: text/plain",
        "--data",
        task,
        &run,
    ]);
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("\"forbidden\"") && body.contains("other origins"), "{body}");
    // The same with JSON declared: the Origin alone refuses it.
    let (code, body) =
        curl(&["-X", "POST", "-H", "Origin: null", "-H", "Content-Type: application/json", "--data", task, &run]);
    assert_eq!(code, 403, "{body}");
    // A form or text/plain body from anywhere: 415 with the error JSON.
    let (code, body) = curl(&["-X", "POST", "-H", "Content-Type: text/plain", "--data", task, &run]);
    assert_eq!(code, 415, "{body}");
    let e: Value = serde_json::from_str(&body).expect("error json");
    assert_eq!(e["error"]["type"], "unsupported_media_type", "{e}");
    let (code, _) = curl(&["-X", "POST", "--data", task, &run]);
    assert_eq!(code, 415, "curl's default form type");
    assert!(session_dirs(&home).is_empty(), "nothing was started");

    // DNS rebinding: the page's own name in Host, for reads too.
    let port = server.base.rsplit(':').next().expect("port").to_string();
    for path in ["/sessions", "/healthz", "/sessions/last/report", "/search?q=widget"] {
        let (code, body) = curl(&["-H", &format!("Host: rebind.evil.example:{port}"), &server.url(path)]);
        assert_eq!(code, 403, "{path}: {body}");
        assert!(body.contains("does not name this server"), "{body}");
    }

    // A program on this machine, a same-origin page, a listed proxy name.
    let (code, body) = curl(&["-X", "POST", "-H", "Content-Type: application/json", "--data", task, &run]);
    assert_eq!(code, 202, "{body}");
    let same_origin = format!("Origin: {}", server.base);
    let (code, body) = curl(&["-H", &same_origin, &server.url("/sessions")]);
    assert_eq!(code, 200, "{body}");
    for host in [format!("localhost:{port}"), "sleuth.example.org".to_string()] {
        let (code, body) = curl(&["-H", &format!("Host: {host}"), &server.url("/healthz")]);
        assert_eq!(code, 200, "{host}: {body}");
    }
    let (code, body) = curl(&["-H", "Origin: https://sleuth.example.org", &server.url("/sessions")]);
    assert_eq!(code, 200, "{body}");
}

/// The HTTP errors a client meets, each with the error JSON and words a
/// person reads (no Rust type names).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_errors_say_what_is_wrong_in_the_error_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("docs"), dir.path().join("home"));
    support::e2e::write_corpus(&corpus);
    let server = Server::start(&home, &["--set", &corpus_flag(&corpus)], &[("SLEUTH_SERVE_TOKEN", "s3cret-t0ken")]);
    let c = client();
    let auth = |r: reqwest::RequestBuilder| r.header("authorization", "bearer s3cret-t0ken");

    // The config's range for max_iterations (1..100), named by the body's field.
    let r = auth(c.post(server.url("/run"))).json(&json!({"task": "q", "max_iters": 1000})).send().await.expect("run");
    assert_eq!(r.status().as_u16(), 400);
    let e: Value = r.json().await.expect("json");
    assert_eq!(e["error"]["field"], "max_iters", "{e}");
    assert_eq!(e["error"]["message"], "must be between 1 and 100 (got 1000)", "{e}");
    let r = auth(c.post(server.url("/run"))).json(&json!({"task": "q", "max_iters": -3})).send().await.expect("run");
    let e: Value = r.json().await.expect("json");
    assert!(!e["error"]["message"].as_str().unwrap_or_default().contains("u32"), "{e}");
    // Bad JSON names no `?` field.
    let r = auth(c.post(server.url("/run")))
        .header("content-type", "application/json")
        .body(r#"{"task": "q", "max_iters": }"#)
        .send()
        .await
        .expect("run");
    assert_eq!(r.status().as_u16(), 400);
    let e: Value = r.json().await.expect("json");
    assert_ne!(e["error"]["field"], "?", "{e}");
    // A question over research.max_question_chars.
    let long = "why ".repeat(3_000);
    let r = auth(c.post(server.url("/run"))).json(&json!({"task": long})).send().await.expect("run");
    assert_eq!(r.status().as_u16(), 400);
    let e: Value = r.json().await.expect("json");
    assert_eq!(e["error"]["field"], "task", "{e}");
    assert!(e["error"]["message"].as_str().unwrap_or_default().contains("max_question_chars"), "{e}");
    // GET /run: 405 with the error JSON.
    let r = auth(c.get(server.url("/run"))).send().await.expect("get");
    assert_eq!(r.status().as_u16(), 405);
    let e: Value = r.json().await.expect("a body");
    assert_eq!(e["error"]["type"], "method_not_allowed", "{e}");
    // Health without the token; a missing token and a wrong one told apart.
    let (code, health) = get_json(&c, &server.url("/healthz")).await;
    assert_eq!((code, health["status"].as_str()), (200, Some("ok")), "{health}");
    let (code, missing) = get_json(&c, &server.url("/sessions")).await;
    let r = c.get(server.url("/sessions")).bearer_auth("nope").send().await.expect("wrong");
    assert_eq!((code, r.status().as_u16()), (401, 401));
    let wrong: Value = r.json().await.expect("json");
    assert_ne!(missing["error"]["message"], wrong["error"]["message"], "{missing} {wrong}");
    assert!(missing["error"]["message"].as_str().unwrap_or_default().contains("none was sent"), "{missing}");
    // Cancel of an ended job says so in words.
    let r = auth(c.post(server.url("/run")))
        .json(&json!({"task": "What is the latency of widget 7?", "complexity_tier": "simple"}))
        .send()
        .await
        .expect("run");
    let done: Value = r.json().await.expect("json");
    let job = done["job_id"].as_str().expect("job");
    let r = auth(c.post(server.url(&format!("/jobs/{job}/cancel")))).json(&json!({})).send().await.expect("cancel");
    assert_eq!(r.status().as_u16(), 409);
    let e: Value = r.json().await.expect("json");
    let message = e["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("has ended (") && !message.contains("status: F"), "{e}");
}

/// Bound before anything is built: while the model's endpoint is checked
/// (here, slowly) the server answers 503 with Retry-After, health included;
/// a signal stops it at once; a second server on the same port fails at
/// once, saying so once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_listens_at_once_answers_503_until_ready_and_stops_on_a_signal_at_once() {
    use wiremock::matchers::{method, path};
    let model = wiremock::MockServer::start().await;
    wiremock::Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(
            wiremock::ResponseTemplate::new(200)
                .set_body_json(json!({"data": [{"id": "m"}]}))
                .set_delay(Duration::from_secs(30)),
        )
        .mount(&model)
        .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("docs"), dir.path().join("home"));
    support::e2e::write_corpus(&corpus);
    let sets = [
        "--set".to_string(),
        corpus_flag(&corpus),
        "--set".into(),
        "research.reasoner=\"llm\"".into(),
        "--set".into(),
        format!("llm.base_url=\"{}/v1\"", model.uri()),
        "--set".into(),
        "llm.model=\"m\"".into(),
    ];
    let args: Vec<&str> = sets.iter().map(String::as_str).collect();
    let started = Instant::now();
    let server = Server::listening(&home, &args, &[]);
    assert!(started.elapsed() < Duration::from_secs(20), "listening before the model answered");
    let c = client();
    let r = c.get(server.url("/healthz")).send().await.expect("health");
    assert_eq!(r.status().as_u16(), 503);
    assert!(r.headers().get("retry-after").is_some());
    let e: Value = r.json().await.expect("json");
    assert_eq!(e["error"]["type"], "starting", "{e}");
    let (code, e) = post_json(&c, &server.url("/run"), json!({"task": "What is the latency of widget 7?"})).await;
    assert_eq!((code, e["error"]["type"].as_str()), (503, Some("starting")), "{e}");
    let (code, _) = get_json(&c, &server.url("/sessions")).await;
    assert_eq!(code, 200, "the store reads without the runtime");

    // The same port again: refused at once, said once.
    let port = server.base.rsplit(':').next().expect("port").to_string();
    let again = support::bin::sleuth(&home, &["serve", "--bind", &format!("127.0.0.1:{port}")]);
    assert_eq!(again.code, Some(1), "{}", again.stderr);
    assert_eq!(again.stderr.matches("cannot listen on").count(), 1, "{}", again.stderr);
    assert_eq!(again.stderr.matches("in use").count(), 1, "the OS error once: {}", again.stderr);

    let stopping = Instant::now();
    let status = server.terminate();
    assert!(status.success(), "{status:?}");
    assert!(stopping.elapsed() < Duration::from_secs(5), "stopped at once: {:?}", stopping.elapsed());
}

#[test]
fn a_name_and_port_bind_and_serve_options_are_checked_as_the_config_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let corpus = dir.path().join("docs");
    support::e2e::write_corpus(&corpus);
    let mut cmd = support::bin::sleuth_command(&home);
    cmd.args(["serve", "--bind", "localhost:0", "--set", &corpus_flag(&corpus)]);
    cmd.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    let mut child = support::bin::spawn(&mut cmd);
    let lines = support::bin::Lines::follow(child.stderr.take().expect("stderr"));
    let line = lines.wait_for("listening on", Duration::from_secs(60));
    assert!(line.contains("http://127.0.0.1:"), "{line}");
    drop(child); // killed
    let ran = support::bin::sleuth(&home, &["serve", "--max-queued", "1000000"]);
    assert_eq!(ran.code, Some(1));
    assert!(ran.stderr.contains("--max-queued: must be between 0 and 100000"), "{}", ran.stderr);
}

/// A model's endpoint that does not answer: the server still listens and
/// serves the store; health and `/run` say why with 503 `unavailable`
/// (not `500 internal`), naming the endpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_model_is_a_503_saying_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, home) = (dir.path().join("docs"), dir.path().join("home"));
    support::e2e::write_corpus(&corpus);
    // A port nothing listens on.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").expect("port").local_addr().expect("addr").port();
    let sets = [
        "--set".to_string(),
        corpus_flag(&corpus),
        "--set".into(),
        "research.reasoner=\"llm\"".into(),
        "--set".into(),
        format!("llm.base_url=\"http://127.0.0.1:{dead}/v1\""),
        "--set".into(),
        "llm.model=\"m\"".into(),
        "--set".into(),
        "llm.attempts=1".into(),
    ];
    let args: Vec<&str> = sets.iter().map(String::as_str).collect();
    let server = Server::listening(&home, &args, &[]);
    server.lines.wait_for("cannot start the research parts", Duration::from_secs(120));
    let c = client();
    let r = c.get(server.url("/healthz")).send().await.expect("health");
    assert_eq!(r.status().as_u16(), 503);
    let e: Value = r.json().await.expect("json");
    assert_eq!(e["error"]["type"], "unavailable", "{e}");
    let (code, e) = post_json(&c, &server.url("/run"), json!({"task": "What is the latency of widget 7?"})).await;
    assert_eq!((code, e["error"]["type"].as_str()), (503, Some("unavailable")), "{e}");
    let message = e["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&format!("127.0.0.1:{dead}")), "names the endpoint: {e}");
    assert_eq!(e["error"]["retryable"], true);
    let (code, _) = get_json(&c, &server.url("/sessions")).await;
    assert_eq!(code, 200);
}
