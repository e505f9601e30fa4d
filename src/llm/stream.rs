//! WRITE's reply: a markdown report, then a line `===CLAIMS===` and the
//! claims as JSON. While it streams, `ReportFilter` forwards only the
//! report: reasoning blocks, a fence wrapped around the whole report and
//! everything from the marker on are held back. `split_report` does the
//! same on the complete text.

use super::render::CLAIMS_MARKER;
use super::structured::{find_ascii_ci, strip_think};

const OPEN_TAGS: &[&str] = &["<think>", "<thinking>"];
const CLOSE_TAGS: &[&str] = &["</think>", "</thinking>"];

#[derive(Debug, Default)]
pub struct ReportFilter {
    pending: String,
    in_think: bool,
    /// The marker was seen: nothing more is report text.
    done: bool,
    /// The first line of the report was seen (and a wrapping fence dropped).
    started: bool,
    fenced: bool,
}

impl ReportFilter {
    /// Takes a streamed piece; returns the text that may be shown now.
    pub fn push(&mut self, chunk: &str) -> String {
        if self.done {
            return String::new();
        }
        self.pending.push_str(chunk);
        let mut out = String::new();
        loop {
            if self.in_think {
                match CLOSE_TAGS.iter().filter_map(|t| find_ascii_ci(&self.pending, t).map(|i| (i, t.len()))).min() {
                    Some((i, len)) => {
                        self.pending.replace_range(..i + len, "");
                        self.in_think = false;
                    }
                    None => {
                        // Reasoning is dropped; keep only what might begin a closing tag.
                        let keep = held_tail(&self.pending, CLOSE_TAGS);
                        self.pending.replace_range(..self.pending.len() - keep, "");
                        return out;
                    }
                }
                continue;
            }
            let think = OPEN_TAGS.iter().filter_map(|t| find_ascii_ci(&self.pending, t).map(|i| (i, t.len()))).min();
            let marker = self.pending.find(CLAIMS_MARKER);
            let think_first = matches!((think, marker), (Some((i, _)), m) if m.is_none_or(|m| i < m));
            match (think, marker) {
                (Some((i, len)), _) if think_first => {
                    let visible: String = self.pending.drain(..i).collect();
                    self.pending.replace_range(..len, "");
                    self.in_think = true;
                    // Treated as complete: nothing may be held back into the reasoning.
                    out.push_str(&self.visible(visible, true));
                }
                (_, Some(m)) => {
                    let visible: String = self.pending.drain(..m).collect();
                    self.pending.clear();
                    self.done = true;
                    out.push_str(&self.visible(visible, true));
                    return out;
                }
                _ => {
                    let mut tags: Vec<&str> = OPEN_TAGS.to_vec();
                    tags.push(CLAIMS_MARKER);
                    let keep = held_tail(&self.pending, &tags);
                    let visible: String = self.pending.drain(..self.pending.len() - keep).collect();
                    out.push_str(&self.visible(visible, false));
                    return out;
                }
            }
        }
    }

    /// The end of the stream: whatever was held back and is report text.
    pub fn finish(&mut self) -> String {
        if self.done || self.in_think {
            self.pending.clear();
        }
        let rest = std::mem::take(&mut self.pending);
        let out = self.visible(rest, true);
        // What `visible` held back at the end is a closing fence: dropped.
        self.pending.clear();
        out
    }

