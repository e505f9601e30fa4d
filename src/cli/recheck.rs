//! `sleuth recheck SESSION` (written below).
use super::GlobalArgs;
use super::args::RecheckArgs;

pub async fn execute(_global: &GlobalArgs, _args: RecheckArgs) -> anyhow::Result<u8> {
    anyhow::bail!("recheck is not built yet")
}
