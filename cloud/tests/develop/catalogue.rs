//! Data sources and models: the connection test, the catalogue reads on SQLite and PostgreSQL,
//! sealed passwords, the tenant binding and the platform-only rule.

use super::scratch_sqlite;
use crate::support::TestApp;
use pv_cloud::kernel::sql::Value;
use serde_json::json;

const DS: &str = "/api/blade-develop/datasource";
const MODEL: &str = "/api/blade-develop/model";

#[tokio::test]
async fn a_sqlite_data_source_is_tested_and_its_tables_and_columns_read() {
    let app = TestApp::start().await;
    scratch_sqlite(&app.data_dir, "spare.db").await;
    let admin = app.as_admin().await;

    // Only a file name in the datasources folder: no path out of it.
    for bad in ["../pv.db", "/etc/passwd", "a/b.db", ".hidden"] {
        let r = admin
            .submit(DS, json!({"name": "x", "category": 1, "url": bad}))
            .await
            .fails(400);
        assert!(r.msg().contains("datasources"), "{bad}: {}", r.msg());
    }
    let ds = admin
        .submit(
            DS,
            json!({"name": "备件库", "category": 1, "url": "spare.db", "remark": "scratch"}),
        )
        .await
        .ok()
        .id();
    let dup = admin
        .submit(DS, json!({"name": "备件库", "category": 1, "url": "spare.db"}))
        .await
        .fails(400);
    assert_eq!(dup.msg(), "数据源名称已存在");

    // The form as it stands, and a saved one by id.
    let tested = admin
        .post_data(&format!("{DS}/test"), json!({"category": 1, "url": "spare.db"}))
        .await;
    assert!(
        tested["version"].as_str().unwrap().starts_with("SQLite 3."),
        "{tested}"
    );
    assert_eq!(tested["tables"], 2);
    let missing = admin
        .post_json(
            &format!("{DS}/test"),
            json!({"category": 1, "url": "nothing-here.db"}),
        )
        .await
        .fails(400);
    assert!(missing.msg().starts_with("连接失败："), "{}", missing.msg());
    assert!(missing.msg().contains("unable to open"), "{}", missing.msg());
    assert!(
        !app.data_dir.join("datasources/nothing-here.db").exists(),
        "a test must not create the file"
    );

    let model = admin
        .submit(
            MODEL,
            json!({"datasourceId": ds, "modelName": "备品备件", "modelCode": "spare_part", "modelTable": "spare_part"}),
        )
        .await
        .ok()
        .id();
    let bad_code = admin
        .submit(
            MODEL,
            json!({"datasourceId": ds, "modelName": "x", "modelCode": "Spare-Part", "modelTable": "spare_part"}),
        )
        .await
        .fails(400);
    assert!(bad_code.msg().contains("模型编号"), "{}", bad_code.msg());
    let listed = admin.get(&format!("{MODEL}/list?current=1&size=10")).await.ok();
    assert_eq!(listed.data()["records"][0]["datasourceName"], "备件库");

    let tables = admin
        .get(&format!("{MODEL}/table-list?datasourceId={ds}"))
        .await
        .ok()
        .data();
    let names: Vec<&str> = tables
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["spare_part", "warehouse"]);

    let info = admin
        .get(&format!("{MODEL}/table-info?modelId={model}"))
        .await
        .ok()
        .data();
    assert_eq!(info["tableName"], "spare_part");
    let cols = info["columns"].as_array().unwrap();
    let col = |n: &str| cols.iter().find(|c| c["name"] == n).unwrap().clone();
    assert_eq!(cols.len(), 8);
    assert_eq!(col("id")["primaryKey"], true);
    assert_eq!(col("part_name")["type"], "VARCHAR(64)");
    assert_eq!(col("part_name")["maxLength"], 64);
    assert_eq!(col("part_name")["nullable"], false);
    assert_eq!(col("unit_price")["type"], "NUMERIC(10, 2)");
    assert_eq!(col("unit_price")["maxLength"], serde_json::Value::Null);
    assert_eq!(col("remark")["nullable"], true);
    // By table name too; an unknown table is refused.
    let by_name = admin
        .get(&format!(
            "{MODEL}/table-info?datasourceId={ds}&tableName=warehouse"
        ))
        .await
        .ok()
        .data();
    assert_eq!(by_name["columns"].as_array().unwrap().len(), 2);
    let unknown = admin
        .get(&format!("{MODEL}/table-info?datasourceId={ds}&tableName=nope"))
        .await
        .fails(400);
    assert_eq!(unknown.msg(), "数据源中没有该表");
}

