//! Cursor pages: `after` (exclusive), `limit`, `order`, and whether more rows follow.
//!
//! Rows are ordered by their insertion sequence, so a cursor is just the ID of the last row the
//! caller saw; the store resolves it to that row's sequence number.

/// Page direction; the API default is newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    Asc,
    #[default]
    Desc,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageQuery {
    pub after: Option<String>,
    /// 1–100; validated at the HTTP edge.
    pub limit: u32,
    pub order: Order,
}

impl Default for PageQuery {
    fn default() -> Self {
        PageQuery {
            after: None,
            limit: 20,
            order: Order::Desc,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub has_more: bool,
}
