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

/// Writes `object`, a JSON object's compact text, to `out` with `members` (the pieces of
/// `"key":value` text) as its first members: known members put in front of an object rendered
/// once (a stored document, an event, an agent's public fields), with nothing parsed again.
/// Writes nothing and returns false when `object` is not an object's text.
pub fn push_object_led_by(out: &mut String, members: &[&str], object: &str) -> bool {
    let Some(rest) = object.strip_prefix('{').filter(|rest| rest.ends_with('}')) else {
        return false;
    };
    out.push('{');
    members.iter().for_each(|piece| out.push_str(piece));
    if rest != "}" {
        out.push(',');
    }
    out.push_str(rest);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_lead_an_object_empty_or_not_and_anything_else_is_left() {
        for (object, expected) in [
            (r#"{"b":2}"#, Some(r#"{"a":1,"b":2}"#)),
            ("{}", Some(r#"{"a":1}"#)),
            ("[1]", None),
            ("{", None),
        ] {
            let mut out = String::from("x");
            let led = push_object_led_by(&mut out, &["\"a\":", "1"], object);
            assert_eq!(led, expected.is_some(), "{object}");
            assert_eq!(
                out,
                format!("x{}", expected.unwrap_or_default()),
                "{object}"
            );
        }
    }

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
