//! `sleuth diff A B` (written below).
use super::GlobalArgs;
use super::args::DiffArgs;

pub fn execute(_global: &GlobalArgs, _args: DiffArgs) -> anyhow::Result<u8> {
    anyhow::bail!("diff is not built yet")
}
