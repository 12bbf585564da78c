//! Reference data and logs over a real server and database: departments, dictionaries and
//! business dictionaries, regions, and the usual/API/error logs.

use crate::support;

use pv_cloud::kernel::sql::Value;
use pv_cloud::kernel::{ApiResult, Data};
use pv_cloud::state::AppState;
use serde_json::{Value as Json, json};
use support::{Client, Reply, TestApp, assert_failure, find_in, row_ids};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

const DEPT: &str = "/api/blade-system/dept";
const DICT: &str = "/api/blade-system/dict";
const BIZ: &str = "/api/blade-system/dict-biz";
const REGION: &str = "/api/blade-system/region";

/// Submits and returns the new id, asserting success.
async fn create(caller: &Client<'_>, base: &str, body: Json) -> String {
    let Reply {
        status, body: res, ..
    } = caller.post_json(&format!("{base}/submit"), body).await;
    assert_eq!(status, 200, "{res}");
    res["data"].as_str().expect("id").to_owned()
}

fn dept(name: &str, parent: &str) -> Json {
    json!({"parentId": parent, "deptName": name, "fullName": format!("{name} full"), "deptCategory": 2, "sort": 1})
}

// ---- departments ----

#[tokio::test]
async fn departments_keep_ancestors_serve_trees_and_refuse_bad_moves_and_removals() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;

    let Reply { status, body, .. } = admin
        .post_json(&format!("{DEPT}/submit"), json!({"fullName": "x"}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入机构名称");
    let Reply { status, body, .. } = admin
        .en()
        .post_json(&format!("{DEPT}/submit"), json!({"deptName": "x"}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "Please enter the department's full name");

    let a = create(&admin, DEPT, dept("A", "")).await;
    let b = create(&admin, DEPT, dept("B", &a)).await;
    let c = create(&admin, DEPT, dept("C", &b)).await;
    let Reply { body: detail, .. } = admin.get(&format!("{DEPT}/detail?id={c}")).await;
    assert_eq!(detail["data"]["ancestors"], format!("0,{a},{b}"), "{detail}");
    assert_eq!(detail["data"]["parentName"], "B");
    assert_eq!(detail["data"]["tenantId"], "000000");

    // Tree list: the seeded head office and A > B > C, every row with children and hasChildren.
    let Reply {
        status, body: list, ..
    } = admin.get(&format!("{DEPT}/list")).await;
    assert_eq!(status, 200, "{list}");
    let roots = &list["data"];
    assert!(
        roots.as_array().unwrap().iter().any(|r| r["deptName"] == "总部"),
        "{roots}"
    );
    let node_a = find_in(roots, &a).expect("A is a root");
    assert_eq!(node_a["hasChildren"], true);
    assert_eq!(row_ids(&node_a["children"]), [b.as_str()]);
    assert_eq!(row_ids(&node_a["children"][0]["children"]), [c.as_str()]);
    assert_eq!(node_a["children"][0]["children"][0]["children"], json!([]));
    let Reply { body: filtered, .. } = admin.get(&format!("{DEPT}/list?deptName=C")).await;
    assert_eq!(
        row_ids(&filtered["data"]),
        [c.as_str()],
        "a match without its parent is a root"
    );

    let Reply { body: lazy, .. } = admin.get(&format!("{DEPT}/lazy-list?parentId={a}")).await;
    assert_eq!(row_ids(&lazy["data"]), [b.as_str()]);
    assert_eq!(lazy["data"][0]["hasChildren"], true);
    assert_eq!(lazy["data"][0]["deptName"], "B");
    let Reply { body: children, .. } = admin.get(&format!("{DEPT}/child-list?parentId={b}")).await;
    assert_eq!(row_ids(&children["data"]), [c.as_str()]);
    assert_eq!(children["data"][0]["hasChildren"], false);

    let Reply { body: tree, .. } = admin.get(&format!("{DEPT}/tree")).await;
    let node = find_in(&tree["data"], &a).expect("A in tree");
    assert_eq!(node["title"], "A");
    assert_eq!(node["key"], a.as_str());
    assert_eq!(node["value"], a.as_str());
    assert_eq!(node["parentId"], "0");
    assert_eq!(node["children"][0]["children"][0]["id"], c.as_str());
    let Reply { body: lazy_tree, .. } = admin.get(&format!("{DEPT}/lazy-tree?parentId={a}")).await;
    assert_eq!(row_ids(&lazy_tree["data"]), [b.as_str()]);
    assert_eq!(lazy_tree["data"][0]["hasChildren"], true);
    assert!(
        lazy_tree["data"][0].get("children").is_none(),
        "lazy nodes never fill children"
    );
    let Reply { body: top, .. } = admin.get(&format!("{DEPT}/lazy-tree")).await;
    assert!(row_ids(&top["data"]).contains(&a));

    // A department cannot go under itself or its descendants.
    for parent in [&a, &c] {
        let Reply { status, body, .. } = admin
            .post_json(&format!("{DEPT}/submit"), json!({"id": a, "parentId": parent}))
            .await;
        assert_failure(status, &body, 400);
        assert_eq!(body["msg"], "上级机构不能是自己或下级机构");
    }
    // Moving B under a new root D rewrites the ancestors of its whole subtree.
    let d = create(&admin, DEPT, dept("D", "0")).await;
    let Reply { status, body, .. } = admin
        .post_json(&format!("{DEPT}/submit"), json!({"id": b, "parentId": d}))
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { body: cb, .. } = admin.get(&format!("{DEPT}/detail?id={b}")).await;
    assert_eq!(cb["data"]["ancestors"], format!("0,{d}"));
    assert_eq!(cb["data"]["deptName"], "B", "fields not sent are kept");
    let Reply { body: cc, .. } = admin.get(&format!("{DEPT}/detail?id={c}")).await;
    assert_eq!(cc["data"]["ancestors"], format!("0,{d},{b}"));

    // Removal: not with children, not with users.
    let Reply { status, body, .. } = admin
        .post_json(&format!("{DEPT}/remove?ids={b}"), json!({}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请先删除子节点");
    let user = app.state.ids.next().0;
    app.exec(
        "INSERT INTO blade_user (id, tenant_id, account, password, create_time) VALUES (?, '000000', 'deptuser', 'x', 0)",
        vec![Value::Int(user)],
    )
    .await;
    app.exec(
        "INSERT INTO blade_user_dept (user_id, dept_id) VALUES (?, ?)",
        vec![Value::Int(user), Value::Int(c.parse().unwrap())],
    )
    .await;
    let Reply { status, body, .. } = admin
        .post_json(&format!("{DEPT}/remove?ids={c}"), json!({}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "该机构下存在用户，无法删除");
    let Reply { body, .. } = admin.en().post(&format!("{DEPT}/remove?ids={c}")).await;
    assert_eq!(body["msg"], "This department still has users");
    app.exec(
        "UPDATE blade_user SET is_deleted = 1 WHERE id = ?",
        vec![Value::Int(user)],
    )
    .await;
    let Reply { status, body, .. } = admin
        .post_json(&format!("{DEPT}/remove?ids={b},{c}"), json!({}))
        .await;
    assert_eq!(
        (status, &body["data"]),
        (200, &json!(2)),
        "a parent goes with its children: {body}"
    );

    // The existing dept/select still answers.
    let Reply { status, body, .. } = admin.get(&format!("{DEPT}/select")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"][0]["deptName"], "总部");
    app.stop().await;
}

#[tokio::test]
async fn departments_stay_inside_their_tenant() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let ours = create(&admin, DEPT, dept("Platform dept", "0")).await;
    app.create_tenant_user(
        "500001",
        "mgr",
        "mgr-pass",
        &["dept", "dept_add", "dept_edit", "dept_delete"],
        None,
    )
    .await;
    let other = app.as_user(&app.token_of("500001", "mgr", "mgr-pass").await);

    let Reply { body: list, .. } = other.get(&format!("{DEPT}/list")).await;
    assert_eq!(list["data"], json!([]), "{list}");
    let Reply { status, body, .. } = other.get(&format!("{DEPT}/detail?id={ours}")).await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = other
        .post_json(
            &format!("{DEPT}/submit"),
            json!({"id": ours, "deptName": "hijacked"}),
        )
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = other
        .post_json(&format!("{DEPT}/remove?ids={ours}"), json!({}))
        .await;
    assert_failure(status, &body, 404);
    // Nor can another tenant's department be chosen as a parent.
    let Reply { status, body, .. } = other
        .post_json(&format!("{DEPT}/submit"), dept("Mine", &ours))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "上级机构不存在");

    let theirs = create(&other, DEPT, dept("Tenant dept", "")).await;
    let Reply { body: tree, .. } = other.get(&format!("{DEPT}/tree?tenantId=000000")).await;
    assert_eq!(
        row_ids(&tree["data"]),
        [theirs.as_str()],
        "others always get their own tenant"
    );
    let Reply { body: tree, .. } = admin.get(&format!("{DEPT}/tree?tenantId=500001")).await;
    assert_eq!(
        row_ids(&tree["data"]),
        [theirs.as_str()],
        "the platform may name a tenant"
    );
    let Reply { body: tree, .. } = admin
        .get(&format!("{DEPT}/lazy-tree?tenantId=500001&parentId=0"))
        .await;
    assert_eq!(row_ids(&tree["data"]), [theirs.as_str()]);
    let Reply { body: detail, .. } = admin.get(&format!("{DEPT}/detail?id={ours}")).await;
    assert_eq!(detail["data"]["deptName"], "Platform dept", "untouched");
    app.stop().await;
}

// ---- dictionaries ----

/// Platform dictionary `t1` "测试" with entry 1 "一" / "One"; returns (dictionary id, entry id).
async fn dictionary_t1(caller: &Client<'_>) -> (String, String) {
    let root = create(
        caller,
        DICT,
        json!({"code": "t1", "dictValue": "测试", "sort": 1, "isSealed": 0}),
    )
    .await;
    let child = create(
        caller,
        DICT,
        json!({"parentId": root, "code": "ignored", "dictKey": "1", "dictValue": "一", "dictValueEn": "One",
            "sort": 1, "isSealed": 0}),
    )
    .await;
    (root, child)
}

#[tokio::test]
async fn dictionary_forms_are_validated_and_entries_take_their_dictionarys_code_and_unique_keys() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let submit = format!("{DICT}/submit");
    // The spec's messages, in order of the form.
    let mut body = json!({});
    for (field, value, zh, en) in [
        (
            "code",
            json!("t1"),
            "请输入字典编号",
            "Please enter the dictionary code",
        ),
        (
            "dictValue",
            json!("测试"),
            "请输入字典名称",
            "Please enter the dictionary name",
        ),
        (
            "sort",
            json!(1),
            "请输入字典排序",
            "Please enter the dictionary sort order",
        ),
        (
            "isSealed",
            json!(0),
            "请选择封存",
            "Please choose whether it is sealed",
        ),
    ] {
        let Reply {
            status, body: res, ..
        } = admin.post_json(&submit, body.clone()).await;
        assert_failure(status, &res, 400);
        assert_eq!(res["msg"], zh);
        let Reply { body: res, .. } = admin.en().post_json(&submit, body.clone()).await;
        assert_eq!(res["msg"], en);
        body[field] = value;
    }
    let root = create(&admin, DICT, body).await;
    let Reply { body: detail, .. } = admin.get(&format!("{DICT}/detail?id={root}")).await;
    assert_eq!(detail["data"]["dictKey"], "-1", "a dictionary row's key is -1");
    assert_eq!(detail["data"]["parentId"], "0");

    let entry = json!({"parentId": root, "code": "ignored", "dictValue": "一", "dictValueEn": "One", "sort": 1, "isSealed": 0});
    let Reply {
        status, body: res, ..
    } = admin.post_json(&submit, entry.clone()).await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], "请输入字典键值");
    let Reply { body: res, .. } = admin.en().post_json(&submit, entry.clone()).await;
    assert_eq!(res["msg"], "Please enter the dictionary key");
    let mut entry = entry;
    entry["dictKey"] = json!("1");
    let child = create(&admin, DICT, entry.clone()).await;
    let Reply { body: detail, .. } = admin.get(&format!("{DICT}/detail?id={child}")).await;
    assert_eq!(detail["data"]["code"], "t1", "a child's code is its parent's");
    assert_eq!(detail["data"]["parentId"], root.as_str());
    let Reply {
        status, body: res, ..
    } = admin
        .post_json(&submit, json!({"id": child, "code": "moved"}))
        .await;
    assert_eq!(status, 200, "{res}");
    let Reply { body: detail, .. } = admin.get(&format!("{DICT}/detail?id={child}")).await;
    assert_eq!(detail["data"]["code"], "t1", "not editable on update either");

    let Reply {
        status, body: res, ..
    } = admin.post_json(&submit, entry.clone()).await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], "字典键值已存在");
    let Reply { body: res, .. } = admin.en().post_json(&submit, entry.clone()).await;
    assert_eq!(res["msg"], "This dictionary key already exists");
    let Reply {
        status, body: res, ..
    } = admin
        .post_json(
            &submit,
            json!({"code": "t1", "dictValue": "again", "sort": 2, "isSealed": 0}),
        )
        .await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], "字典键值已存在", "dictionary codes are unique too");

    app.stop().await;
}

