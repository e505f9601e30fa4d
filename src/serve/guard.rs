//! What a request must show before any handler runs: a `Host` naming this
//! server, no foreign `Origin`, the bearer token (when one is set) and, on
//! a POST, a JSON body. Together they keep web pages out: a page on another
//! origin can send a "simple" request (a POST with `text/plain`, no
//! preflight) but its browser adds that page's `Origin`; a page using DNS
//! rebinding reaches 127.0.0.1 under its own name, which is the `Host` the
//! browser sends. Pure functions of the headers, tested as such.

use std::net::{IpAddr, SocketAddr};

use axum::http::{HeaderMap, Method, header};
use secrecy::{ExposeSecret, SecretString};

use super::errors::ApiError;

/// The names a request may use for this server.
#[derive(Debug, Clone)]
pub struct HostPolicy {
    bound: SocketAddr,
    /// `serve.allowed_hosts`, lower case.
    allowed: Vec<String>,
}

impl HostPolicy {
    pub fn new(bound: SocketAddr, allowed: &[String]) -> Self {
        let allowed = allowed.iter().map(|h| h.trim().to_ascii_lowercase()).filter(|h| !h.is_empty()).collect();
        Self { bound, allowed }
    }

    /// Whether `authority` (`host` or `host:port`, as in `Host`) names this server.
    fn admits(&self, authority: &str) -> bool {
        let authority = authority.trim().to_ascii_lowercase();
        let Some((host, _port)) = split_authority(&authority) else { return false };
        if self.listed(&authority, host) {
            return true;
        }
        if matches!(host, "localhost" | "127.0.0.1" | "[::1]") {
            return true;
        }
        let literal = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().ok();
        match literal {
            // Bound to every interface (a token is required there): any
            // address of this machine; a name could be a rebinding page's.
            Some(_) if self.bound.ip().is_unspecified() => true,
            Some(ip) => ip == self.bound.ip(),
            None => false,
        }
    }

    /// `serve.allowed_hosts` names this host (any port) or this `host:port`.
    fn listed(&self, authority: &str, host: &str) -> bool {
        self.allowed.iter().any(|a| a == authority || a == host)
    }

    /// The `Host` header names this server (403 otherwise).
    pub fn check_host(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
        if host.is_empty() {
            return Err(ApiError::forbidden("the request has no Host header"));
        }
        if self.admits(host) {
            return Ok(());
        }
        Err(ApiError::forbidden(format!(
            "Host `{}` does not name this server; use http://{} (a reverse proxy's name goes in serve.allowed_hosts)",
            crate::text::sanitize_inline(host),
            self.bound
        )))
    }

    /// No `Origin`, or one whose host and port are the request's own `Host`
    /// (or listed in `serve.allowed_hosts`): a browser page elsewhere is refused.
    pub fn check_origin(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        let Some(origin) = headers.get(header::ORIGIN) else { return Ok(()) };
        let origin = origin.to_str().unwrap_or("").trim().to_ascii_lowercase();
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("").trim().to_ascii_lowercase();
        let authority = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
        let same = authority.is_some_and(|a| {
            let a = a.trim_end_matches('/');
            a == host || split_authority(a).is_some_and(|(h, _)| self.listed(a, h))
        });
        if same {
            return Ok(());
        }
        Err(ApiError::forbidden(format!(
            "requests from web pages on other origins are refused (Origin `{}`); sleuth's API is for programs on this machine",
            crate::text::sanitize_inline(&origin)
        )))
    }
}

/// `host` and `port` of an authority; the host keeps an IPv6 literal's brackets.
fn split_authority(authority: &str) -> Option<(&str, Option<&str>)> {
    if authority.is_empty() || authority.contains(['/', '@', ' ']) {
        return None;
    }
    if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, rest) = authority.split_at(end + 1);
        return match rest.strip_prefix(':') {
            Some(port) if port.chars().all(|c| c.is_ascii_digit()) => Some((host, Some(port))),
            None if rest.is_empty() => Some((host, None)),
            _ => None,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) && !host.contains(':') => {
            Some((host, Some(port)))
        }
        Some(_) => None,
        None => Some((authority, None)),
    }
}

/// The bearer token, when the server has one: the scheme in any case
/// (RFC 9110: `Bearer`, `bearer`), then the token.
pub fn check_token(token: Option<&SecretString>, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(token) = token else { return Ok(()) };
    let Some(value) = headers.get(header::AUTHORIZATION) else { return Err(ApiError::token_missing()) };
    let value = value.to_str().unwrap_or("").trim();
    let given = match value.split_once(' ') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
        _ => return Err(ApiError::token_malformed()),
    };
    if same_bytes(given.as_bytes(), token.expose_secret().as_bytes()) { Ok(()) } else { Err(ApiError::token_wrong()) }
}

