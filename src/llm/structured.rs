//! Getting a JSON value out of what a model actually writes: reasoning in
//! `<think>` blocks, code fences, a sentence before and after, a trailing
//! comma. What is left is parsed strictly; the parse error is what the
//! repair turn sends back.

use serde::de::DeserializeOwned;

const THINK_TAGS: &[(&str, &str)] = &[("<think>", "</think>"), ("<thinking>", "</thinking>")];

/// Removes reasoning blocks. A closing tag with no opening one (templates
/// that open the block in the prompt) drops everything before it; an
/// opening tag that is never closed drops everything after it.
pub fn strip_think(raw: &str) -> String {
    let mut s = raw.to_string();
    for (open, close) in THINK_TAGS {
        loop {
            match (find_ascii_ci(&s, open), find_ascii_ci(&s, close)) {
                (Some(a), Some(b)) if a < b => s.replace_range(a..b + close.len(), ""),
                (None, Some(b)) | (Some(_), Some(b)) => s.replace_range(..b + close.len(), ""),
                (Some(a), None) => s.truncate(a),
                (None, None) => break,
            }
        }
    }
    s
}

/// Byte offset of an ASCII `needle` in `haystack`, ignoring ASCII case
/// (a match starts at an ASCII byte, so the offset is a char boundary).
pub fn find_ascii_ci(haystack: &str, needle: &str) -> Option<usize> {
    let n = needle.len();
    haystack.as_bytes().windows(n).position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// The JSON object inside a reply, as text.
pub fn extract_json(raw: &str) -> Result<String, String> {
    let text = strip_think(raw);
    let fenced = fenced_blocks(&text).into_iter().find(|b| b.trim_start().starts_with('{'));
    let candidate = fenced.unwrap_or(text.as_str());
    let Some(start) = candidate.find('{') else {
        return Err(if candidate.trim().is_empty() {
            "the reply was empty; reply with the JSON object".into()
        } else {
            "the reply contains no JSON object; reply with only the JSON object, starting with {".into()
        });
    };
    match object_end(&candidate[start..]) {
        Some(end) => Ok(remove_trailing_commas(&candidate[start..start + end])),
        // Cut off (a small model looping on a list until the output cap):
        // keep the complete items written so far.
        None => close_cut_off(&candidate[start..]).map(|s| remove_trailing_commas(&s)).ok_or_else(|| {
            "the JSON object is not closed (was the reply cut off?); reply with a shorter, complete JSON object"
                .to_string()
        }),
    }
}

/// A cut-off object closed after the last complete item of an array:
/// `{"queries": [{"q": 1}, {"q"` becomes `{"queries": [{"q": 1}]}`.
/// `None` when no array item was completed.
pub fn close_cut_off(s: &str) -> Option<String> {
    let mut stack: Vec<char> = Vec::new();
    let mut scan = StringScan::default();
    let mut best: Option<(usize, Vec<char>)> = None;
    for (i, c) in s.char_indices() {
        if scan.inside(c) {
            continue;
        }
        match c {
            '{' | '[' => stack.push(c),
            '}' | ']' => {
                stack.pop()?;
                if stack.last() == Some(&'[') {
                    best = Some((i + 1, stack.clone()));
                }
            }
            _ => {}
        }
    }
    let (end, open) = best?;
    let mut out = s[..end].to_string();
    for c in open.iter().rev() {
        out.push(if *c == '[' { ']' } else { '}' });
    }
    Some(out)
}

/// Extracts and parses a reply into `T`; the error says what to fix.
pub fn parse<T: DeserializeOwned>(raw: &str) -> Result<T, String> {
    let json = extract_json(raw)?;
    serde_json::from_str::<T>(&json).map_err(|e| format!("the JSON does not match the required shape: {e}"))
}

/// Contents of the ``` fenced blocks, in order.
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // Skip the info string (`json`, `JSON`, …) up to the end of the line.
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                out.push(&body[..close]);
                rest = &body[close + 3..];
            }
            None => {
                out.push(body);
                break;
            }
        }
    }
    out
}

/// Byte length of the balanced `{…}` at the start of `s`, strings and
/// escapes respected.
fn object_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut scan = StringScan::default();
    for (i, c) in s.char_indices() {
        if scan.inside(c) {
            continue;
        }
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// `[1, 2,]` and `{"a": 1,}` are common slips of small models.
fn remove_trailing_commas(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut scan = StringScan::default();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !scan.inside(c) && c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Where a character-by-character scan of JSON text stands: inside a
/// string literal or not, escapes respected.
#[derive(Default)]
struct StringScan {
    in_string: bool,
    escaped: bool,
}

impl StringScan {
    /// Takes the next character; true when it is part of a string literal
    /// (its quotes included), where brackets and commas mean nothing.
    fn inside(&mut self, c: char) -> bool {
        if self.in_string {
            match c {
                _ if self.escaped => self.escaped = false,
                '\\' => self.escaped = true,
                '"' => self.in_string = false,
                _ => {}
            }
            return true;
        }
        if c == '"' {
            self.in_string = true;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct T {
        a: u32,
        b: Vec<String>,
    }

    #[test]
    fn think_blocks_and_fences_are_stripped() {
        let raw = "<think>The user wants {\"a\": 9}. Let me think.</think>\nSure! Here it is:\n```json\n{\"a\": 1, \"b\": [\"x\"]}\n```\nHope that helps.";
        assert_eq!(parse::<T>(raw), Ok(T { a: 1, b: vec!["x".into()] }));
    }

    #[test]
    fn a_closing_tag_alone_drops_the_reasoning_before_it() {
        let raw = "so the answer is {\"a\": 7}\n</think>\n{\"a\": 2, \"b\": []}";
        assert_eq!(parse::<T>(raw).unwrap().a, 2);
        assert!(parse::<T>("<think>never finished {\"a\": 3, \"b\": []}").is_err());
    }

    #[test]
    fn chatter_braces_in_strings_and_trailing_commas() {
        let raw = "Result: {\"a\": 3, \"b\": [\"has } brace\", \"and \\\" quote\",],} trailing words";
        assert_eq!(parse::<T>(raw), Ok(T { a: 3, b: vec!["has } brace".into(), "and \" quote".into()] }));
    }

    #[test]
    fn errors_say_what_to_fix() {
        assert!(parse::<T>("I cannot help with that.").unwrap_err().contains("no JSON object"));
        assert!(parse::<T>("{\"a\": 1, \"b\": [").unwrap_err().contains("not closed"));
        let e = parse::<T>("{\"a\": \"one\", \"b\": []}").unwrap_err();
        assert!(e.contains("invalid type") && e.contains("line 1"), "{e}");
        assert!(parse::<T>("").unwrap_err().contains("empty"));
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Plan {
        queries: Vec<Q>,
    }
    #[derive(Debug, Deserialize, PartialEq)]
    struct Q {
        query: String,
    }

    #[test]
    fn the_complete_items_of_a_cut_off_array_are_kept() {
        let raw = "{\"queries\": [{\"query\": \"tides moon\"}, {\"query\": \"tides [sun]\"}, {\"query\": \"tid";
        let p = parse::<Plan>(raw).unwrap();
        assert_eq!(p.queries.iter().map(|q| q.query.as_str()).collect::<Vec<_>>(), ["tides moon", "tides [sun]"]);
        assert_eq!(close_cut_off("{\"b\": [\"x\", \"y"), None, "strings are not array items to keep");
    }
}