#[tokio::test]
async fn dictionaries_read_as_lists_entries_and_trees_and_a_renamed_code_carries_its_entries() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let submit = format!("{DICT}/submit");
    let (root, child) = dictionary_t1(&admin).await;

    // Reads.
    let Reply { body: page, .. } = admin.get(&format!("{DICT}/list?code=t1")).await;
    assert_eq!(page["data"]["total"], 1, "list shows dictionaries only: {page}");
    assert_eq!(page["data"]["records"][0]["id"], root.as_str());
    let Reply { body: page, .. } = admin.get(&format!("{DICT}/child-list?parentId={root}")).await;
    assert_eq!(page["data"]["total"], 1);
    assert_eq!(page["data"]["records"][0]["dictValueEn"], "One");
    let Reply { body: entries, .. } = admin.get(&format!("{DICT}/dictionary?code=t1")).await;
    assert_eq!(row_ids(&entries["data"]), [child.as_str()]);
    assert_eq!(entries["data"][0]["dictKey"], "1");
    assert_eq!(entries["data"][0]["dictValue"], "一");
    let Reply { body: tree, .. } = admin.get(&format!("{DICT}/tree?code=DICT")).await;
    let node = find_in(&tree["data"], &root).expect("dictionary node");
    assert_eq!(node["title"], "测试");
    let Reply { body: tree, .. } = admin.get(&format!("{DICT}/tree?code=t1")).await;
    assert_eq!(row_ids(&tree["data"]), [child.as_str()]);
    assert_eq!(tree["data"][0]["parentId"], root.as_str());
    let Reply { body: all, .. } = admin.get(&format!("{DICT}/listDict")).await;
    let listed = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "t1")
        .cloned();
    assert_eq!(
        listed,
        Some(json!({"id": root, "code": "t1", "dictValue": "测试"}))
    );

    // Renaming a dictionary's code carries its entries along.
    let Reply { status, .. } = admin.post_json(&submit, json!({"id": root, "code": "t2"})).await;
    assert_eq!(status, 200);
    let Reply { body: entries, .. } = admin.get(&format!("{DICT}/dictionary?code=t2")).await;
    assert_eq!(row_ids(&entries["data"]), [child.as_str()]);

    app.stop().await;
}

