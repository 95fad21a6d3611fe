//! Whitespace as a JavaScript harness sees it.
//!
//! A blank character is one that Go's `unicode.IsSpace` or ECMAScript's `String.prototype.trim`
//! (WhiteSpace and LineTerminator) strips, so admission rejects every message a JavaScript
//! harness or an Anthropic-compatible provider would treat as empty. Rust's
//! `char::is_whitespace` is the Unicode White_Space property, which is exactly Go's set
//! (U+0009–U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F,
//! U+205F, U+3000); ECMAScript adds only U+FEFF (the byte order mark).

/// True for a character either Go or ECMAScript counts as whitespace.
pub fn is_blank_char(c: char) -> bool {
    c.is_whitespace() || c == '\u{FEFF}'
}

/// True when `text` is empty or only blank characters.
pub fn is_blank(text: &str) -> bool {
    text.chars().all(is_blank_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_is_exactly_the_union_of_go_and_ecmascript() {
        let go: Vec<char> = ('\u{9}'..='\u{d}')
            .chain([' ', '\u{85}', '\u{a0}', '\u{1680}'])
            .chain('\u{2000}'..='\u{200a}')
            .chain(['\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}'])
            .collect();
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let expected = go.contains(&c) || c == '\u{feff}';
            assert_eq!(is_blank_char(c), expected, "U+{:04X}", c as u32);
        }
    }
}
