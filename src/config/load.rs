//! Reading and layering the configuration, with errors that name the file,
//! the line and the key (or the environment variable, or the flag).

use std::fmt;
use std::path::{Path, PathBuf};

use super::Config;
use super::explain::{self, shown};
use super::validate::{Invalid, validate};

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    File(PathBuf),
    Env(String),
    Flag(String),
}

/// Settings given on the command line, as dotted keys with TOML values.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    entries: Vec<(String, toml::Value, String)>,
}

impl Overrides {
    /// A typed flag (`--preset deep` → `research.preset = "deep"`).
    pub fn set(&mut self, key: &str, value: impl Into<toml::Value>, flag: &str) {
        self.entries.push((key.to_string(), value.into(), flag.to_string()));
    }

    /// A `--set key=value` argument; the value is read as TOML, falling back
    /// to a string.
    pub fn parse_set(&mut self, arg: &str) -> Result<(), ConfigError> {
        let Some((key, raw)) = arg.split_once('=') else {
            return Err(ConfigError::Flag {
                flag: format!("--set {arg}"),
                message: "expected key=value, e.g. --set decide.confidence_threshold=0.9".into(),
            });
        };
        self.entries.push((key.trim().to_string(), parse_value(raw.trim()), format!("--set {arg}")));
        Ok(())
    }
}

impl Overrides {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// These flags layered over `base` instead of over a file: a resumed
    /// or forked session continues under its recorded configuration, and
    /// the flags given to that command still win.
    pub fn apply_to(&self, base: &Config) -> Result<Config, ConfigError> {
        let recorded = |message: String| ConfigError::Flag { flag: "recorded configuration".into(), message };
        let mut table = toml::Table::try_from(base).map_err(|e| recorded(e.to_string()))?;
        for (key, value, flag) in &self.entries {
            insert(&mut table, key, value.clone())
                .and_then(|_| check(&table, key))
                .map_err(|message| ConfigError::Flag { flag: flag.clone(), message })?;
        }
        let cfg: Config =
            explain::parse(&table).map_err(|inv| recorded(format!("key `{}`: {}", inv.key, inv.message)))?;
        match validate(&cfg).first() {
            Some(inv) => {
                let flag = self
                    .entries
                    .iter()
                    .rev()
                    .find(|(k, ..)| inv.key.starts_with(k.as_str()) || k.starts_with(&inv.key));
                Err(ConfigError::Flag {
                    flag: flag.map_or_else(|| inv.key.clone(), |(.., f)| f.clone()),
                    message: inv.message.clone(),
                })
            }
            None => Ok(cfg),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("{}", file_error(path, *line, key.as_deref(), message))]
    File { path: PathBuf, line: Option<usize>, key: Option<String>, message: String },
    #[error("environment variable {var}: {}; fix or unset it", shown(message))]
    Env { var: String, message: String },
    #[error("{}: {}", shown(flag), shown(message))]
    Flag { flag: String, message: String },
}

fn file_error(path: &Path, line: Option<usize>, key: Option<&str>, message: &str) -> String {
    let mut s = format!("config error in {}", path.display());
    if let Some(line) = line {
        s.push_str(&format!(", line {line}"));
    }
    if let Some(key) = key {
        s.push_str(&format!(", key `{}`", shown(key)));
    }
    s.push_str(&format!(
        ": {}\n  fix the value, or remove the line to use the default (every key is documented in config.toml.example)",
        shown(message)
    ));
    s
}

/// The dotted key whose value sits at byte `at` of a TOML text: the key of
/// that line within the `[table]` above it. For errors toml reports by
/// position only (a wrong type, an unknown variant).
fn key_at(text: &str, at: usize) -> Option<String> {
    let line_start = text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next()?;
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('#') || key.starts_with('[') {
        return None;
    }
    let table = text[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key.to_string(),
    })
}

