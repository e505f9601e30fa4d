//! `sleuth doctor`: checks every configured LLM endpoint (reachable, models,
//! JSON-schema support, one round trip) and every search provider (one test
//! query), prints a table, and exits non-zero when something required fails.

use std::time::Duration;

use super::args::DoctorArgs;
use super::{exit, setup};
use crate::builder::Providers;
use crate::config::ReasonerKind;
use crate::llm::probe::{EndpointReport, SchemaSupport, diagnose};
use crate::llm::{LlmReasoner, StructuredMode};
use crate::search::SearchQuery;
use crate::text::sanitize_inline;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Warn,
    Fail,
    /// Failed or not checked, but not needed by the configuration as it stands.
    Skip,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::Skip => "n/a",
        }
    }
}

struct Row {
    check: String,
    status: Status,
    detail: String,
}

fn row(check: impl Into<String>, status: Status, detail: impl Into<String>) -> Row {
    Row { check: check.into(), status, detail: detail.into() }
}

pub async fn execute(global: &super::GlobalArgs, args: DoctorArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global, None)?;
    let llm_required = setup.config.research.reasoner == ReasonerKind::Llm;
    let mut rows: Vec<Row> = Vec::new();
    match LlmReasoner::from_config(&setup.config.llm, &setup.paths.config_dir) {
        Err(e) => rows.push(row("llm setup", required(llm_required), e.to_string())),
        Ok(r) => {
            for report in diagnose(&r).await {
                endpoint_rows(&report, llm_required, &mut rows);
            }
        }
    }
    if !args.skip_search {
        search_rows(&setup, &args.query, &mut rows).await;
    }
    let origin = setup.config_path.as_ref().map_or("built-in defaults".to_string(), |p| p.display().to_string());
    println!("sleuth doctor — config: {origin}; reasoner: {:?}\n", setup.config.research.reasoner);
    print_table(&rows);
    let failed: Vec<&Row> = rows.iter().filter(|r| r.status == Status::Fail).collect();
    println!();
    if failed.is_empty() {
        println!("all required checks passed");
        Ok(exit::OK)
    } else {
        println!(
            "{} required check(s) failed: {}",
            failed.len(),
            failed.iter().map(|r| r.check.trim()).collect::<Vec<_>>().join(", ")
        );
        Ok(exit::ERROR)
    }
}

fn required(is_required: bool) -> Status {
    if is_required { Status::Fail } else { Status::Skip }
}

fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

fn endpoint_rows(r: &EndpointReport, needed: bool, rows: &mut Vec<Row>) {
    // The header row carries the endpoint's state: an unreachable one is
    // not "ok" whatever its rows below say.
    let header = format!("llm endpoint `{}`", r.name);
    match &r.reachable {
        Ok(d) => {
            rows.push(row(header, Status::Ok, r.url.clone()));
            rows.push(row("  reachable", Status::Ok, format!("/models answered in {}", ms(*d))));
        }
        Err(e) => {
            rows.push(row(header, required(needed), format!("unreachable: {e}")));
            return;
        }
    }
    let key = match &r.key_env {
        Some(var) => format!("${var} is set (value not shown)"),
        None => "no key configured (fine for local servers)".into(),
    };
    rows.push(row("  api key", Status::Ok, key));
    let mut listed = r.models.iter().take(6).cloned().collect::<Vec<_>>().join(", ");
    if r.models.len() > 6 {
        listed.push_str(&format!(", … ({} in all)", r.models.len()));
    }
    let status = if r.models.is_empty() { Status::Warn } else { Status::Ok };
    rows.push(row("  models listed", status, if r.models.is_empty() { "none listed".into() } else { listed }));
    for (roles, model, served) in &r.configured {
        let roles: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
        let check = format!("  model {model} ({})", roles.join(", "));
        match served {
            Some(true) => rows.push(row(check, Status::Ok, "served")),
            Some(false) => rows.push(row(
                check,
                required(needed),
                "not among the models listed: pull it (Ollama: `ollama pull MODEL`) or set [llm] model / [llm.roles]",
            )),
            None => rows.push(row(check, Status::Warn, "the endpoint lists no models; cannot tell")),
        }
    }
    let (status, detail) = match &r.json_schema {
        SchemaSupport::Supported => (Status::Ok, "supported".to_string()),
        SchemaSupport::Ignored(reply) => (
            Status::Warn,
            format!(
                "accepted but not followed (reply: {reply}); consider structured_output = \"{}\"",
                StructuredMode::Prompt.as_str()
            ),
        ),
        SchemaSupport::Rejected(e) => (
            Status::Warn,
            format!(
                "rejected ({e}); set structured_output = \"json_object\" or \"prompt\" (sleuth also lowers it by itself)"
            ),
        ),
        SchemaSupport::Unknown(e) => (Status::Warn, format!("unknown: {e}")),
        SchemaSupport::NotProbed(why) => (Status::Skip, format!("not probed ({why})")),
    };
    rows.push(row("  json_schema output", status, detail));
    match &r.round_trip {
        Ok(d) => rows.push(row("  chat round trip", Status::Ok, ms(*d))),
        Err(e) => rows.push(row("  chat round trip", required(needed), e.clone())),
    }
}

async fn search_rows(setup: &setup::Setup, query: &str, rows: &mut Vec<Row>) {
    let providers = Providers::new(&setup.config, &setup.paths);
    for (i, chain) in setup.config.search.chains.iter().enumerate() {
        rows.push(row(format!("search chain {}", i + 1), Status::Ok, chain.join(" → ")));
        let mut any_ok = false;
        let mut chain_rows = Vec::new();
        for name in chain {
            let check = format!("  provider {name}");
            let provider = match providers.build(name, &setup::progress) {
                Ok(p) => p,
                Err(e) => {
                    chain_rows.push(row(check, Status::Fail, e.to_string()));
                    continue;
                }
            };
            let q = SearchQuery { text: query.to_string(), exclude: Vec::new(), limit: 3 };
            let started = std::time::Instant::now();
            match tokio::time::timeout(Duration::from_secs(30), provider.search(&q)).await {
                Err(_) => chain_rows.push(row(check, Status::Fail, "no answer within 30 s")),
                Ok(Err(e)) => chain_rows.push(row(check, Status::Fail, e.to_string())),
                Ok(Ok(hits)) => {
                    any_ok = true;
                    let status = if hits.is_empty() { Status::Warn } else { Status::Ok };
                    let detail = format!("{} hit(s) for \"{query}\" in {}", hits.len(), ms(started.elapsed()));
                    chain_rows.push(row(check, status, detail));
                }
            }
        }
        // A chain works when one of its providers does; the others are fallbacks.
        for mut r in chain_rows {
            if any_ok && r.status == Status::Fail {
                r.status = Status::Warn;
            }
            rows.push(r);
        }
    }
}

fn print_table(rows: &[Row]) {
    let width = rows.iter().map(|r| r.check.chars().count()).max().unwrap_or(10).max(5) + 2;
    println!("{:<width$}{:<8}DETAIL", "CHECK", "STATUS");
    for r in rows {
        let check = sanitize_inline(&r.check);
        println!("{check:<width$}{:<8}{}", r.status.label(), sanitize_inline(&r.detail));
    }
}
