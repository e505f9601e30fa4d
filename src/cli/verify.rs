//! `sleuth verify REPORT.md [--sources DIR | --session ID] [--json]`: the
//! citations of any Markdown report checked against its sources by the
//! checker VERIFY runs; `sleuth verify BUNDLE` re-checks an evidence
//! bundle offline and fails on any changed byte. Exit 0: every cited
//! sentence is backed; 7: one is not; 8: some could not be checked.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Context;

use super::args::VerifyArgs;
use super::{GlobalArgs, exit, setup};
use crate::engine::model::{CheckOutcome, Claim, StatementCheck};
use crate::engine::state::SessionState;
use crate::session::{SessionStore, read_log};
use crate::text::sanitize_inline;
use crate::verify::bundle::{BundleCheck, is_bundle, verify_bundle};
use crate::verify::report::parse_report;
use crate::verify::sources::{SourceText, fetch_all, from_dir, from_session};
use crate::verify::{Summary, Verified, check_report, verified, wanted};

/// Reports larger than this are refused (a report is a few hundred KB).
const MAX_REPORT_BYTES: u64 = 32 * 1024 * 1024;

pub async fn execute(global: &GlobalArgs, args: VerifyArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global)?;
    let store = SessionStore::new(setup.paths.sessions_dir());
    let (label, markdown, bytes) = match (&args.report, &args.session) {
        (Some(path), _) => {
            let bytes = read_report(path)?;
            if is_bundle(&bytes) {
                let check = verify_bundle(&bytes, args.require_quotes);
                return print_bundle(&check, path, args.json);
            }
            let text = String::from_utf8(bytes.clone())
                .map_err(|_| anyhow::anyhow!("{} is not UTF-8 text (a Markdown report is)", path.display()))?;
            (path.display().to_string(), text, bytes)
        }
        (None, Some(id)) => {
            let id = store.resolve(id)?;
            let state = session_state(&store, &id)?;
            let md = state.report.as_ref().map(|r| r.markdown.clone()).ok_or_else(|| {
                anyhow::anyhow!("session {id} has no report yet; finish it with `sleuth resume {id}`")
            })?;
            (format!("session {id}"), md, Vec::new())
        }
        (None, None) => anyhow::bail!("give a report file (or a bundle), or --session ID; see `sleuth verify --help`"),
    };
    drop(bytes);
    let parsed = parse_report(&markdown);
    if parsed.statements.is_empty() {
        eprintln!(
            "{label}: no cited sentence found — nothing to check. The checker reads `[n]` markers against a sources \
             list (sleuth, open_deep_research), `[n]: url` definitions, and inline links `([label](url))` (gpt-researcher)."
        );
        return Ok(exit::NOT_CHECKED);
    }
    let want = wanted(&parsed);
    let (texts, claims): (BTreeMap<u32, SourceText>, Vec<Claim>) = match (&args.sources, &args.session) {
        (Some(dir), _) => (from_dir(dir, &parsed.sources, &want, setup.config.web.max_page_bytes), Vec::new()),
        (None, Some(id)) => {
            let id = store.resolve(id)?;
            let state = session_state(&store, &id)?;
            let claims = state.report.as_ref().map(|r| r.claims.clone()).unwrap_or_default();
            (from_session(&store.dir(&id), &parsed.sources, &want), claims)
        }
        (None, None) => {
            if !args.json {
                eprintln!("fetching {} cited source(s) …", want.len());
            }
            (fetch_all(&parsed.sources, &want, &setup.config.web).await.map_err(anyhow::Error::msg)?, Vec::new())
        }
    };
    let statements = check_report(&parsed, &texts, &claims, args.require_quotes);
    let result = verified(label, parsed.style, args.require_quotes, statements, texts);
    print_verified(&result, args.json)?;
    Ok(exit_code(&result.summary))
}

