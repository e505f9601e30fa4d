//! The cluster's HTTP client: one connection pool, credentials from the
//! environment, an optional CA, and failover between nodes. A request goes
//! to the node that answered last; when that node cannot be reached, times
//! out or answers 502/503/504, the next node is tried, and so on once round.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};

use super::OpenSearchConfig;
use crate::search::ProviderError;

/// Answers larger than this are refused (a search page is a few hundred KB).
const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// A request body.
pub enum Body {
    None,
    Json(serde_json::Value),
    /// `_bulk`'s newline-delimited JSON.
    NdJson(String),
}

/// A node's answer, whatever its status.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub body: Vec<u8>,
    pub retry_after: Option<Duration>,
}

impl Reply {
    /// The `error.type: error.reason` of an OpenSearch error answer, or its start.
    pub fn error_text(&self) -> String {
        let parsed: Option<serde_json::Value> = serde_json::from_slice(&self.body).ok();
        let err = parsed.as_ref().and_then(|v| v.get("error"));
        let text = match err {
            Some(e) if e.is_object() => {
                let field = |k: &str| e.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
                format!("{}: {}", field("type"), field("reason"))
            }
            Some(e) => e.as_str().unwrap_or_default().to_string(),
            None => String::from_utf8_lossy(&self.body[..self.body.len().min(200)]).into_owned(),
        };
        crate::text::sanitize_inline(&text)
    }
}

pub struct ClusterClient {
    http: reqwest::Client,
    nodes: Vec<reqwest::Url>,
    /// The node tried first: the last one that answered.
    preferred: AtomicUsize,
    pub(super) timeout: Duration,
    pub(super) bulk_timeout: Duration,
}