#[tokio::test]
async fn passwords_are_sealed_never_answered_and_kept_on_an_edit() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let id = admin
        .submit(
            DS,
            json!({"name": "pg", "category": 2, "url": "postgres://127.0.0.1:1/none", "username": "u", "password": "pw-secret-123"}),
        )
        .await
        .ok()
        .id();
    let listed = admin.get(&format!("{DS}/list?current=1&size=10")).await.ok();
    assert!(!listed.body.to_string().contains("pw-secret"), "{}", listed.body);
    let detail = admin.get(&format!("{DS}/detail?id={id}")).await.ok().data();
    assert!(detail.get("password").is_none(), "{detail}");
    assert_eq!(detail["passwordSet"], true);
    let sealed = app
        .scalar_text(
            "SELECT password FROM blade_datasource WHERE id = ?",
            vec![Value::Int(id.parse().unwrap())],
        )
        .await
        .unwrap();
    assert!(
        sealed.starts_with("v1:") && !sealed.contains("pw-secret"),
        "{sealed}"
    );
    // An edit without a password keeps the stored one.
    admin
        .submit(DS, json!({"id": id, "name": "pg main", "category": 2, "url": "postgres://127.0.0.1:1/none", "password": ""}))
        .await
        .ok();
    let kept = app
        .scalar_text(
            "SELECT password FROM blade_datasource WHERE id = ?",
            vec![Value::Int(id.parse().unwrap())],
        )
        .await
        .unwrap();
    assert_eq!(kept, sealed);
    let bad = admin
        .submit(DS, json!({"name": "pg2", "category": 2, "url": "mysql://h/db"}))
        .await
        .fails(400);
    assert!(bad.msg().contains("postgres://"), "{}", bad.msg());

    // Nobody listens on port 1: the answer carries the system's own words.
    let refused = admin
        .post_json(
            &format!("{DS}/test"),
            json!({"id": id, "category": 2, "url": "postgres://127.0.0.1:1/none"}),
        )
        .await
        .fails(400);
    assert!(refused.msg().starts_with("连接失败："), "{}", refused.msg());
    assert!(
        refused.msg().to_lowercase().contains("refused"),
        "{}",
        refused.msg()
    );
    let en = admin
        .en()
        .post_json(
            &format!("{DS}/test"),
            json!({"category": 2, "url": "postgres://127.0.0.1:1/none"}),
        )
        .await
        .fails(400);
    assert!(en.msg().starts_with("Connection failed: "), "{}", en.msg());
}

