//! The routes of `sleuth serve` (axum): research, jobs, search, sessions,
//! metrics, health and the OpenAPI document.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::Stream;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tower_http::timeout::TimeoutLayer;

use super::api::{Accepted, AnswerRequest, JobStatus, JobView, RunAnswer, RunRequest};
use super::errors::{ApiError, ErrorResponse};
use super::jobs::{Job, JobError, Jobs, SubmitError};
use crate::engine::state::SessionState;
use crate::search::SearchQuery;
use crate::session::export::{ExportFormat, export};
use crate::session::list::list_one;
use crate::session::summary::SessionSummary;
use crate::session::{Redactor, read_log};

/// What every handler shares.
pub struct AppState {
    pub jobs: Arc<Jobs>,
    /// Required from every client when set (`Authorization: Bearer …`).
    pub token: Option<SecretString>,
    pub max_body_bytes: usize,
    pub run_wait: Duration,
}

type Shared = State<Arc<AppState>>;
type ApiResult<T> = Result<T, ApiError>;

/// The application: every route, the body cap, the per-request timeouts
/// (not on streams nor on a synchronous `/run`, which has its own wait),
/// the token check. No CORS layer: browsers on other origins are refused.
pub fn router(state: Arc<AppState>, request_timeout: Duration) -> axum::Router {
    let quick = axum::Router::new()
        .route("/jobs/{id}", get(job))
        .route("/jobs/{id}/answer", post(answer))
        .route("/jobs/{id}/cancel", post(cancel))
        .route("/search", get(search))
        .route("/sessions", get(sessions))
        .route("/sessions/{id}", get(session))
        .route("/sessions/{id}/report", get(report))
        .route("/sessions/{id}/export", get(export_session))
        .route("/metrics", get(metrics))
        .route("/healthz", get(healthz))
        .route("/openapi.json", get(openapi))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, request_timeout));
    axum::Router::new()
        .route("/run", post(run))
        .route("/jobs/{id}/events", get(job_events))
        .merge(quick)
        .fallback(|| async { ApiError::not_found("no such endpoint; see /openapi.json") })
        .layer(DefaultBodyLimit::max(state.max_body_bytes))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// Refuses requests during shutdown and without the token (when one is set).
async fn guard(State(app): Shared, request: Request, next: Next) -> Response {
    if let Some(token) = &app.token {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !same_bytes(given.as_bytes(), token.expose_secret().as_bytes()) {
            return ApiError::token_wrong().into_response();
        }
    }
    if app.jobs.is_stopping() {
        return ApiError::shutting_down().into_response();
    }
    next.run(request).await
}

/// Compares in time independent of where the inputs differ.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        let y = b.get(i % b.len().max(1)).copied().unwrap_or(0);
        diff |= usize::from(x ^ y);
    }
    std::hint::black_box(diff) == 0
}

/// A JSON body, or a 400 naming the field at fault (413 past the cap).
fn parse_body<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>, limit: usize) -> ApiResult<T> {
    let body = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large(limit)
        } else {
            ApiError::bad_request(e.body_text())
        }
    })?;
    let de = &mut serde_json::Deserializer::from_slice(&body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let inner = e.inner().to_string();
        let path = e.path().to_string();
        let field = if path == "." { between_backticks(&inner).unwrap_or("body").to_string() } else { path };
        ApiError::bad_field(&field, format!("{field}: {inner}"))
    })
}

fn between_backticks(text: &str) -> Option<&str> {
    text.split('`').nth(1)
}

fn submit_error(e: SubmitError) -> ApiError {
    match e {
        SubmitError::QueueFull { retry_after_secs } => ApiError::queue_full(retry_after_secs),
        SubmitError::ShuttingDown => ApiError::shutting_down(),
    }
}

fn accepted(job: &Job) -> Response {
    let body = Accepted {
        job_id: job.id.clone(),
        status: job.status(),
        poll: format!("/jobs/{}", job.id),
        events: format!("/jobs/{}/events", job.id),
    };
    (StatusCode::ACCEPTED, Json(body)).into_response()
}

/// Research a task: synchronously, as a stream, or as a job.
#[utoipa::path(post, path = "/run", request_body = RunRequest,
    responses(
        (status = 200, description = "The answer, or the question the session waits on (`status: waiting_on_ask`)", body = RunAnswer),
        (status = 202, description = "An asynchronous job (or a synchronous one still running after serve.run_wait_secs)", body = Accepted),
        (status = 400, body = ErrorResponse), (status = 413, body = ErrorResponse),
        (status = 429, description = "Queue full; see Retry-After", body = ErrorResponse),
        (status = 503, body = ErrorResponse)))]
