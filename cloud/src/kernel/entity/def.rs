//! What the engine needs to know of a declared entity to read and write its rows.

use super::field::Col;

/// An entity's table: its name, its declared fields and its default order.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    pub name: &'static str,
    pub cols: &'static [Col],
    /// `ORDER BY` when a request names no sort (trusted text).
    pub order: &'static str,
}
