//! Which caller text a message may repeat (core-contracts §2), and the official list form.

/// The longest caller value a message repeats.
pub const MAX_ECHO_BYTES: usize = 256;

/// True when `text` may be repeated in a message: at most [`MAX_ECHO_BYTES`] of printable
/// characters.
pub fn echoable(text: &str) -> bool {
    text.len() <= MAX_ECHO_BYTES && text.chars().all(printable)
}

/// Printable in the sense of Go's `unicode.IsPrint` (letters, marks, numbers, punctuation,
/// symbols and the ASCII space), approximated without Unicode category tables: controls, every
/// other space or separator, format characters, private use, noncharacters and U+FFFD (the
/// trace of invalid UTF-8) are not printable.
fn printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    let u = c as u32;
    let format = matches!(
        u,
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    );
    let private_use = matches!(u, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
    let noncharacter = matches!(u, 0xFDD0..=0xFDEF) || (u & 0xFFFE) == 0xFFFE;
    !(c.is_control()
        || c.is_whitespace()
        || format
        || private_use
        || noncharacter
        || c == '\u{FFFD}')
}

/// `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`: the official list form (with the serial comma).
pub fn supported_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("'{v}'")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supported_lists_use_the_serial_comma() {
        assert_eq!(supported_list(&["a"]), "'a'");
        assert_eq!(
            supported_list(&["text", "json_schema"]),
            "'text' and 'json_schema'"
        );
        assert_eq!(
            supported_list(&["disabled", "cached", "live"]),
            "'disabled', 'cached', and 'live'"
        );
    }

    #[test]
    fn echo_bound_is_256_bytes_of_printable_text() {
        assert!(echoable(&"<".repeat(256)));
        assert!(!echoable(&"<".repeat(257)));
        assert!(echoable("雪 and 🧪"));
        for bad in [
            "tab\tkey",
            "\u{fffd}",
            "line\u{2028}break",
            "nb\u{a0}sp",
            "zw\u{200b}",
            "\u{e000}",
            "\0",
        ] {
            assert!(!echoable(bad), "{bad:?}");
        }
    }
}
