//! The routes of `sleuth serve` (axum): research, jobs, search, sessions,
//! metrics, health and the OpenAPI document. Every request first passes
//! `guard` (see `guard.rs` for why each check is there).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::Stream;
use secrecy::SecretString;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tower_http::timeout::TimeoutLayer;

use super::api::{Accepted, AnswerRequest, RunRequest, body_field};
use super::errors::{ApiError, ErrorResponse, humanize};
use super::guard::{HostPolicy, check_content_type, check_token};
use crate::engine::SessionStatus;
use crate::research::answer::{JobView, RunAnswer};
use crate::research::{
    Job, JobError, JobFailure, Jobs, Readiness, ReplayError, Replayed, RequestError, SessionsError, SubmitError,
};
use crate::session::export::ExportFormat;
use crate::session::list::list_one;

/// What every handler shares.
pub struct AppState {
    pub jobs: Arc<Jobs>,
    /// Required from every client but health probes when set (`Authorization: Bearer …`).
    pub token: Option<SecretString>,
    /// The names a request may call this server by.
    pub hosts: HostPolicy,
    pub max_body_bytes: usize,
    pub run_wait: Duration,
}

type Shared = State<Arc<AppState>>;
type ApiResult<T> = Result<T, ApiError>;

/// Seconds a client is told to wait while the server is starting.
const STARTING_RETRY_SECS: u64 = 2;

/// The application: every route, the body cap, the per-request timeouts
/// (not on streams nor on a synchronous `/run`, which has its own wait),
/// the guard. No CORS layer: browsers on other origins are refused.
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
        .method_not_allowed_fallback(|method: Method, uri: Uri| async move {
            ApiError::method_not_allowed(method.as_str(), uri.path())
        })
        .layer(DefaultBodyLimit::max(state.max_body_bytes))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// Refuses a foreign `Host` or `Origin`, a missing or wrong token (health
/// probes need none), a POST that is not JSON, and requests during shutdown.
async fn guard(State(app): Shared, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let checks = app
        .hosts
        .check_host(headers)
        .and_then(|_| app.hosts.check_origin(headers))
        .and_then(|_| match request.uri().path() {
            "/healthz" => Ok(()),
            _ => check_token(app.token.as_ref(), headers),
        })
        .and_then(|_| check_content_type(request.method(), headers));
    if let Err(e) = checks {
        return e.into_response();
    }
    if app.jobs.is_stopping() {
        return ApiError::shutting_down().into_response();
    }
    next.run(request).await
}

/// 503 with `Retry-After` while the runtime (index, model check) is built.
fn ready(app: &AppState) -> ApiResult<()> {
    match app.jobs.sessions().readiness() {
        Readiness::Starting | Readiness::NotStarted => Err(ApiError::starting(STARTING_RETRY_SECS)),
        // Ready, or failed last time: the handler tries (and says why it cannot).
        Readiness::Ready | Readiness::Failed(_) => Ok(()),
    }
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
        let inner = e.inner();
        let path = e.path().to_string();
        let named = !path.is_empty() && path != "." && !path.contains('?');
        let field = if named {
            path
        } else {
            // A missing or unknown field is named in the message; bad JSON has none.
            between_backticks(&inner.to_string()).unwrap_or("body").to_string()
        };
        let message = if inner.is_syntax() || inner.is_eof() {
            format!(
                "the body is not valid JSON: {} (line {}, column {})",
                humanize(inner),
                inner.line(),
                inner.column()
            )
        } else {
            format!("{field}: {}", humanize(inner))
        };
        ApiError::bad_field(&field, message)
    })
}

fn between_backticks(text: &str) -> Option<&str> {
    text.split('`').nth(1)
}

fn request_error(e: RequestError) -> ApiError {
    ApiError::bad_field(body_field(e.field), e.message)
}

fn submit_error(e: SubmitError) -> ApiError {
    match e {
        SubmitError::QueueFull { retry_after_secs } => ApiError::queue_full(retry_after_secs),
        SubmitError::ShuttingDown => ApiError::shutting_down(),
    }
}