/// Loads the configuration. `explicit` is `--config` (must exist);
/// otherwise `default_file` is read if it exists. `env` is the process
/// environment (only `SLEUTH__…` variables are read).
pub fn load(
    explicit: Option<&Path>,
    default_file: &Path,
    env: impl IntoIterator<Item = (String, String)>,
    flags: &Overrides,
) -> Result<(Config, Option<PathBuf>), ConfigError> {
    let path = match explicit {
        Some(p) => {
            if !p.exists() {
                return Err(ConfigError::Read { path: p.to_path_buf(), message: "no such file".into() });
            }
            Some(p.to_path_buf())
        }
        None => default_file.exists().then(|| default_file.to_path_buf()),
    };
    let (mut table, text) = match &path {
        None => (toml::Table::new(), String::new()),
        Some(p) => {
            let text = read_capped(p)?;
            // The file alone first: its errors are the file's, with a line.
            let table: toml::Table = toml::from_str(&text).map_err(|e| {
                let line = e.span().map(|s| line_of(&text, s.start));
                let key = e.span().and_then(|s| key_at(&text, s.start));
                ConfigError::File { path: p.clone(), line, key, message: shown(e.message().trim()) }
            })?;
            let cfg = explain::parse(&table).map_err(|inv| file_invalid(p, &text, &inv))?;
            report_invalid(&validate(&cfg), |inv| file_invalid(p, &text, inv))?;
            (table, text)
        }
    };

    let mut origins: Vec<(String, ConfigSource)> = Vec::new();
    let mut env: Vec<(String, String)> = env.into_iter().filter(|(k, _)| k.starts_with("SLEUTH__")).collect();
    env.sort();
    for (var, raw) in env {
        let key = var["SLEUTH__".len()..].split("__").map(str::to_lowercase).collect::<Vec<_>>().join(".");
        insert(&mut table, &key, parse_value(&raw))
            .and_then(|_| check(&table, &key))
            .map_err(|message| ConfigError::Env { var: var.clone(), message })?;
        origins.push((key, ConfigSource::Env(var)));
    }
    for (key, value, flag) in &flags.entries {
        insert(&mut table, key, value.clone())
            .and_then(|_| check(&table, key))
            .map_err(|message| ConfigError::Flag { flag: flag.clone(), message })?;
        origins.push((key.clone(), ConfigSource::Flag(flag.clone())));
    }
    // Every layer was checked as it was added: this cannot fail but by a bug.
    let cfg: Config = explain::parse(&table).map_err(|inv| ConfigError::Flag {
        flag: "configuration".into(),
        message: format!("key `{}`: {}", inv.key, inv.message),
    })?;
    let cfg = cfg.with_sources_resolved();
    let invalid = validate(&cfg);
    report_invalid(&invalid, |inv| {
        match origins.iter().rev().find(|(k, _)| inv.key.starts_with(k.as_str()) || k.starts_with(&inv.key)) {
            Some((_, ConfigSource::Env(var))) => ConfigError::Env { var: var.clone(), message: inv.message.clone() },
            Some((_, ConfigSource::Flag(flag))) => {
                ConfigError::Flag { flag: flag.clone(), message: inv.message.clone() }
            }
            _ => match &path {
                Some(p) => file_invalid(p, &text, inv),
                None => ConfigError::Flag { flag: inv.key.clone(), message: inv.message.clone() },
            },
        }
    })?;
    Ok((cfg, path))
}

/// A config file larger than this is refused (`--config /dev/zero` must
/// not read forever): real ones are a few KiB.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

fn read_capped(path: &Path) -> Result<String, ConfigError> {
    use crate::files::FileError;
    let read_err = |message: String| ConfigError::Read { path: path.to_path_buf(), message };
    match crate::files::read_text_capped(path, MAX_CONFIG_BYTES) {
        Ok(text) => Ok(text),
        Err(FileError::TooLarge { .. }) => Err(read_err(format!(
            "larger than {} MiB; a config file is a few lines of TOML (is this the right file?)",
            MAX_CONFIG_BYTES / (1024 * 1024)
        ))),
        Err(FileError::NotRegular { what, .. }) => {
            Err(read_err(format!("it is {what}, not a file; give the path of a TOML file")))
        }
        Err(FileError::Io { source, .. }) => Err(read_err(source.to_string())),
    }
}

