//! Does a JSON document keep every number through a binary64 (f64) reader?
//!
//! The Claude SDK parses JSON with JavaScript's `JSON.parse`, so each number becomes the
//! nearest binary64 value. A number "changes in the binary64 conversion" when parsing it to
//! the nearest binary64 and writing that value back in shortest round-trip form gives a
//! different *numeric* value, or overflows. So `0.1` and `1.0` survive (they print back as
//! `0.1` and `1`), while `9007199254740993` (becomes ...992), `1e400` (overflows) and
//! `2.5e-324` (becomes `5e-324`) do not. Spelling is not value: `1.0`, `1` and `10e-1` are the
//! same number, so the comparison is between normalized decimals (sign, significant digits,
//! exponent), never between strings. `-0.0` reads back as `-0` and survives.
//!
//! Numbers arrive as `serde_json::Number` under the workspace-wide `arbitrary_precision`
//! feature, so `Number::to_string` is the caller's own digits, never an f64 rendering.

use serde_json::{Number, Value};

/// True when every number anywhere in `value` (object members, array items, nested to any
/// depth) survives binary64.
pub fn lossless(value: &Value) -> bool {
    match value {
        Value::Number(n) => number_lossless(n),
        Value::Array(items) => items.iter().all(lossless),
        Value::Object(members) => members.values().all(lossless),
        Value::Null | Value::Bool(_) | Value::String(_) => true,
    }
}

/// True when this one number survives binary64.
pub fn number_lossless(n: &Number) -> bool {
    let source = n.to_string();
    // Rust's float parsing is correctly rounded (round-half-to-even), as JavaScript's is.
    let Ok(nearest) = source.parse::<f64>() else {
        return false;
    };
    if !nearest.is_finite() {
        return false;
    }
    // `{:e}` prints the shortest digits that read back as the same f64.
    let shortest = format!("{nearest:e}");
    match (Decimal::parse(&source), Decimal::parse(&shortest)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A decimal as `(-1)^negative × digits × 10^exponent`, with `digits` free of leading and
/// trailing zeros. Zero has empty digits and exponent 0 but keeps its sign.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Decimal {
    /// Parses JSON number syntax (and Rust's `{:e}` output, a subset). `None` for anything
    /// else, or for an exponent outside i64 on a nonzero number.
    fn parse(text: &str) -> Option<Decimal> {
        let (negative, unsigned) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
            None => (unsigned, None),
        };
        let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int_part.is_empty() || !all_digits(int_part) || !all_digits(frac_part) {
            return None;
        }

        let joined = format!("{int_part}{frac_part}");
        let significant = joined.trim_start_matches('0');
        let digits = significant.trim_end_matches('0');
        if digits.is_empty() {
            return Some(Decimal {
                negative,
                digits: String::new(),
                exponent: 0,
            });
        }

        let written: i64 = match exponent {
            Some(e) => e.strip_prefix('+').unwrap_or(e).parse().ok()?,
            None => 0,
        };
        let trailing_zeros = (significant.len() - digits.len()) as i64;
        let exponent = written
            .checked_sub(frac_part.len() as i64)?
            .checked_add(trailing_zeros)?;
        Some(Decimal {
            negative,
            digits: digits.to_owned(),
            exponent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_normalize_spelling() {
        let d = |s| Decimal::parse(s).unwrap();
        assert_eq!(d("1.0"), d("1"));
        assert_eq!(d("10e-1"), d("1"));
        assert_eq!(d("0.00100"), d("1e-3"));
        assert_eq!(d("1E+2"), d("100"));
        assert_eq!(d("0e400"), d("0"));
        assert_ne!(d("-0"), d("0"));
        assert_eq!(Decimal::parse("1e99999999999999999999"), None);
        assert_eq!(Decimal::parse("abc"), None);
    }
}