#[tokio::test]
async fn a_dictionary_is_removed_only_after_its_entries() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let (root, child) = dictionary_t1(&admin).await;

    // Removal: the dictionary is refused while it has entries.
    let Reply {
        status, body: res, ..
    } = admin
        .post_json(&format!("{DICT}/remove?ids={root}"), json!({}))
        .await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], "请先删除子节点");
    let Reply { body: res, .. } = admin
        .post_json(&format!("{DICT}/remove?ids={child}"), json!({}))
        .await;
    assert_eq!(res["data"], 1);
    let Reply { body: res, .. } = admin
        .post_json(&format!("{DICT}/remove?ids={root}"), json!({}))
        .await;
    assert_eq!(res["data"], 1);

    app.stop().await;
}

#[tokio::test]
async fn other_tenants_read_platform_dictionaries_but_never_change_them() {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;
    let submit = format!("{DICT}/submit");
    // Other tenants read platform dictionaries but never change them.
    app.create_tenant_user(
        "500002",
        "reader",
        "reader-pass",
        &["dict", "dict_add", "dict_delete"],
        None,
    )
    .await;
    let reader = app.as_user(&app.token_of("500002", "reader", "reader-pass").await);
    let Reply {
        status, body: res, ..
    } = reader.get(&format!("{DICT}/dictionary?code=sex")).await;
    assert_eq!(status, 200, "{res}");
    assert_eq!(res["data"].as_array().map(Vec::len), Some(3));
    let Reply {
        status, body: res, ..
    } = reader
        .post_json(
            &submit,
            json!({"code": "x", "dictValue": "x", "sort": 1, "isSealed": 0}),
        )
        .await;
    assert_failure(status, &res, 403);
    let sex = res_id(&app.as_user(&admin), "sex").await;
    let Reply {
        status, body: res, ..
    } = reader
        .post_json(&format!("{DICT}/remove?ids={sex}"), json!({}))
        .await;
    assert_failure(status, &res, 403);
    app.stop().await;
}

