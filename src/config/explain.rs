//! Turning a TOML table into a `Config`, with every problem tied to the key
//! that has it and said in words a user reads without knowing Rust: "must
//! be a number between 0 and 1 (got "high")", never "invalid type: string,
//! expected f64". The file, env and flag layers all go through here, so a
//! bad value is blamed on the layer that set it.

use serde_path_to_error::Segment;

use super::Config;
use super::ranges::range_of;
use super::validate::Invalid;

/// `table` as a configuration, or the first key that is wrong and why.
pub fn parse(table: &toml::Table) -> Result<Config, Invalid> {
    if let Some(invalid) = control_characters(table).into_iter().next() {
        return Err(invalid);
    }
    let config: Config = serde_path_to_error::deserialize(toml::Value::Table(table.clone())).map_err(|e| {
        let path: Vec<String> = e.path().iter().map(segment).collect();
        let message = e.inner().message().trim().to_string();
        explain(&path, &message)
    })?;
    if let Some(invalid) = lists_taken_as_tables(table, &config) {
        return Err(invalid);
    }
    Ok(config)
}

fn segment(s: &Segment) -> String {
    match s {
        Segment::Seq { index } => format!("[{index}]"),
        Segment::Map { key } | Segment::Enum { variant: key } => key.clone(),
        Segment::Unknown => "?".into(),
    }
}

/// `evaluate.tier_quality[2]` from its segments.
fn dotted(path: &[String]) -> String {
    let mut out = String::new();
    for p in path {
        if !p.starts_with('[') && !out.is_empty() {
            out.push('.');
        }
        out.push_str(p);
    }
    out
}

/// A deserialisation error of the value at `path`, in words.
fn explain(path: &[String], message: &str) -> Invalid {
    if let Some(field) = between(message, "unknown field `", "`") {
        let mut full = path.to_vec();
        if full.last().map(String::as_str) != Some(field) {
            full.push(field.to_string());
        }
        let expected = backticked(message.split_once("expected").map_or("", |(_, e)| e));
        let hint = match closest(field, &expected) {
            Some(near) => format!("; did you mean `{near}`?"),
            None if expected.is_empty() => String::new(),
            None => format!(" (the keys here are {})", expected.join(", ")),
        };
        return Invalid { key: dotted(&full), message: format!("unknown key `{field}`{hint}") };
    }
    if let Some(field) = between(message, "missing field `", "`") {
        return Invalid { key: dotted(path), message: format!("needs the key `{field}`") };
    }
    let key = dotted(path);
    if let Some(variant) = between(message, "unknown variant `", "`") {
        let options = backticked(message.split_once("expected").map_or("", |(_, e)| e));
        return Invalid {
            key,
            message: format!("must be one of {} (got {})", options.join(", "), shown(&format!("\"{variant}\""))),
        };
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        let got = rest.split(',').next().unwrap_or("").trim();
        let wanted = rest.split("length ").nth(1).map(|n| n.trim().to_string()).or_else(|| default_len(path));
        let want = match wanted {
            Some(n) => format!("a list of {n} values"),
            None => "a shorter list".into(),
        };
        return Invalid { key, message: format!("must be {want} (got {got})") };
    }
    let (got, expected) = match message.split_once(", expected ") {
        Some((unexpected, expected)) => (unexpected, expected),
        None => return Invalid { key, message: shown(message) },
    };
    let got = got.trim_start_matches("invalid type: ").trim_start_matches("invalid value: ");
    Invalid { key, message: format!("must be {} (got {})", expected_in_words(path, expected), got_in_words(got)) }
}

/// The length of the list at `path` in the default configuration (a
/// fixed-size list says only "fewer elements" when given too many).
fn default_len(path: &[String]) -> Option<String> {
    let mut v = toml::Value::try_from(Config::default()).ok()?;
    for p in path {
        v = v.get(p.as_str())?.clone();
    }
    v.as_array().map(|a| a.len().to_string())
}

/// What serde calls the expected type, as a user would say it, with the
/// key's documented range when it has one.
fn expected_in_words(path: &[String], expected: &str) -> String {
    let whole = matches!(expected, "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize");
    let pattern: Vec<String> =
        path.iter().map(|p| if p.starts_with('[') { "[]".to_string() } else { p.clone() }).collect();
    if let Some(r) = range_of(&pattern) {
        let kind = if whole { "a whole number" } else { "a number" };
        return format!("{kind} between {} and {}", number(r.min), number(r.max));
    }
    match expected {
        "f32" | "f64" => "a number".into(),
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number, 0 or more".into(),
        _ if whole => "a whole number".into(),
        "a boolean" | "bool" => "true or false".into(),
        "a string" | "path string" | "a borrowed string" | "char" => "text in quotes".into(),
        "a sequence" | "a list" => "a list in brackets, e.g. [\"a\", \"b\"]".into(),
        e if e.starts_with("struct ") || e == "a map" => "a table (a [section] of `key = value` lines)".into(),
        e if e.starts_with("an array of length ") => format!("a list of {} values", &e["an array of length ".len()..]),
        e if e.starts_with("one of ") => e.replace('`', ""),
        other => shown(other),
    }
}

/// serde's "string \"x\"", "integer `5`", "sequence" as the value itself.
fn got_in_words(got: &str) -> String {
    for prefix in ["string ", "integer ", "floating point ", "boolean ", "character "] {
        if let Some(v) = got.strip_prefix(prefix) {
            return shown(v.trim_matches('`'));
        }
    }
    match got {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        other => shown(other),
    }
}

fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x}") }
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let rest = text.split_once(start)?.1;
    Some(rest.split_once(end)?.0)
}

