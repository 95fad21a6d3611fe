//! Whether a schema's numbers survive a binary64 reader.
//!
//! Core keeps every JSON number as the decimal text the caller sent (serde_json's
//! `arbitrary_precision` is on workspace-wide), so schemas are stored and forwarded unchanged.
//! Some native harnesses read JSON numbers as IEEE-754 binary64 (the Claude SDK), and Session
//! admission must reject schemas that such a reader would change (execution-tools.md,
//! "Structured output"). The definition:
//!
//! > A number changes in the binary64 conversion when parsing it to the nearest binary64 and
//! > writing that value back in shortest round-trip form gives a different numeric value, or
//! > overflows.
//!
//! So the test is "what a JavaScript client would keep", not exact representability: `0.1`
//! survives (it reads back as `0.1`), `9007199254740993` does not (it reads back as
//! `9007199254740992`). The comparison is between normalized decimals (sign, significant
//! digits, exponent), so spelling differences such as `1.0` vs `1` or `1E2` vs `100` are not
//! changes.
//!
//! **Zero:** `-0` and `0` are the same numeric value, so `-0` (and `-0.0`) survives. A reader
//! may print it back as `0` (JavaScript's `JSON.stringify(-0)` does), which is still the value
//! zero. A nonzero number that underflows to zero (`1e-400`) changes.

use serde_json::{Number, Value};

/// True when every number anywhere in `value` survives the binary64 conversion. Strings,
/// including object keys, are never numbers here.
pub fn binary64_lossless(value: &Value) -> bool {
    match value {
        Value::Number(n) => number_survives_binary64(n),
        Value::Array(items) => items.iter().all(binary64_lossless),
        Value::Object(members) => members.values().all(binary64_lossless),
        Value::Null | Value::Bool(_) | Value::String(_) => true,
    }
}

/// True when this one number survives: nearest binary64, finite, and printed back in shortest
/// round-trip form (Rust's `{:e}`) it denotes the same decimal value.
pub fn number_survives_binary64(n: &Number) -> bool {
    let text = n.to_string();
    let Ok(nearest) = text.parse::<f64>() else {
        return false;
    };
    if !nearest.is_finite() {
        return false;
    }
    match (
        Decimal::parse(&text),
        Decimal::parse(&format!("{nearest:e}")),
    ) {
        (Some(sent), Some(read_back)) => sent == read_back,
        _ => false,
    }
}

/// A decimal number as sign, significant digits and exponent: the value is
/// `0.d₁d₂…dₙ × 10^exponent` with no leading or trailing zero digit. Zero has no digits, no
/// sign and exponent 0, so every spelling of zero is equal.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Decimal {
    /// Parses JSON number syntax (and Rust's `{:e}` output). Exponents beyond `i64` saturate:
    /// such a number is either zero (equal to every zero) or overflows/underflows binary64,
    /// where the comparison fails anyway.
    fn parse(text: &str) -> Option<Decimal> {
        let (negative, unsigned) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], parse_exponent(&unsigned[at + 1..])?),
            None => (unsigned, 0),
        };
        let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int_part.is_empty()
            || !(int_part
                .bytes()
                .chain(frac_part.bytes())
                .all(|b| b.is_ascii_digit()))
        {
            return None;
        }
        let all: String = format!("{int_part}{frac_part}");
        let leading = all.bytes().take_while(|b| *b == b'0').count();
        let significant = all[leading..].trim_end_matches('0');
        if significant.is_empty() {
            return Some(Decimal {
                negative: false,
                digits: String::new(),
                exponent: 0,
            });
        }
        // The decimal point sits after `int_part`; every stripped leading zero moves it left.
        let point = int_part.len() as i64 - leading as i64;
        Some(Decimal {
            negative,
            digits: significant.to_string(),
            exponent: exponent.saturating_add(point),
        })
    }
}

fn parse_exponent(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().fold(0i64, |acc, b| {
        acc.saturating_mul(10).saturating_add(i64::from(b - b'0'))
    });
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn survives(text: &str) -> bool {
        number_survives_binary64(&serde_json::from_str::<Number>(text).unwrap())
    }

    #[test]
    fn the_specified_examples() {
        for text in ["0.1", "1.0", "0.30000000000000004"] {
            assert!(survives(text), "{text} should survive");
        }
        for text in [
            "9007199254740993",
            "1e400",
            "123456789012345678901234567890",
            "2.5e-324",
        ] {
            assert!(!survives(text), "{text} should change");
        }
    }

    #[test]
    fn exhaustive_table() {
        let table: &[(&str, bool)] = &[
            // Integers: exact up to 2^53, then only the representable ones.
            ("0", true),
            ("1", true),
            ("-1", true),
            ("9007199254740992", true),
            ("9007199254740993", false),
            ("-9007199254740993", false),
            // 2^64 is exactly a binary64 value, but its shortest form is 18446744073709552000.
            ("18446744073709551616", false),
            ("18446744073709551617", false),
            // Spellings of the same value.
            ("1.000", true),
            ("100", true),
            ("1E2", true),
            ("1e+2", true),
            ("10e1", true),
            ("0.5e1", true),
            // Decimals that read back in shortest form.
            ("0.1", true),
            ("0.2", true),
            ("3.14159", true),
            ("1.7976931348623157e308", true),
            ("5e-324", true),
            ("2.2250738585072014e-308", true),
            // Decimals with more digits than binary64 keeps.
            ("0.1000000000000000055511151231257827", false),
            ("3.141592653589793238462643383279", false),
            ("1.00000000000000001", false),
            // Overflow and underflow.
            ("1e309", false),
            ("-1e309", false),
            ("1.7976931348623159e308", false),
            ("1e-400", false),
            ("2.5e-324", false),
            ("1e99999999999999999999999", false),
            ("1e-99999999999999999999999", false),
            // Zero in every spelling, signed or not.
            ("0.0", true),
            ("-0", true),
            ("-0.0", true),
            ("0e10", true),
            ("0e99999999999999999999999", true),
        ];
        for (text, expected) in table {
            assert_eq!(survives(text), *expected, "{text}");
        }
    }

    #[test]
    fn schemas_are_walked_through_arrays_and_objects() {
        assert!(binary64_lossless(
            &json!({"type": "object", "properties": {"n": {"maximum": 0.1}}})
        ));
        let deep: Value = serde_json::from_str(
            r#"{"type":"object","properties":{"n":{"enum":[1, 9007199254740993]}}}"#,
        )
        .unwrap();
        assert!(!binary64_lossless(&deep));
        // A number-like key or string is not a number.
        let strings: Value = serde_json::from_str(r#"{"9007199254740993": "1e400"}"#).unwrap();
        assert!(binary64_lossless(&strings));
    }

    #[test]
    fn decimals_normalize() {
        let d = |t: &str| Decimal::parse(t).unwrap();
        assert_eq!(d("1.50"), d("15e-1"));
        assert_eq!(d("0.001"), d("1e-3"));
        assert_eq!(d("-0"), d("0"));
        assert_ne!(d("-1"), d("1"));
        assert_eq!(
            d("120"),
            Decimal {
                negative: false,
                digits: "12".into(),
                exponent: 3
            }
        );
        assert_eq!(Decimal::parse("1e"), None);
        assert_eq!(Decimal::parse(".5"), None);
    }
}