/// The id of a seeded dictionary.
async fn res_id(caller: &Client<'_>, code: &str) -> String {
    let Reply { body: page, .. } = caller.get(&format!("{DICT}/list?code_equal={code}")).await;
    page["data"]["records"][0]["id"]
        .as_str()
        .expect("dictionary")
        .to_owned()
}

#[tokio::test]
async fn seeded_dictionaries_cover_the_product_and_survive_edits() {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;
    let Reply { body: flow, .. } = app
        .as_user(&admin)
        .get(&format!("{DICT}/dictionary?code=flow"))
        .await;
    let e = &flow["data"][0];
    // The console builds its flow routes from these: routeKey = code_dictKey, routeValue = remark.
    assert_eq!(
        format!(
            "{}_{}",
            e["code"].as_str().unwrap(),
            e["dictKey"].as_str().unwrap()
        ),
        "flow_1"
    );
    assert_eq!(e["remark"], "leave");
    let Reply { body: repair, .. } = app
        .as_user(&admin)
        .get(&format!("{DICT}/dictionary?code=repair_status"))
        .await;
    let labels: Vec<&str> = repair["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["dictValue"].as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "已提交",
            "待受理",
            "已受理",
            "待维修",
            "已维修",
            "待评价",
            "已完成",
            "已取消"
        ]
    );
    assert_eq!(repair["data"][7]["dictValueEn"], "Canceled");
    let Reply { body: status, .. } = app
        .as_user(&admin)
        .get(&format!("{DICT}/dictionary?code=installation_status"))
        .await;
    let labels: Vec<&str> = status["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["dictValue"].as_str())
        .collect();
    assert_eq!(labels, ["调试中", "运行中"]);
    let Reply { body: alarm, .. } = app
        .as_user(&admin)
        .get(&format!("{DICT}/dictionary?code=alarm_type"))
        .await;
    assert_eq!(alarm["data"][0]["dictKey"], "1");
    assert_eq!(alarm["data"][0]["dictValue"], "电站故障");
    let Reply { body: all, .. } = app.as_user(&admin).get(&format!("{DICT}/listDict")).await;
    assert_eq!(all["data"].as_array().map(Vec::len), Some(24), "{all}");

    // An administrator's edit and deletion survive a restart (the seed runs at every start).
    let sex = res_id(&app.as_user(&admin), "sex").await;
    let Reply { body: page, .. } = app
        .as_user(&admin)
        .get(&format!("{DICT}/child-list?parentId={sex}"))
        .await;
    let male = page["data"]["records"][0]["id"].as_str().unwrap().to_owned();
    let unknown = page["data"]["records"][2]["id"].as_str().unwrap().to_owned();
    let Reply { status, .. } = app
        .as_user(&admin)
        .post_json(
            &format!("{DICT}/submit"),
            json!({"id": male, "dictValue": "男性"}),
        )
        .await;
    assert_eq!(status, 200);
    let Reply { body: res, .. } = app
        .as_user(&admin)
        .post_json(&format!("{DICT}/remove?ids={unknown}"), json!({}))
        .await;
    assert_eq!(res["data"], 1);
    let (dir, url, tmp) = app.stop().await;
    let app = TestApp::start_on(dir, url, OpenApiRouter::new()).await;
    let admin = app.token_of("000000", "admin", "admin").await;
    let Reply { body: entries, .. } = app
        .as_user(&admin)
        .get(&format!("{DICT}/dictionary?code=sex"))
        .await;
    let labels: Vec<&str> = entries["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["dictValue"].as_str())
        .collect();
    assert_eq!(labels, ["男性", "女"]);
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM blade_dict WHERE code = 'sex'", vec![])
            .await,
        4,
        "nothing seeded twice"
    );
    app.stop().await;
    drop(tmp);
}

