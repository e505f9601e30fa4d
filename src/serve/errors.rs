//! The `ErrorResponse` body of every failed request (a kind and a message),
//! with the HTTP status each kind means.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `{"error": {"type", "message", "retryable"}}`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ErrorResponse {
    pub error: ErrorBody,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// `invalid_request`, `not_found`, `conflict`, `payload_too_large`,
    /// `queue_full`, `unauthorized`, `forbidden`, `unsupported_media_type`,
    /// `method_not_allowed`, `starting`, `unavailable`, `bad_gateway`,
    /// `shutting_down`, `timeout`, `internal`.
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    /// Whether the same request may succeed later.
    pub retryable: bool,
    /// The request field at fault (400 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// An error a handler answers with.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: ErrorBody,
    pub retry_after_secs: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, kind: &str, message: impl Into<String>, retryable: bool) -> Self {
        let body = ErrorBody { kind: kind.into(), message: message.into(), retryable, field: None };
        Self { status, body, retry_after_secs: None }
    }

    pub fn bad_field(field: &str, message: impl Into<String>) -> Self {
        let mut e = Self::new(StatusCode::BAD_REQUEST, "invalid_request", message, false);
        e.body.field = Some(field.to_string());
        e
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_request", message, false)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message, false)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict", message, false)
    }

    pub fn too_large(limit: usize) -> Self {
        let message = format!("the request body is larger than {limit} bytes (serve.max_body_bytes)");
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", message, false)
    }

    pub fn queue_full(retry_after_secs: u64) -> Self {
        let message = "every research slot is busy and the queue is full (serve.max_queued); retry later";
        let mut e = Self::new(StatusCode::TOO_MANY_REQUESTS, "queue_full", message, true);
        e.retry_after_secs = Some(retry_after_secs);
        e
    }

    /// No `Authorization` header, where the server has a token.
    pub fn token_missing() -> Self {
        let message = "this server needs a bearer token and none was sent: add `Authorization: Bearer <token>` \
                       (the token is in the server's serve.token_env variable)";
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message, false)
    }

    /// An `Authorization` header that is not `Bearer <token>`.
    pub fn token_malformed() -> Self {
        let message = "the Authorization header is not a bearer token: send `Authorization: Bearer <token>`";
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message, false)
    }

    /// A bearer token that is not the server's.
    pub fn token_wrong() -> Self {
        let message = "the bearer token is wrong: it is not the one in the server's serve.token_env variable";
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message, false)
    }

    /// A foreign `Host` or `Origin`.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message, false)
    }

    /// A POST whose body is not declared JSON.
    pub fn unsupported_media_type(given: &str) -> Self {
        let given = if given.trim().is_empty() { "none".to_string() } else { crate::text::sanitize_inline(given) };
        let message = format!("POST bodies must be JSON: send `Content-Type: application/json` (got {given})");
        Self::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", message, false)
    }

    /// A known path with another method (`GET /run`).
    pub fn method_not_allowed(method: &str, path: &str) -> Self {
        let message = format!("{method} is not allowed on {path}; see /openapi.json for the methods each path takes");
        Self::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", message, false)
    }

    /// The server is up but still building its index or its model check.
    pub fn starting(retry_after_secs: u64) -> Self {
        let message = "the server is starting (building the search index); retry shortly";
        let mut e = Self::new(StatusCode::SERVICE_UNAVAILABLE, "starting", message, true);
        e.retry_after_secs = Some(retry_after_secs);
        e
    }

    /// The server could not set up what the request needs (the LLM endpoint
    /// does not answer, a provider cannot start): 503, said as such.
    pub fn unavailable(message: impl Into<String>) -> Self {
        let mut e = Self::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message, true);
        e.retry_after_secs = Some(30);
        e
    }

    /// An upstream (the model's endpoint) answered wrongly or not at all mid-session.
    pub fn bad_gateway(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_GATEWAY, "bad_gateway", message, true)
    }

    pub fn shutting_down() -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "shutting_down", "the server is shutting down", true)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message, true)
    }

    pub fn timeout() -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            "timeout",
            "the request took longer than serve.request_timeout_secs",
            true,
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(ErrorResponse { error: self.body })).into_response();
        if let Some(secs) = self.retry_after_secs {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// A serde error in words a client understands: `expected a whole number
/// (0 or more), got the string "three"` rather than `invalid type: string
/// "three", expected u32`.
pub fn humanize(error: &serde_json::Error) -> String {
    let text = error.to_string();
    // serde_json appends " at line L column C"; the caller says where.
    let text = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    let rewrite =
        |got: &str, expected: &str| format!("expected {}, got {}", expected_in_words(expected), got_in_words(got));
    if let Some(rest) = text.strip_prefix("invalid type: ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return rewrite(got, expected);
    }
    if let Some(rest) = text.strip_prefix("invalid value: ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return rewrite(got, expected);
    }
    text.to_string()
}

fn expected_in_words(expected: &str) -> String {
    match expected.trim() {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a whole number (0 or more)".into(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" | "bool" => "true or false".into(),
        "a string" | "a borrowed string" => "a string".into(),
        other if other.starts_with("struct ") || other.starts_with("a map") => "a JSON object".into(),
        other if other.starts_with("a sequence") => "a list".into(),
        other => other.to_string(),
    }
}

fn got_in_words(got: &str) -> String {
    let got = got.trim();
    for kind in ["integer", "floating point", "string", "boolean"] {
        if let Some(value) = got.strip_prefix(kind) {
            let value = value.trim().trim_matches('`');
            return match kind {
                "string" => format!("the string {value}"),
                _ => value.to_string(),
            };
        }
    }
    match got {
        "map" => "an object".into(),
        "sequence" => "a list".into(),
        "unit value" | "null" => "null".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_errors_read_without_rust_types() {
        let e = serde_json::from_str::<u32>("\"three\"").expect_err("string");
        assert_eq!(humanize(&e), "expected a whole number (0 or more), got the string \"three\"");
        let e = serde_json::from_str::<u32>("-3").expect_err("negative");
        assert_eq!(humanize(&e), "expected a whole number (0 or more), got -3");
        let e = serde_json::from_str::<f64>("true").expect_err("bool");
        assert_eq!(humanize(&e), "expected a number, got true");
        let e = serde_json::from_str::<bool>("1").expect_err("number");
        assert_eq!(humanize(&e), "expected true or false, got 1");
    }
}