fn failure_error(f: JobFailure) -> ApiError {
    match f {
        JobFailure::Unavailable(m) => ApiError::unavailable(m),
        JobFailure::Failed(m) => ApiError::internal(m),
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
        (status = 400, body = ErrorResponse), (status = 413, body = ErrorResponse), (status = 415, body = ErrorResponse),
        (status = 429, description = "Queue full; see Retry-After", body = ErrorResponse),
        (status = 503, description = "Starting (see Retry-After), the model does not answer, or shutting down", body = ErrorResponse)))]
async fn run(State(app): Shared, body: Result<Bytes, BytesRejection>) -> ApiResult<Response> {
    let request: RunRequest = parse_body(body, app.max_body_bytes)?;
    let answer_first = request.answers_first().map_err(request_error)?;
    if request.stream && request.run_async {
        return Err(ApiError::bad_field("stream", "stream and async cannot both be true"));
    }
    let research = request.research().map_err(request_error)?;
    let (question, config) = app.jobs.sessions().check(&request.task, &research).map_err(|e| match e {
        SessionsError::Request(r) => request_error(r),
        other => ApiError::internal(other.to_string()),
    })?;
    ready(&app)?;
    let job = app.jobs.submit(question, config, answer_first).map_err(submit_error)?;
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
        Ok(_) if job.failure().is_some() => {
            Err(job.failure().map(failure_error).unwrap_or_else(|| ApiError::internal("")))
        }
        Ok(SessionStatus::Interrupted) => Err(ApiError::shutting_down()),
        Ok(_) => Ok(Json(job.answer()).into_response()),
    }
}

fn find_job(app: &AppState, id: &str) -> ApiResult<Arc<Job>> {
    app.jobs.get(id).ok_or_else(|| ApiError::not_found(format!("no job `{}` in this server", sanitize(id))))
}

fn sanitize(text: &str) -> String {
    crate::text::sanitize_inline(text)
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
            let (records, over) = c.job.events_after(c.after);
            for record in records {
                c.after = record.seq;
                // As `sleuth run --json` prints it: one record per event.
                let line = serde_json::to_string(&record).unwrap_or_default();
                c.pending.push_back(SseEvent::default().id(record.seq.to_string()).data(line));
            }
            if over {
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
    responses((status = 200, body = JobView), (status = 400, description = "No option has that number", body = ErrorResponse),
        (status = 404, body = ErrorResponse),
        (status = 409, description = "The job is not waiting on this question", body = ErrorResponse)))]
async fn answer(
    State(app): Shared,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<JobView>> {
    let job = find_job(&app, &id)?;
    let request: AnswerRequest = parse_body(body, app.max_body_bytes)?;
    job.answer_ask(&request.ask_id, &request.answer).map_err(job_error)?;
    Ok(Json(job.view()))
}

#[utoipa::path(post, path = "/jobs/{id}/cancel", params(("id" = String, Path, description = "Job id or session id")),
    responses((status = 200, body = JobView), (status = 404, body = ErrorResponse), (status = 409, body = ErrorResponse)))]
async fn cancel(State(app): Shared, Path(id): Path<String>) -> ApiResult<Json<JobView>> {
    let job = find_job(&app, &id)?;
    job.cancel().map_err(job_error)?;
    Ok(Json(job.view()))
}

fn job_error(e: JobError) -> ApiError {
    match e {
        JobError::BadAnswer(_) => ApiError::bad_field("answer", e.to_string()),
        _ => ApiError::conflict(e.to_string()),
    }
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
    responses((status = 200, body = SearchResults), (status = 400, body = ErrorResponse), (status = 503, body = ErrorResponse)))]
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
    ready(&app)?;
    let found = app.jobs.sessions().search(&text, limit).await.map_err(|e| match e {
        SessionsError::Unavailable(m) => ApiError::unavailable(m),
        other => ApiError::internal(other.to_string()),
    })?;
    let hits = found
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
    Ok(Json(SearchResults { hits, providers_used: found.providers_used, error: found.error }))
}

fn replay_error(e: ReplayError) -> ApiError {
    match e {
        ReplayError::NotFound { .. } => ApiError::not_found(e.to_string()),
        ReplayError::Ambiguous(_) => ApiError::bad_field("id", e.to_string()),
        ReplayError::Log(_) => ApiError::internal(e.to_string()),
    }
}