fn report_invalid(invalid: &[Invalid], to_error: impl Fn(&Invalid) -> ConfigError) -> Result<(), ConfigError> {
    match invalid.first() {
        Some(inv) => Err(to_error(inv)),
        None => Ok(()),
    }
}

fn file_invalid(path: &Path, text: &str, inv: &Invalid) -> ConfigError {
    ConfigError::File {
        path: path.to_path_buf(),
        line: locate(text, &inv.key),
        key: Some(inv.key.clone()),
        message: inv.message.clone(),
    }
}

/// Checks that the table still makes a configuration after `key` was set,
/// naming the problem (and the key, when another than `key`) if not.
fn check(table: &toml::Table, key: &str) -> Result<(), String> {
    match explain::parse(table) {
        Ok(_) => Ok(()),
        Err(inv) if inv.key == key => Err(inv.message),
        Err(inv) => Err(format!("key `{}`: {}", inv.key, inv.message)),
    }
}

fn insert(table: &mut toml::Table, dotted: &str, value: toml::Value) -> Result<(), String> {
    let parts: Vec<&str> = dotted.split('.').filter(|p| !p.is_empty()).collect();
    let Some((last, parents)) = parts.split_last() else {
        return Err("empty key".into());
    };
    let mut t = table;
    for p in parents {
        let entry = t.entry(p.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry.as_table_mut().ok_or_else(|| format!("`{p}` is not a section"))?;
    }
    t.insert(last.to_string(), value);
    Ok(())
}

fn parse_value(raw: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].bytes().filter(|b| *b == b'\n').count() + 1
}

