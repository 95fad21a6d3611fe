//! Deterministic token counting, so usage numbers in replies can be asserted.
//!
//! Real tokenizers are model-specific and large; tests only need numbers that follow from the
//! text in an obvious way. The rule here: a *token* is a maximal run of alphanumeric characters,
//! or any single other character that is not whitespace. So `"Hello, world!"` is 4 tokens and
//! `"get_weather"` is 3 (`get`, `_`, `weather`).
//!
//! Input tokens count every string value in the prompt-bearing members of a request
//! (instructions/system, input/messages, tools), skipping the structural members listed in
//! [`STRUCTURAL_KEYS`] whose values are identifiers rather than text.

use serde_json::Value;

/// Members whose string values are identifiers or enum tags, not prompt text.
pub const STRUCTURAL_KEYS: &[&str] = &["type", "role", "id", "call_id", "tool_use_id"];

/// Tokens in one piece of text.
pub fn count_tokens(text: &str) -> u64 {
    let mut tokens = 0;
    let mut in_word = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if !in_word {
                tokens += 1;
                in_word = true;
            }
        } else {
            in_word = false;
            if !c.is_whitespace() {
                tokens += 1;
            }
        }
    }
    tokens
}

/// Tokens in every string value of `value`, except values of [`STRUCTURAL_KEYS`] members.
pub fn count_value_tokens(value: &Value) -> u64 {
    match value {
        Value::String(s) => count_tokens(s),
        Value::Array(items) => items.iter().map(count_value_tokens).sum(),
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !STRUCTURAL_KEYS.contains(&k.as_str()))
            .map(|(_, v)| count_value_tokens(v))
            .sum(),
        _ => 0,
    }
}

/// Input tokens of a request body: the sum over the named members that are present.
pub fn count_members(body: &Value, members: &[&str]) -> u64 {
    members
        .iter()
        .filter_map(|m| body.get(*m))
        .map(count_value_tokens)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words_and_punctuation_are_tokens_whitespace_is_not() {
        assert_eq!(count_tokens("Hello, world!"), 4);
        assert_eq!(count_tokens("get_weather"), 3);
        assert_eq!(count_tokens("  "), 0);
        assert_eq!(count_tokens("héllo wörld"), 2);
    }

    #[test]
    fn structural_members_are_not_counted() {
        let v = json!([{"type": "message", "role": "user", "content": "two words"}]);
        assert_eq!(count_value_tokens(&v), 2);
    }
}
