//! Untrusted text (web pages, model output, files) may carry terminal escape
//! sequences that would retitle the window, clear the screen or worse when
//! drawn. Everything that reaches a terminal passes through here first.

/// Removes ANSI/VT escape sequences (CSI, OSC, DCS, SOS, PM, APC and
/// two-character escapes) and control characters other than `\n` and `\t`.
/// `\r\n` becomes `\n`; a lone `\r` becomes `\n`.
pub fn sanitize(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            // C1 control introducers behave like ESC-prefixed sequences in some terminals.
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            // Bidirectional overrides can make drawn text lie about its order.
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Like [`sanitize`], then folds newlines and tabs to spaces: for one-line
/// cells such as titles and table rows.
pub fn sanitize_inline(input: &str) -> String {
    sanitize(input).chars().map(|c| if c == '\n' || c == '\t' { ' ' } else { c }).collect()
}

fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.peek().copied() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']') | Some('P') | Some('X') | Some('^') | Some('_') => {
            chars.next();
            skip_string(chars);
        }
        // Character-set designations take one more character: ESC ( B
        Some('(') | Some(')') | Some('*') | Some('+') | Some('#') | Some('%') => {
            chars.next();
            chars.next();
        }
        Some(_) => {
            chars.next();
        }
        None => {}
    }
}

/// CSI: parameter and intermediate bytes, then one final byte in `@`..=`~`.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            break;
        }
    }
}

/// OSC/DCS/SOS/PM/APC: until BEL or ST (`ESC \` or U+009C).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => break,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_osc_title_and_clear_screen() {
        let s = "before\x1b]0;pwned\x07 middle \x1b[2J after";
        assert_eq!(sanitize(s), "before middle  after");
    }

    #[test]
    fn strips_c0_controls_but_keeps_newlines_and_tabs() {
        assert_eq!(sanitize("a\x00b\x08c\nd\te\x7f"), "abc\nd\te");
    }

    #[test]
    fn carriage_returns_become_newlines() {
        assert_eq!(sanitize("a\r\nb\rc"), "a\nb\nc");
    }

    #[test]
    fn osc_terminated_by_st() {
        assert_eq!(sanitize("x\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\y"), "xlinky");
    }

    #[test]
    fn c1_csi_and_bidi_overrides_removed() {
        assert_eq!(sanitize("a\u{9b}31mb\u{202e}c"), "abc");
    }

    #[test]
    fn unterminated_escape_at_end_is_dropped() {
        assert_eq!(sanitize("abc\x1b"), "abc");
        assert_eq!(sanitize("abc\x1b[31"), "abc");
    }

    #[test]
    fn inline_folds_whitespace() {
        assert_eq!(sanitize_inline("a\nb\tc"), "a b c");
    }
}
