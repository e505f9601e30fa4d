//! Flags of `sleuth verify`, `sleuth recheck` and `sleuth diff`.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// A Markdown report citing numbered sources or links (sleuth's,
    /// gpt-researcher's, open_deep_research's …), or an evidence bundle
    /// (`sleuth export ID --format bundle`), checked offline.
    #[arg(value_name = "REPORT")]
    pub report: Option<PathBuf>,
    /// Read the sources' texts from this folder (`<n>.txt`, `<n>.md` or
    /// `<n>.html`, n as the table numbers them) instead of fetching them.
    #[arg(long, value_name = "DIR", conflicts_with = "session")]
    pub sources: Option<PathBuf>,
    /// Take the claims, their quotes and the sources' stored texts from
    /// this session (id, unique prefix or `last`); without REPORT, check
    /// the session's own report.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// A cited sentence without a quote is "no quote given" (and fails)
    /// instead of being decided by the best passage of its source.
    #[arg(long)]
    pub require_quotes: bool,
    /// One JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct RecheckArgs {
    /// Session id, a unique prefix of one, or `last`.
    pub id: String,
    /// One JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Check and print, but do not record the result in the session's log.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    /// The earlier session: id, unique prefix or `last`.
    pub a: String,
    /// The later session (a fork, a re-run, a follow-up).
    pub b: String,
    /// One JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
}