#[tokio::test]
async fn business_dictionaries_read_through_to_the_platform_and_stay_in_their_tenant() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let platform_root = create(
        &admin,
        BIZ,
        json!({"code": "biz_t", "dictValue": "业务", "sort": 1, "isSealed": 0}),
    )
    .await;
    let platform_entry = create(
        &admin,
        BIZ,
        json!({"parentId": platform_root, "dictKey": "p1", "dictValue": "平台项", "sort": 1, "isSealed": 1}),
    )
    .await;
    let buttons = ["dictbiz", "dictbiz_add", "dictbiz_edit", "dictbiz_delete"];
    app.create_tenant_user("500003", "b", "b-pass", &buttons, None)
        .await;
    app.create_tenant_user("500004", "c", "c-pass", &buttons, None)
        .await;
    let b = app.as_user(&app.token_of("500003", "b", "b-pass").await);
    let c = app.as_user(&app.token_of("500004", "c", "c-pass").await);

    // A new tenant starts empty and reads the platform's rows, through every read alike.
    let Reply { body: page, .. } = b.get(&format!("{BIZ}/list")).await;
    assert_eq!(
        row_ids(&page["data"]["records"]),
        [platform_root.as_str()],
        "{page}"
    );
    assert_eq!(page["data"]["records"][0]["tenantId"], "000000");
    let Reply { status, body, .. } = b.get(&format!("{BIZ}/detail?id={platform_entry}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["dictValue"], "平台项");
    let Reply { body: page, .. } = b.get(&format!("{BIZ}/child-list?parentId={platform_root}")).await;
    assert_eq!(
        row_ids(&page["data"]["records"]),
        [platform_entry.as_str()],
        "{page}"
    );
    let Reply { body: entries, .. } = b.get(&format!("{BIZ}/dictionary?code=biz_t")).await;
    assert_eq!(row_ids(&entries["data"]), [platform_entry.as_str()]);
    let Reply { body: listed, .. } = b.get(&format!("{BIZ}/listDict")).await;
    assert!(row_ids(&listed["data"]).contains(&platform_root));
    let Reply { body: tree, .. } = b.get(&format!("{BIZ}/tree?code=biz_t")).await;
    assert_eq!(row_ids(&tree["data"]), [platform_entry.as_str()]);

    // Its own rows then take over for that code, for it alone.
    let own_root = create(
        &b,
        BIZ,
        json!({"code": "biz_t", "dictValue": "我的", "sort": 1, "isSealed": 0}),
    )
    .await;
    let own_entry = create(
        &b,
        BIZ,
        json!({"parentId": own_root, "dictKey": "b1", "dictValue": "租户项", "sort": 1, "isSealed": 0}),
    )
    .await;
    let Reply { body: entries, .. } = b.get(&format!("{BIZ}/dictionary?code=biz_t")).await;
    assert_eq!(row_ids(&entries["data"]), [own_entry.as_str()]);
    assert_eq!(entries["data"][0]["code"], "biz_t");
    let Reply { body: entries, .. } = c.get(&format!("{BIZ}/dictionary?code=biz_t")).await;
    assert_eq!(
        row_ids(&entries["data"]),
        [platform_entry.as_str()],
        "C still reads the platform's"
    );
    let Reply { body: listed, .. } = b.get(&format!("{BIZ}/listDict")).await;
    assert_eq!(
        row_ids(&listed["data"]),
        [own_root.as_str()],
        "the tenant's own code replaces the platform's"
    );
    let Reply { body: page, .. } = b.get(&format!("{BIZ}/list")).await;
    assert_eq!(row_ids(&page["data"]["records"]), [own_root.as_str()], "{page}");
    let Reply { body: tree, .. } = b.get(&format!("{BIZ}/tree?code=biz_t")).await;
    assert_eq!(row_ids(&tree["data"]), [own_entry.as_str()]);
    let Reply { status, body, .. } = b.get(&format!("{BIZ}/detail?id={platform_entry}")).await;
    assert_failure(status, &body, 404);

    // Neither tenant reaches the other's rows or the platform's.
    let Reply { status, body, .. } = c.get(&format!("{BIZ}/detail?id={own_entry}")).await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = c
        .post_json(
            &format!("{BIZ}/submit"),
            json!({"id": own_entry, "dictValue": "x"}),
        )
        .await;
    assert_failure(status, &body, 404);
    // The platform's rows are read, never changed, by a tenant.
    let Reply { status, body, .. } = c
        .post_json(
            &format!("{BIZ}/submit"),
            json!({"id": platform_entry, "dictValue": "x"}),
        )
        .await;
    assert_failure(status, &body, 404);
    for ids in [format!("{own_entry},{platform_entry}"), platform_entry.clone()] {
        let Reply { status, body, .. } = c.post_json(&format!("{BIZ}/remove?ids={ids}"), json!({})).await;
        assert_failure(status, &body, 404);
    }
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM blade_dict_biz WHERE is_deleted = 0 AND dict_value IN ('平台项', '租户项')",
            vec![]
        )
        .await,
        2,
        "nothing removed or changed"
    );
    let Reply { status, body, .. } = b
        .post_json(
            &format!("{BIZ}/submit"),
            json!({"parentId": platform_root, "dictKey": "x", "dictValue": "x", "sort": 1, "isSealed": 0}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(
        body["msg"], "上级字典不存在",
        "no entries under another tenant's dictionary"
    );
    let Reply { body: page, .. } = c.get(&format!("{BIZ}/child-list?parentId={own_root}")).await;
    assert_eq!(page["data"]["total"], 0);

    // Sealed rows: a tenant cannot change or remove its own sealed rows; the platform can.
    let sealed = create(
        &b,
        BIZ,
        json!({"parentId": own_root, "dictKey": "b2", "dictValue": "封", "sort": 2, "isSealed": 1}),
    )
    .await;
    let Reply { status, body, .. } = b
        .post_json(&format!("{BIZ}/submit"), json!({"id": sealed, "dictValue": "改"}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "该字典已封存，无法修改或删除");
    let Reply { status, body, .. } = b
        .post_json(&format!("{BIZ}/remove?ids={sealed}"), json!({}))
        .await;
    assert_failure(status, &body, 400);
    let Reply { status, body, .. } = admin
        .post_json(
            &format!("{BIZ}/submit"),
            json!({"id": platform_entry, "dictValue": "改"}),
        )
        .await;
    assert_eq!(status, 200, "the platform edits its sealed rows: {body}");
    app.stop().await;
}

// ---- regions ----

#[tokio::test]
async fn regions_ship_gb2260_and_serve_a_lazy_tree() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let total = app.scalar_i64("SELECT COUNT(*) FROM blade_region", vec![]).await;
    assert_eq!(total, 3221);

    let Reply {
        status,
        body: provinces,
        ..
    } = admin.get(&format!("{REGION}/lazy-tree")).await;
    assert_eq!(status, 200, "{provinces}");
    let list = provinces["data"].as_array().unwrap();
    assert_eq!(
        list.len(),
        34,
        "31 mainland provinces plus Taiwan, Hong Kong and Macao"
    );
    assert_eq!(
        list[0],
        json!({"id": "110000", "parentId": "00", "title": "北京市", "key": "110000", "value": "110000", "hasChildren": true})
    );
    let hk = list.iter().find(|p| p["id"] == "810000").expect("Hong Kong");
    assert_eq!(hk["hasChildren"], false);
    let Reply { body: same, .. } = admin.get(&format!("{REGION}/lazy-tree?parentCode=00")).await;
    assert_eq!(same["data"].as_array().map(Vec::len), Some(34));
    let Reply { body: cities, .. } = admin.get(&format!("{REGION}/lazy-tree?parentCode=110000")).await;
    assert_eq!(row_ids(&cities["data"]), ["110100"]);
    let Reply { body: districts, .. } = admin.get(&format!("{REGION}/lazy-tree?parentCode=110100")).await;
    let first = &districts["data"][0];
    assert_eq!(
        (first["id"].as_str(), first["title"].as_str()),
        (Some("110101"), Some("东城区"))
    );
    assert_eq!(first["hasChildren"], false);
    let Reply { body: gd, .. } = admin.get(&format!("{REGION}/lazy-list?parentCode=440000")).await;
    let shenzhen = gd["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == "440300")
        .expect("深圳");
    assert_eq!(shenzhen["name"], "深圳市");
    assert_eq!(shenzhen["level"], 2);
    assert_eq!(shenzhen["hasChildren"], true);
    let Reply { body: d, .. } = admin.get(&format!("{REGION}/detail?code=440305")).await;
    assert_eq!(d["data"]["name"], "南山区");
    assert_eq!(d["data"]["level"], 3);
    assert_eq!(d["data"]["parentCode"], "440300");

    // Any signed-in user reads; only the platform changes.
    app.create_tenant_user("500005", "t", "t-pass", &["region"], None)
        .await;
    let t = app.as_user(&app.token_of("500005", "t", "t-pass").await);
    let Reply { status, .. } = t.get(&format!("{REGION}/lazy-tree?parentCode=110100")).await;
    assert_eq!(status, 200);
    let Reply { status, body, .. } = t
        .post_json(
            &format!("{REGION}/submit"),
            json!({"code": "110199", "parentCode": "110100", "name": "x"}),
        )
        .await;
    assert_failure(status, &body, 403);

    let Reply { status, body, .. } = admin
        .post_json(&format!("{REGION}/submit"), json!({"name": "x"}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入区划编号");
    let Reply { status, body, .. } = admin
        .post_json(
            &format!("{REGION}/submit"),
            json!({"code": "110199", "parentCode": "999999", "name": "x"}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "上级区划不存在");
    let Reply { status, body, .. } = admin
        .post_json(
            &format!("{REGION}/submit"),
            json!({"code": "110199", "parentCode": "110100", "name": "测试区", "sort": 99}),
        )
        .await;
    assert_eq!((status, &body["data"]), (200, &json!("110199")), "{body}");
    let Reply { status, .. } = admin
        .post_json(
            &format!("{REGION}/submit"),
            json!({"code": "110199", "parentCode": "110100", "name": "新测试区"}),
        )
        .await;
    assert_eq!(status, 200);
    let Reply { body: d, .. } = admin.get(&format!("{REGION}/detail?code=110199")).await;
    assert_eq!(
        (d["data"]["name"].as_str(), d["data"]["level"].as_i64()),
        (Some("新测试区"), Some(3))
    );
    let Reply { status, body, .. } = admin
        .post_json(&format!("{REGION}/remove?id=110100"), json!({}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请先删除子节点");
    let Reply { body, .. } = admin
        .post_json(&format!("{REGION}/remove?id=110199"), json!({}))
        .await;
    assert_eq!(body["data"], 1);
    let Reply { status, body, .. } = admin.get(&format!("{REGION}/detail?code=110199")).await;
    assert_failure(status, &body, 404);
    app.stop().await;
}

// ---- logs ----

#[tokio::test]
async fn mutating_calls_are_logged_with_secrets_masked_and_reads_are_not() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    // A JSON body carrying secrets (ignored by the handler, but logged masked)...
    let Reply { status, .. } = admin
        .post_json(
            "/api/blade-system/param/submit?token=query-secret",
            json!({"paramName": "n", "paramKey": "k.logged", "paramValue": "v", "password": "hunter2",
               "nested": {"clientSecret": "s3cret", "newPassword1": "pw1"}}),
        )
        .await;
    assert_eq!(status, 200);
    // ...and a query string carrying passwords (the old one is wrong: refused, still logged).
    let Reply { status, .. } = admin
        .post("/api/blade-user/update-password?oldPassword=wrong-old&newPassword=new-pw&newPassword1=new-pw")
        .await;
    assert_eq!(status, 400);
    // Reads and calls without a token are not logged.
    for _ in 0..3 {
        admin.get("/api/blade-system/param/list").await;
    }
    let anonymous = app
        .client
        .post(app.url("/api/blade-system/param/submit"))
        .json(&json!({"password": "anon"}))
        .send()
        .await
        .expect("request");
    assert_eq!(anonymous.status(), 401);

    let page = admin
        .poll("/api/blade-log/api/list?size=50", |b| b["data"]["total"] == 2)
        .await;
    let rows = page["data"]["records"].as_array().unwrap();
    let text = page.to_string();
    for secret in [
        "hunter2",
        "s3cret",
        "pw1",
        "query-secret",
        "wrong-old",
        "new-pw",
        "anon",
    ] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
    let submit = rows
        .iter()
        .find(|r| r["requestUri"] == "/api/blade-system/param/submit")
        .expect("submit row");
    assert_eq!(submit["method"], "POST");
    assert_eq!(submit["createBy"], "admin");
    assert_eq!(submit["tenantId"], "000000");
    assert_eq!(submit["status"], 200);
    assert!(submit["time"].as_i64().is_some_and(|t| t >= 0), "{submit}");
    let params = submit["params"].as_str().unwrap();
    assert!(params.contains("token=******"), "{params}");
    let body: Json = serde_json::from_str(params.lines().nth(1).expect("body line")).expect("masked JSON");
    assert_eq!(body["password"], "******");
    assert_eq!(body["nested"]["clientSecret"], "******");
    assert_eq!(body["nested"]["newPassword1"], "******");
    assert_eq!(body["paramKey"], "k.logged", "other values are kept");
    let pw = rows
        .iter()
        .find(|r| r["requestUri"] == "/api/blade-user/update-password")
        .expect("password row");
    assert_eq!(
        pw["params"],
        "oldPassword=******&newPassword=******&newPassword1=******"
    );
    assert_eq!(pw["status"], 400);
    let Reply { body: gets, .. } = admin.get("/api/blade-log/api/list?method=GET").await;
    assert_eq!(gets["data"]["total"], 0);
    let Reply { body: filtered, .. } = admin
        .get("/api/blade-log/api/list?requestUri=update-password&createBy=admin")
        .await;
    assert_eq!(filtered["data"]["total"], 1);
    let Reply { body: none, .. } = admin
        .get("/api/blade-log/api/list?createTime_datelt=2000-01-01%2000:00:00")
        .await;
    assert_eq!(none["data"]["total"], 0);
    let id = submit["id"].as_str().unwrap();
    let Reply { body: detail, .. } = admin.get(&format!("/api/blade-log/api/detail?id={id}")).await;
    assert_eq!(detail["data"]["requestUri"], "/api/blade-system/param/submit");
    // No proxy header: the peer address of the connection is recorded.
    assert_eq!(detail["data"]["remoteIp"], "127.0.0.1");
    // A forwarded-for header from a peer that is not a configured proxy is anyone's to write:
    // the log keeps the peer, as the rate limits do.
    let Reply {
        status,
        body: spoofed,
        ..
    } = app
        .send(
            admin
                .request(reqwest::Method::POST, "/api/blade-system/param/submit")
                .header("X-Forwarded-For", "203.0.113.9")
                .header("X-Real-IP", "203.0.113.10")
                .json(&json!({"paramName": "n2", "paramKey": "k.spoofed", "paramValue": "v"})),
        )
        .await;
    assert_eq!(status, 200, "{spoofed}");
    let page = admin
        .poll("/api/blade-log/api/list?size=50", |b| b["data"]["total"] == 3)
        .await;
    let text = page.to_string();
    assert!(
        !text.contains("203.0.113."),
        "a header wrote the logged address: {text}"
    );
    app.stop().await;
}

#[tokio::test]
async fn sign_in_and_sign_out_reach_the_usual_log() {
    let app = TestApp::start().await;
    let Reply { status, .. } = app.sign_in("000000", "admin", "not-the-password").await;
    assert_eq!(status, 400);
    let admin = app.as_admin().await;
    let other = app.token_of("000000", "admin", "admin").await;
    let Reply { status, .. } = app.as_user(&other).get("/api/blade-auth/oauth/logout").await;
    assert_eq!(status, 200);
    let page = admin
        .poll("/api/blade-log/usual/list?size=50", |b| b["data"]["total"] == 4)
        .await;
    let ids: Vec<&str> = page["data"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["logId"].as_str())
        .collect();
    assert_eq!(ids.iter().filter(|i| **i == "login").count(), 2, "{page}");
    assert!(ids.contains(&"login_failed") && ids.contains(&"logout"), "{page}");
    let Reply { body: failed, .. } = admin
        .get("/api/blade-log/usual/list?logId_equal=login_failed")
        .await;
    let row = &failed["data"]["records"][0];
    assert_eq!(row["createBy"], "admin");
    assert_eq!(row["logLevel"], "warn");
    assert_eq!(row["logData"], "Wrong account or password");
    let id = row["id"].as_str().unwrap();
    let Reply { body: detail, .. } = admin.get(&format!("/api/blade-log/usual/detail?id={id}")).await;
    assert_eq!(detail["data"]["logId"], "login_failed");
    app.stop().await;
}

#[utoipa::path(post, path = "/api/test/boom", responses((status = 500)))]
async fn boom() -> ApiResult<Data<()>> {
    let v: Vec<u8> = Vec::new();
    let _ = v[usize::MAX / 2 + v.len()];
    Ok(Data(()))
}

fn boom_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(boom))
}

#[tokio::test]
async fn server_errors_reach_the_error_log() {
    let app = TestApp::start_with(boom_routes()).await;
    let admin = app.as_admin().await;
    let Reply { status, body, .. } = admin
        .post_json("/api/test/boom?x=1", json!({"password": "p4ss", "n": 1}))
        .await;
    assert_failure(status, &body, 500);
    let anonymous = app
        .client
        .post(app.url("/api/test/boom"))
        .send()
        .await
        .expect("request");
    assert_eq!(anonymous.status(), 500);
    let page = admin
        .poll("/api/blade-log/error/list", |b| b["data"]["total"] == 2)
        .await;
    let rows = page["data"]["records"].as_array().unwrap();
    let signed = rows
        .iter()
        .find(|r| r["createBy"] == "admin")
        .expect("signed-in row");
    assert_eq!(signed["requestUri"], "/api/test/boom");
    assert_eq!(signed["method"], "POST");
    assert!(signed["message"].as_str().unwrap().contains("panic"), "{signed}");
    let params = signed["params"].as_str().unwrap();
    assert!(params.contains("******") && !params.contains("p4ss"), "{params}");
    assert!(
        rows.iter()
            .any(|r| r["createBy"].is_null() && r["tenantId"] == "000000")
    );
    // The failed call is in the API log too, with its status.
    let api = admin
        .poll("/api/blade-log/api/list", |b| b["data"]["total"] == 1)
        .await;
    assert_eq!(api["data"]["records"][0]["status"], 500);
    let id = signed["id"].as_str().unwrap();
    let Reply { body: detail, .. } = admin.get(&format!("/api/blade-log/error/detail?id={id}")).await;
    assert_eq!(detail["data"]["requestUri"], "/api/test/boom");
    app.stop().await;
}

#[tokio::test]
async fn logs_are_read_per_tenant_and_whole_by_the_platform() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    app.create_tenant_user(
        "500006",
        "ops",
        "ops-pass",
        &["log_api", "log_usual", "log_error", "post", "post_add"],
        None,
    )
    .await;
    let ops = app.as_user(&app.token_of("500006", "ops", "ops-pass").await);
    let Reply { status, .. } = ops
        .post_json(
            "/api/blade-system/post/submit",
            json!({"category": 1, "postCode": "p", "postName": "p", "sort": 1}),
        )
        .await;
    assert_eq!(status, 200);
    let Reply { status, .. } = admin
        .post_json(
            "/api/blade-system/post/submit",
            json!({"category": 1, "postCode": "q", "postName": "q", "sort": 1}),
        )
        .await;
    assert_eq!(status, 200);
    let all = admin
        .poll("/api/blade-log/api/list", |b| b["data"]["total"] == 2)
        .await;
    let admin_row = all["data"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tenantId"] == "000000")
        .expect("platform row")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let Reply {
        body: platform_only, ..
    } = admin.get("/api/blade-log/api/list?tenantId=500006").await;
    assert_eq!(platform_only["data"]["total"], 1);
    let Reply { body: own, .. } = ops.get("/api/blade-log/api/list").await;
    assert_eq!(own["data"]["total"], 1, "{own}");
    assert_eq!(own["data"]["records"][0]["createBy"], "ops");
    let Reply { body: own, .. } = ops.get("/api/blade-log/api/list?tenantId=000000").await;
    assert_eq!(
        own["data"]["total"], 0,
        "naming another tenant does not widen the view"
    );
    let Reply { status, body, .. } = ops
        .get(&format!("/api/blade-log/api/detail?id={admin_row}"))
        .await;
    assert_failure(status, &body, 404);
    let Reply { body: usual, .. } = ops.get("/api/blade-log/usual/list").await;
    assert!(
        usual["data"]["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["tenantId"] == "500006"),
        "{usual}"
    );
    // Without the menu there is no log at all.
    app.create_tenant_user("500006", "plain", "plain-pass", &["post"], None)
        .await;
    let plain = app.token_of("500006", "plain", "plain-pass").await;
    let Reply { status, body, .. } = app.as_user(&plain).get("/api/blade-log/api/list").await;
    assert_failure(status, &body, 403);
    app.stop().await;
}

#[tokio::test]
async fn the_reference_routes_are_in_the_openapi_document() {
    let app = TestApp::start().await;
    let Reply { body: doc, .. } = app.get("/api/openapi.json").await;
    for p in [
        "/api/blade-system/dept/list",
        "/api/blade-system/dept/lazy-list",
        "/api/blade-system/dept/tree",
        "/api/blade-system/dept/lazy-tree",
        "/api/blade-system/dept/child-list",
        "/api/blade-system/dept/submit",
        "/api/blade-system/dept/select",
        "/api/blade-system/dict/list",
        "/api/blade-system/dict/detail",
        "/api/blade-system/dict/child-list",
        "/api/blade-system/dict/dictionary",
        "/api/blade-system/dict/listDict",
        "/api/blade-system/dict-biz/tree",
        "/api/blade-system/dict-biz/remove",
        "/api/blade-system/region/lazy-tree",
        "/api/blade-system/region/remove",
        "/api/blade-log/api/list",
        "/api/blade-log/usual/detail",
        "/api/blade-log/error/list",
    ] {
        assert!(doc["paths"].get(p).is_some(), "{p}");
    }
    app.stop().await;
}