async fn run(State(app): Shared, body: Result<Bytes, BytesRejection>) -> ApiResult<Response> {
    let request: RunRequest = parse_body(body, app.max_body_bytes)?;
    let answer_first = request.answers_first().map_err(|e| ApiError::bad_field(e.field, e.message))?;
    if request.stream && request.run_async {
        return Err(ApiError::bad_field("stream", "stream and async cannot both be true"));
    }
    let config = request.configure(app.jobs.runtime().config()).map_err(|e| ApiError::bad_field(e.field, e.message))?;
    let job = app.jobs.submit(config, request.task.trim().to_string(), answer_first).map_err(submit_error)?;
    if request.run_async {
        return Ok(accepted(&job));
    }
    if request.stream {
        let mut response = sse(job.clone(), 0).into_response();
        if let Ok(v) = HeaderValue::from_str(&job.id) {
            response.headers_mut().insert("x-sleuth-job", v);
        }
        return Ok(response);
    }
    match tokio::time::timeout(app.run_wait, job.settled()).await {
        Err(_) => Ok(accepted(&job)),
        Ok(JobStatus::Failed) => {
            Err(ApiError::internal(job.view().error.unwrap_or_else(|| "the session failed".into())))
        }
        Ok(JobStatus::Interrupted) => Err(ApiError::shutting_down()),
        Ok(_) => Ok(Json(job.answer()).into_response()),
    }
}

fn find_job(app: &AppState, id: &str) -> ApiResult<Arc<Job>> {
    app.jobs.get(id).ok_or_else(|| ApiError::not_found(format!("no job `{id}` in this server")))
}

#[utoipa::path(get, path = "/jobs/{id}", params(("id" = String, Path, description = "Job id or session id")),
    responses((status = 200, body = JobView), (status = 404, body = ErrorResponse)))]
async fn job(State(app): Shared, Path(id): Path<String>) -> ApiResult<Json<JobView>> {
    Ok(Json(find_job(&app, &id)?.view()))
}

/// Every event of the job as Server-Sent Events (ids are the events'
/// sequence numbers: `Last-Event-ID` resumes after one), then the answer.
#[utoipa::path(get, path = "/jobs/{id}/events", params(("id" = String, Path, description = "Job id or session id")),
    responses((status = 200, description = "text/event-stream"), (status = 404, body = ErrorResponse)))]
async fn job_events(State(app): Shared, Path(id): Path<String>, headers: HeaderMap) -> ApiResult<Response> {
    let job = find_job(&app, &id)?;
    let after = match headers.get("last-event-id") {
        None => 0,
        Some(v) => v
            .to_str()
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .ok_or_else(|| ApiError::bad_field("Last-Event-ID", "Last-Event-ID must be an event id (a number)"))?,
    };
    Ok(sse(job, after).into_response())
}

fn sse(job: Arc<Job>, after: u64) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    Sse::new(event_stream(job, after)).keep_alive(KeepAlive::default())
}

struct Cursor {
    job: Arc<Job>,
    rx: tokio::sync::watch::Receiver<u64>,
    after: u64,
    pending: std::collections::VecDeque<SseEvent>,
    done: bool,
}

fn event_stream(job: Arc<Job>, after: u64) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    let rx = job.subscribe();
    let cursor = Cursor { job, rx, after, pending: Default::default(), done: false };
    futures::stream::unfold(cursor, |mut c| async move {
        loop {
            if let Some(event) = c.pending.pop_front() {
                return Some((Ok::<_, Infallible>(event), c));
            }
            if c.done {
                return None;
            }
            c.rx.borrow_and_update();
            let (events, ended) = c.job.events_after(c.after);
            for (seq, line) in events {
                c.after = seq;
                c.pending.push_back(SseEvent::default().id(seq.to_string()).data(line));
            }
            if ended {
                let answer = serde_json::to_string(&c.job.answer()).unwrap_or_default();
                c.pending.push_back(SseEvent::default().event("answer").data(answer));
                c.done = true;
            } else if c.pending.is_empty() && c.rx.changed().await.is_err() {
                c.done = true;
            }
        }
    })
}

#[utoipa::path(post, path = "/jobs/{id}/answer", request_body = AnswerRequest,
    params(("id" = String, Path, description = "Job id or session id")),
    responses((status = 200, body = JobView), (status = 404, body = ErrorResponse),
        (status = 409, description = "The job is not waiting on this question", body = ErrorResponse)))]
