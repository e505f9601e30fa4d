//! The HTTP client every web provider shares, and how its failures are
//! classified for the retry policy: connection errors, timeouts, 429 and
//! 5xx are worth another try; other 4xx, redirect loops and bad URLs are not.

use std::net::SocketAddr;
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{StatusCode, redirect};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc2822;

use super::WebConfig;
use crate::search::ProviderError;

/// Builds the client: connect timeout, bounded redirects that stop at once
/// on a loop, the configured user agent. Whole-request timeouts are set per
/// request (searches and page fetches differ).
pub fn build_client(cfg: &WebConfig, resolve: &[(String, SocketAddr)]) -> Result<reqwest::Client, String> {
    let max = cfg.max_redirects;
    let policy = redirect::Policy::custom(move |attempt| {
        if attempt.previous().iter().any(|u| u == attempt.url()) {
            let url = attempt.url().to_string();
            attempt.error(format!("redirect loop at {url}"))
        } else if attempt.previous().len() > max {
            attempt.error(format!("more than {max} redirects"))
        } else {
            attempt.follow()
        }
    });
    crate::tls::install_crypto_provider();
    let mut builder = reqwest::Client::builder()
        .user_agent(cfg.user_agent.clone())
        .connect_timeout(Duration::from_secs(cfg.connect_timeout_secs.max(1)))
        .read_timeout(Duration::from_secs(cfg.fetch_timeout_secs.max(1)))
        .redirect(policy);
    for (domain, addr) in resolve {
        builder = builder.resolve(domain, *addr);
    }
    builder.build().map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// A transport failure, as the retry policy sees it.
pub fn transport_error(what: &str, e: &reqwest::Error, timeout: Duration) -> ProviderError {
    if e.is_timeout() {
        return ProviderError::transient(format!("{what}: timed out after {} s", timeout.as_secs_f32()));
    }
    if e.is_redirect() {
        return ProviderError::permanent(format!("{what}: {}", root_cause(e)));
    }
    if e.is_builder() {
        return ProviderError::permanent(format!("{what}: invalid request: {}", root_cause(e)));
    }
    if e.is_connect() {
        return ProviderError::transient(format!("{what}: could not connect: {}", root_cause(e)));
    }
    ProviderError::transient(format!("{what}: {}", root_cause(e)))
}

/// The innermost message of an error chain (reqwest nests the useful part).
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// An unsuccessful status: 429 and 5xx are transient (with the server's
/// requested wait, if any); every other status is permanent.
pub fn status_error(what: &str, status: StatusCode, headers: &HeaderMap, detail: &str) -> ProviderError {
    let detail = detail.trim();
    let message = if detail.is_empty() {
        format!("{what}: HTTP {status}")
    } else {
        format!("{what}: HTTP {status}: {}", crate::text::sanitize_inline(&truncate(detail, 200)))
    };
    if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
        ProviderError::Transient { message, retry_after: retry_after(headers, SystemTime::now()) }
    } else {
        ProviderError::Permanent { message }
    }
}

/// `Retry-After` as seconds or an HTTP date; failing that, the first value
/// of `X-RateLimit-Reset` (seconds until the window resets, as Brave sends).
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    if let Some(v) = headers.get(RETRY_AFTER).and_then(|v| v.to_str().ok()) {
        let v = v.trim();
        if let Ok(secs) = v.parse::<u64>() {
            return Some(Duration::from_secs(secs));
        }
        if let Ok(at) = OffsetDateTime::parse(v, &Rfc2822) {
            let at: SystemTime = at.into();
            return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
        }
    }
    let reset = headers.get("x-ratelimit-reset").and_then(|v| v.to_str().ok())?;
    reset.split(',').next()?.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// Reads a response body up to `cap` bytes. Returns the bytes and whether
/// more was left unread (the connection is then dropped).
pub async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
    what: &str,
    timeout: Duration,
) -> Result<(Vec<u8>, bool), ProviderError> {
    let hint = response.content_length().map_or(64 * 1024, |n| n as usize);
    let mut body = Vec::with_capacity(hint.min(cap));
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = cap - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    return Ok((body, true));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok((body, false)),
            Err(e) => return Err(transport_error(what, &e, timeout)),
        }
    }
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn retry_after_reads_seconds_dates_and_rate_limit_resets() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_470);
        assert_eq!(retry_after(&headers(&[("retry-after", "7")]), now), Some(Duration::from_secs(7)));
        // 2015-10-21 07:28:00 UTC is 10 s after `now`.
        let date = headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]);
        assert_eq!(retry_after(&date, now), Some(Duration::from_secs(10)));
        let brave = headers(&[("x-ratelimit-reset", "1, 1419704")]);
        assert_eq!(retry_after(&brave, now), Some(Duration::from_secs(1)));
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
    }

    #[test]
    fn only_429_and_5xx_are_transient() {
        let h = headers(&[("retry-after", "3")]);
        let e = status_error("x", StatusCode::TOO_MANY_REQUESTS, &h, "");
        assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
        assert!(status_error("x", StatusCode::BAD_GATEWAY, &HeaderMap::new(), "").is_transient());
        for s in [StatusCode::NOT_FOUND, StatusCode::UNAUTHORIZED, StatusCode::REQUEST_TIMEOUT] {
            assert!(!status_error("x", s, &HeaderMap::new(), "").is_transient(), "{s}");
        }
    }

    #[test]
    fn error_details_are_sanitised_and_shortened() {
        let e = status_error(
            "tavily",
            StatusCode::BAD_REQUEST,
            &HeaderMap::new(),
            &format!("\u{1b}[2J{}", "x".repeat(500)),
        );
        let msg = e.to_string();
        assert!(!msg.contains('\u{1b}'));
        assert!(msg.chars().count() < 260, "{msg}");
    }
}
