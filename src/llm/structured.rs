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

/// The JSON object of a reply, as text, and where it was cut off.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    pub json: String,
    /// Set when the reply ended before its object closed and was closed
    /// after its last complete list item.
    pub cut: Option<CutOff>,
}

/// Where a cut-off reply was closed.
#[derive(Debug, Clone, PartialEq)]
pub struct CutOff {
    /// The list of the root object the reply was cut in (`queries`), when
    /// the cut fell directly in one; `None` when it fell deeper (inside a
    /// claim's citations, in `check`, in `reflection`): then an object was
    /// closed before its own fields were written.
    pub list: Option<String>,
}

/// Why a reply cannot be used.
#[derive(Debug, Clone, PartialEq)]
pub enum Unusable {
    /// Nothing in it: empty text, `{}`, or an object whose every field is
    /// empty. A model that answers this way twice cannot do the work.
    Void(String),
    /// Something, but not the object asked for; the text says what to fix.
    Bad(String),
}

impl Unusable {
    pub fn message(&self) -> &str {
        match self {
            Unusable::Void(m) | Unusable::Bad(m) => m,
        }
    }
}

/// The JSON object inside a reply.
pub fn extract(raw: &str) -> Result<Extracted, String> {
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
        Some(end) => Ok(Extracted { json: remove_trailing_commas(&candidate[start..start + end]), cut: None }),
        // Cut off (a small model looping on a list until the output cap):
        // closed after the complete items written so far; the caller
        // decides whether what was lost mattered.
        None => close_cut_off(&candidate[start..])
            .map(|(s, cut)| Extracted { json: remove_trailing_commas(&s), cut: Some(cut) })
            .ok_or_else(|| {
                "the JSON object is not closed (was the reply cut off?); reply with a shorter, complete JSON object"
                    .to_string()
            }),
    }
}

/// A cut-off object closed after the last complete item of an array:
/// `{"queries": [{"q": 1}, {"q"` becomes `{"queries": [{"q": 1}]}`.
/// `None` when no array item was completed.
pub fn close_cut_off(s: &str) -> Option<(String, CutOff)> {
    let mut stack: Vec<char> = Vec::new();
    let mut scan = StringScan::default();
    // The root object's key being written, for naming the list cut.
    let mut string_start = None;
    let mut last_string: Option<&str> = None;
    let mut root_key: Option<&str> = None;
    let mut best: Option<(usize, Vec<char>, Option<&str>)> = None;
    for (i, c) in s.char_indices() {
        let was_in = scan.in_string;
        if scan.inside(c) {
            match (was_in, scan.in_string) {
                (false, true) => string_start = Some(i + 1),
                (true, false) => last_string = string_start.map(|a| &s[a..i]),
                _ => {}
            }
            continue;
        }
        match c {
            ':' if stack.len() == 1 => root_key = last_string,
            '{' | '[' => stack.push(c),
            '}' | ']' => {
                stack.pop()?;
                if stack.last() == Some(&'[') {
                    best = Some((i + 1, stack.clone(), root_key));
                }
            }
            _ => {}
        }
    }
    let (end, open, key) = best?;
    let mut out = s[..end].to_string();
    for c in open.iter().rev() {
        out.push(if *c == '[' { ']' } else { '}' });
    }
    let list = (open == ['{', '[']).then(|| key.map(str::to_string)).flatten();
    Some((out, CutOff { list }))
}

/// Whether the JSON object of `raw` was cut off before it closed.
pub fn is_cut_off(raw: &str) -> bool {
    let text = strip_think(raw);
    text.find('{').is_some_and(|start| object_end(&text[start..]).is_none())
}

/// Extracts and parses a reply into `T`; the error says what to fix. A
/// reply that was cut off is refused: what it lost is unknown.
pub fn parse<T: DeserializeOwned>(raw: &str) -> Result<T, String> {
    let ex = extract(raw)?;
    if ex.cut.is_some() {
        return Err(CUT_OFF.into());
    }
    serde_json::from_str::<T>(&ex.json).map_err(|e| format!("the JSON does not match the required shape: {e}"))
}

const CUT_OFF: &str =
    "the reply was cut off before the JSON object was complete; reply with a shorter, complete JSON object";

