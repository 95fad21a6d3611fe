//! List query parameters (`after`, `limit` 1–100 default 20, `order` asc|desc default desc) and
//! the list envelope `{object: "list", data, first_id, last_id, has_more}`.

use std::collections::HashMap;

use serde_json::{Number, Value, json};
use switchboard_execution::ValidationError;
use switchboard_execution::error_messages::{
    above_maximum, below_minimum, invalid_type, invalid_value,
};
use switchboard_store::{Order, Page, PageQuery, StoreError};

/// Parses the list query with the parser's own message builders, so a bad `limit` reads like
/// a bad body member.
pub fn page_query(q: &HashMap<String, String>) -> Result<PageQuery, ValidationError> {
    let limit = match q.get("limit") {
        None => 20,
        Some(s) => {
            let n: i64 = s
                .parse()
                .map_err(|_| invalid_type("limit", "an integer", &Value::String(s.clone())))?;
            if n < 1 {
                return Err(below_minimum("limit", 1, &Number::from(n)));
            }
            if n > 100 {
                return Err(above_maximum("limit", 100, &Number::from(n)));
            }
            n as u32
        }
    };
    let order = match q.get("order").map(String::as_str) {
        None | Some("desc") => Order::Desc,
        Some("asc") => Order::Asc,
        Some(other) => return Err(invalid_value("order", other, &["asc", "desc"])),
    };
    let after = q.get("after").filter(|s| !s.is_empty()).cloned();
    Ok(PageQuery {
        after,
        limit,
        order,
    })
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

/// A list read whose `after` cursor names no row is an empty page, not an error.
pub fn unknown_cursor_is_empty<T>(r: Result<Page<T>, StoreError>) -> Result<Page<T>, StoreError> {
    match r {
        Err(StoreError::UnknownCursor) => Ok(Page {
            data: Vec::new(),
            has_more: false,
        }),
        other => other,
    }
}
