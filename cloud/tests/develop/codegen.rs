//! Field settings and the code generator: defaults from the table, a checked all-or-nothing
//! save, code rows with copy, the preview of every file and the zip.

use super::scratch_sqlite;
use crate::support::TestApp;
use crate::support::client::Client;
use serde_json::{Value as Json, json};

const DS: &str = "/api/blade-develop/datasource";
const MODEL: &str = "/api/blade-develop/model";
const CODE: &str = "/api/blade-develop/code";

/// A data source on `spare.db` and a model of its `spare_part` table; returns the model id.
async fn spare_part_model(app: &TestApp, admin: &Client<'_>) -> String {
    scratch_sqlite(&app.data_dir, "spare.db").await;
    let ds = admin
        .submit(DS, json!({"name": "备件库", "category": 1, "url": "spare.db"}))
        .await
        .ok()
        .id();
    admin
        .submit(
            MODEL,
            json!({"datasourceId": ds, "modelName": "备品备件", "modelCode": "spare_part", "modelTable": "spare_part"}),
        )
        .await
        .ok()
        .id()
}

fn field<'a>(list: &'a Json, column: &str) -> &'a Json {
    list.as_array()
        .unwrap()
        .iter()
        .find(|p| p["jdbcName"] == column)
        .unwrap_or_else(|| panic!("no {column} in {list}"))
}

#[tokio::test]
async fn field_settings_start_from_the_table_and_are_saved_whole_or_not_at_all() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let model = spare_part_model(&app, &admin).await;
    let protos = admin
        .get(&format!("{MODEL}/model-prototype?modelId={model}"))
        .await
        .ok()
        .data();
    // The engine's own columns are not fields.
    let columns: Vec<&str> = protos
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["jdbcName"].as_str().unwrap())
        .collect();
    assert_eq!(
        columns,
        [
            "part_name",
            "part_no",
            "quantity",
            "unit_price",
            "install_date",
            "remark"
        ]
    );
    let name = field(&protos, "part_name");
    assert_eq!(name["propertyName"], "partName");
    assert_eq!(name["propertyType"], "string");
    assert_eq!(name["component"], "input");
    assert_eq!(name["required"], true);
    assert_eq!(name["maxLength"], 64);
    assert_eq!(field(&protos, "quantity")["propertyType"], "integer");
    assert_eq!(field(&protos, "quantity")["component"], "number");
    assert_eq!(field(&protos, "unit_price")["propertyType"], "number");
    assert_eq!(field(&protos, "unit_price")["required"], false);
    assert_eq!(field(&protos, "install_date")["component"], "date");
    assert_eq!(field(&protos, "remark")["component"], "textarea");
    // Nothing is stored until saved.
    let none = admin
        .get(&format!(
            "/api/blade-develop/model-prototype/select?modelId={model}"
        ))
        .await
        .ok()
        .data();
    assert_eq!(none, json!([]));

    let mut edited = protos.clone();
    for p in edited.as_array_mut().unwrap() {
        match p["jdbcName"].as_str().unwrap() {
            "part_name" => {
                p["labelZh"] = json!("备件名称");
                p["labelEn"] = json!("part name");
                p["search"] = json!(true);
            }
            "quantity" => {
                p["labelZh"] = json!("数量");
                p["labelEn"] = json!("quantity");
                p["minValue"] = json!(0);
                p["maxValue"] = json!(100000);
            }
            "remark" => p["list"] = json!(false),
            _ => {}
        }
    }
    // One bad field refuses the whole list, naming the column.
    let mut bad = edited.clone();
    bad[2]["component"] = json!("select");
    let refused = admin
        .post_json("/api/blade-develop/model-prototype/submit-list", bad)
        .await
        .fails(400);
    assert!(
        refused.msg().contains("quantity") && refused.msg().contains("字典"),
        "{}",
        refused.msg()
    );
    let mut hidden_required = edited.clone();
    hidden_required[0]["form"] = json!(false);
    let refused = admin
        .en()
        .post_json("/api/blade-develop/model-prototype/submit-list", hidden_required)
        .await
        .fails(400);
    assert_eq!(
        refused.msg(),
        "Field part_name: a required field must be in the form"
    );
    let none = admin
        .get(&format!(
            "/api/blade-develop/model-prototype/select?modelId={model}"
        ))
        .await
        .ok()
        .data();
    assert_eq!(none, json!([]));

    admin
        .post_json("/api/blade-develop/model-prototype/submit-list", edited)
        .await
        .ok();
    let saved = admin
        .get(&format!(
            "/api/blade-develop/model-prototype/select?modelId={model}"
        ))
        .await
        .ok()
        .data();
    assert_eq!(saved.as_array().unwrap().len(), 6);
    assert_eq!(field(&saved, "part_name")["labelZh"], "备件名称");
    assert_eq!(field(&saved, "part_name")["search"], true);
    assert_eq!(field(&saved, "quantity")["maxValue"], 100000.0);
    assert_eq!(field(&saved, "remark")["list"], false);
    // Editing again shows the saved settings.
    let again = admin
        .get(&format!("{MODEL}/model-prototype?modelId={model}"))
        .await
        .ok()
        .data();
    assert_eq!(field(&again, "part_name")["labelZh"], "备件名称");
    assert!(field(&again, "part_name")["id"].is_string());
}

