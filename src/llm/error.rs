//! What can go wrong talking to an endpoint, classified for retries. Every
//! message that may carry server text passes through `redact` first: some
//! servers echo the API key back in their error bodies.

use std::time::Duration;

use async_openai::error::OpenAIError;
use secrecy::{ExposeSecret, SecretString};

use crate::resilience::RetryClass;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// Connection refused, DNS failure, reset: worth another try.
    #[error("cannot reach {url}: {message}")]
    Unreachable { url: String, message: String },
    #[error("{url} did not answer within {secs} s")]
    Timeout { url: String, secs: u64 },
    /// A non-2xx answer.
    #[error("{url} answered HTTP {status}: {body}")]
    Status { url: String, status: u16, retry_after: Option<Duration>, body: String },
    /// An answer that is not an OpenAI-compatible reply.
    #[error("{url}: {message}")]
    Protocol { url: String, message: String },
}

impl LlmError {
    pub fn status(&self) -> Option<u16> {
        match self {
            LlmError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// A 400/422/501 that names `response_format`, or a 500 that does
    /// (llama-cpp-python answers json_schema with HTTP 500 "Input should be
    /// 'text' or 'json_object'"): the endpoint does not support the
    /// structured-output mode we asked for. Retrying the same body is useless.
    pub fn rejects_response_format(&self) -> bool {
        match self {
            LlmError::Status { status: 400 | 422 | 501, body, .. } => {
                let b = body.to_lowercase();
                ["response_format", "json_schema", "json_object", "response format", "schema"]
                    .iter()
                    .any(|k| b.contains(k))
            }
            // A 500 is named only by the mode's own words: "schema" alone
            // could be any server fault.
            LlmError::Status { status: 500, body, .. } => {
                let b = body.to_lowercase();
                ["response_format", "json_schema", "json_object", "response format"].iter().any(|k| b.contains(k))
            }
            _ => false,
        }
    }
}

impl LlmError {
    /// The endpoint cannot do structured-output `mode`: for json_schema and
    /// json_object a refusal naming the response format; for Ollama's
    /// native format, any 400-class refusal of `/api/chat` (a server that
    /// is not Ollama answers 404 or 405 there).
    pub fn rejects_mode(&self, mode: super::config::StructuredMode) -> bool {
        match (mode, self) {
            (super::config::StructuredMode::OllamaFormat, LlmError::Status { status, .. }) => {
                matches!(status, 400 | 404 | 405 | 422 | 501)
            }
            _ => self.rejects_response_format(),
        }
    }
}

impl RetryClass for LlmError {
    fn is_transient(&self) -> bool {
        match self {
            LlmError::Unreachable { .. } | LlmError::Timeout { .. } => true,
            LlmError::Status { status, .. } => {
                (*status == 408 || *status == 429 || *status >= 500) && !self.rejects_response_format()
            }
            LlmError::Protocol { .. } => false,
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Why the LLM reasoner could not be built from the configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetupError {
    #[error(
        "the environment variable {var} (named by {key}) is not set; export it with your API key, or remove {key} for a local server that needs no key"
    )]
    MissingKey { var: String, key: String },
    #[error("the API key in {var} contains characters that cannot be sent in an HTTP header (a newline?)")]
    BadKey { var: String },
    #[error("cannot build the HTTP client for {url}: {message}")]
    Http { url: String, message: String },
    #[error("prompt template {path}: {message}")]
    Prompt { path: String, message: String },
    #[error("role {role} names endpoint `{endpoint}`, which is not configured")]
    UnknownEndpoint { role: String, endpoint: String },
}

/// A non-2xx HTTP answer, raised by our transport so the status and the
/// `Retry-After` header survive async-openai's error type.
#[derive(Debug, Clone, thiserror::Error)]
#[error("HTTP {status}: {body}")]
pub struct HttpStatus {
    pub status: u16,
    pub retry_after: Option<Duration>,
    pub body: String,
}

/// Server text kept in an error: enough to diagnose, never a whole page.
const MAX_BODY_CHARS: usize = 400;

/// Replaces the secret wherever it occurs and shortens the text.
pub fn redact(text: &str, secret: Option<&SecretString>) -> String {
    // The engine's one redactor: it also knows the key's encoded forms.
    let redactor = crate::engine::redact::Redactor::new(secret.map(|k| k.expose_secret().to_string()));
    let s = crate::text::sanitize_inline(&redactor.redact(text));
    let s = s.trim();
    match s.char_indices().nth(MAX_BODY_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Maps async-openai's error onto ours.
pub fn from_openai(e: OpenAIError, url: &str, secret: Option<&SecretString>) -> LlmError {
    let url = url.to_string();
    match e {
        OpenAIError::Boxed(inner) => match inner.downcast::<HttpStatus>() {
            Ok(h) => {
                LlmError::Status { url, status: h.status, retry_after: h.retry_after, body: redact(&h.body, secret) }
            }
            Err(other) => LlmError::Protocol { url, message: redact(&other.to_string(), secret) },
        },
        OpenAIError::Reqwest(r) => from_reqwest(&r, &url, secret),
        OpenAIError::JSONDeserialize(err, body) => LlmError::Protocol {
            url,
            message: format!(
                "the reply is not an OpenAI-compatible response ({err}); it began: {}",
                redact(&body, secret)
            ),
        },
        other => LlmError::Protocol { url, message: redact(&other.to_string(), secret) },
    }
}

pub fn from_reqwest(r: &reqwest::Error, url: &str, secret: Option<&SecretString>) -> LlmError {
    let url = url.to_string();
    let message = redact(&error_chain(r), secret);
    if r.is_connect() || r.is_timeout() || r.is_request() || r.is_body() {
        LlmError::Unreachable { url, message }
    } else {
        LlmError::Protocol { url, message }
    }
}

/// An error with its causes ("error sending request: connection refused").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        let t = inner.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        source = inner.source();
    }
    s
}

/// `Retry-After`: seconds, or an HTTP date.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = time::OffsetDateTime::parse(v, &time::format_description::well_known::Rfc2822).ok()?;
    let wait = when - time::OffsetDateTime::now_utc();
    Some(Duration::from_secs_f64(wait.as_seconds_f64().max(0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_redacted_and_bodies_shortened() {
        let key = SecretString::from("sk-test-1234567890".to_string());
        let body = format!("Incorrect API key provided: sk-test-1234567890. {}", "x".repeat(1000));
        let r = redact(&body, Some(&key));
        assert!(!r.contains("sk-test-1234567890"));
        assert!(r.contains("[redacted]"));
        assert!(r.chars().count() <= MAX_BODY_CHARS + 1);
    }

    #[test]
    fn retry_after_in_seconds_and_as_a_date() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        let later = time::OffsetDateTime::now_utc() + time::Duration::seconds(30);
        let text = later.format(&time::format_description::well_known::Rfc2822).unwrap();
        let d = parse_retry_after(&text).unwrap();
        assert!(d > Duration::from_secs(25) && d <= Duration::from_secs(30), "{d:?}");
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn classification() {
        let s = |status| LlmError::Status { url: "u".into(), status, retry_after: None, body: String::new() };
        assert!(s(429).is_transient() && s(503).is_transient() && s(408).is_transient());
        assert!(!s(400).is_transient() && !s(401).is_transient());
        let schema = LlmError::Status {
            url: "u".into(),
            status: 400,
            retry_after: None,
            body: "Unsupported value: 'response_format.type'".into(),
        };
        assert!(schema.rejects_response_format());
        assert!(!s(400).rejects_response_format());
        // llama-cpp-python's answer to json_schema: lowered at once, not retried.
        let py = LlmError::Status {
            url: "u".into(),
            status: 500,
            retry_after: None,
            body: "response_format.type: Input should be 'text' or 'json_object'".into(),
        };
        assert!(py.rejects_response_format() && !py.is_transient());
        let other = LlmError::Status { url: "u".into(), status: 500, retry_after: None, body: "schema cache".into() };
        assert!(!other.rejects_response_format() && other.is_transient());
    }
}
