//! `sleuth serve` and `sleuth mcp`: the same runtime and jobs as every
//! other command, behind HTTP or MCP.

use std::sync::Arc;

use anyhow::Context;

use super::args::ServeArgs;
use super::{GlobalArgs, exit, setup};
use crate::mcp::SleuthMcp;
use crate::serve::{Jobs, ServeError, bind_and_token};

pub async fn serve(global: &GlobalArgs, args: ServeArgs) -> anyhow::Result<u8> {
    let setup = setup::load(&args.apply(global), None)?;
    let conf = setup.config.serve.clone();
    let (addr, token) = bind_and_token(&conf, |name| std::env::var(name).ok())?;
    // Listened for before the socket opens: a signal right after start is not lost.
    let shutdown = shutdown_signal()?;
    let runtime = setup::runtime(&setup.paths, setup.config.clone()).await?;
    let jobs = Jobs::new(runtime, &conf);
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| ServeError::Listen { addr, source })?;
    let local = listener.local_addr()?;
    eprintln!(
        "sleuth serve: listening on http://{local} ({} sessions at once, {} queued{}); Ctrl-C or SIGTERM stops",
        conf.concurrency(),
        conf.max_queued,
        if token.is_some() { ", bearer token required" } else { "" }
    );
    tracing::info!(%local, "serving");
    crate::serve::serve(jobs, &conf, listener, token, shutdown).await?;
    eprintln!("sleuth serve: stopped; interrupted sessions continue with `sleuth resume <id>`");
    Ok(exit::OK)
}

/// Resolves at the first SIGTERM or Ctrl-C.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("cannot listen for Ctrl-C")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

pub async fn mcp(global: &GlobalArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global, None)?;
    let conf = setup.config.serve.clone();
    let runtime = setup::runtime(&setup.paths, setup.config.clone()).await?;
    let jobs: Arc<Jobs> = Jobs::new(runtime, &conf);
    tracing::info!("mcp server on stdio");
    SleuthMcp::new(jobs.clone()).serve_stdio().await.map_err(anyhow::Error::msg)?;
    // The client went away: running sessions stop at a checkpoint, resumable.
    jobs.stop();
    jobs.wait_all().await;
    Ok(exit::OK)
}
