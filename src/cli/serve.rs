//! `sleuth serve` and `sleuth mcp`: the session service and its jobs,
//! behind HTTP or MCP. Both start at once and build their parts (the
//! corpus index, the model check) afterwards: the server answers 503 with
//! `Retry-After` until they are ready; the MCP server answers `initialize`
//! and builds on the first call that needs them.

use std::sync::Arc;

use anyhow::Context;

use super::args::ServeArgs;
use super::{GlobalArgs, exit, setup};
use crate::mcp::SleuthMcp;
use crate::research::Jobs;
use crate::serve::{ServeError, bind_and_token};

pub async fn serve(global: &GlobalArgs, args: ServeArgs) -> anyhow::Result<u8> {
    let mut setup = setup::load(global)?;
    args.apply(&mut setup.config)?;
    let conf = setup.config.serve.clone();
    let (addr, token) = bind_and_token(&conf, |name| std::env::var(name).ok())?;
    // Listened for before the socket opens: a signal right after start is not lost.
    let shutdown = shutdown_signal()?;
    // Bound first: an address in use is said at once, before any indexing.
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|reason| ServeError::Listen { addr, reason })?;
    let local = listener.local_addr()?;
    let sessions = setup::sessions(&setup);
    let jobs = Jobs::new(sessions.clone(), &conf);
    eprintln!(
        "sleuth serve: listening on http://{local} ({} sessions at once, {} queued{}); Ctrl-C or SIGTERM stops",
        conf.concurrency(),
        conf.max_queued,
        if token.is_some() { ", bearer token required" } else { "" }
    );
    tracing::info!(%local, "serving");
    // The parts are built meanwhile; research requests get 503 until then.
    let building = tokio::spawn(async move {
        match sessions.runtime().await {
            Ok(_) => eprintln!("sleuth serve: ready"),
            Err(e) => {
                eprintln!("sleuth serve: cannot start the research parts: {e}\n  /run answers 503 until they can start")
            }
        }
    });
    crate::serve::serve(jobs, &conf, listener, token, shutdown).await?;
    // Indexing may still run: it is abandoned (the next start resumes it).
    building.abort();
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
    let setup = setup::load(global)?;
    let conf = setup.config.serve.clone();
    // Nothing is built yet: `initialize` is answered at once.
    let sessions = Arc::new(crate::research::Sessions::new(setup.config.clone(), setup.paths.clone()));
    let jobs: Arc<Jobs> = Jobs::new(sessions, &conf);
    tracing::info!("mcp server on stdio");
    SleuthMcp::new(jobs.clone()).serve_stdio().await.map_err(anyhow::Error::msg)?;
    // The client went away: running sessions stop at a checkpoint, resumable.
    jobs.stop();
    jobs.wait_all().await;
    Ok(exit::OK)
}
