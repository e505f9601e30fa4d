//! Bytes to text: a byte-order mark wins, then the `Content-Type` charset,
//! then (for HTML) a `<meta charset>` in the first 1024 bytes, then UTF-8 if
//! the bytes are valid UTF-8, else windows-1252 (what browsers use for
//! Latin-1). Undecodable bytes become U+FFFD; decoding never fails.

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

pub fn decode(bytes: &[u8], content_type: Option<&str>, html: bool) -> String {
    let declared = content_type
        .and_then(charset_param)
        .or_else(|| if html { meta_charset(bytes) } else { None })
        .and_then(|label| Encoding::for_label(label.as_bytes()));
    let encoding = declared.unwrap_or_else(|| if std::str::from_utf8(bytes).is_ok() { UTF_8 } else { WINDOWS_1252 });
    // `decode` sniffs a BOM first, as the encoding standard requires.
    let (text, _, _) = encoding.decode(bytes);
    text.into_owned()
}

/// The `charset` parameter of a media type.
fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("charset").then(|| v.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// `<meta charset="…">` or `<meta http-equiv … content="…; charset=…">`.
fn meta_charset(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(1024)];
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(at) = find(&lower[from..], b"<meta") {
        let start = from + at;
        let end = lower[start..].iter().position(|b| *b == b'>').map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(c) = find(tag, b"charset") {
            let rest = &tag[c + "charset".len()..];
            let rest = rest.iter().skip_while(|b| b.is_ascii_whitespace()).copied().collect::<Vec<u8>>();
            if let Some(value) = rest.strip_prefix(b"=") {
                let label: String = value
                    .iter()
                    .skip_while(|b| b.is_ascii_whitespace() || **b == b'"' || **b == b'\'')
                    .take_while(|b| b.is_ascii_alphanumeric() || matches!(**b, b'-' | b'_' | b':' | b'.'))
                    .map(|b| char::from(*b))
                    .collect();
                if !label.is_empty() {
                    return Some(label);
                }
            }
        }
        from = end;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_declared_in_the_header() {
        let bytes = b"Caf\xe9 cr\xe8me";
        assert_eq!(decode(bytes, Some("text/plain; charset=ISO-8859-1"), false), "Café crème");
    }

    #[test]
    fn latin1_declared_in_a_meta_tag() {
        let html = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\"></head><body>na\xefve</body></html>";
        assert!(decode(html, Some("text/html"), true).contains("naïve"));
        let html5 = b"<meta charset='windows-1252'><p>\x93quoted\x94</p>";
        assert!(decode(html5, None, true).contains("\u{201c}quoted\u{201d}"));
    }

    #[test]
    fn undeclared_bytes_are_utf8_if_valid_else_latin1() {
        assert_eq!(decode("naïve".as_bytes(), None, false), "naïve");
        assert_eq!(decode(b"na\xefve", None, false), "naïve");
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let text = decode(b"ok \xff\xfe\xfd end", Some("text/html; charset=utf-8"), true);
        assert!(text.starts_with("ok ") && text.ends_with(" end"));
        assert!(text.contains('\u{fffd}'));
    }

    #[test]
    fn a_bom_wins_over_the_header() {
        let bytes = [&[0xEF, 0xBB, 0xBF][..], "é".as_bytes()].concat();
        assert_eq!(decode(&bytes, Some("text/plain; charset=latin1"), false), "é");
    }
}