/// On a real PostgreSQL server (the suite's, when it runs on one): a scratch database with the
/// spare-part table is read through its catalogue; a missing database answers the server's text.
#[tokio::test]
async fn a_postgresql_data_source_is_read_through_information_schema() {
    let Ok(admin_url) = std::env::var("TEST_POSTGRES_URL") else {
        // Without a server there is still the refusal to check (done above); this one needs it.
        return pg_absent_answers_in_the_envelope().await;
    };
    use sqlx::{Connection, Executor};
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let name = format!("pv_ds_{}", std::process::id());
    let mut server = sqlx::PgConnection::connect(&admin_url).await.unwrap();
    let _ = server
        .execute(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name}")))
        .await;
    server
        .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .await
        .unwrap();
    let (base, _) = admin_url.rsplit_once('/').unwrap();
    let scratch_url = format!("{base}/{name}");
    let mut scratch = sqlx::PgConnection::connect(&scratch_url).await.unwrap();
    scratch.execute(super::SPARE_PART_DDL).await.unwrap();
    scratch
        .execute("COMMENT ON COLUMN spare_part.part_name IS '备件名称'")
        .await
        .unwrap();
    scratch.close().await.unwrap();

    // postgres://user:pass@host:port/db → the address without the user, the rest in the form.
    let after_scheme = scratch_url.split_once("://").unwrap().1;
    let (auth, host_db) = after_scheme.rsplit_once('@').unwrap();
    let (user, password) = auth.split_once(':').unwrap_or((auth, ""));
    let url = format!("postgres://{host_db}");
    let ds = admin
        .submit(
            DS,
            json!({"name": "pg scratch", "category": 2, "url": url, "username": user, "password": password}),
        )
        .await
        .ok()
        .id();
    let tested = admin
        .post_data(
            &format!("{DS}/test"),
            json!({"id": ds, "category": 2, "url": url, "username": user}),
        )
        .await;
    assert!(
        tested["version"].as_str().unwrap().starts_with("PostgreSQL"),
        "{tested}"
    );
    assert_eq!(tested["tables"], 2);
    let info = admin
        .get(&format!(
            "{MODEL}/table-info?datasourceId={ds}&tableName=spare_part"
        ))
        .await
        .ok()
        .data();
    let cols = info["columns"].as_array().unwrap();
    let col = |n: &str| cols.iter().find(|c| c["name"] == n).unwrap().clone();
    assert_eq!(cols.len(), 8);
    assert_eq!(col("id")["primaryKey"], true);
    assert_eq!(col("part_name")["type"], "character varying(64)");
    assert_eq!(col("part_name")["maxLength"], 64);
    assert_eq!(col("part_name")["comment"], "备件名称");
    assert_eq!(col("quantity")["type"], "integer");
    assert_eq!(col("quantity")["nullable"], false);
    assert_eq!(col("install_date")["type"], "date");

    // The server's own words for what went wrong (the test server trusts its users, so the
    // wrong thing here is the database).
    let host = host_db.rsplit_once('/').unwrap().0;
    let wrong = admin
        .post_json(
            &format!("{DS}/test"),
            json!({"category": 2, "url": format!("postgres://{host}/no_such_db"), "username": user}),
        )
        .await
        .fails(400);
    assert!(
        wrong.msg().contains("database \"no_such_db\" does not exist"),
        "{}",
        wrong.msg()
    );
    let _ = server
        .execute(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        )))
        .await;
}

async fn pg_absent_answers_in_the_envelope() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let r = admin
        .post_json(
            &format!("{DS}/test"),
            json!({"category": 2, "url": "postgres://127.0.0.1:9/db", "username": "u", "password": "p"}),
        )
        .await
        .fails(400);
    assert!(r.msg().starts_with("连接失败："), "{}", r.msg());
}

#[tokio::test]
async fn other_tenants_get_403_and_the_tenant_dialog_binds_only_a_real_data_source() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    app.create_tenant_user(
        "520001",
        "dev_adm",
        "dev-pass",
        &["datasource", "datasource_add", "model", "code", "code_gen"],
        None,
    )
    .await;
    let other = app
        .anon()
        .with_token(&app.token_of("520001", "dev_adm", "dev-pass").await);
    other
        .get(&format!("{DS}/list?current=1&size=10"))
        .await
        .fails(403);
    other
        .submit(DS, json!({"name": "mine", "category": 1, "url": "spare.db"}))
        .await
        .fails(403);
    other
        .post_json(&format!("{DS}/test"), json!({"category": 1, "url": "spare.db"}))
        .await
        .fails(403);
    other
        .get(&format!("{MODEL}/table-list?datasourceId=1"))
        .await
        .fails(403);
    other
        .post_query("/api/blade-develop/code/gen-code", &[("ids", "1")])
        .await
        .fails(403);

    let ds = admin
        .submit(DS, json!({"name": "bind me", "category": 1, "url": "spare.db"}))
        .await
        .ok()
        .id();
    let bind = |id: String| {
        let admin = &admin;
        async move {
            admin
                .post_query(
                    "/api/blade-system/tenant/datasource",
                    &[("tenantId", "520001"), ("datasourceId", id.as_str())],
                )
                .await
        }
    };
    assert_eq!(bind("123456789".into()).await.fails(400).msg(), "数据源不存在");
    bind(ds.clone()).await.ok();
    let bound = app
        .scalar_int(
            "SELECT datasource_id FROM blade_tenant WHERE tenant_id = ?",
            vec!["520001".into()],
        )
        .await;
    assert_eq!(bound, Some(ds.parse().unwrap()));
    bind(String::new()).await.ok();
    let unbound = app
        .scalar_int(
            "SELECT COUNT(*) FROM blade_tenant WHERE tenant_id = ? AND datasource_id IS NULL",
            vec!["520001".into()],
        )
        .await;
    assert_eq!(unbound, Some(1));
}
