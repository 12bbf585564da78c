//! Labels people read: dictionary entries in the console's language, and Excel exports that
//! write labels and region names instead of codes (and import back).

use crate::support;

use reqwest::Method;
use serde_json::{Value as Json, json};
use support::{Client, TestApp};

fn value_of(entries: &Json, key: &str) -> String {
    entries
        .as_array()
        .and_then(|a| a.iter().find(|e| e["dictKey"] == key))
        .and_then(|e| e["dictValue"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn dictionaries_answer_the_language_the_console_asks_for() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;

    let zh = admin
        .get_data("/api/blade-system/dict/dictionary?code=station_type")
        .await;
    assert_eq!(value_of(&zh, "2"), "工商业", "{zh}");
    let en = admin
        .en()
        .get_data("/api/blade-system/dict/dictionary?code=station_type")
        .await;
    assert_eq!(value_of(&en, "2"), "Commercial and industrial", "{en}");
    let levels = admin
        .en()
        .get_data("/api/blade-system/dict/dictionary?code=alarm_level")
        .await;
    assert_eq!(value_of(&levels, "3"), "Major", "{levels}");
    // The station domain's select lists read the same dictionaries.
    let types = admin.en().get_data("/api/station/listStationType").await;
    assert_eq!(value_of(&types, "1"), "Residential", "{types}");

    // Business dictionaries carry an English value too, entered in the admin dialog.
    admin
        .submit(
            "/api/blade-system/dict-biz",
            json!({"parentId": "0", "code": "fruit", "dictKey": "-1", "dictValue": "水果", "dictValueEn": "Fruit", "sort": 1, "isSealed": 0}),
        )
        .await
        .ok();
    let parent = admin.get_data("/api/blade-system/dict-biz/list?code=fruit").await["records"][0]["id"]
        .as_str()
        .expect("dictionary id")
        .to_owned();
    admin
        .submit(
            "/api/blade-system/dict-biz",
            json!({"parentId": parent, "code": "fruit", "dictKey": "1", "dictValue": "苹果", "dictValueEn": "Apple", "sort": 1, "isSealed": 0}),
        )
        .await
        .ok();
    let zh = admin
        .get_data("/api/blade-system/dict-biz/dictionary?code=fruit")
        .await;
    assert_eq!(value_of(&zh, "1"), "苹果", "{zh}");
    let en = admin
        .en()
        .get_data("/api/blade-system/dict-biz/dictionary?code=fruit")
        .await;
    assert_eq!(value_of(&en, "1"), "Apple", "{en}");
    assert_eq!(en[0]["dictValueEn"], "Apple");
}

/// The cells of the first sheet of an .xlsx as text.
fn cells(bytes: Vec<u8>) -> Vec<Vec<String>> {
    use calamine::Reader;
    let mut book = calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes)).expect("workbook");
    let range = book.worksheet_range_at(0).expect("sheet").expect("range");
    range
        .rows()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

async fn download(caller: &Client<'_>, path: &str) -> (Vec<u8>, Vec<Vec<String>>) {
    let (status, _, bytes) = caller.raw(Method::GET, path).await;
    assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&bytes));
    (bytes.clone(), cells(bytes))
}

/// The cell of `header` in the first data row.
fn cell<'a>(rows: &'a [Vec<String>], header: &str) -> &'a str {
    let col = rows[0]
        .iter()
        .position(|h| h.trim_end_matches('*') == header)
        .unwrap_or_else(|| panic!("no column {header} in {:?}", rows[0]));
    &rows[1][col]
}

#[tokio::test]
async fn exports_write_labels_and_region_names_and_import_back() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.gateway_manager("100001", "mgr").await);
    let station = t
        .station_with(json!({
            "name": "Label plant",
            "stationType": "2",
            "electricityPriceType": "2",
            "provinceCode": "440000",
            "cityCode": "440300",
        }))
        .await;
    t.inverter(&station, "SN-L1", 2, json!({"deviceType": "1"})).await;

    let (zh_bytes, zh) = download(&t, "/api/station/export").await;
    assert_eq!(cell(&zh, "电价类型"), "峰谷电价", "{zh:?}");
    assert_eq!(cell(&zh, "电站类型"), "工商业");
    assert_eq!(cell(&zh, "省份"), "广东省");
    assert_eq!(cell(&zh, "城市"), "深圳市");
    let (_, en) = download(&t.en(), "/api/station/export").await;
    assert_eq!(cell(&en, "electricity price type"), "Peak-valley price", "{en:?}");
    assert_eq!(cell(&en, "station type"), "Commercial and industrial");
    assert_eq!(
        cell(&en, "province"),
        "广东省",
        "region names exist in Chinese only"
    );

    let (_, inv) = download(&t, "/api/inverter/export").await;
    let (_, inv_en) = download(&t.en(), "/api/inverter/export").await;
    let type_zh = cell(&inv, "设备类型");
    let type_en = cell(&inv_en, "device type");
    assert_eq!((type_zh, type_en), ("逆变器", "Inverter"), "{inv:?}");

    // The exported sheet imports into another tenant with the codes restored.
    let b = app.as_user(&app.gateway_manager("100002", "mgr_b").await);
    let reply = b
        .upload_file("/api/station/import", "stations.xlsx", zh_bytes)
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let page = b.get_data("/api/station/page?name=Label").await;
    let r = &page["records"][0];
    assert_eq!(
        (
            r["electricityPriceType"].as_str(),
            r["stationType"].as_str(),
            r["provinceCode"].as_str(),
            r["cityCode"].as_str()
        ),
        (Some("2"), Some("2"), Some("440000"), Some("440300")),
        "{page}"
    );
}

