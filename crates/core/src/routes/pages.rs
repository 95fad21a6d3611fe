//! List query parameters (`after`, `limit` 1–100 default 20, `order` asc|desc default desc) and
//! the list envelope `{object: "list", data, first_id, last_id, has_more}`.

use std::collections::HashMap;

use serde_json::{Value, json};
use switchboard_store::{Order, Page, PageQuery};
use switchboard_wire::ApiError;

/// Parses the list query, with the same messages as body validation.
pub fn page_query(q: &HashMap<String, String>) -> Result<PageQuery, ApiError> {
    let limit = match q.get("limit") {
        None => 20,
        Some(s) => {
            let n: i64 = s.parse().map_err(|_| {
                ApiError::invalid_request(
                    "invalid_type",
                    Some("limit".into()),
                    "Invalid type for 'limit': expected an integer, but got a string instead.",
                )
            })?;
            if n < 1 {
                return Err(ApiError::invalid_request(
                    "integer_below_min_value",
                    Some("limit".into()),
                    format!(
                        "Invalid 'limit': integer below minimum value. Expected a value >= 1, but got {n} instead."
                    ),
                ));
            }
            if n > 100 {
                return Err(ApiError::invalid_request(
                    "integer_above_max_value",
                    Some("limit".into()),
                    format!(
                        "Invalid 'limit': integer above maximum value. Expected a value <= 100, but got {n} instead."
                    ),
                ));
            }
            n as u32
        }
    };
    let order = match q.get("order").map(String::as_str) {
        None | Some("desc") => Order::Desc,
        Some("asc") => Order::Asc,
        Some(other) => {
            return Err(ApiError::invalid_request(
                "invalid_value",
                Some("order".into()),
                format!(
                    "Invalid value: '{}'. Supported values are: 'asc' and 'desc'.",
                    echo(other)
                ),
            ));
        }
    };
    let after = q.get("after").filter(|s| !s.is_empty()).cloned();
    Ok(PageQuery {
        after,
        limit,
        order,
    })
}

/// Caller values are echoed only when short and printable.
pub fn echo(v: &str) -> &str {
    if v.len() <= 256 && v.chars().all(|c| !c.is_control()) {
        v
    } else {
        "<value>"
    }
}

/// The list envelope for already-rendered objects.
pub fn list_envelope(page: Page<Value>) -> Value {
    let first = page
        .data
        .first()
        .and_then(|v| v.get("id"))
        .cloned()
        .unwrap_or(Value::Null);
    let last = page
        .data
        .last()
        .and_then(|v| v.get("id"))
        .cloned()
        .unwrap_or(Value::Null);
    json!({ "object": "list", "data": page.data, "first_id": first, "last_id": last, "has_more": page.has_more })
}