/// The 1-based line where a dotted key is set in a TOML text.
pub(crate) fn locate(text: &str, dotted: &str) -> Option<usize> {
    let want: Vec<&str> = dotted.split('.').collect();
    let mut header: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with('#') || l.is_empty() {
            continue;
        }
        if let Some(h) = l.strip_prefix('[') {
            let h = h.trim_start_matches('[').split(']').next().unwrap_or("");
            header = h.split('.').map(|s| s.trim().trim_matches('"').to_string()).collect();
            if header == want {
                return Some(i + 1);
            }
            continue;
        }
        let Some((k, _)) = l.split_once('=') else { continue };
        let mut full = header.clone();
        full.extend(k.split('.').map(|s| s.trim().trim_matches('"').to_string()));
        let n = full.len().min(want.len());
        if full.len() <= want.len() && full[..n] == want[..n] {
            return Some(i + 1);
        }
    }
    None
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigSource::File(p) => write!(f, "{}", p.display()),
            ConfigSource::Env(v) => write!(f, "${v}"),
            ConfigSource::Flag(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Preset;

    fn write(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(&p, text).unwrap();
        (dir, p)
    }

    fn no_env() -> Vec<(String, String)> {
        Vec::new()
    }

    #[test]
    fn defaults_without_a_file() {
        let (cfg, used) = load(None, Path::new("/nonexistent/config.toml"), no_env(), &Overrides::default()).unwrap();
        assert_eq!(cfg, Config::default());
        assert_eq!(used, None);
    }

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let (_d, p) = write("[decide]\nconfidence_threshold = 0.9\nconfidense = 1\n");
        let err = load(Some(&p), &p, no_env(), &Overrides::default()).unwrap_err().to_string();
        assert!(err.contains("line 3"), "{err}");
        assert!(err.contains("`confidense`"), "{err}");
        assert!(err.contains("config.toml"), "{err}");
    }

    #[test]
    fn bad_type_names_the_line_and_key() {
        let (_d, p) = write("[research]\npreset = \"enormous\"\n");
        let err = load(Some(&p), &p, no_env(), &Overrides::default()).unwrap_err().to_string();
        assert!(err.contains("line 2, key `research.preset`"), "{err}");
        let (_d, p) = write("# x = 1\n[decide]\nconfidence_threshold = \"high\"\n[local]\nmax_file_mb = -3\n");
        let err = load(Some(&p), &p, no_env(), &Overrides::default()).unwrap_err().to_string();
        assert!(err.contains("line 3, key `decide.confidence_threshold`"), "{err}");
    }

    #[test]
    fn key_at_reads_the_key_and_its_table() {
        let text = "top = 1\n[llm.pricing]\n\"gpt-4o\" = { input = 1 }\n[web]\nurl = \"x\"\n";
        assert_eq!(key_at(text, text.find('1').unwrap()).as_deref(), Some("top"));
        assert_eq!(key_at(text, text.find("{ input").unwrap()).as_deref(), Some("llm.pricing.gpt-4o"));
        assert_eq!(key_at(text, text.find("\"x\"").unwrap()).as_deref(), Some("web.url"));
        assert_eq!(key_at(text, text.find("[web]").unwrap()), None);
    }

    #[test]
    fn out_of_range_value_names_line_and_key() {
        let (_d, p) = write("# thresholds\n[decide]\n\nconfidence_threshold = 1.5\n");
        let err = load(Some(&p), &p, no_env(), &Overrides::default()).unwrap_err().to_string();
        assert!(err.contains("line 4"), "{err}");
        assert!(err.contains("decide.confidence_threshold"), "{err}");
    }

    #[test]
    fn layers_file_then_env_then_flags() {
        let (_d, p) = write("[research]\npreset = \"simple\"\n[decide]\ncoverage_threshold = 0.5\n");
        let env = vec![
            ("SLEUTH__DECIDE__COVERAGE_THRESHOLD".to_string(), "0.6".to_string()),
            ("SLEUTH__RESEARCH__PRESET".to_string(), "deep".to_string()),
            ("UNRELATED".to_string(), "x".to_string()),
        ];
        let mut flags = Overrides::default();
        flags.set("research.preset", "standard", "--preset standard");
        let (cfg, _) = load(Some(&p), &p, env, &flags).unwrap();
        assert_eq!(cfg.decide.coverage_threshold, 0.6);
        assert_eq!(cfg.research.preset, Preset::Standard);
    }

    #[test]
    fn bad_env_var_is_named() {
        let env = vec![("SLEUTH__DECIDE__NOPE".to_string(), "1".to_string())];
        let err = load(None, Path::new("/none"), env, &Overrides::default()).unwrap_err().to_string();
        assert!(err.contains("SLEUTH__DECIDE__NOPE"), "{err}");
    }

    #[test]
    fn bad_set_flag_is_named() {
        let mut flags = Overrides::default();
        flags.parse_set("search.concurrency=0").unwrap();
        let err = load(None, Path::new("/none"), no_env(), &flags).unwrap_err().to_string();
        assert!(err.contains("--set search.concurrency=0"), "{err}");
        assert!(Overrides::default().parse_set("novalue").is_err());
    }

    #[test]
    fn flags_apply_over_a_recorded_configuration() {
        let mut base = Config::default();
        base.research.preset = Preset::Deep;
        base.decide.coverage_threshold = 0.5;
        let mut flags = Overrides::default();
        flags.parse_set("decide.confidence_threshold=0.7").unwrap();
        let cfg = flags.apply_to(&base).unwrap();
        assert_eq!(cfg.research.preset, Preset::Deep);
        assert_eq!(cfg.decide.coverage_threshold, 0.5);
        assert_eq!(cfg.decide.confidence_threshold, 0.7);
        let mut bad = Overrides::default();
        bad.parse_set("decide.confidence_threshold=3").unwrap();
        let err = bad.apply_to(&base).unwrap_err().to_string();
        assert!(err.contains("--set decide.confidence_threshold=3"), "{err}");
    }

    #[test]
    fn locate_handles_headers_and_dotted_keys() {
        let text = "a = 1\n[evaluate]\nweights.coverage = 2\n[evaluate.weights]\nrecency = 3\n";
        assert_eq!(locate(text, "evaluate.weights.coverage"), Some(3));
        assert_eq!(locate(text, "evaluate.weights.recency"), Some(5));
        assert_eq!(locate(text, "a"), Some(1));
    }
}