fn replayed(app: &AppState, id: &str) -> ApiResult<Replayed> {
    app.jobs.sessions().replay(id).map_err(replay_error)
}

#[utoipa::path(get, path = "/sessions", responses((status = 200, description = "Every session, newest first (as `sleuth sessions --json`)")))]
async fn sessions(State(app): Shared) -> ApiResult<Response> {
    let list = app.jobs.sessions().list().map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Json(list).into_response())
}

#[utoipa::path(get, path = "/sessions/{id}", params(("id" = String, Path)),
    responses((status = 200, description = "The session's status and summary"), (status = 404, body = ErrorResponse)))]
async fn session(State(app): Shared, Path(id): Path<String>) -> ApiResult<Response> {
    let sessions = app.jobs.sessions();
    let id = sessions.resolve(&id).map_err(replay_error)?;
    Ok(Json(list_one(&sessions.store().dir(&id))).into_response())
}

#[utoipa::path(get, path = "/sessions/{id}/report", params(("id" = String, Path)),
    responses((status = 200, description = "The report, text/markdown"), (status = 404, body = ErrorResponse)))]
async fn report(State(app): Shared, Path(id): Path<String>) -> ApiResult<Response> {
    let session = replayed(&app, &id)?;
    let text =
        session.report().ok_or_else(|| ApiError::not_found(format!("session `{}` has no report yet", session.id)))?;
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
                format!("unknown format `{}` (md, json, bibtex or csl-json)", sanitize(other)),
            ));
        }
    };
    let text = replayed(&app, &id)?.export(format);
    Ok(([(header::CONTENT_TYPE, mime)], text).into_response())
}

#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Prometheus text format")))]
async fn metrics(State(app): Shared) -> Response {
    let text = app.jobs.metrics.render(app.jobs.running(), app.jobs.queued());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

/// Up and ready (200), or starting / unable to build its parts (503);
/// no token needed, so load balancers can probe it.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "The server is up and ready"),
    (status = 503, description = "Starting (building the index) or unable to start its providers", body = ErrorResponse)))]
async fn healthz(State(app): Shared) -> ApiResult<Json<serde_json::Value>> {
    match app.jobs.sessions().readiness() {
        Readiness::Ready => {
            Ok(Json(serde_json::json!({"status": "ok", "running": app.jobs.running(), "queued": app.jobs.queued()})))
        }
        Readiness::Starting | Readiness::NotStarted => Err(ApiError::starting(STARTING_RETRY_SECS)),
        Readiness::Failed(why) => Err(ApiError::unavailable(why)),
    }
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
    fn a_bad_body_names_its_field_in_words_not_rust_types() {
        let body = |s: &'static str| Ok(Bytes::from_static(s.as_bytes()));
        let e = parse_body::<RunRequest>(body(r#"{"task": "q", "max_iters": "three"}"#), 100).expect_err("bad");
        assert_eq!((e.status, e.body.field.as_deref()), (StatusCode::BAD_REQUEST, Some("max_iters")));
        assert!(!e.body.message.contains("u32"), "{}", e.body.message);
        assert!(e.body.message.contains("a whole number"), "{}", e.body.message);
        let e = parse_body::<RunRequest>(body(r#"{"task": "q", "max_iters": -3}"#), 100).expect_err("bad");
        assert!(!e.body.message.contains("u32") && e.body.message.contains("-3"), "{}", e.body.message);
        let e = parse_body::<RunRequest>(body(r#"{"max_iters": 3}"#), 100).expect_err("bad");
        assert_eq!(e.body.field.as_deref(), Some("task"));
        let e = parse_body::<RunRequest>(body(r#"{"task": "q", "colour": 1}"#), 100).expect_err("bad");
        assert_eq!(e.body.field.as_deref(), Some("colour"));
        let e = parse_body::<RunRequest>(body(r#"{"task": "q", "max_iters": }"#), 100).expect_err("bad");
        assert_ne!(e.body.field.as_deref(), Some("?"));
        assert!(e.body.message.contains("not valid JSON"), "{}", e.body.message);
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