    /// Report text, minus a wrapping fence; `last` when no more will come.
    fn visible(&mut self, text: String, last: bool) -> String {
        let mut text = text;
        if !self.started {
            let trimmed = text.trim_start().to_string();
            match trimmed.find('\n') {
                Some(nl) => {
                    if trimmed[..nl].trim().starts_with("```") {
                        self.fenced = true;
                        text = trimmed[nl + 1..].to_string();
                    } else {
                        text = trimmed;
                    }
                    self.started = true;
                }
                None if last || (trimmed.len() >= 3 && !trimmed.starts_with('`')) => {
                    self.started = !trimmed.is_empty();
                    text = trimmed;
                }
                None => {
                    // Could still become a fence line: wait for the newline.
                    self.pending.insert_str(0, &text);
                    return String::new();
                }
            }
        }
        if self.fenced {
            // Hold a trailing "```" line: it may be the wrapping fence's end.
            let line_start = text.trim_end().rfind('\n').map_or(0, |i| i + 1);
            if text[line_start..].trim_start().starts_with("```") {
                let held = text.split_off(line_start);
                if !last {
                    self.pending.insert_str(0, &held);
                }
            }
        }
        text
    }
}

/// Length of the longest suffix of `s` that could begin one of `tags`.
fn held_tail(s: &str, tags: &[&str]) -> usize {
    let mut keep = 0;
    for tag in tags {
        for len in (1..tag.len()).rev() {
            if len <= s.len()
                && s.is_char_boundary(s.len() - len)
                && s[s.len() - len..].eq_ignore_ascii_case(&tag[..len])
            {
                keep = keep.max(len);
                break;
            }
        }
    }
    keep
}

/// The report body and the claims text of a complete WRITE reply.
pub fn split_report(raw: &str) -> (String, Option<String>) {
    let text = strip_think(raw);
    let (body, claims) = match text.find(CLAIMS_MARKER) {
        Some(i) => (text[..i].to_string(), Some(text[i + CLAIMS_MARKER.len()..].to_string())),
        None => (text, None),
    };
    let mut body = body.trim().to_string();
    if body.starts_with("```") && body.ends_with("```") && body.len() > 6 {
        let first_nl = body.find('\n').unwrap_or(body.len());
        let inner_end = body.len() - 3;
        body = if first_nl < inner_end { body[first_nl..inner_end].trim().to_string() } else { String::new() };
    }
    (body, claims.filter(|c| !c.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chunks: &[&str]) -> String {
        let mut f = ReportFilter::default();
        let mut out: String = chunks.iter().map(|c| f.push(c)).collect();
        out.push_str(&f.finish());
        out
    }

    #[test]
    fn plain_text_passes_through_as_it_comes() {
        let mut f = ReportFilter::default();
        assert_eq!(f.push("Rust has "), "Rust has ");
        assert_eq!(f.push("no GC [1]."), "no GC [1].");
        assert_eq!(f.finish(), "");
    }

    #[test]
    fn think_blocks_split_across_chunks_are_hidden() {
        let out = run(&[
            "<thi",
            "nk>secret plan</th",
            "ink>\nThe answer",
            " is 42 [1].\n",
            "===CLA",
            "IMS===\n{\"claims\": []}",
        ]);
        assert_eq!(out, "The answer is 42 [1].\n");
    }

    #[test]
    fn a_wrapping_fence_is_dropped_but_inner_code_is_kept() {
        let out = run(&["```markdown\n", "Use `?`:\n\n```rust\nlet x = f()?;\n```\n", "Done [2].\n```", "\n"]);
        assert_eq!(out, "Use `?`:\n\n```rust\nlet x = f()?;\n```\nDone [2].\n");
        let (body, claims) = split_report("```markdown\nUse it [1].\n```\n===CLAIMS===\n{\"claims\": []}");
        assert_eq!((body.as_str(), claims.as_deref()), ("Use it [1].", Some("\n{\"claims\": []}")));
    }

    #[test]
    fn a_lone_bracket_or_letter_is_not_held_forever() {
        let out = run(&["A", "<", "b> tag and = signs == fine"]);
        assert_eq!(out, "A<b> tag and = signs == fine");
    }

    #[test]
    fn split_without_marker_keeps_the_whole_body() {
        let (body, claims) = split_report("<think>x</think>Report text [1].");
        assert_eq!((body.as_str(), claims), ("Report text [1].", None));
    }
}
