//! Fuzzing the configuration (issue 25 item 8, issue 27 item 15): every key
//! of the configuration given a value of another type, a value out of
//! range, control characters, an unknown neighbour, or a list where a
//! table goes. Each such file is either refused at load with an error that
//! names the file, the line and the key and says what is expected in words
//! (never a Rust type, never a raw control character), or it is a working
//! configuration: the builder turns it into parts, or refuses with an
//! error naming a key. Nothing is accepted silently and then fails deep
//! in a library ("builder error").
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;

use sleuth::builder::Runtime;
use sleuth::config::{Config, Overrides, load};
use sleuth::paths::Paths;

/// Every leaf key of the default configuration (with one sample entry in
/// each table of user-named entries), and its default value.
fn leaves() -> Vec<(Vec<String>, toml::Value)> {
    let mut v = toml::Value::try_from(Config::default()).unwrap();
    let t = v.as_table_mut().unwrap();
    let limits = toml::toml! { max_iterations = 3
    max_queries = 3
    max_sources = 3
    time_limit_secs = 60
    cost_budget_usd = 1.0
    token_budget = 1000 };
    t.insert("limits".into(), toml::Value::Table(limits));
    let tiers = toml::toml! { [ "example.org" ]
    tier = 2 };
    t.insert("source_tiers".into(), toml::Value::Table(tiers));
    let mut out = Vec::new();
    walk(&v, &mut Vec::new(), &mut out);
    out
}

fn walk(v: &toml::Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, toml::Value)>) {
    match v {
        toml::Value::Table(t) if !t.is_empty() => {
            for (k, x) in t {
                path.push(k.clone());
                walk(x, path, out);
                path.pop();
            }
        }
        other => out.push((path.clone(), other.clone())),
    }
}

/// `path = value` as a TOML file.
fn file_with(path: &[String], value: &toml::Value) -> String {
    let (last, parents) = path.split_last().unwrap();
    let value = toml::Value::Table(toml::Table::from_iter([(last.clone(), value.clone())]));
    let mut root = value;
    for p in parents.iter().rev() {
        root = toml::Value::Table(toml::Table::from_iter([(p.clone(), root)]));
    }
    toml::to_string(&root).unwrap()
}

/// Values of the wrong type, out of range, or with control characters,
/// for a key whose default is `default`.
fn bad_values(default: &toml::Value) -> Vec<(String, toml::Value)> {
    let mut out = vec![("a table".to_string(), toml::Value::Table(toml::toml! { a = 1 }))];
    match default {
        toml::Value::Integer(_) | toml::Value::Float(_) => {
            out.push(("text".into(), toml::Value::String("many".into())));
            out.push(("a negative number".into(), toml::Value::Integer(-3)));
            out.push(("a huge number".into(), toml::Value::Float(1e15)));
            out.push(("a fraction".into(), toml::Value::Float(0.5)));
            out.push(("a list".into(), toml::Value::Array(vec![toml::Value::Integer(1)])));
        }
        toml::Value::String(s) => {
            out.push(("a number".into(), toml::Value::Integer(5)));
            out.push(("a bell".into(), toml::Value::String(format!("{s}\u{7}x"))));
            out.push(("an escape sequence".into(), toml::Value::String("\u{1b}[31mred".into())));
            out.push(("true".into(), toml::Value::Boolean(true)));
        }
        toml::Value::Boolean(_) => {
            out.push(("text".into(), toml::Value::String("yes".into())));
            out.push(("a number".into(), toml::Value::Integer(1)));
        }
        toml::Value::Array(items) => {
            out.push(("text".into(), toml::Value::String("one".into())));
            out.push(("a number".into(), toml::Value::Integer(1)));
            let mut longer = items.clone();
            longer.extend(items.iter().cloned());
            longer.push(items.first().cloned().unwrap_or(toml::Value::Integer(1)));
            out.push(("a longer list".into(), toml::Value::Array(longer)));
            out.push(("a list of tables".into(), toml::Value::Array(vec![toml::Value::Table(toml::Table::new())])));
        }
        toml::Value::Table(_) => {
            out.push(("a list".into(), toml::Value::Array(vec![toml::Value::Integer(1), toml::Value::Integer(2)])));
            out.push(("a number".into(), toml::Value::Integer(1)));
        }
        toml::Value::Datetime(_) => {}
    }
    out
}

/// Words a user should never have to read.
const RUST_WORDS: [&str; 14] = [
    "f64",
    "f32",
    "u8",
    "u16",
    "u32",
    "u64",
    "usize",
    "i64",
    "isize",
    "struct ",
    "Option<",
    "Vec<",
    "path string",
    "builder error",
];

