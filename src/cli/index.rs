//! `sleuth index [PATH]`: build or update a local corpus index (or, with
//! `--to opensearch`, the cluster's), with progress on stderr and a
//! summary on stdout.

use super::args::{IndexArgs, IndexTarget};
use super::{exit, setup};
use crate::search::local::{self, index_folder};

pub async fn execute(global: &super::GlobalArgs, args: IndexArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global)?;
    if args.to == IndexTarget::Opensearch {
        return to_cluster(&setup, &args).await;
    }
    let mut cfg = setup.config.local.clone();
    let index_root = local::index_root(&cfg, &setup.paths);
    if args.rebuild {
        let root = match &args.path {
            Some(p) => std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()),
            None => local::corpus_root(&cfg)?,
        };
        local::remove_index(&index_root, &root)?;
    }
    let path = args.path.clone();
    let configured = cfg.corpus.clone();
    cfg.corpus = path.clone().or(configured.clone());
    let (root, summary) = tokio::task::spawn_blocking(move || {
        let progress = |line: &str| eprintln!("{line}");
        index_folder(&cfg, &index_root, path.as_deref(), &progress)
    })
    .await??;
    println!("indexed {}\n{}", root.display(), summary.describe());
    let is_configured = match &configured {
        Some(c) => std::fs::canonicalize(c).is_ok_and(|c| c == root),
        None => {
            args.path.is_none()
                || local::default_corpus().is_ok_and(|d| std::fs::canonicalize(d).is_ok_and(|d| d == root))
        }
    };
    if !is_configured {
        eprintln!(
            "to research this folder, set `[local] corpus = \"{0}\"` in the config file, or run\n  sleuth run --set local.corpus={0} \"your question\"",
            root.display()
        );
    }
    Ok(exit::OK)
}

/// `--to opensearch`: the same walk and extraction, loaded into the cluster.
async fn to_cluster(setup: &setup::Setup, args: &IndexArgs) -> anyhow::Result<u8> {
    let cfg = &setup.config.opensearch;
    if !cfg.is_configured() {
        anyhow::bail!(
            "`--to opensearch` needs a cluster: set `[opensearch] url` (and `index`) in the config file, \
             or pass `--set opensearch.url=http://localhost:9200`"
        );
    }
    if args.rebuild {
        anyhow::bail!(
            "`--rebuild` applies to the local index; to rebuild the cluster's, delete its index and run again"
        );
    }
    let root = match &args.path {
        Some(p) => std::fs::canonicalize(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?,
        None => local::corpus_root(&setup.config.local)?,
    };
    let progress = |line: &str| eprintln!("{line}");
    let summary = crate::search::opensearch::index_folder(cfg, &setup.config.local, &root, &progress).await?;
    println!("indexed {} into {} (opensearch)\n{}", root.display(), cfg.index, summary.describe());
    Ok(if summary.bulk.failed.is_empty() { exit::OK } else { exit::ERROR })
}