/// The management tables (dictionaries, roles, menus, the user list's roles) name things in the
/// console's language; the edit forms' `detail` keeps the stored Chinese, so saving a row shown
/// in English renames nothing.
#[tokio::test]
async fn management_lists_name_dictionaries_roles_and_menus_in_the_console_language() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let (zh, en) = (&admin, &admin.en());

    let sex_zh = zh.get_data("/api/blade-system/dict/list?code=sex").await;
    assert_eq!(sex_zh["records"][0]["dictValue"], "性别", "{sex_zh}");
    let sex_en = en.get_data("/api/blade-system/dict/list?code=sex").await;
    assert_eq!(sex_en["records"][0]["dictValue"], "Sex", "{sex_en}");
    let sex_id = sex_en["records"][0]["id"].as_str().expect("id").to_owned();
    let entries = en
        .get_data(&format!("/api/blade-system/dict/child-list?parentId={sex_id}"))
        .await;
    assert_eq!(value_of(&entries["records"], "2"), "Female", "{entries}");
    let detail = en
        .get_data(&format!("/api/blade-system/dict/detail?id={sex_id}"))
        .await;
    assert_eq!(
        detail["dictValue"], "性别",
        "the form edits the stored name: {detail}"
    );
    let dictionaries = en.get_data("/api/blade-system/dict/listDict").await;
    assert!(
        dictionaries.as_array().is_some_and(|d| d
            .iter()
            .any(|d| d["code"] == "yes_no" && d["dictValue"] == "Yes or no")),
        "{dictionaries}"
    );

    let admin_role = |roles: &Json| {
        roles
            .as_array()
            .and_then(|r| r.iter().find(|r| r["roleAlias"] == "administrator"))
            .map(|r| (r["id"].as_str().unwrap_or("").to_owned(), r["roleName"].clone()))
            .expect("the administrator role")
    };
    let (_, name_zh) = admin_role(&zh.get_data("/api/blade-system/role/list").await);
    assert_eq!(name_zh, "超级管理员");
    let (role_id, name_en) = admin_role(&en.get_data("/api/blade-system/role/list").await);
    assert_eq!(name_en, "Super administrator");
    let options = en.get_data("/api/blade-system/role/rolelist").await;
    assert_eq!(admin_role(&options).1, "Super administrator", "{options}");
    let detail = en
        .get_data(&format!("/api/blade-system/role/detail?id={role_id}"))
        .await;
    assert_eq!(detail["roleName"], "超级管理员", "{detail}");
    let users = en.get_data("/api/blade-user/page?account=admin").await;
    assert!(
        users["records"]
            .as_array()
            .is_some_and(|u| u.iter().any(|u| u["roleName"] == "Super administrator")),
        "{users}"
    );

    let system = |menus: &Json| {
        menus
            .as_array()
            .and_then(|m| m.iter().find(|m| m["code"] == "system"))
            .map(|m| (m["id"].as_str().unwrap_or("").to_owned(), m["name"].clone()))
            .expect("the system menu")
    };
    let (_, name_zh) = system(&zh.get_data("/api/blade-system/menu/lazy-list?parentId=0").await);
    assert_eq!(name_zh, "系统管理");
    let (menu_id, name_en) = system(&en.get_data("/api/blade-system/menu/lazy-list?parentId=0").await);
    assert_eq!(name_en, "System");
    assert_eq!(
        system(&en.get_data("/api/blade-system/menu/list").await).1,
        "System"
    );
    let detail = en
        .get_data(&format!("/api/blade-system/menu/detail?id={menu_id}"))
        .await;
    assert_eq!(
        (detail["name"].as_str(), detail["nameEn"].as_str()),
        (Some("系统管理"), Some("System"))
    );
}
