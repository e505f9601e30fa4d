//! `sleuth doctor`'s search rows: each chain the configuration searches,
//! each of its providers probed with one query (a failure below a chain
//! that still answers is a warning: the others are its fallbacks), every
//! keyless provider listed whether used or not, and, under a failure, the
//! fix.

use std::time::Duration;

use super::doctor::{Row, Status, row};
use super::setup::Setup;
use crate::builder::Providers;
use crate::search::scholarly::{self, ScholarlyConfig};
use crate::search::{ProviderError, SearchQuery};

/// The probe sent to providers other than the local corpus.
const GENERAL_QUERY: &str = "boiling point of water";

/// The query each provider is probed with: `--query`, else for the local
/// corpus a title from the corpus itself, else a general question.
pub struct Probe {
    pub given: Option<String>,
    pub corpus: Option<String>,
}

impl Probe {
    fn for_provider(&self, name: &str) -> String {
        match (&self.given, name) {
            (Some(q), _) => q.clone(),
            (None, "local") => self.corpus.clone().unwrap_or_else(|| GENERAL_QUERY.into()),
            (None, _) => GENERAL_QUERY.into(),
        }
    }
}

pub async fn search_rows(setup: &Setup, query: Option<&str>, rows: &mut Vec<Row>) {
    let providers = Providers::new(&setup.config, &setup.paths);
    let chains = &setup.config.search.chains;
    let uses_local = chains.iter().flatten().any(|p| p == "local");
    let corpus = if uses_local && query.is_none() {
        providers.corpus(&super::setup::progress).ok().and_then(|c| c.sample_query())
    } else {
        None
    };
    let probe = Probe { given: query.map(str::to_string), corpus };
    let scholarly_cfg = setup.config.scholarly();
    for (i, chain) in chains.iter().enumerate() {
        let chain_row = rows.len();
        rows.push(row(format!("search chain {}", i + 1), Status::Fail, chain.join(" → ")));
        let mut any_ok = false;
        let mut chain_rows = Vec::new();
        for name in chain {
            let check = format!("  provider {name}");
            let provider = match providers.build(name, &super::setup::progress) {
                Ok(p) => p,
                Err(e) => {
                    chain_rows.push(row(check, Status::Fail, e.to_string()));
                    continue;
                }
            };
            let text = probe.for_provider(name);
            let q = SearchQuery { text: text.clone(), exclude: Vec::new(), limit: 3 };
            let started = std::time::Instant::now();
            match tokio::time::timeout(Duration::from_secs(30), provider.search(&q)).await {
                Err(_) => {
                    let fix = fix_for(name, &scholarly_cfg, &setup.config.web, None);
                    chain_rows.push(row(check, Status::Fail, format!("no answer within 30 s{fix}")));
                }
                Ok(Err(e)) => {
                    let fix = fix_for(name, &scholarly_cfg, &setup.config.web, Some(&e));
                    chain_rows.push(row(check, Status::Fail, format!("{e}{fix}")));
                }
                Ok(Ok(hits)) => {
                    any_ok = true;
                    let status = if hits.is_empty() { Status::Warn } else { Status::Ok };
                    let took = started.elapsed().as_millis();
                    let detail = format!("{} for \"{text}\" in {took} ms", plural(hits.len(), "hit"));
                    chain_rows.push(row(check, status, detail));
                }
            }
        }
        // A chain works when one of its providers does; the others are
        // fallbacks. A failed chain is one failure, however many of its
        // providers failed: the chain row counts, its provider rows explain.
        if any_ok {
            rows[chain_row].status = Status::Ok;
        } else {
            rows[chain_row].detail = format!("{}: no provider answered", chain.join(" → "));
        }
        for mut r in chain_rows {
            if r.status == Status::Fail {
                if any_ok {
                    r.status = Status::Warn;
                } else {
                    r.counted = false;
                }
            }
            rows.push(r);
        }
    }
    keyless_rows(setup, rows);
}

/// The keyless providers this configuration does not search, and the
/// switch that turns each on (the searched ones have their rows above).
fn keyless_rows(setup: &Setup, rows: &mut Vec<Row>) {
    let used: Vec<&String> = setup.config.search.chains.iter().flatten().collect();
    let cfg = setup.config.scholarly();
    let unused: Vec<&&str> = scholarly::NAMES.iter().filter(|n| !used.iter().any(|u| u.as_str() == **n)).collect();
    if !unused.is_empty() {
        rows.push(row("keyless sources", Status::Skip, "not searched now; they need no key and no setup"));
    }
    for name in unused {
        let base = scholarly::base_url(name, &cfg).unwrap_or_default();
        let how = if *name == "wikipedia" { "--sources web" } else { "--sources academic" };
        rows.push(row(format!("  {name}"), Status::Skip, format!("`{how}` searches {base}")));
    }
    let wants_contact = used.iter().any(|u| matches!(u.as_str(), "wikipedia" | "openalex"));
    if wants_contact && setup.config.web.contact_email.is_none() {
        rows.push(row(
            "contact address",
            Status::Warn,
            "none set: Wikimedia's User-Agent policy and OpenAlex's polite pool ask for one\n  fix: set [web] contact_email = \"you@example.org\"",
        ));
    }
}

/// What to do about a failed probe of provider `name`.
fn fix_for(
    name: &str,
    cfg: &ScholarlyConfig,
    web: &crate::search::web::WebConfig,
    e: Option<&ProviderError>,
) -> String {
    let Some(base) = scholarly::base_url(name, cfg) else { return String::new() };
    let offline = "or leave it out (`--sources local` searches the local corpus, offline)";
    let message = e.map(ToString::to_string).unwrap_or_default();
    let key_env = match name {
        "openalex" => Some(&cfg.openalex.api_key_env),
        "semanticscholar" => Some(&cfg.semanticscholar.api_key_env),
        _ => None,
    };
    let fix = if message.contains("HTTP 429") || message.contains("HTTP 403") && name == "openalex" {
        match key_env {
            Some(var) => format!("rate limited: wait a minute, or export an API key in {var} (free)"),
            None => "rate limited: wait a minute and try again".to_string(),
        }
    } else if message.contains("HTTP 403") && name == "wikipedia" && web.contact_email.is_none() {
        "Wikimedia refuses anonymous clients: set [web] contact_email".to_string()
    } else if message.contains("HTTP 4") || message.contains("unexpected answer") {
        format!("{base} did not answer as the {name} API: check [{name}] base_url (documented: {})", documented(name))
    } else {
        format!("cannot reach {base}: check the network or proxy, or set [{name}] base_url to a mirror, {offline}")
    };
    format!("\n  fix: {fix}")
}

fn documented(name: &str) -> &'static str {
    scholarly::documented(name).map_or("", |d| d.base_url)
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}
