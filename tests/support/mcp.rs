//! `sleuth mcp` as the official SDK's child process, every step under a
//! time limit: a server that never answers fails its test, and the child is
//! killed with the client (`kill_on_drop`), instead of hanging CI.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use rmcp::service::{RunningService, ServiceExt};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient};

use super::bin::{DEFAULT_LIMIT, sleuth_command};

/// Awaits `step` at most `limit`; past it the test fails naming `what`.
/// The failure drops the client that `step` borrows, and with it the
/// child, which is killed.
pub async fn within<T>(limit: Duration, what: &str, step: impl Future<Output = T>) -> T {
    match tokio::time::timeout(limit, step).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: no answer from `sleuth mcp` within {limit:?}"),
    }
}

/// [`within`] the default limit.
pub async fn step<T>(what: &str, step: impl Future<Output = T>) -> T {
    within(DEFAULT_LIMIT, what, step).await
}

/// `sleuth mcp args…` under `home` with `envs` added to the clean
/// environment of the binary's other tests, connected to `handler` (the
/// handshake under the default limit). Dropping the client kills the child.
pub async fn connect<H: ClientHandler>(
    handler: H,
    home: &Path,
    args: &[String],
    envs: &[(&str, &str)],
) -> RunningService<RoleClient, H> {
    let mut cmd = sleuth_command(home);
    cmd.arg("mcp").args(args).envs(envs.iter().copied());
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.kill_on_drop(true);
    let transport = TokioChildProcess::new(cmd).expect("`sleuth mcp` starts");
    step("the MCP handshake", handler.serve(transport)).await.expect("initialize")
}