async fn answer(
    State(app): Shared,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<JobView>> {
    let job = find_job(&app, &id)?;
    let request: AnswerRequest = parse_body(body, app.max_body_bytes)?;
    job.answer_ask(&request.ask_id, &request.answer).map_err(job_conflict)?;
    Ok(Json(job.view()))
}

#[utoipa::path(post, path = "/jobs/{id}/cancel", params(("id" = String, Path, description = "Job id or session id")),
    responses((status = 200, body = JobView), (status = 404, body = ErrorResponse), (status = 409, body = ErrorResponse)))]
async fn cancel(State(app): Shared, Path(id): Path<String>) -> ApiResult<Json<JobView>> {
    let job = find_job(&app, &id)?;
    job.cancel().map_err(job_conflict)?;
    Ok(Json(job.view()))
}

fn job_conflict(e: JobError) -> ApiError {
    ApiError::conflict(e.to_string())
}

#[derive(Debug, Deserialize)]
struct SearchParams {
    q: Option<String>,
    limit: Option<usize>,
}

#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
struct SearchHitView {
    provider: String,
    locator: String,
    title: String,
    snippet: String,
    score: f32,
}

#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
struct SearchResults {
    hits: Vec<SearchHitView>,
    providers_used: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The configured search providers, called directly (no research loop).
#[utoipa::path(get, path = "/search", params(("q" = String, Query), ("limit" = Option<usize>, Query)),
    responses((status = 200, body = SearchResults), (status = 400, body = ErrorResponse)))]
async fn search(
    State(app): Shared,
    params: Result<Query<SearchParams>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<SearchResults>> {
    let Query(params) = params.map_err(|e| ApiError::bad_request(e.body_text()))?;
    let text = params.q.unwrap_or_default().trim().to_string();
    if text.is_empty() {
        return Err(ApiError::bad_field("q", "q (the query) is missing or empty"));
    }
    let limit = params.limit.unwrap_or(10).clamp(1, 50);
    let routed = app.jobs.runtime().search().search(&SearchQuery { text, exclude: Vec::new(), limit }).await;
    let hits = routed
        .hits
        .into_iter()
        .map(|(provider, h)| SearchHitView {
            provider,
            locator: h.locator,
            title: h.title,
            snippet: h.snippet,
            score: h.score,
        })
        .collect();
    Ok(Json(SearchResults { hits, providers_used: routed.providers_used, error: routed.error }))
}

/// A session id from a path, checked against the store (404 otherwise).
fn session_id(app: &AppState, given: &str) -> ApiResult<String> {
    if given.is_empty() || given.contains(['/', '\\']) || given.contains("..") {
        return Err(ApiError::not_found(format!("no session `{given}`")));
    }
    app.jobs.runtime().sessions().resolve(given).map_err(|e| ApiError::not_found(e.to_string()))
}

#[utoipa::path(get, path = "/sessions", responses((status = 200, description = "Every session, newest first (as `sleuth sessions --json`)")))]
async fn sessions(State(app): Shared) -> ApiResult<Response> {
    let list = app.jobs.runtime().sessions().list().map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Json(list).into_response())
}

#[utoipa::path(get, path = "/sessions/{id}", params(("id" = String, Path)),
    responses((status = 200, description = "The session's status and summary"), (status = 404, body = ErrorResponse)))]
async fn session(State(app): Shared, Path(id): Path<String>) -> ApiResult<Response> {
    let id = session_id(&app, &id)?;
    Ok(Json(list_one(&app.jobs.runtime().sessions().dir(&id))).into_response())
}

/// A session replayed from its log, and the redactor for what leaves.
fn replayed(app: &AppState, id: &str) -> ApiResult<(SessionState, SessionSummary, Redactor)> {
    let dir = app.jobs.runtime().sessions().dir(id);
    let log = read_log(&dir.log_path()).map_err(|e| ApiError::internal(e.to_string()))?;
    let state = SessionState::replay(&log.records);
    let summary = SessionSummary::from_state(id, &state, log.bytes);
    let recorded = state.header.as_ref().map(|h| h.config.clone()).unwrap_or_default();
    let redactor = Redactor::from_configs(&[&recorded, app.jobs.runtime().snapshot()]);
    Ok((state, summary, redactor))
}

#[utoipa::path(get, path = "/sessions/{id}/report", params(("id" = String, Path)),
    responses((status = 200, description = "The report, text/markdown"), (status = 404, body = ErrorResponse)))]
