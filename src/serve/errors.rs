//! Seed 001 §5.4's `ErrorResponse`, with the HTTP status each kind means.

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
    /// `queue_full`, `unauthorized`, `shutting_down`, `timeout`, `internal`.
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

    pub fn unauthorized() -> Self {
        let message = "a bearer token is required: `Authorization: Bearer <token>`";
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message, false)
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
