//! A key as URLs and forms carry it. A key of unreserved characters only
//! (`A-Z a-z 0-9 - . _ ~`) is written the same way everywhere; one with
//! others (`+ / =` in base64 keys, a space in a pasted one) is written by
//! each encoder its own way, and some mix the ways (`/` kept, `+` as
//! `%2B`, a space as `+` or `%20` or kept). So such a key is matched
//! character by character: each is accepted as itself, as its
//! percent-encoded bytes (either hex case), or a space as `+`. Candidates
//! are found by the key's longest run of unreserved characters, which every
//! encoder leaves as it is.

/// One key with characters an encoder may rewrite.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct EncodedKey {
    chars: Vec<char>,
    /// The longest run of unreserved characters, and where it starts (in chars).
    anchor: String,
    anchor_at: usize,
}

fn unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

impl EncodedKey {
    /// `None` for a key every encoder writes as it is (plain matching finds
    /// it), or one with no unreserved run to anchor on.
    pub(super) fn new(key: &str) -> Option<Self> {
        let chars: Vec<char> = key.chars().collect();
        if chars.iter().all(|c| unreserved(*c)) {
            return None;
        }
        let (mut best, mut start) = ((0usize, 0usize), None);
        for (i, c) in chars.iter().enumerate() {
            match (unreserved(*c), start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    if i - s > best.1 - best.0 {
                        best = (s, i);
                    }
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start
            && chars.len() - s > best.1 - best.0
        {
            best = (s, chars.len());
        }
        if best.1 == best.0 {
            return None;
        }
        let anchor: String = chars[best.0..best.1].iter().collect();
        Some(Self { chars, anchor, anchor_at: best.0 })
    }

    /// Every written form of the key in `text`, as byte ranges, in order.
    pub(super) fn find_all(&self, text: &str) -> Vec<(usize, usize)> {
        let bytes = text.as_bytes();
        let mut out: Vec<(usize, usize)> = Vec::new();
        let mut from = 0;
        while let Some(found) = text[from..].find(&self.anchor) {
            let at = from + found;
            let before = &self.chars[..self.anchor_at];
            let after = &self.chars[self.anchor_at + self.anchor.chars().count()..];
            let end_of_anchor = at + self.anchor.len();
            let start = before.iter().rev().try_fold(at, |p, c| match_back(bytes, p, *c));
            let end = after.iter().try_fold(end_of_anchor, |p, c| match_forward(bytes, p, *c));
            match (start, end) {
                (Some(s), Some(e)) if out.last().is_none_or(|(_, last)| s >= *last) => {
                    out.push((s, e));
                    from = e;
                }
                _ => from = at + 1,
            }
            // `find` works on char boundaries only.
            while from < text.len() && !text.is_char_boundary(from) {
                from += 1;
            }
        }
        out
    }
}

/// The ways `c` may be written: itself, its bytes percent-encoded (upper
/// then lower hex), a space as `+`.
fn forms(c: char) -> Vec<Vec<u8>> {
    let mut buf = [0u8; 4];
    let raw = c.encode_utf8(&mut buf).as_bytes().to_vec();
    let upper: Vec<u8> = raw.iter().flat_map(|b| format!("%{b:02X}").into_bytes()).collect();
    let lower: Vec<u8> = raw.iter().flat_map(|b| format!("%{b:02x}").into_bytes()).collect();
    let mut out = vec![raw, upper, lower];
    if c == ' ' {
        out.push(b"+".to_vec());
    }
    out
}

/// Where a written form of `c` ending at `end` begins.
fn match_back(bytes: &[u8], end: usize, c: char) -> Option<usize> {
    forms(c).into_iter().find_map(|f| {
        let start = end.checked_sub(f.len())?;
        (bytes.get(start..end)? == f.as_slice()).then_some(start)
    })
}

/// Where a written form of `c` beginning at `start` ends.
fn match_forward(bytes: &[u8], start: usize, c: char) -> Option<usize> {
    forms(c).into_iter().find_map(|f| {
        let end = start + f.len();
        (bytes.get(start..end)? == f.as_slice()).then_some(end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mixture_of_encodings_is_found_and_a_part_is_not() {
        let k = EncodedKey::new("tvly-CANARY/Ab+Cd=Ef9 x").expect("reserved characters");
        assert_eq!(k.anchor, "tvly-CANARY");
        for written in [
            "tvly-CANARY/Ab+Cd=Ef9 x",
            "tvly-CANARY%2FAb%2BCd%3DEf9%20x",
            "tvly-CANARY%2fAb%2bCd%3dEf9+x",
            "tvly-CANARY/Ab%2BCd%3DEf9 x",
            "tvly-CANARY/Ab%2BCd=Ef9+x",
        ] {
            let text = format!("k={written}&q=1");
            assert_eq!(k.find_all(&text), vec![(2, 2 + written.len())], "{written}");
        }
        assert!(k.find_all("tvly-CANARY/Ab+Cd").is_empty(), "a part of the key is no key");
        assert!(EncodedKey::new("sk-test-12345678").is_none(), "plain matching finds it");
    }
}