async fn report(State(app): Shared, Path(id): Path<String>) -> ApiResult<Response> {
    let id = session_id(&app, &id)?;
    let (state, _, redactor) = replayed(&app, &id)?;
    let report = state.report.ok_or_else(|| ApiError::not_found(format!("session `{id}` has no report yet")))?;
    let text = redactor.redact(&report.markdown).into_owned();
    Ok(([(header::CONTENT_TYPE, "text/markdown; charset=utf-8")], text).into_response())
}

#[derive(Debug, Deserialize)]
struct ExportParams {
    format: Option<String>,
}

#[utoipa::path(get, path = "/sessions/{id}/export", params(("id" = String, Path), ("format" = Option<String>, Query, description = "md (default), json, bibtex or csl-json")),
    responses((status = 200, description = "The export"), (status = 400, body = ErrorResponse), (status = 404, body = ErrorResponse)))]
async fn export_session(
    State(app): Shared,
    Path(id): Path<String>,
    Query(params): Query<ExportParams>,
) -> ApiResult<Response> {
    let (format, mime) = match params.format.as_deref().unwrap_or("md") {
        "md" | "markdown" => (ExportFormat::Markdown, "text/markdown; charset=utf-8"),
        "json" => (ExportFormat::Json, "application/json"),
        "bibtex" => (ExportFormat::Bibtex, "application/x-bibtex; charset=utf-8"),
        "csl-json" => (ExportFormat::CslJson, "application/vnd.citationstyles.csl+json"),
        other => {
            return Err(ApiError::bad_field(
                "format",
                format!("unknown format `{other}` (md, json, bibtex or csl-json)"),
            ));
        }
    };
    let id = session_id(&app, &id)?;
    let (state, summary, redactor) = replayed(&app, &id)?;
    let text = redactor.redact(&export(&state, &summary, format)).into_owned();
    Ok(([(header::CONTENT_TYPE, mime)], text).into_response())
}

#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Prometheus text format")))]
async fn metrics(State(app): Shared) -> Response {
    let text = app.jobs.metrics.render(app.jobs.running(), app.jobs.queued());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "The server is up")))]
async fn healthz(State(app): Shared) -> Json<serde_json::Value> {
    Json(serde_json::json!({"status": "ok", "running": app.jobs.running(), "queued": app.jobs.queued()}))
}

#[derive(utoipa::OpenApi)]
#[openapi(
    info(title = "sleuth", description = "Research as a service: the sleuth research loop over HTTP."),
    paths(run, job, job_events, answer, cancel, search, sessions, session, report, export_session, metrics, healthz),
    components(schemas(RunRequest, RunAnswer, Accepted, JobView, AnswerRequest, ErrorResponse, SearchResults))
)]
pub struct ApiDoc;

async fn openapi() -> Response {
    use utoipa::OpenApi;
    Json(ApiDoc::openapi()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_comparison_needs_every_byte() {
        assert!(same_bytes(b"secret-token", b"secret-token"));
        assert!(!same_bytes(b"secret-tokeN", b"secret-token"));
        assert!(!same_bytes(b"secret", b"secret-token"));
        assert!(!same_bytes(b"", b"secret-token"));
    }

    #[test]
    fn a_bad_body_names_its_field() {
        let body = |s: &'static str| Ok(Bytes::from_static(s.as_bytes()));
        let e = parse_body::<RunRequest>(body(r#"{"task": "q", "max_iters": "three"}"#), 100).expect_err("bad");
        assert_eq!((e.status, e.body.field.as_deref()), (StatusCode::BAD_REQUEST, Some("max_iters")));
        let e = parse_body::<RunRequest>(body(r#"{"max_iters": 3}"#), 100).expect_err("bad");
        assert_eq!(e.body.field.as_deref(), Some("task"));
        let e = parse_body::<RunRequest>(body(r#"{"task": "q", "colour": 1}"#), 100).expect_err("bad");
        assert_eq!(e.body.field.as_deref(), Some("colour"));
    }

    #[test]
    fn the_openapi_document_lists_the_endpoints() {
        use utoipa::OpenApi;
        let doc = serde_json::to_value(ApiDoc::openapi()).expect("json");
        for path in ["/run", "/jobs/{id}", "/jobs/{id}/events", "/search", "/sessions/{id}/export", "/metrics"] {
            assert!(doc["paths"].get(path).is_some(), "{path} missing");
        }
        assert!(doc["components"]["schemas"].get("ErrorResponse").is_some());
    }
}
