//! Deserializers that accept the shapes models actually produce: a string
//! where a list was asked for, or a list where a string was.

use serde::{Deserialize, Deserializer};

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// A list of strings, also accepting a single string (split on newlines) or null.
pub fn string_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let v: Option<OneOrMany> = Option::deserialize(d)?;
    Ok(match v {
        None => Vec::new(),
        Some(OneOrMany::One(s)) => s
            .lines()
            .map(|l| l.trim().trim_start_matches(['-', '*', '•']).trim().to_string())
            .filter(|l| !l.is_empty())
            .collect(),
        Some(OneOrMany::Many(v)) => v,
    })
}

/// A string, also accepting a list of strings (joined with "; ") or null.
pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let v: Option<OneOrMany> = Option::deserialize(d)?;
    Ok(match v {
        None => String::new(),
        Some(OneOrMany::One(s)) => s,
        Some(OneOrMany::Many(v)) => v.join("; "),
    })
}