fn read_report(path: &Path) -> anyhow::Result<Vec<u8>> {
    let meta = std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() {
        anyhow::bail!("{} is not a regular file", path.display());
    }
    if meta.len() > MAX_REPORT_BYTES {
        anyhow::bail!("{} is {} bytes; reports over {MAX_REPORT_BYTES} bytes are not read", path.display(), meta.len());
    }
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

fn session_state(store: &SessionStore, id: &str) -> anyhow::Result<SessionState> {
    let log = read_log(&store.dir(id).log_path())?;
    Ok(SessionState::replay(&log.records))
}

/// 0: every sentence backed; 7: one is not; 8: some could not be checked.
pub(super) fn exit_code(s: &Summary) -> u8 {
    if s.any_failed() {
        exit::NOT_SUPPORTED
    } else if s.all_supported() {
        exit::OK
    } else {
        exit::NOT_CHECKED
    }
}

fn print_verified(v: &Verified, json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, v)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "{} · cites with {}", sanitize_inline(&v.report), v.cites)?;
    writeln!(out)?;
    write_table(&mut out, &v.statements)?;
    writeln!(out)?;
    writeln!(out, "Sources")?;
    for s in &v.sources {
        let status = match (&s.text, &s.error) {
            (Ok(t), _) => format!("{} chars, sha256 {}", t.chars().count(), s.sha256.as_deref().unwrap_or("")),
            (Err(_), Some(e)) => format!("unreachable: {}", sanitize_inline(e)),
            (Err(e), None) => format!("unreachable: {}", sanitize_inline(e)),
        };
        writeln!(out, "  [{}] {} — {} — {}", s.number, sanitize_inline(&s.url), sanitize_inline(&s.via), status)?;
    }
    writeln!(out)?;
    write_summary(&mut out, &v.summary, v.quotes_required)?;
    writeln!(out, "Rules: {}", v.rules.join(" · "))?;
    Ok(())
}

/// One row per cited sentence: its number, outcome, rule, source, text,
/// and below it why.
pub(super) fn write_table(out: &mut impl Write, statements: &[StatementCheck]) -> std::io::Result<()> {
    writeln!(out, "{:>3}  {:<18} {:<8} {:<6} sentence", "#", "outcome", "rule", "source")?;
    for (i, s) in statements.iter().enumerate() {
        let mark = if s.outcome == CheckOutcome::Supported { "✓" } else { "✗" };
        let src = s.source.map(|n| format!("[{n}]")).unwrap_or_else(|| "-".into());
        writeln!(
            out,
            "{:>3}  {mark} {:<16} {:<8} {:<6} {}",
            i + 1,
            s.outcome.label(),
            s.rule.label(),
            src,
            clip(&sanitize_inline(&s.text), 100)
        )?;
        writeln!(out, "{:>43}{}", "", clip(&sanitize_inline(&s.why), 140))?;
    }
    Ok(())
}

pub(super) fn write_summary(out: &mut impl Write, s: &Summary, quotes_required: bool) -> std::io::Result<()> {
    writeln!(
        out,
        "{} cited sentence(s): {} supported ({} by quote, {} by passage), {} unsupported, {} source unreachable{}",
        s.statements,
        s.supported,
        s.supported_by_quote,
        s.supported_by_passage,
        s.unsupported,
        s.unreachable,
        if quotes_required { format!(", {} no quote given", s.no_quote) } else { String::new() }
    )
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max - 1).collect();
    s.push('…');
    s
}

fn print_bundle(check: &BundleCheck, path: &Path, json: bool) -> anyhow::Result<u8> {
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, check)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{} · evidence bundle", path.display())?;
        if check.changed.is_empty() {
            writeln!(
                out,
                "integrity: every byte is as exported (SHA-256 of the content, the report, the log and each source match)"
            )?;
        } else {
            writeln!(out, "integrity: FAILED — the bundle was changed after it was exported:")?;
            for c in &check.changed {
                writeln!(out, "  - {}", sanitize_inline(c))?;
            }
        }
        if let Some(v) = &check.verified {
            writeln!(out)?;
            write_table(&mut out, &v.statements)?;
            writeln!(out)?;
            write_summary(&mut out, &v.summary, v.quotes_required)?;
            if let Some(same) = check.same_as_recorded {
                writeln!(
                    out,
                    "{}",
                    if same {
                        "The re-check agrees with the verification recorded in the session."
                    } else {
                        "The re-check differs from the verification recorded in the session."
                    }
                )?;
            }
        }
    }
    Ok(if !check.changed.is_empty() {
        exit::NOT_SUPPORTED
    } else {
        check.verified.as_ref().map_or(exit::NOT_CHECKED, |v| exit_code(&v.summary))
    })
}