/// Every `name` between backticks.
fn backticked(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// The option nearest to `typed`, when it is a likely misspelling.
fn closest(typed: &str, options: &[String]) -> Option<String> {
    options
        .iter()
        .map(|o| (edit_distance(&typed.to_lowercase(), o), o))
        .filter(|(d, o)| *d <= (o.len() / 4).clamp(1, 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o.clone())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// A value as it may be printed: control characters (a bell, an escape
/// sequence that would recolour the terminal) shown as `\u{7}`, never sent.
pub fn shown(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if c.is_control() && c != ' ' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Text values holding control characters: no setting is a place for one
/// (an HTTP header with a bell in it fails deep in the HTTP client).
fn control_characters(table: &toml::Table) -> Vec<Invalid> {
    let mut out = Vec::new();
    walk_strings(&toml::Value::Table(table.clone()), &mut Vec::new(), &mut out);
    out
}

fn walk_strings(value: &toml::Value, path: &mut Vec<String>, out: &mut Vec<Invalid>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                path.push(k.clone());
                walk_strings(v, path, out);
                path.pop();
            }
        }
        toml::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(format!("[{i}]"));
                walk_strings(v, path, out);
                path.pop();
            }
        }
        toml::Value::String(s) => {
            if let Some(c) = s.chars().find(|c| c.is_control()) {
                out.push(Invalid {
                    key: dotted(path),
                    message: format!(
                        "contains a control character ({}) in {}; remove it",
                        c.escape_default(),
                        shown(&format!("\"{s}\""))
                    ),
                });
            }
        }
        _ => {}
    }
}

/// serde reads a struct from a list of its fields in order, so
/// `limits = [1, 2]` would set the first two limits without a word: a key
/// given as a list where the configuration holds a table is refused.
fn lists_taken_as_tables(given: &toml::Table, config: &Config) -> Option<Invalid> {
    let parsed = toml::Value::try_from(config).ok()?;
    let mut path = Vec::new();
    find_list_as_table(&toml::Value::Table(given.clone()), &parsed, &mut path)
}

fn find_list_as_table(given: &toml::Value, parsed: &toml::Value, path: &mut Vec<String>) -> Option<Invalid> {
    match (given, parsed) {
        (toml::Value::Table(g), toml::Value::Table(p)) => {
            for (k, v) in g {
                let Some(pv) = p.get(k) else { continue };
                path.push(k.clone());
                let found = find_list_as_table(v, pv, path);
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        (toml::Value::Array(_), toml::Value::Table(_)) => Some(Invalid {
            key: dotted(path),
            message: format!("must be a table (a [{0}] section of `key = value` lines), not a list", dotted(path)),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> Invalid {
        let table: toml::Table = toml::from_str(text).expect("toml");
        parse(&table).expect_err("invalid")
    }

    #[test]
    fn types_are_said_in_words_with_the_range() {
        let e = error("[decide]\nconfidence_threshold = \"high\"\n");
        assert_eq!(e.key, "decide.confidence_threshold");
        assert_eq!(e.message, "must be a number between 0 and 1 (got \"high\")");
        let e = error("[limits]\nmax_iterations = -3\n");
        assert_eq!(e.message, "must be a whole number between 1 and 100 (got -3)");
        let e = error("[memory]\nmax_entries = 1e10\n");
        assert_eq!(e.message, "must be a whole number between 1 and 100000 (got 10000000000.0)");
        let e = error("[log]\nlevel = 3\n");
        assert_eq!(e.message, "must be text in quotes (got 3)");
        let e = error("[search]\nchains = \"local\"\n");
        assert!(e.message.starts_with("must be a list in brackets"), "{}", e.message);
    }

    #[test]
    fn no_rust_type_reaches_a_message() {
        for text in [
            "[decide]\nconfidence_threshold = \"high\"\n",
            "[local]\nmax_file_mb = \"ten\"\n",
            "research = 5\n",
            "[source_tiers]\n\"example.org\" = 3\n",
            "[local]\ncorpus = 5\n",
            "[evaluate]\ntier_quality = [0.1, 0.2]\n",
        ] {
            let m = error(text).message;
            for rust in ["f64", "u32", "u64", "usize", "struct ", "path string", "TierEntry", "Config"] {
                assert!(!m.contains(rust), "{text}: {m}");
            }
        }
    }

    #[test]
    fn a_list_of_the_wrong_length_or_in_place_of_a_table_is_refused() {
        let e = error("[evaluate]\ntier_quality = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]\n");
        assert_eq!(
            (e.key.as_str(), e.message.as_str()),
            ("evaluate.tier_quality", "must be a list of 5 values (got 7)")
        );
        let e = error("limits = [1, 2]\n");
        assert_eq!(e.key, "limits");
        assert!(e.message.contains("must be a table"), "{}", e.message);
    }

    #[test]
    fn unknown_keys_get_the_near_one_and_variants_the_options() {
        let e = error("[decide]\nconfidence_treshold = 0.9\n");
        assert_eq!(e.key, "decide.confidence_treshold");
        assert_eq!(e.message, "unknown key `confidence_treshold`; did you mean `confidence_threshold`?");
        let e = error("[research]\npreset = \"huge\"\n");
        assert_eq!(e.message, "must be one of simple, standard, deep (got \"huge\")");
    }

    #[test]
    fn control_characters_are_refused_and_never_printed() {
        let e = error("[web]\nuser_agent = \"abc\\u0007def\\u001b[31m\"\n");
        assert_eq!(e.key, "web.user_agent");
        assert!(e.message.contains("\\u{7}") && !e.message.chars().any(|c| c.is_control()), "{:?}", e.message);
    }
}
