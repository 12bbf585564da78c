//! Developer tools (`blade-develop`): data sources, models read from their catalogues, field
//! settings and the code generator's files (see also `scripts/check-codegen`, which builds them).

mod catalogue;
mod codegen;

use std::path::Path;

use sqlx::{Connection, Executor};

/// A SQLite file `name` in the hub's datasources folder holding a `spare_part` table (the
/// example business table) and a `warehouse` table.
pub async fn scratch_sqlite(data_dir: &Path, name: &str) {
    let dir = data_dir.join("datasources");
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.join(name).display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    conn.execute(SPARE_PART_DDL).await.unwrap();
    conn.close().await.unwrap();
}

pub const SPARE_PART_DDL: &str = "CREATE TABLE spare_part (
    id BIGINT PRIMARY KEY,
    tenant_id VARCHAR(12),
    part_name VARCHAR(64) NOT NULL,
    part_no VARCHAR(32) NOT NULL,
    quantity INTEGER NOT NULL,
    unit_price NUMERIC(10, 2),
    install_date DATE,
    remark TEXT
);
CREATE TABLE warehouse (id BIGINT PRIMARY KEY, name VARCHAR(64));";