/// A role's reply parsed into `T`. Empty replies are `Void`. A reply cut
/// off is used only when the cut fell in a list of the root object that
/// already holds `cap(list)` complete items (a model looping on a list
/// until the output cap: the rest would be dropped anyway); otherwise its
/// missing part is a failed reply, never a silently shorter one.
pub fn parse_reply<T: DeserializeOwned>(raw: &str, cap: impl Fn(&str) -> usize) -> Result<T, Unusable> {
    let ex = extract(raw)
        .map_err(|e| if strip_think(raw).trim().is_empty() { Unusable::Void(e) } else { Unusable::Bad(e) })?;
    let value: serde_json::Value =
        serde_json::from_str(&ex.json).map_err(|e| Unusable::Bad(format!("the JSON does not parse: {e}")))?;
    if is_void(&value) {
        return Err(Unusable::Void(
            "the reply holds nothing (an empty object); reply with the JSON object, every field filled in".into(),
        ));
    }
    if let Some(cut) = &ex.cut {
        let complete = |k: &str| value.get(k).and_then(serde_json::Value::as_array).map_or(0, Vec::len);
        match cut.list.as_deref() {
            Some(k) if complete(k) >= cap(k) => {}
            Some(k) => {
                return Err(Unusable::Bad(format!(
                    "the reply was cut off in `{k}` after {} complete item(s); reply with a shorter, complete \
                     JSON object",
                    complete(k)
                )));
            }
            None => return Err(Unusable::Bad(CUT_OFF.into())),
        }
    }
    serde_json::from_str::<T>(&ex.json)
        .map_err(|e| Unusable::Bad(format!("the JSON does not match the required shape: {e}")))
}

/// A value that says nothing: null, blank text, or a list or object of
/// such values (`{}`, `{"queries": []}`, `{"answer": "", "claims": []}`).
pub fn is_void(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Null => true,
        serde_json::Value::String(s) => s.trim().is_empty(),
        serde_json::Value::Array(a) => a.iter().all(is_void),
        serde_json::Value::Object(o) => o.values().all(is_void),
        serde_json::Value::Bool(_) | serde_json::Value::Number(_) => false,
    }
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
    fn a_cut_off_list_is_kept_only_when_it_already_holds_what_was_asked_for() {
        let raw = "{\"queries\": [{\"query\": \"tides moon\"}, {\"query\": \"tides [sun]\"}, {\"query\": \"tid";
        let two = |_: &str| 2;
        let p = parse_reply::<Plan>(raw, two).unwrap();
        assert_eq!(p.queries.iter().map(|q| q.query.as_str()).collect::<Vec<_>>(), ["tides moon", "tides [sun]"]);
        let e = parse_reply::<Plan>(raw, |_: &str| 3).unwrap_err();
        assert!(matches!(&e, Unusable::Bad(m) if m.contains("cut off in `queries` after 2")), "{e:?}");
        assert!(parse::<Plan>(raw).unwrap_err().contains("cut off"), "the lenient reader refuses cuts");
        assert_eq!(close_cut_off("{\"b\": [\"x\", \"y"), None, "strings are not array items to keep");
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Draft {
        answer: String,
        claims: Vec<serde_json::Value>,
    }

    #[test]
    fn a_cut_inside_a_nested_object_or_before_a_required_field_fails() {
        // Keys in the order serde_json writes them: `check` before `claims`.
        let in_check = "{\"answer\": \"A [1]\", \"check\": {\"issues\": [{\"d\": \"x\"}, {\"d\": \"y";
        let e = parse_reply::<Draft>(in_check, |_: &str| 1).unwrap_err();
        assert!(matches!(&e, Unusable::Bad(m) if m.contains("cut off before")), "{e:?}");
        let (closed, cut) = close_cut_off(in_check).unwrap();
        assert_eq!(cut.list, None, "{closed}");
        let in_claims =
            "{\"answer\": \"A [1]\", \"claims\": [{\"text\": \"a\", \"citations\": [{\"source\": 1}]}, {\"text";
        let e = parse_reply::<Draft>(in_claims, |_: &str| 8).unwrap_err();
        assert!(matches!(&e, Unusable::Bad(m) if m.contains("cut off in `claims` after 1")), "{e:?}");
        // A complete reply without a required field is refused by its type.
        let e = parse_reply::<Draft>("{\"answer\": \"A\"}", |_: &str| 8).unwrap_err();
        assert!(matches!(&e, Unusable::Bad(m) if m.contains("missing field `claims`")), "{e:?}");
    }

    #[test]
    fn empty_replies_are_void() {
        for raw in [
            "",
            "  ",
            "{}",
            "```json\n{}\n```",
            "{\"queries\": []}",
            "{\"answer\": \" \", \"claims\": []}",
            "<think>hm</think>",
        ] {
            assert!(matches!(parse_reply::<Draft>(raw, |_: &str| 1), Err(Unusable::Void(_))), "{raw:?}");
        }
        assert!(matches!(parse_reply::<Draft>("I cannot help.", |_: &str| 1), Err(Unusable::Bad(_))));
        assert!(!is_void(&serde_json::json!({"verdicts": [{"id": 3, "keep": true}]})));
    }
}
