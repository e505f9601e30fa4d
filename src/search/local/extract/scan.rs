//! A streaming HTML tokenizer: tags and text runs, in one pass over the
//! bytes, with no tree. Enough HTML for extracting documentation pages
//! fast (comments, doctype, raw-text elements, quoted attributes); not a
//! conforming parser, which is what the readability fallback is for.

use memchr::memchr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    Text(&'a [u8]),
    Start { name: &'a [u8], attrs: &'a [u8], self_closing: bool },
    End { name: &'a [u8] },
}

pub struct Scanner<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Inside `<script>` or `<style>`: everything up to its end tag is skipped.
    raw: Option<&'static [u8]>,
}

impl<'a> Scanner<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0, raw: None }
    }

    /// Skips to the end tag `</name` (any case) of a raw-text element.
    fn skip_raw(&mut self, name: &[u8]) {
        let mut at = self.pos;
        while let Some(i) = memchr(b'<', &self.buf[at..]) {
            let start = at + i;
            let rest = &self.buf[start + 1..];
            if rest.first() == Some(&b'/') && rest.len() > name.len() && rest[1..=name.len()].eq_ignore_ascii_case(name)
            {
                self.pos = start;
                return;
            }
            at = start + 1;
        }
        self.pos = self.buf.len();
    }

    /// Position just after the `>` closing a tag that starts at `from`,
    /// honouring quoted attribute values.
    fn tag_end(&self, from: usize) -> usize {
        let mut quote: Option<u8> = None;
        let mut i = from;
        while i < self.buf.len() {
            let c = self.buf[i];
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == b'"' || c == b'\'' => quote = Some(c),
                None if c == b'>' => return i + 1,
                None => {}
            }
            i += 1;
        }
        self.buf.len()
    }

    fn find_bytes(&self, from: usize, needle: &[u8]) -> Option<usize> {
        memchr::memmem::find(&self.buf[from..], needle).map(|i| from + i)
    }
}

impl<'a> Iterator for Scanner<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        if let Some(name) = self.raw.take() {
            self.skip_raw(name);
        }
        loop {
            if self.pos >= self.buf.len() {
                return None;
            }
            let rest = &self.buf[self.pos..];
            if rest[0] != b'<' {
                let end = memchr(b'<', rest).map_or(self.buf.len(), |i| self.pos + i);
                let text = &self.buf[self.pos..end];
                self.pos = end;
                return Some(Token::Text(text));
            }
            let after = rest.get(1).copied().unwrap_or(b' ');
            if rest.starts_with(b"<!--") {
                self.pos = self.find_bytes(self.pos + 4, b"-->").map_or(self.buf.len(), |i| i + 3);
                continue;
            }
            if after == b'!' || after == b'?' {
                self.pos = self.tag_end(self.pos + 2);
                continue;
            }
            if after == b'/' {
                let start = self.pos + 2;
                let end = self.tag_end(start);
                let inner = &self.buf[start..end.saturating_sub(1).max(start)];
                let name_len = inner.iter().position(|c| c.is_ascii_whitespace() || *c == b'>').unwrap_or(inner.len());
                self.pos = end;
                return Some(Token::End { name: &inner[..name_len] });
            }
            if !after.is_ascii_alphabetic() {
                // A lone `<` in text.
                let end = memchr(b'<', &rest[1..]).map_or(self.buf.len(), |i| self.pos + 1 + i);
                let text = &self.buf[self.pos..end];
                self.pos = end;
                return Some(Token::Text(text));
            }
            let start = self.pos + 1;
            let end = self.tag_end(start);
            let mut inner = &self.buf[start..end.saturating_sub(1).max(start)];
            let self_closing = inner.last() == Some(&b'/');
            if self_closing {
                inner = &inner[..inner.len() - 1];
            }
            let name_len =
                inner.iter().position(|c| c.is_ascii_whitespace() || *c == b'/' || *c == b'>').unwrap_or(inner.len());
            let (name, attrs) = inner.split_at(name_len);
            self.pos = end;
            if name.eq_ignore_ascii_case(b"script") {
                self.raw = Some(b"script");
            } else if name.eq_ignore_ascii_case(b"style") {
                self.raw = Some(b"style");
            }
            return Some(Token::Start { name, attrs, self_closing });
        }
    }
}

