//! `sleuth serve`: the research loop behind HTTP (seed 001 §12–17). Jobs
//! (`jobs.rs`) are shared with `sleuth mcp`; `http.rs` has the routes.

pub mod api;
pub mod errors;
pub mod http;
pub mod job;
pub mod jobs;
pub mod metrics;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

pub use crate::config::ServeConfig;
pub use jobs::Jobs;
use secrecy::SecretString;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("serve.bind `{bind}` is not an address such as 127.0.0.1:7878: {message}")]
    Bind { bind: String, message: String },
    #[error(
        "binding {addr} (not loopback) needs a bearer token: set the environment variable {var} (serve.token_env) and send `Authorization: Bearer <token>`"
    )]
    TokenRequired { addr: SocketAddr, var: String },
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: SocketAddr, source: std::io::Error },
    #[error("the server stopped: {0}")]
    Io(#[from] std::io::Error),
}

/// The address to bind, and the token clients must send: required off
/// loopback, used on loopback too when the variable is set.
pub fn bind_and_token(
    serve: &ServeConfig,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(SocketAddr, Option<SecretString>), ServeError> {
    let addr: SocketAddr = serve
        .bind
        .parse()
        .map_err(|e: std::net::AddrParseError| ServeError::Bind { bind: serve.bind.clone(), message: e.to_string() })?;
    let token = env(&serve.token_env).filter(|t| !t.trim().is_empty()).map(SecretString::from);
    if token.is_none() && !addr.ip().is_loopback() {
        return Err(ServeError::TokenRequired { addr, var: serve.token_env.clone() });
    }
    Ok((addr, token))
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
    let state = Arc::new(http::AppState {
        jobs: jobs.clone(),
        token,
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
    }
}