/// A POST carries JSON and says so: a form or `text/plain` body, which a
/// page on another origin can send without asking, is refused (415).
pub fn check_content_type(method: &Method, headers: &HeaderMap) -> Result<(), ApiError> {
    if method != Method::POST {
        return Ok(());
    }
    let given = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let essence = given.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("application/json") {
        return Ok(());
    }
    Err(ApiError::unsupported_media_type(given))
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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(k.clone(), HeaderValue::from_str(v).expect("header"));
        }
        h
    }

    fn policy(bind: &str, allowed: &[&str]) -> HostPolicy {
        let allowed: Vec<String> = allowed.iter().map(|s| s.to_string()).collect();
        HostPolicy::new(bind.parse().expect("addr"), &allowed)
    }

    #[test]
    fn only_hosts_naming_this_server_are_admitted() {
        let p = policy("127.0.0.1:7878", &["Sleuth.Example.org"]);
        for ok in [
            "127.0.0.1:7878",
            "localhost:7878",
            "LOCALHOST",
            "[::1]:7878",
            "sleuth.example.org",
            "sleuth.example.org:443",
        ] {
            assert!(p.admits(ok), "{ok}");
        }
        for bad in
            ["evil.example:7878", "127.0.0.2:7878", "localhost.evil.example", "", "a b", "user@localhost", "[::1"]
        {
            assert!(!p.admits(bad), "{bad}");
        }
        let any = policy("0.0.0.0:7878", &[]);
        assert!(any.admits("192.168.1.20:7878") && !any.admits("rebind.evil.example:7878"));
        let listed_port = policy("127.0.0.1:7878", &["proxy.local:8443"]);
        assert!(listed_port.admits("proxy.local:8443") && !listed_port.admits("proxy.local:9999"));
        assert!(p.check_host(&HeaderMap::new()).is_err());
    }

    #[test]
    fn an_origin_must_be_the_request_host_or_listed() {
        let p = policy("127.0.0.1:7878", &["sleuth.example.org"]);
        let check =
            |origin: &str, host: &str| p.check_origin(&headers(&[(header::ORIGIN, origin), (header::HOST, host)]));
        assert!(p.check_origin(&headers(&[(header::HOST, "127.0.0.1:7878")])).is_ok(), "no Origin: not a browser page");
        assert!(check("http://127.0.0.1:7878", "127.0.0.1:7878").is_ok());
        assert!(check("https://sleuth.example.org", "127.0.0.1:7878").is_ok());
        for (origin, host) in [
            ("http://evil.example", "127.0.0.1:7878"),
            ("null", "127.0.0.1:7878"),
            ("http://localhost:3000", "localhost:7878"),
            ("http://127.0.0.1:7878.evil.example", "127.0.0.1:7878"),
        ] {
            let e = check(origin, host).expect_err(origin);
            assert_eq!(e.status, axum::http::StatusCode::FORBIDDEN);
        }
    }

    #[test]
    fn the_bearer_scheme_is_read_in_any_case_and_a_missing_token_is_told_apart() {
        let token = SecretString::from("t0ken-secret");
        let check = |v: Option<&str>| {
            check_token(Some(&token), &v.map_or_else(HeaderMap::new, |v| headers(&[(header::AUTHORIZATION, v)])))
        };
        assert!(check(Some("Bearer t0ken-secret")).is_ok());
        assert!(check(Some("bearer t0ken-secret")).is_ok());
        assert!(check(Some("BEARER  t0ken-secret ")).is_ok());
        let missing = check(None).expect_err("missing");
        let wrong = check(Some("Bearer nope")).expect_err("wrong");
        let basic = check(Some("Basic dXNlcjpwYXNz")).expect_err("basic");
        assert_ne!(missing.body.message, wrong.body.message);
        assert_ne!(basic.body.message, wrong.body.message);
        assert!(check_token(None, &HeaderMap::new()).is_ok());
    }

    #[test]
    fn a_post_must_say_json() {
        let json = headers(&[(header::CONTENT_TYPE, "application/json; charset=utf-8")]);
        assert!(check_content_type(&Method::POST, &json).is_ok());
        assert!(check_content_type(&Method::GET, &HeaderMap::new()).is_ok());
        for bad in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
            let e = check_content_type(&Method::POST, &headers(&[(header::CONTENT_TYPE, bad)])).expect_err(bad);
            assert_eq!(e.status, axum::http::StatusCode::UNSUPPORTED_MEDIA_TYPE);
        }
        assert!(check_content_type(&Method::POST, &HeaderMap::new()).is_err());
    }

    #[test]
    fn token_comparison_needs_every_byte() {
        assert!(same_bytes(b"secret-token", b"secret-token"));
        assert!(!same_bytes(b"secret-tokeN", b"secret-token"));
        assert!(!same_bytes(b"secret", b"secret-token"));
        assert!(!same_bytes(b"", b"secret-token"));
    }
}