/// The value of attribute `want` (ASCII case-insensitive name) in a tag's
/// attribute bytes.
pub fn attr<'a>(attrs: &'a [u8], want: &[u8]) -> Option<&'a [u8]> {
    let mut i = 0;
    let n = attrs.len();
    while i < n {
        while i < n && (attrs[i].is_ascii_whitespace() || attrs[i] == b'/') {
            i += 1;
        }
        let name_start = i;
        while i < n && !attrs[i].is_ascii_whitespace() && attrs[i] != b'=' && attrs[i] != b'/' {
            i += 1;
        }
        let name = &attrs[name_start..i];
        while i < n && attrs[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value: &[u8] = &[];
        if i < n && attrs[i] == b'=' {
            i += 1;
            while i < n && attrs[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < n && (attrs[i] == b'"' || attrs[i] == b'\'') {
                let q = attrs[i];
                let vs = i + 1;
                let ve = memchr(q, &attrs[vs..]).map_or(n, |k| vs + k);
                value = &attrs[vs..ve];
                i = (ve + 1).min(n);
            } else {
                let vs = i;
                while i < n && !attrs[i].is_ascii_whitespace() {
                    i += 1;
                }
                value = &attrs[vs..i];
            }
        }
        if name.is_empty() {
            i += 1;
            continue;
        }
        if name.eq_ignore_ascii_case(want) {
            return Some(value);
        }
    }
    None
}

/// Whether a `class` attribute value holds `class` as one of its words.
pub fn has_class(attrs: &[u8], class: &[u8]) -> bool {
    attr(attrs, b"class").is_some_and(|v| v.split(|c| c.is_ascii_whitespace()).any(|w| w == class))
}

/// Elements that never have an end tag.
pub fn is_void(name: &[u8]) -> bool {
    const VOID: &[&[u8]] = &[
        b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta", b"param", b"source",
        b"track", b"wbr",
    ];
    VOID.iter().any(|v| v.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(html: &str) -> Vec<String> {
        Scanner::new(html.as_bytes())
            .map(|t| match t {
                Token::Text(t) => format!("T({})", String::from_utf8_lossy(t)),
                Token::Start { name, self_closing, .. } => {
                    format!("S({}{})", String::from_utf8_lossy(name), if self_closing { "/" } else { "" })
                }
                Token::End { name } => format!("E({})", String::from_utf8_lossy(name)),
            })
            .collect()
    }

    #[test]
    fn tags_text_comments_and_raw_text() {
        let html = "<!DOCTYPE html><p class=\"a>b\">Hi <!-- x<y --><b>there</b><br/></p><script>if (a<b) {}</script>ok";
        assert_eq!(
            tokens(html),
            vec!["S(p)", "T(Hi )", "S(b)", "T(there)", "E(b)", "S(br/)", "E(p)", "S(script)", "E(script)", "T(ok)"]
        );
    }

    #[test]
    fn lone_angle_bracket_is_text() {
        assert_eq!(tokens("a < b"), vec!["T(a )", "T(< b)"]);
    }

    #[test]
    fn attributes_quoted_unquoted_and_case() {
        let a = b" ID=main class='x  section-header' data-x=1 hidden href=\"../a.html#b\"";
        assert_eq!(attr(a, b"id"), Some(&b"main"[..]));
        assert_eq!(attr(a, b"data-x"), Some(&b"1"[..]));
        assert_eq!(attr(a, b"hidden"), Some(&b""[..]));
        assert_eq!(attr(a, b"href"), Some(&b"../a.html#b"[..]));
        assert_eq!(attr(a, b"nope"), None);
        assert!(has_class(a, b"section-header"));
        assert!(!has_class(a, b"section"));
    }

    #[test]
    fn truncated_input_does_not_panic() {
        for html in ["<", "<a href=\"x", "<!--", "</", "<script>never closed", "<p"] {
            let _ = tokens(html);
        }
    }
}