impl ClusterClient {
    /// The client for `cfg`; an error says which key or variable is wrong.
    pub fn new(cfg: &OpenSearchConfig) -> Result<Self, String> {
        if cfg.url.is_empty() {
            return Err("no cluster configured: set `[opensearch] url`".into());
        }
        let mut nodes = Vec::new();
        for url in &cfg.url {
            let mut u = reqwest::Url::parse(url.trim())
                .map_err(|e| format!("`[opensearch] url` \"{url}\" is not a URL: {e}"))?;
            if !u.path().ends_with('/') {
                u.set_path(&format!("{}/", u.path()));
            }
            nodes.push(u);
        }
        crate::tls::install_crypto_provider();
        let mut builder = reqwest::Client::builder()
            .user_agent("sleuth (terminal research agent)")
            .connect_timeout(Duration::from_secs(cfg.connect_timeout_secs.max(1)))
            .default_headers(auth_headers(cfg, &|name| std::env::var(name).ok())?);
        if let Some(ca) = &cfg.ca_file {
            let pem = std::fs::read(ca).map_err(|e| format!("`[opensearch] ca_file` {}: {e}", ca.display()))?;
            let certs = reqwest::Certificate::from_pem_bundle(&pem)
                .ok()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| format!("`[opensearch] ca_file` {} holds no PEM certificate", ca.display()))?;
            builder = builder.tls_certs_merge(certs);
        }
        let http = builder.build().map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Self {
            http,
            nodes,
            preferred: AtomicUsize::new(0),
            timeout: Duration::from_secs(cfg.timeout_secs.max(1)),
            bulk_timeout: Duration::from_secs(cfg.bulk_timeout_secs.max(1)),
        })
    }

    /// Sends `body` to `path` (relative to a node's URL), failing over
    /// between nodes. Any status comes back as a `Reply`; only a cluster no
    /// node of which answered is an error (transient).
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: &Body,
        timeout: Duration,
    ) -> Result<Reply, ProviderError> {
        let first = self.preferred.load(Ordering::Relaxed);
        let mut failures = Vec::new();
        for k in 0..self.nodes.len() {
            let i = (first + k) % self.nodes.len();
            let node = &self.nodes[i];
            let url =
                node.join(path).map_err(|e| ProviderError::permanent(format!("opensearch: bad path {path}: {e}")))?;
            let mut request = self.http.request(method.clone(), url).timeout(timeout);
            request = match body {
                Body::None => request,
                Body::Json(v) => request.header(CONTENT_TYPE, "application/json").body(v.to_string()),
                Body::NdJson(s) => request.header(CONTENT_TYPE, "application/x-ndjson").body(s.clone()),
            };
            match self.exchange(request, timeout).await {
                Ok(reply) if !is_node_failure(reply.status) => {
                    self.preferred.store(i, Ordering::Relaxed);
                    return Ok(reply);
                }
                Ok(reply) => failures.push(format!("{}: HTTP {}", host(node), reply.status)),
                Err(e) => failures.push(format!("{}: {e}", host(node))),
            }
        }
        Err(ProviderError::transient(format!("opensearch: no node answered ({})", failures.join("; "))))
    }

    /// `send`, then the answer's JSON; a status other than 2xx is an error
    /// (429 and 5xx transient, others permanent) with the cluster's reason.
    pub async fn json(&self, method: Method, path: &str, body: &Body) -> Result<serde_json::Value, ProviderError> {
        let reply = self.send(method, path, body, self.timeout).await?;
        if !reply.status.is_success() {
            return Err(status_error(&reply, path));
        }
        serde_json::from_slice(&reply.body)
            .map_err(|e| ProviderError::permanent(format!("opensearch: {path}: the answer is not JSON: {e}")))
    }

    async fn exchange(&self, request: reqwest::RequestBuilder, timeout: Duration) -> Result<Reply, String> {
        let mut response = request.send().await.map_err(|e| describe(&e, timeout))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e, timeout))? {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(format!("answer larger than {MAX_ANSWER_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Reply { status, body, retry_after })
    }
}

/// A status that says this node, not the request, is at fault.
fn is_node_failure(status: StatusCode) -> bool {
    matches!(status, StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT)
}

/// An unsuccessful answer as an error: 429 and 5xx are worth retrying.
pub fn status_error(reply: &Reply, what: &str) -> ProviderError {
    let mut message = format!("opensearch: {what}: HTTP {}: {}", reply.status, reply.error_text());
    if reply.status == StatusCode::UNAUTHORIZED || reply.status == StatusCode::FORBIDDEN {
        message
            .push_str(" (check the credentials named by `[opensearch] username_env`/`password_env` or `api_key_env`)");
    }
    if reply.status == StatusCode::TOO_MANY_REQUESTS || reply.status.is_server_error() {
        ProviderError::Transient { message, retry_after: reply.retry_after }
    } else {
        ProviderError::permanent(message)
    }
}

fn host(url: &reqwest::Url) -> String {
    format!("{}:{}", url.host_str().unwrap_or("?"), url.port_or_known_default().unwrap_or(0))
}

fn describe(e: &reqwest::Error, timeout: Duration) -> String {
    if e.is_timeout() {
        return format!("timed out after {} s", timeout.as_secs_f32());
    }
    let mut cur: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    if e.is_connect() { format!("could not connect: {cur}") } else { cur.to_string() }
}

/// The `Authorization` header, from the variables the config names (read
/// through `env`); the value is marked sensitive so it never shows in a
/// debug print.
fn auth_headers(cfg: &OpenSearchConfig, env: &dyn Fn(&str) -> Option<String>) -> Result<HeaderMap, String> {
    let var = |name: &str| -> Result<SecretString, String> {
        match env(name) {
            Some(v) if !v.is_empty() => Ok(SecretString::from(v)),
            _ => Err(format!("the environment variable {name} (named in `[opensearch]`) is not set")),
        }
    };
    let value = if !cfg.api_key_env.is_empty() {
        Some(format!("ApiKey {}", var(&cfg.api_key_env)?.expose_secret()))
    } else if !cfg.username_env.is_empty() {
        let (user, password) = (var(&cfg.username_env)?, var(&cfg.password_env)?);
        Some(format!("Basic {}", base64(format!("{}:{}", user.expose_secret(), password.expose_secret()).as_bytes())))
    } else {
        None
    };
    let mut headers = HeaderMap::new();
    if let Some(value) = value {
        let mut value = HeaderValue::from_str(&value)
            .map_err(|_| "the credentials hold characters a header cannot carry".to_string())?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    Ok(headers)
}

/// Standard base64 with padding (basic auth's encoding).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_examples() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(b"admin:s3cret!"), "YWRtaW46czNjcmV0IQ==");
    }

    #[test]
    fn an_unset_credential_variable_is_named() {
        let cfg = OpenSearchConfig {
            url: vec!["http://127.0.0.1:9".into()],
            api_key_env: "SLEUTH_TEST_OPENSEARCH_KEY_NEVER_SET".into(),
            ..OpenSearchConfig::default()
        };
        let err = ClusterClient::new(&cfg).err().unwrap();
        assert!(err.contains("SLEUTH_TEST_OPENSEARCH_KEY_NEVER_SET"), "{err}");
    }

    #[test]
    fn basic_auth_and_api_keys_come_from_the_named_variables() {
        let env = |name: &str| match name {
            "OS_USER" => Some("admin".to_string()),
            "OS_PASSWORD" => Some("s3cret!".to_string()),
            "OS_KEY" => Some("k-123".to_string()),
            _ => None,
        };
        let basic = OpenSearchConfig {
            username_env: "OS_USER".into(),
            password_env: "OS_PASSWORD".into(),
            ..OpenSearchConfig::default()
        };
        let h = auth_headers(&basic, &env).unwrap();
        assert_eq!(h.get(AUTHORIZATION).unwrap(), "Basic YWRtaW46czNjcmV0IQ==");
        assert!(h.get(AUTHORIZATION).unwrap().is_sensitive());
        assert!(!format!("{h:?}").contains("YWRtaW46"), "a debug print hides it");
        let key = OpenSearchConfig { api_key_env: "OS_KEY".into(), ..OpenSearchConfig::default() };
        assert_eq!(auth_headers(&key, &env).unwrap().get(AUTHORIZATION).unwrap(), "ApiKey k-123");
        assert!(auth_headers(&OpenSearchConfig::default(), &env).unwrap().is_empty());
        let unset = OpenSearchConfig { password_env: "OS_NOPE".into(), ..basic };
        assert!(auth_headers(&unset, &env).unwrap_err().contains("OS_NOPE"));
    }

    #[test]
    fn a_ca_file_that_is_missing_or_not_pem_is_refused_with_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let garbage = dir.path().join("ca.pem");
        std::fs::write(&garbage, "not a certificate").unwrap();
        for (file, says) in [(dir.path().join("missing.pem"), "ca_file"), (garbage, "holds no PEM certificate")] {
            let cfg = OpenSearchConfig {
                url: vec!["https://127.0.0.1:9".into()],
                ca_file: Some(file),
                ..OpenSearchConfig::default()
            };
            let err = ClusterClient::new(&cfg).err().unwrap();
            assert!(err.contains("[opensearch] ca_file") && err.contains(says), "{err}");
        }
    }

    #[test]
    fn error_answers_give_type_and_reason() {
        let reply = Reply {
            status: StatusCode::NOT_FOUND,
            body: br#"{"error":{"type":"index_not_found_exception","reason":"no such index [x]"},"status":404}"#
                .to_vec(),
            retry_after: None,
        };
        assert_eq!(reply.error_text(), "index_not_found_exception: no such index [x]");
        assert!(!status_error(&reply, "x/_search").is_transient());
    }
}
