//! `sleuth doctor`: checks every configured LLM endpoint (reachable, models,
//! JSON-schema support, one round trip) and every search provider (one test
//! query), prints a table, and exits non-zero when something required fails.

use std::time::Duration;

use super::args::DoctorArgs;
use super::{exit, setup};
use crate::config::ReasonerKind;
use crate::llm::probe::{EndpointReport, MODES_FILE, START_THE_SERVER, SchemaSupport, diagnose, remember_modes};
use crate::llm::{LlmReasoner, StructuredMode};
use crate::text::sanitize_inline;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
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

pub(super) struct Row {
    pub check: String,
    pub status: Status,
    /// What was found; a second line `  fix: …` says what to do about a failure.
    pub detail: String,
    /// Counted among the failed checks (a provider row under a failed chain
    /// explains the chain's one failure and is not counted again).
    pub counted: bool,
}

pub(super) fn row(check: impl Into<String>, status: Status, detail: impl Into<String>) -> Row {
    Row { check: check.into(), status, detail: detail.into(), counted: true }
}

pub async fn execute(global: &super::GlobalArgs, args: DoctorArgs) -> anyhow::Result<u8> {
    let setup = setup::load_for(global, &args.research.request())?;
    let llm_required = setup.config.research.reasoner == ReasonerKind::Llm;
    let mut rows: Vec<Row> = Vec::new();
    // The built-in reasoner with an [llm] nobody set: there is no endpoint
    // to check, and probing the default URL would only report a refusal.
    let llm_configured = setup.config.llm != crate::llm::LlmConfig::default();
    if !llm_required && !llm_configured {
        rows.push(row("llm", Status::Skip, "not used: the built-in reasoner needs no model (see [llm] to set one)"));
    } else {
        match LlmReasoner::from_config(&setup.config.llm, &setup.paths.config_dir) {
            Err(e) => rows.push(row("llm setup", required(llm_required), e.to_string())),
            Ok(r) => {
                let reports = diagnose(&r).await;
                for report in &reports {
                    endpoint_rows(report, llm_required, &mut rows);
                }
                // A run starts in the mode found here instead of meeting the refusal again.
                if let Err(e) = remember_modes(&setup.paths.data_dir.join(MODES_FILE), &reports) {
                    tracing::warn!(error = %e, "could not remember the structured-output modes");
                }
            }
        }
    }
    if !args.skip_search {
        super::doctor_sources::search_rows(&setup, args.query.as_deref(), &mut rows).await;
        let cluster_query = args.query.clone().unwrap_or_else(|| "search".to_string());
        cluster_rows(&setup, &cluster_query, &mut rows).await;
    }
    let reasoner = match setup.config.research.reasoner {
        ReasonerKind::Builtin => "builtin",
        ReasonerKind::Llm => "llm",
    };
    println!("sleuth doctor — settings from {}; reasoner: {reasoner}\n", config_origin(&setup, global, &args));
    print_table(&rows);
    let failed: Vec<&Row> = rows.iter().filter(|r| r.status == Status::Fail && r.counted).collect();
    println!();
    let which = if llm_required {
        "the LLM rows and the search rows matter for reasoner = llm"
    } else {
        "reasoner = builtin: only the search rows matter (LLM rows show n/a when they fail; --reasoner llm checks them as required)"
    };
    println!("{which}");
    if failed.is_empty() {
        println!("all required checks passed");
        Ok(exit::OK)
    } else {
        let checks = if failed.len() == 1 { "check" } else { "checks" };
        println!(
            "{} required {checks} failed: {}",
            failed.len(),
            failed.iter().map(|r| r.check.trim()).collect::<Vec<_>>().join(", ")
        );
        Ok(exit::ERROR)
    }
}

/// Where the settings came from, in the order they apply (the first wins):
/// research flags, `--set` keys, `SLEUTH__…` variables (named, not
/// valued), the config file, and the built-in defaults under them all,
/// naming the file looked for when there is none.
fn config_origin(setup: &setup::Setup, global: &super::GlobalArgs, args: &DoctorArgs) -> String {
    let mut layers = Vec::new();
    if args.research != super::args::ChoiceArgs::default() {
        layers.push("research flags".to_string());
    }
    let set: Vec<&str> = global.set.iter().map(|s| s.split('=').next().unwrap_or(s).trim()).collect();
    if !set.is_empty() {
        layers.push(format!("--set {}", set.join(", ")));
    }
    let env: Vec<String> = std::env::vars().map(|(k, _)| k).filter(|k| k.starts_with("SLEUTH__")).collect();
    if !env.is_empty() {
        layers.push(format!("environment ({})", env.join(", ")));
    }
    match &setup.config_path {
        Some(p) => {
            layers.push(p.display().to_string());
            layers.push("built-in defaults".into());
        }
        None => layers.push(format!(
            "built-in defaults (no config file at {})",
            global.config.clone().unwrap_or_else(|| setup.paths.config_file()).display()
        )),
    }
    layers.join(", then ")
}

