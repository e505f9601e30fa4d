//! `sleuth serve`: the research loop behind HTTP (`/run`, jobs,
//! sessions, reports, health and metrics; docs/service.md). The
//! jobs are the session service's (`research::jobs`, shared with `sleuth
//! mcp`); `http.rs` has the routes, `guard.rs` what every request must show.

pub mod api;
pub mod errors;
pub mod guard;
pub mod http;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

pub use crate::config::ServeConfig;
use crate::research::Jobs;
use secrecy::SecretString;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("serve.bind `{bind}` is not an address such as 127.0.0.1:7878 or localhost:7878: {message}")]
    Bind { bind: String, message: String },
    #[error(
        "binding {addr} (not loopback) needs a bearer token: set the environment variable {var} (serve.token_env) and send `Authorization: Bearer <token>`"
    )]
    TokenRequired { addr: SocketAddr, var: String },
    /// The OS's reason is in the message, not a `source`: printed once.
    #[error("cannot listen on {addr}: {reason}")]
    Listen { addr: SocketAddr, reason: std::io::Error },
    #[error("the server stopped: {0}")]
    Io(#[from] std::io::Error),
}

/// The address to bind, and the token clients must send: required off
/// loopback, used on loopback too when the variable is set.
pub fn bind_and_token(
    serve: &ServeConfig,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(SocketAddr, Option<SecretString>), ServeError> {
    let addr = bind_address(&serve.bind)?;
    let token = env(&serve.token_env).filter(|t| !t.trim().is_empty()).map(SecretString::from);
    if token.is_none() && !addr.ip().is_loopback() {
        return Err(ServeError::TokenRequired { addr, var: serve.token_env.clone() });
    }
    Ok((addr, token))
}

/// An address to listen on: `127.0.0.1:7878`, `[::1]:7878`, or a name and
/// port (`localhost:7879`) resolved here, loopback first.
fn bind_address(bind: &str) -> Result<SocketAddr, ServeError> {
    let bind = bind.trim();
    if let Ok(addr) = bind.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let error = |message: String| ServeError::Bind { bind: bind.to_string(), message };
    let Some((host, port)) = bind.rsplit_once(':') else {
        return Err(error("no port: add one, e.g. localhost:7878".into()));
    };
    if host.is_empty() || port.parse::<u16>().is_err() {
        return Err(error(format!("`{port}` is not a port (0..65535)")));
    }
    use std::net::ToSocketAddrs;
    let found: Vec<SocketAddr> = (host, 0).to_socket_addrs().map_err(|e| error(e.to_string()))?.collect();
    let port: u16 = port.parse().unwrap_or_default();
    let pick = found.iter().find(|a| a.ip().is_loopback() && a.is_ipv4()).or_else(|| found.first());
    pick.map(|a| SocketAddr::new(a.ip(), port)).ok_or_else(|| error(format!("`{host}` names no address")))
}

/// Serves until `shutdown` resolves; then stops accepting, lets running
/// sessions reach a checkpoint (they stay resumable) and returns.
pub async fn serve(
    jobs: Arc<Jobs>,
    serve: &ServeConfig,
    listener: tokio::net::TcpListener,
    token: Option<SecretString>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let bound = listener.local_addr()?;
    let state = Arc::new(http::AppState {
        jobs: jobs.clone(),
        token,
        hosts: guard::HostPolicy::new(bound, &serve.allowed_hosts),
        max_body_bytes: serve.max_body_bytes,
        run_wait: Duration::from_secs(serve.run_wait_secs),
    });
    let app = http::router(state, Duration::from_secs(serve.request_timeout_secs));
    let stopper = jobs.clone();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            tracing::info!("shutting down: no new requests; sessions stop at their next checkpoint");
            stopper.stop();
        })
        .await?;
    jobs.wait_all().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_loopback_a_token_is_required() {
        let at = |bind: &str| ServeConfig { bind: bind.into(), ..ServeConfig::default() };
        let none = |_: &str| None;
        assert!(bind_and_token(&at("127.0.0.1:7878"), none).is_ok_and(|(_, t)| t.is_none()));
        let err = bind_and_token(&at("0.0.0.0:7878"), none).expect_err("needs a token");
        assert!(err.to_string().contains("SLEUTH_SERVE_TOKEN"), "{err}");
        let set = |name: &str| (name == "SLEUTH_SERVE_TOKEN").then(|| "t0ken".to_string());
        assert!(bind_and_token(&at("0.0.0.0:7878"), set).is_ok_and(|(_, t)| t.is_some()));
        assert!(matches!(bind_and_token(&at("localhost"), none), Err(ServeError::Bind { .. })));
        let (addr, _) = bind_and_token(&at("localhost:7879"), none).expect("a name and a port");
        assert_eq!(addr, "127.0.0.1:7879".parse::<SocketAddr>().expect("addr"));
        assert!(matches!(bind_and_token(&at("localhost:http"), none), Err(ServeError::Bind { .. })));
    }
}
