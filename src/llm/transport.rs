//! The HTTP layer under async-openai: our own tower service in place of its
//! built-in retry layer (we retry with `crate::resilience`, honouring
//! `Retry-After`, which its error type would lose), and our own auth config
//! (the key is sent only when one is configured, marked sensitive, and never
//! taken implicitly from `OPENAI_API_KEY`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue, RETRY_AFTER};
use secrecy::{ExposeSecret, SecretString};

use super::error::{HttpStatus, parse_retry_after};

/// Base URL and key of one endpoint.
#[derive(Clone)]
pub struct EndpointAuth {
    base: String,
    key: Option<SecretString>,
    none: SecretString,
}

impl std::fmt::Debug for EndpointAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EndpointAuth").field("base", &self.base).field("key", &self.key.is_some()).finish()
    }
}

impl EndpointAuth {
    pub fn new(base_url: &str, key: Option<SecretString>) -> Self {
        Self { base: base_url.trim_end_matches('/').to_string(), key, none: SecretString::from(String::new()) }
    }
}

impl async_openai::config::Config for EndpointAuth {
    fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(key) = &self.key {
            // The key was checked for header-safe characters when read.
            if let Ok(mut v) = HeaderValue::from_str(&format!("Bearer {}", key.expose_secret())) {
                v.set_sensitive(true);
                headers.insert(AUTHORIZATION, v);
            }
        }
        headers
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    fn query(&self) -> Vec<(&str, &str)> {
        Vec::new()
    }

    fn api_base(&self) -> &str {
        &self.base
    }

    fn api_key(&self) -> &SecretString {
        self.key.as_ref().unwrap_or(&self.none)
    }
}

/// Sends requests with reqwest; a non-2xx answer becomes an `HttpStatus`
/// error carrying the status, the body and `Retry-After`.
#[derive(Clone, Debug)]
pub struct Transport {
    http: reqwest::Client,
}

impl Transport {
    pub fn new(http: reqwest::Client) -> Self {
        Self { http }
    }
}

type ResponseFuture = Pin<Box<dyn Future<Output = Result<reqwest::Response, OpenAIError>> + Send + 'static>>;

impl tower::Service<HttpRequestFactory> for Transport {
    type Response = reqwest::Response;
    type Error = OpenAIError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, factory: HttpRequestFactory) -> Self::Future {
        let http = self.http.clone();
        Box::pin(async move {
            let request = factory.build().await?;
            let response = http.execute(request).await.map_err(OpenAIError::Reqwest)?;
            if response.status().is_success() {
                return Ok(response);
            }
            let status = response.status().as_u16();
            let retry_after =
                response.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
            let body = response.text().await.unwrap_or_default();
            Err(OpenAIError::Boxed(Box::new(HttpStatus { status, retry_after, body })))
        })
    }
}
