//! Reading a registry row into a typed record: each column as the engine answers it (`null`
//! when unset, ids and times as text), so typed records travel exactly as the engine's maps.

use sqlx::Row;
use sqlx::any::AnyRow;

use crate::kernel::{ApiError, Id, time};
use crate::station::fields::format_day;

/// A row of a registry's columns (`id, create_time, update_time`, the declared columns and
/// `station_name`).
pub struct DeviceRow<'a>(pub &'a AnyRow);

impl DeviceRow<'_> {
    pub fn id(&self) -> Result<Id, ApiError> {
        Ok(Id(self.0.try_get::<i64, _>("id")?))
    }

    pub fn text(&self, column: &str) -> Result<Option<String>, ApiError> {
        Ok(self.0.try_get::<Option<String>, _>(column)?)
    }

    pub fn int(&self, column: &str) -> Result<Option<i64>, ApiError> {
        Ok(self.0.try_get::<Option<i64>, _>(column)?)
    }

    pub fn float(&self, column: &str) -> Result<Option<f64>, ApiError> {
        Ok(self.0.try_get::<Option<f64>, _>(column)?)
    }

    /// A column holding an id.
    pub fn id_of(&self, column: &str) -> Result<Option<Id>, ApiError> {
        Ok(self.int(column)?.map(Id))
    }

    /// A column holding a day (ms at its start), as `yyyy-MM-dd`.
    pub fn day(&self, column: &str) -> Result<Option<String>, ApiError> {
        Ok(self.int(column)?.map(format_day))
    }

    /// A comma-joined list of integers, as a list.
    pub fn int_list(&self, column: &str) -> Result<Option<Vec<i64>>, ApiError> {
        Ok(self.text(column)?.map(|s| {
            s.split(',')
                .filter_map(|p| p.trim().parse::<i64>().ok())
                .collect()
        }))
    }

    /// Whether a write-only (sealed) column holds a value; the value itself is never read.
    pub fn is_set(&self, column: &str) -> Result<bool, ApiError> {
        Ok(self.text(column)?.is_some())
    }

    pub fn station_name(&self) -> Result<Option<String>, ApiError> {
        self.text("station_name")
    }

    pub fn create_time(&self) -> Result<String, ApiError> {
        Ok(time::format_ms(self.0.try_get::<i64, _>("create_time")?))
    }

    pub fn update_time(&self) -> Result<Option<String>, ApiError> {
        Ok(self.int("update_time")?.map(time::format_ms))
    }
}
