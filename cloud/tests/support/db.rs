//! Reading and writing the hub's database directly, for what the API cannot show or set up
//! (hashes at rest, menu ids, rows a worker would write).

use pv_cloud::kernel::sql::{Sql, Value};
use sqlx::AssertSqlSafe;

use super::server::TestApp;

impl TestApp {
    /// Runs one statement with `?` placeholders.
    pub async fn exec(&self, sql: &str, values: Vec<Value>) {
        let mut s = Sql::default();
        s.push_bind(sql, values);
        let (text, args) = s.build().expect("sql");
        sqlx::query_with(AssertSqlSafe(text), args)
            .execute(self.state.db.pool())
            .await
            .expect("exec");
    }

    pub async fn scalar_text(&self, sql: &str, values: Vec<Value>) -> Option<String> {
        let mut s = Sql::default();
        s.push_bind(sql, values);
        let (text, args) = s.build().expect("sql");
        sqlx::query_scalar_with::<sqlx::Any, String, _>(AssertSqlSafe(text), args)
            .fetch_optional(self.state.db.pool())
            .await
            .expect("query")
    }

    pub async fn scalar_int(&self, sql: &str, values: Vec<Value>) -> Option<i64> {
        let mut s = Sql::default();
        s.push_bind(sql, values);
        let (text, args) = s.build().expect("sql");
        sqlx::query_scalar_with::<sqlx::Any, i64, _>(AssertSqlSafe(text), args)
            .fetch_optional(self.state.db.pool())
            .await
            .expect("query")
    }

    /// One integer that must exist (a `COUNT(*)`, an id).
    pub async fn scalar_i64(&self, sql: &str, values: Vec<Value>) -> i64 {
        let mut s = Sql::default();
        s.push_bind(sql, values);
        let (text, args) = s.build().expect("sql");
        sqlx::query_scalar_with::<sqlx::Any, i64, _>(AssertSqlSafe(text), args)
            .fetch_one(self.state.db.pool())
            .await
            .expect("query")
    }

    /// The ids of the menus with these codes, in order.
    pub async fn menu_ids(&self, codes: &[&str]) -> Vec<i64> {
        let mut out = Vec::new();
        for c in codes {
            let mut s = Sql::default();
            s.push_bind("SELECT id FROM blade_menu WHERE code = ?", [(*c).into()]);
            let (text, args) = s.build().expect("sql");
            let id: i64 = sqlx::query_scalar_with::<sqlx::Any, i64, _>(AssertSqlSafe(text), args)
                .fetch_one(self.state.db.pool())
                .await
                .unwrap_or_else(|_| panic!("menu {c}"));
            out.push(id);
        }
        out
    }

    /// The menu id of `code` as the wire shows it.
    pub async fn menu_id(&self, code: &str) -> String {
        self.menu_ids(&[code]).await[0].to_string()
    }
}