fn check_message(case: &str, message: &str, file: &Path, key: &str) {
    let words: Vec<&str> = message.split(|c: char| !(c.is_alphanumeric() || c == '<' || c == ' ')).collect();
    for w in RUST_WORDS {
        let hit = if w.contains(' ') || w.contains('<') {
            message.contains(w)
        } else {
            words.iter().any(|x| x.split(' ').any(|y| y == w))
        };
        assert!(!hit, "{case}: a Rust type in the message ({w}): {message}");
    }
    assert!(!message.chars().any(|c| c.is_control() && c != '\n'), "{case}: a control character printed: {message:?}");
    assert!(message.contains(&file.display().to_string()), "{case}: the file is not named: {message}");
    assert!(message.contains("line "), "{case}: no line: {message}");
    let first = key.split('.').next().unwrap();
    assert!(message.contains(first), "{case}: the key ({key}) is not named: {message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_key_given_a_bad_value_is_refused_clearly_or_works() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let corpus = tmp.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(corpus.join("tides.md"), "# Tides\n\nThe moon's pull raises the tides twice a day.\n").unwrap();
    let file = tmp.path().join("config.toml");
    let (mut refused, mut built, mut refused_at_build) = (0, 0, 0);
    let leaves = leaves();
    assert!(leaves.len() > 150, "{} keys", leaves.len());
    for (path, default) in &leaves {
        let key = path.join(".");
        let mut cases: Vec<(String, String)> = bad_values(default)
            .into_iter()
            .map(|(what, value)| (format!("{key} = {what}"), file_with(path, value_ref(&value))))
            .collect();
        // An unknown key beside it.
        let mut near = path.clone();
        *near.last_mut().unwrap() = format!("{}x", path.last().unwrap());
        cases.push((format!("{key} misspelt"), file_with(&near, &toml::Value::Integer(1))));
        for (case, text) in cases {
            std::fs::write(&file, &text).unwrap();
            match load(Some(&file), &file, Vec::<(String, String)>::new(), &Overrides::default()) {
                Err(e) => {
                    refused += 1;
                    check_message(&case, &e.to_string(), &file, &key);
                }
                Ok((mut config, _)) => {
                    config.local.corpus = Some(corpus.clone());
                    config.local.index_dir = Some(tmp.path().join("index"));
                    match Runtime::build(config, Paths::under(&home), &|_| {}).await {
                        Ok(_) => {
                            built += 1;
                            if std::env::var_os("SLEUTH_FUZZ_SHOW").is_some() {
                                eprintln!("accepted: {case}");
                            }
                        }
                        Err(e) => {
                            refused_at_build += 1;
                            let m = e.to_string();
                            assert!(!m.contains("builder error"), "{case}: {m}");
                            assert!(!m.chars().any(|c| c.is_control() && c != '\n'), "{case}: {m:?}");
                        }
                    }
                }
            }
        }
    }
    eprintln!("{refused} refused at load, {built} built, {refused_at_build} refused by the builder");
    assert!(refused > 500, "{refused}");
}

fn value_ref(v: &toml::Value) -> &toml::Value {
    v
}

/// The same values through an environment variable and a `--set` flag:
/// the error names the variable or the flag and says what is expected.
#[test]
fn bad_values_from_the_environment_and_flags_are_named_in_words() {
    let mut checked = 0;
    for (path, default) in leaves().iter().step_by(7) {
        let key = path.join(".");
        for (what, value) in bad_values(default) {
            if value.is_table() {
                continue;
            }
            let raw = match &value {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let var = format!("SLEUTH__{}", path.iter().map(|p| p.to_uppercase()).collect::<Vec<_>>().join("__"));
            let env = vec![(var.clone(), raw.clone())];
            let mut flags = Overrides::default();
            flags.parse_set(&format!("{key}={}", value)).unwrap();
            for (layer, result) in [
                ("env", load(None, Path::new("/none"), env, &Overrides::default())),
                ("flag", load(None, Path::new("/none"), Vec::<(String, String)>::new(), &flags)),
            ] {
                let Err(e) = result else { continue };
                let m = e.to_string();
                let case = format!("{layer} {key} = {what}");
                assert!(m.contains(if layer == "env" { var.as_str() } else { "--set" }), "{case}: {m}");
                assert!(!m.chars().any(|c| c.is_control()), "{case}: {m:?}");
                for w in ["f64", "u32", "u64", "usize", "struct ", "path string"] {
                    assert!(!m.contains(w), "{case}: {m}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 80, "{checked}");
}
