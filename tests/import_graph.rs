//! The import check: reads every `crate::…` path under `src/` (the `use
//! crate::` lines and paths written inline), folds them into a graph of
//! top-level modules, and fails on a cycle or on an import against the
//! layers (ARCHITECTURE.md): entry points > the session service
//! (`research`) > builder > config > adapters > engine > the helpers below
//! all. Runs in CI with the other tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The layer of each top-level module; a module may import its own layer's
/// siblings only where listed in `SIDEWAYS`, and any lower layer.
const LAYERS: &[(&str, u8)] = &[
    ("text", 0),
    ("paths", 0),
    ("files", 0),
    ("resilience", 0),
    ("tls", 0),
    ("engine", 1),
    ("builtin", 2),
    ("llm", 2),
    ("search", 2),
    ("session", 2),
    ("config", 3),
    ("verify", 3),
    ("builder", 4),
    ("research", 5),
    ("cli", 6),
    ("tui", 6),
    ("serve", 6),
    ("mcp", 6),
];

/// Imports within a layer that are allowed, one way only: the built-in
/// reasoner reads the local corpus's statistics and stems words with the
/// index's analyzer (builtin → search); the LLM reasoner reviews without a
/// model through the built-in one (llm → builtin); the CLI starts the TUI,
/// the server and the MCP server. The MCP server and the HTTP server share
/// their jobs through the session service, never one another.
const SIDEWAYS: &[(&str, &str)] =
    &[("builtin", "search"), ("llm", "builtin"), ("cli", "tui"), ("cli", "serve"), ("cli", "mcp")];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

/// Whether a file holds only test code, by the names tests go by here.
fn is_test_file(path: &Path) -> bool {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    stem.ends_with("tests") || stem.ends_with("_test") || stem.starts_with("test_")
}

/// The top-level modules a source text refers to through `crate::`, up to
/// its `#[cfg(test)] mod …` (a test may use a module above its own).
fn imports(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" && lines.peek().is_some_and(|next| next.trim_start().starts_with("mod ")) {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            if let Some(grouped) = after.strip_prefix('{') {
                // `use crate::{a, b::c}`: every group member's first segment.
                let group = grouped.split('}').next().unwrap_or("");
                for item in group.split(',') {
                    let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if !name.is_empty() {
                        found.insert(name);
                    }
                }
            } else {
                let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    found.insert(name);
                }
            }
            rest = after;
        }
    }
    found
}

fn graph_of(src: &Path) -> Graph {
    let mut graph = Graph::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || is_test_file(&path) {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src");
            let first = rel.components().next().expect("a component").as_os_str().to_string_lossy().into_owned();
            let module = first.trim_end_matches(".rs").to_string();
            if module == "lib" || module == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read source");
            let deps = graph.entry(module.clone()).or_default();
            for dep in imports(&text) {
                if dep != module {
                    deps.insert(dep);
                }
            }
        }
    }
    graph
}

/// A cycle of the graph, if it has one (depth-first search).
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(node: &str, graph: &Graph, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

/// Imports that go up a layer (or sideways without being listed).
fn against_layers(graph: &Graph) -> Vec<String> {
    let mut bad = Vec::new();
    for (from, deps) in graph {
        for to in deps {
            match (layer(from), layer(to)) {
                (Some(a), Some(b)) if b < a => {}
                (Some(a), Some(b)) if a == b && SIDEWAYS.contains(&(from.as_str(), to.as_str())) => {}
                (Some(_), Some(_)) => bad.push(format!("{from} imports {to}")),
                _ => bad.push(format!("{from} → {to}: a module not in LAYERS; give it a layer")),
            }
        }
    }
    bad
}

fn src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn the_top_level_modules_import_one_another_without_a_cycle() {
    let graph = graph_of(&src());
    assert!(graph.contains_key("engine") && graph.contains_key("search"), "read the sources: {graph:?}");
    assert_eq!(find_cycle(&graph), None, "module cycle; the graph: {graph:#?}");
}

#[test]
fn every_import_points_down_the_layers() {
    let graph = graph_of(&src());
    let bad = against_layers(&graph);
    assert!(bad.is_empty(), "imports against the layers:\n{}\nthe graph: {graph:#?}", bad.join("\n"));
}

#[test]
fn the_check_finds_a_cycle_and_an_upward_import() {
    let graph: Graph = [
        ("engine".to_string(), BTreeSet::from(["search".to_string()])),
        ("search".to_string(), BTreeSet::from(["engine".to_string()])),
    ]
    .into_iter()
    .collect();
    let cycle = find_cycle(&graph).expect("engine ↔ search");
    assert_eq!(cycle.first(), cycle.last());
    assert_eq!(against_layers(&graph), vec!["engine imports search".to_string()]);
}

#[test]
fn the_entry_points_reach_sessions_through_the_service_and_mcp_never_through_serve() {
    let graph = graph_of(&src());
    for entry in ["cli", "serve", "mcp"] {
        assert!(graph[entry].contains("research"), "{entry} uses the session service: {:?}", graph[entry]);
    }
    assert!(!graph["mcp"].contains("serve"), "mcp imports serve: {:?}", graph["mcp"]);
    assert!(!graph["mcp"].contains("builder"), "mcp builds no parts itself: {:?}", graph["mcp"]);
    let mcp_on_serve: Graph = [("mcp".to_string(), BTreeSet::from(["serve".to_string()]))].into_iter().collect();
    assert_eq!(against_layers(&mcp_on_serve), vec!["mcp imports serve".to_string()]);
}

#[test]
fn imports_are_read_from_use_lines_groups_and_inline_paths() {
    let source = "use crate::engine::ports::Searcher;\nuse crate::{search::SearchRouter, text};\n\
                  fn f() { crate::llm::probe(); } // crate::tui in a comment\n\
                  #[cfg(test)]\nmod tests {\n    use crate::cli::Args;\n}\n";
    let found: Vec<String> = imports(source).into_iter().collect();
    assert_eq!(found, vec!["engine", "llm", "search", "text"]);
}