#[tokio::test]
async fn code_rows_preview_every_file_copy_and_zip() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let model = spare_part_model(&app, &admin).await;
    let code = admin
        .submit(
            CODE,
            json!({"modelId": model, "codeName": "备品备件", "codeNameEn": "Spare parts", "moduleName": "spare_part", "tenantScoped": 1}),
        )
        .await
        .ok()
        .id();
    // A module name must be a Rust module and a table at once, and not a keyword.
    for bad in ["Spare", "spare-part", "type", "x", "spare_"] {
        let r = admin
            .submit(
                CODE,
                json!({"modelId": model, "codeName": "x", "codeNameEn": "x", "moduleName": bad}),
            )
            .await
            .fails(400);
        assert!(r.msg().contains("模块编号"), "{bad}: {}", r.msg());
    }
    let r = admin
        .submit(
            CODE,
            json!({"modelId": model, "codeName": "a */ b", "codeNameEn": "x", "moduleName": "ab"}),
        )
        .await
        .fails(400);
    assert!(r.msg().contains("*/"), "{}", r.msg());

    // Without field settings there is nothing to generate.
    let none = admin.get(&format!("{CODE}/preview?id={code}")).await.fails(400);
    assert!(none.msg().contains("字段"), "{}", none.msg());
    let protos = admin
        .get(&format!("{MODEL}/model-prototype?modelId={model}"))
        .await
        .ok()
        .data();
    admin
        .post_json("/api/blade-develop/model-prototype/submit-list", protos)
        .await
        .ok();

    let files = admin.get(&format!("{CODE}/preview?id={code}")).await.ok().data();
    let paths: Vec<&str> = files
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 6, "{paths:?}");
    assert_eq!(paths[0], "cloud/src/business/spare_part.rs");
    assert!(
        paths[1].starts_with("cloud/migrations/20") && paths[1].ends_with("_spare_part.sql"),
        "{}",
        paths[1]
    );
    assert_eq!(
        &paths[2..],
        [
            "cloud/src/business/spare_part.menu.toml",
            "web/src/api/business/sparePart.ts",
            "web/src/pages/business/sparePart/config.ts",
            "web/src/pages/business/sparePart/index.tsx"
        ]
    );
    let content = |i: usize| files[i]["content"].as_str().unwrap().to_owned();
    assert!(
        content(0).contains("base: \"/api/blade-business/spare-part\""),
        "{}",
        content(0)
    );
    assert!(content(0).contains("tenant_scoped: true"), "{}", content(0));
    assert!(
        content(0).contains(
            "Col::new(\"quantity\", \"quantity\", Ty::INT, \"quantity\", \"quantity\").required(),"
        ),
        "{}",
        content(0)
    );
    assert!(content(0).contains("tenant_scoped: true,"), "{}", content(0));
    assert!(
        content(1).contains("CREATE TABLE biz_spare_part ("),
        "{}",
        content(1)
    );
    assert!(
        content(1).contains("    part_name VARCHAR(64) NOT NULL,"),
        "{}",
        content(1)
    );
    assert!(
        content(1).contains("    tenant_id   VARCHAR(12)  NOT NULL,"),
        "{}",
        content(1)
    );
    assert!(content(2).contains("code = \"biz_spare_part\""), "{}", content(2));
    assert!(
        content(3).contains("  quantity: number\n  unitPrice?: number\n  installDate?: string\n"),
        "{}",
        content(3)
    );
    assert!(content(4).contains("type: 'date',"), "{}", content(4));
    assert_eq!(files[5]["language"], "tsx");
    // The same row generates the same migration version every time.
    let again = admin.get(&format!("{CODE}/preview?id={code}")).await.ok().data();
    assert_eq!(again[1]["path"], files[1]["path"]);

    // A model or data source in use is not removed from under its users.
    let refused = admin.remove(MODEL, &model).await.fails(400);
    assert!(refused.msg().contains("代码生成"), "{}", refused.msg());
    let ds = admin.get(&format!("{MODEL}/detail?id={model}")).await.ok().data()["datasourceId"]
        .as_str()
        .unwrap()
        .to_owned();
    let refused = admin.remove(DS, &ds).await.fails(400);
    assert!(refused.msg().contains("数据模型"), "{}", refused.msg());

    let copy = admin.post(&format!("{CODE}/copy?id={code}")).await.ok().id();
    let copied = admin.get(&format!("{CODE}/detail?id={copy}")).await.ok().data();
    assert_eq!(copied["moduleName"], "spare_part_copy");
    assert_eq!(copied["codeName"], "备品备件（副本）");
    assert_eq!(copied["modelName"], "备品备件");
    let copy2 = admin.post(&format!("{CODE}/copy?id={code}")).await.ok().id();
    let copied2 = admin.get(&format!("{CODE}/detail?id={copy2}")).await.ok().data();
    assert_eq!(copied2["moduleName"], "spare_part_copy2");

    let other_system = admin
        .post(&format!("/api/blade-develop/code/gen-code?ids={code}&system=vue"))
        .await
        .fails(400);
    assert!(other_system.msg().contains("saber"), "{}", other_system.msg());
    let res = admin
        .request(
            reqwest::Method::POST,
            &format!("/api/blade-develop/code/gen-code?ids={code},{copy}&system=saber"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/zip");
    let disposition = res.headers()["content-disposition"].to_str().unwrap().to_owned();
    assert!(
        disposition.starts_with("attachment; filename=\"code-") && disposition.ends_with(".zip\""),
        "{disposition}"
    );
    let bytes = res.bytes().await.unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    assert_eq!(zip.len(), 12);
    let mut entity = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("cloud/src/business/spare_part_copy.rs").unwrap(),
        &mut entity,
    )
    .unwrap();
    assert!(entity.contains("table: \"biz_spare_part_copy\""), "{entity}");
    assert_eq!(
        std::io::Read::bytes(zip.by_name("cloud/src/business/spare_part.rs").unwrap()).count(),
        content(0).len()
    );
}
