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

//! The rule itself lives with the parser (`switchboard_execution::number`), which owns number
//! handling; the declaration check names it here in its own vocabulary.

pub use switchboard_execution::number::{
    binary64_lossless as lossless, number_survives_binary64 as number_lossless,
};
