//! The client the web providers share: one connection pool, one page
//! fetcher (so politeness counts per host across providers), and the JSON
//! call every search API goes through.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

use super::WebConfig;
use super::fetch::PageFetcher;
use super::http::{build_client, read_capped, status_error, transport_error};
use crate::search::{FetchedDoc, ProviderError};

/// Search API answers larger than this are refused (they are a few KB).
const MAX_API_BYTES: usize = 8 * 1024 * 1024;

pub struct WebClient {
    http: reqwest::Client,
    fetcher: PageFetcher,
    search_timeout: Duration,
}

impl WebClient {
    pub fn new(cfg: &WebConfig) -> Result<Arc<Self>, String> {
        Self::with_resolve(cfg, &[])
    }

    /// Like `new`, with host names resolved to fixed addresses (as curl's
    /// `--resolve`): tests serve several "sites" from loopback this way.
    pub fn with_resolve(cfg: &WebConfig, resolve: &[(String, SocketAddr)]) -> Result<Arc<Self>, String> {
        let http = build_client(cfg, resolve)?;
        Ok(Arc::new(Self {
            fetcher: PageFetcher::new(http.clone(), cfg),
            http,
            search_timeout: Duration::from_secs(cfg.search_timeout_secs.max(1)),
        }))
    }

    pub async fn fetch_page(&self, url: &str) -> Result<FetchedDoc, ProviderError> {
        self.fetcher.fetch(url).await
    }

    pub(in crate::search) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// Sends a search API request and reads its JSON answer. `hint` adds
    /// advice to a refused status (a bad key, a disabled format); `secret`
    /// is blanked out of any message, should a server echo it.
    pub(in crate::search) async fn api_json<T: DeserializeOwned>(
        &self,
        provider: &str,
        request: reqwest::RequestBuilder,
        hint: impl Fn(StatusCode) -> Option<String>,
        secret: Option<&str>,
    ) -> Result<T, ProviderError> {
        let (_, body) = self.api_call(provider, request, hint, secret).await?;
        serde_json::from_slice(&body)
            .map_err(|e| ProviderError::permanent(format!("{provider}: unexpected answer (not its JSON format): {e}")))
    }

    /// Sends an API request; its headers and body when it succeeded (an API
    /// that reports errors inside a 200, as MediaWiki's `maxlag` does, needs
    /// both), the classified error otherwise.
    pub(in crate::search) async fn api_call(
        &self,
        provider: &str,
        request: reqwest::RequestBuilder,
        hint: impl Fn(StatusCode) -> Option<String>,
        secret: Option<&str>,
    ) -> Result<(HeaderMap, Vec<u8>), ProviderError> {
        let redact = |e: ProviderError| redact(e, secret);
        let response = request
            .timeout(self.search_timeout)
            .send()
            .await
            .map_err(|e| redact(transport_error(provider, &e, self.search_timeout)))?;
        let status = response.status();
        if !status.is_success() {
            let headers = response.headers().clone();
            let (body, _) = read_capped(response, 2048, provider, self.search_timeout).await.unwrap_or_default();
            let mut e = status_error(provider, status, &headers, &String::from_utf8_lossy(&body));
            if let Some(h) = hint(status) {
                match &mut e {
                    ProviderError::Permanent { message } | ProviderError::Transient { message, .. } => {
                        message.push_str(&format!(" ({h})"))
                    }
                    ProviderError::Skipped { .. } => {}
                }
            }
            return Err(redact(e));
        }
        let headers = response.headers().clone();
        let (body, truncated) =
            read_capped(response, MAX_API_BYTES, provider, self.search_timeout).await.map_err(redact)?;
        if truncated {
            return Err(ProviderError::permanent(format!("{provider}: answer larger than {MAX_API_BYTES} bytes")));
        }
        Ok((headers, body))
    }
}

/// The provider's key blanked from its own errors, with the engine's one
/// redactor (its marker, and the key's URL-encoded forms too).
fn redact(e: ProviderError, secret: Option<&str>) -> ProviderError {
    let Some(secret) = secret.filter(|s| !s.is_empty()) else { return e };
    let r = crate::engine::redact::Redactor::new([secret.to_string()]);
    // A key shorter than the redactor takes as a secret is still this provider's key.
    let clean = |t: String| match r.is_empty() {
        true => t.replace(secret, crate::engine::redact::REDACTED),
        false => r.redact(&t).into_owned(),
    };
    match e {
        ProviderError::Transient { message, retry_after } => {
            ProviderError::Transient { message: clean(message), retry_after }
        }
        ProviderError::Permanent { message } => ProviderError::Permanent { message: clean(message) },
        ProviderError::Skipped { reason } => ProviderError::Skipped { reason: clean(reason) },
    }
}

/// Providers built from the same `[web]` config share one client while any
/// of them is alive, so a session's providers share politeness per host.
pub fn shared(cfg: &WebConfig) -> Result<Arc<WebClient>, String> {
    static SHARED: Mutex<Vec<(WebConfig, Weak<WebClient>)>> = Mutex::new(Vec::new());
    let mut cache = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    cache.retain(|(_, w)| w.strong_count() > 0);
    if let Some(client) = cache.iter().find(|(c, _)| c == cfg).and_then(|(_, w)| w.upgrade()) {
        return Ok(client);
    }
    let client = WebClient::new(cfg)?;
    cache.push((cfg.clone(), Arc::downgrade(&client)));
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_of_one_config_share_a_client() {
        let cfg = WebConfig { user_agent: "shared-test".into(), ..WebConfig::default() };
        let a = shared(&cfg).unwrap();
        let b = shared(&cfg).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let other = shared(&WebConfig { user_agent: "other-test".into(), ..WebConfig::default() }).unwrap();
        assert!(!Arc::ptr_eq(&a, &other));
    }

    #[test]
    fn secrets_are_blanked_from_messages() {
        let e = redact(ProviderError::permanent("bad key tvly-12345678 rejected"), Some("tvly-12345678"));
        assert_eq!(e.to_string(), "bad key [redacted] rejected");
        let e = redact(ProviderError::permanent("GET ?k=tvly-A%2BB%3D12345 failed"), Some("tvly-A+B=12345"));
        assert_eq!(e.to_string(), "GET ?k=[redacted] failed");
    }
}