pub(super) fn required(is_required: bool) -> Status {
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
        // No /models is not fatal: the chat probe decides.
        Err(e) if e.contains("HTTP 404") && r.round_trip.is_ok() => {
            rows.push(row(header, Status::Ok, r.url.clone()));
            rows.push(row("  reachable", Status::Warn, "no /models (HTTP 404); chat answers, so it is used"));
        }
        Err(e) if e.contains("HTTP 404") => {
            rows.push(row(header, required(needed), format!("answers HTTP 404 (wrong base URL?): {e}")));
            return;
        }
        Err(e) => {
            let fix = format!("{START_THE_SERVER}, or research without a model: `--reasoner builtin`");
            rows.push(row(header, required(needed), format!("unreachable: {e}\n  fix: {fix}")));
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
    for (mode, result) in r.modes.iter().filter(|(m, _)| *m != StructuredMode::JsonSchema) {
        let (status, detail) = match result {
            Ok(()) if *mode == StructuredMode::OllamaFormat => {
                (Status::Ok, "the reply matched the schema given in Ollama's `format`".to_string())
            }
            Ok(()) => (Status::Ok, "the reply matched the schema given in the prompt".to_string()),
            // Optional: only Ollama has it, and json_object serves the rest.
            Err(e) if *mode == StructuredMode::OllamaFormat => (Status::Skip, e.clone()),
            Err(e) => (Status::Warn, e.clone()),
        };
        rows.push(row(format!("  {} output", mode.as_str()), status, detail));
    }
    if !r.modes.is_empty() {
        match r.chosen {
            Some(m) => rows.push(row("  structured output used", Status::Ok, m.as_str())),
            None => rows.push(row(
                "  structured output used",
                Status::Warn,
                "no mode gave valid JSON: phases will fall back to the built-in reasoning",
            )),
        }
    }
    if r.drops_system {
        rows.push(row(
            "  system prompt",
            Status::Warn,
            "the model ignored an instruction given as a system message; set [llm] fold_system_prompt = true",
        ));
    }
    match &r.round_trip {
        Ok(d) => rows.push(row("  chat round trip", Status::Ok, ms(*d))),
        Err(e) => rows.push(row("  chat round trip", required(needed), e.clone())),
    }
}

/// The `[opensearch]` cluster's rows, when one is configured or a chain
/// names it: a failure is required only when a chain uses the cluster.
async fn cluster_rows(setup: &setup::Setup, query: &str, rows: &mut Vec<Row>) {
    use crate::search::opensearch::{CheckStatus, check_cluster};
    let cfg = &setup.config.opensearch;
    let used = setup.config.search.chains.iter().flatten().any(|p| p == "opensearch");
    if !cfg.is_configured() && !used {
        return;
    }
    let header = rows.len();
    rows.push(row(format!("opensearch `{}`", cfg.index), Status::Ok, cfg.url.join(", ")));
    let checks = check_cluster(cfg, query).await;
    let mut failed = false;
    for c in checks {
        let status = match c.status {
            CheckStatus::Ok => Status::Ok,
            CheckStatus::Warn => Status::Warn,
            CheckStatus::Fail => {
                failed = true;
                required(used)
            }
        };
        rows.push(row(format!("  {}", c.name), status, c.detail));
    }
    if failed {
        rows[header].status = required(used);
    }
}

fn print_table(rows: &[Row]) {
    let width = rows.iter().map(|r| r.check.chars().count()).max().unwrap_or(10).max(5) + 2;
    println!("{:<width$}{:<8}DETAIL", "CHECK", "STATUS");
    for r in rows {
        let check = sanitize_inline(&r.check);
        let mut lines = r.detail.lines();
        println!("{check:<width$}{:<8}{}", r.status.label(), sanitize_inline(lines.next().unwrap_or("")));
        // A fix goes on its own line, under the detail.
        for more in lines {
            println!("{:<width$}{:<8}{}", "", "", sanitize_inline(more));
        }
    }
}
