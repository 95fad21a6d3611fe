//! `metadata`: up to 16 string pairs, keys up to 64 characters, values up to 512.
//!
//! Null is the empty map. The checks run in the officially observed order: each value's type in
//! document order, then the number of pairs, then for each key in sorted order its length and
//! its value's length. Lengths count characters. Public so that the Session parser reuses it.

use serde_json::{Map, Value};

use crate::error::ValidationError;
use crate::error_messages;
use crate::json_path::member_path;
use crate::scalar;

pub const MAX_PAIRS: usize = 16;
pub const MAX_KEY_CHARS: usize = 64;
pub const MAX_VALUE_CHARS: usize = 512;

pub fn parse_metadata(value: &Value, path: &str) -> Result<Map<String, Value>, ValidationError> {
    if value.is_null() {
        return Ok(Map::new());
    }
    let map = scalar::string_map(value, path)?;
    if map.len() > MAX_PAIRS {
        return Err(error_messages::too_many_properties(
            path,
            MAX_PAIRS,
            map.len(),
        ));
    }
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    for key in keys {
        let key_len = key.chars().count();
        if key_len > MAX_KEY_CHARS {
            return Err(error_messages::property_name_too_long(
                path,
                key,
                MAX_KEY_CHARS,
                key_len,
            ));
        }
        scalar::bounded_string(&map[key.as_str()], &member_path(path, key), MAX_VALUE_CHARS)?;
    }
    Ok(map)
}
