//! Which JSON numbers a native harness can read in a function's `parameters` schema.

use serde_json::{Number, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaNumbers {
    /// Every JSON number is read (possibly rounded, as a JavaScript reader does).
    Any,
    /// Integer literals outside the 64-bit range that still fit 128 bits are refused. Codex
    /// 0.171.0's JSON-RPC reader takes such an integer as i128/u128 and rejects `thread/start`
    /// ("invalid type: integer `…` as u128, expected any value"); a longer integer or any
    /// literal with a fraction or exponent is read as a float, and a 64-bit one exactly.
    No128BitIntegers,
}

impl SchemaNumbers {
    /// Whether every number in `value` can be read.
    pub fn readable(self, value: &Value) -> bool {
        match self {
            SchemaNumbers::Any => true,
            SchemaNumbers::No128BitIntegers => !any_number(value, &|n| is_128_bit_integer(n)),
        }
    }
}

fn any_number(value: &Value, test: &dyn Fn(&Number) -> bool) -> bool {
    match value {
        Value::Number(n) => test(n),
        Value::Array(items) => items.iter().any(|v| any_number(v, test)),
        Value::Object(members) => members.values().any(|v| any_number(v, test)),
        _ => false,
    }
}

/// An integer literal (the caller's own digits, under `arbitrary_precision`) that needs more
/// than 64 bits and at most 128.
fn is_128_bit_integer(n: &Number) -> bool {
    let text = n.to_string();
    if text.contains(['.', 'e', 'E']) {
        return false;
    }
    let fits_64 = text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok();
    let fits_128 = text.parse::<i128>().is_ok() || text.parse::<u128>().is_ok();
    fits_128 && !fits_64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> bool {
        SchemaNumbers::No128BitIntegers.readable(&serde_json::from_str(text).unwrap())
    }

    #[test]
    fn only_integers_between_64_and_128_bits_are_refused() {
        for ok in [
            "18446744073709551615",
            "-9223372036854775808",
            "340282366920938463463374607431768211456",
            "1234567890123456789012345678901234567890",
            "1e400",
            "123456789012345678901234567890.0",
            "1.5",
        ] {
            assert!(read(&format!("{{\"maximum\": {ok}}}")), "{ok}");
        }
        for refused in [
            "18446744073709551616",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "340282366920938463463374607431768211455",
        ] {
            assert!(
                !read(&format!("{{\"a\": [{{\"maximum\": {refused}}}]}}")),
                "{refused}"
            );
        }
        assert!(
            SchemaNumbers::Any
                .readable(&serde_json::from_str("123456789012345678901234567890").unwrap())
        );
    }
}
