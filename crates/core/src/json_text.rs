//! A JSON value as compact text: what `Value::to_string` prints, without going through `fmt`.
//!
//! `Display` hands every token of the serializer to `fmt::Write`, one `write_str` call each
//! (a key, a quote, a colon), which made it the largest single cost of rendering a Session's
//! events and rows (docs/benchmarks.md, session 18). Serializing into a byte buffer writes the
//! same text in larger pieces.

use serde_json::Value;

/// `value` as compact JSON text, byte for byte what `value.to_string()` gives.
pub fn json_text(value: &Value) -> String {
    // A `Value` always serializes: its map keys are strings, and memory takes any length.
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_text_is_what_display_prints() {
        let value = json!({
            "type": "agent.session.turn.item.added",
            "text": "quote \" backslash \\ newline \n tab \t nul \u{0} é 🌍 </script>",
            "n": [1, -2, 3.5, 1e300, u64::MAX, i64::MIN],
            "nested": {"empty": {}, "list": [], "null": null, "yes": true},
        });
        assert_eq!(json_text(&value), value.to_string());
    }
}
