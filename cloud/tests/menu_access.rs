//! Menus and permissions agree: for every role of the platform tenant and of the demo tenant, each
//! page of the menu tree the hub serves answers its primary list call without a 403.

use crate::support;

use serde_json::Value as Json;
use support::TestApp;

/// The first call each built console page makes (`web/src/router/menuPages.ts`), a GET unless it
/// starts with `POST `; `{station}` is one of the caller's stations (the call is skipped when
/// they see none).
const PAGE_CALLS: &[(&str, &str)] = &[
    ("/system/user", "/api/blade-user/page"),
    ("/system/dept", "/api/blade-system/dept/list"),
    ("/system/post", "/api/blade-system/post/list"),
    ("/system/dict", "/api/blade-system/dict/list"),
    ("/system/dictbiz", "/api/blade-system/dict-biz/list"),
    ("/system/menu", "/api/blade-system/menu/lazy-list?parentId=0"),
    ("/system/topmenu", "/api/blade-system/topmenu/list"),
    ("/system/param", "/api/blade-system/param/list"),
    ("/system/tenant", "/api/blade-system/tenant/list"),
    ("/system/tenantPackage", "/api/blade-system/tenant-package/list"),
    ("/system/client", "/api/blade-system/client/list"),
    (
        "/system/region",
        "/api/blade-system/region/lazy-list?parentCode=00",
    ),
    ("/authority/role", "/api/blade-system/role/list"),
    ("/authority/datascope", "/api/blade-system/data-scope/list"),
    ("/authority/apiscope", "/api/blade-system/api-scope/list"),
    ("/monitor/log/usual", "/api/blade-log/usual/list"),
    ("/monitor/log/api", "/api/blade-log/api/list"),
    ("/monitor/log/error", "/api/blade-log/error/list"),
    ("/integrated/owner", "/api/blade-user/pageOwner"),
    ("/integrated/personnel", "/api/blade-user/page"),
    ("/integrated/stationAssignment", "/api/station/pageAssignment"),
    ("/station/station", "/api/station/page"),
    ("/archives", "/api/station/list"),
    ("/station/inverter", "/api/inverter/page"),
    ("/station/inverterThird", "/api/inverterThird/page"),
    ("/station/camera", "/api/camera/page"),
    ("/station/weather", "/api/weather/page"),
    ("/station/meter", "/api/meter/page"),
    ("/station/stationPrice", "/api/stationPrice/page"),
    (
        "/station/electricPrice",
        "/api/electricPrice/getByStationId/{station}",
    ),
    ("/station/inverterReal", "POST /api/inverterReal/list"),
    ("/flex/flex", "/api/flex/list"),
    ("/flex/realTime", "/api/flex/listStationName"),
    ("/flex/alarmSetting", "/api/alarmSettingFlex/page"),
    ("/flex/alarmData", "/api/alarmDataFlex/page"),
    (
        "/intelligentOperation/discreteRate",
        "/api/discreteRate/list?stationId={station}",
    ),
    ("/intelligentOperation/hdayRate", "/api/hdayRate/pageStation"),
    ("/intelligentOperation/alarmData", "/api/alarmData/page"),
    ("/intelligentOperation/intelligentWarning", "/api/warnData/page"),
    ("/intelligentOperation/message", "/api/message/list"),
    ("/intelligentOperation/inspectionItem", "/api/inspectItem/page"),
    ("/intelligentOperation/inspectionPlan", "/api/inspectPlan/page"),
    ("/intelligentOperation/inspectionTask", "/api/inspectTask/page"),
    (
        "/intelligentOperation/inspectionRecord",
        "/api/inspectRecord/page",
    ),
    ("/intelligentOperation/repair", "/api/repair/page"),
    (
        "/report/stationElectricity",
        "/api/report/station/electricity?stationId={station}",
    ),
    ("/report/inverterElectricity", "/api/inverter/page"),
    (
        "/report/irradiance",
        "/api/report/irradiance/list?stationId={station}",
    ),
    ("/report/meterReport", "/api/report/setting"),
    ("/report/electricityBill", "/api/report/setting"),
    ("/report/energyConservation", "/api/report/setting"),
    ("/report/energyCorrection", "/api/energyCorrection/events"),
    ("/tool/report", "/api/blade-report/report/rest/list"),
    ("/resource/oss", "/api/blade-resource/oss/list"),
    ("/resource/attach", "/api/blade-resource/attach/list"),
    ("/resource/sms", "/api/blade-resource/sms/list"),
    ("/resource/notifyLog", "/api/blade-resource/notify/log/list"),
];

/// Menu paths the console has no page for yet (it shows "not available"): no call is made.
const NOT_BUILT: &[&str] = &[
    "/basicFacts/equipmentMap",
    "/equipment",
    "/bigScreen/index",
    "/flow/model",
    "/flow/manager",
    "/flow/follow",
    "/work",
    "/tool/code",
    "/tool/datasource",
    "/tool/model",
];

fn leaves(nodes: &Json, out: &mut Vec<(String, String)>) {
    for n in nodes.as_array().into_iter().flatten() {
        let kids = &n["children"];
        if kids.as_array().is_some_and(|k| !k.is_empty()) {
            leaves(kids, out);
        } else {
            out.push((
                n["code"].as_str().unwrap_or_default().to_owned(),
                n["path"].as_str().unwrap_or_default().to_owned(),
            ));
        }
    }
}

#[tokio::test]
async fn every_menu_a_role_is_served_answers_its_page_call() {
    let app = TestApp::start_configured(|c| {
        c.demo.enabled = true;
        // Provisioning only writes ports into files; nothing listens on them in this test.
        c.demo.modbus_base_port = 47_100;
    })
    .await;
    pv_cloud::demo::provision(&app.state.station_ctx(), pv_cloud::kernel::time::now_ms())
        .await
        .expect("demo provisioned");
    let roles: Vec<(i64, String, String)> = sqlx::query_as::<_, (i64, String, String)>(
        "SELECT id, tenant_id, role_alias FROM blade_role WHERE is_deleted = 0 AND tenant_id IN ('000000', 'demo') ORDER BY tenant_id, id",
    )
    .fetch_all(app.state.db.pool())
    .await
    .expect("roles");
    assert!(roles.len() >= 5, "{roles:?}");
    let mut refused = Vec::new();
    let mut called = 0;
    for (i, (role, tenant, alias)) in roles.iter().enumerate() {
        // Accounts are at most 20 characters: ids do not fit.
        let account = format!("probe{i}");
        app.create_role_holder(tenant, &account, "secret1", *role).await;
        let token = app.token_of(tenant, &account, "secret1").await;
        let user = app.as_user(&token);
        let mut pages = Vec::new();
        leaves(&user.get_data("/api/blade-system/menu/routes").await, &mut pages);
        let codes: Vec<&str> = pages.iter().map(|(c, _)| c.as_str()).collect();
        if tenant == "000000" && alias == "administrator" {
            // The platform keeps its own pages.
            assert!(codes.contains(&"param") && codes.contains(&"client"), "{codes:?}");
        }
        if tenant != "000000" {
            for platform in ["param", "tenant", "tenantPackage", "client"] {
                assert!(
                    !codes.contains(&platform),
                    "{tenant}/{alias} is served {platform}"
                );
            }
        }
        let station = user.get_data("/api/station/list").await;
        let station = station[0]["id"].as_str().map(str::to_owned);
        for (code, path) in &pages {
            if NOT_BUILT.contains(&path.as_str()) {
                continue;
            }
            let call = PAGE_CALLS
                .iter()
                .find(|(p, _)| p == path)
                .unwrap_or_else(|| panic!("no page call known for menu {code} ({path})"))
                .1;
            let call = match (&station, call.contains("{station}")) {
                (_, false) => call.to_owned(),
                (Some(s), true) => call.replace("{station}", s),
                (None, true) => continue,
            };
            let reply = match call.strip_prefix("POST ") {
                Some(path) => user.post_json(path, serde_json::json!({})).await,
                None => user.get(&call).await,
            };
            called += 1;
            if matches!(reply.status, 401 | 403 | 404 | 405) || reply.status >= 500 {
                refused.push(format!(
                    "{tenant}/{alias}: {code} → {call} = {} {}",
                    reply.status,
                    reply.msg()
                ));
            }
        }
    }
    assert!(called > 40, "{called} page calls");
    assert!(
        refused.is_empty(),
        "menus leading to refusals:\n{}",
        refused.join("\n")
    );

    // The platform pages' buttons are refused to other tenants even when a role still holds them
    // (grants made before this rule).
    let demo_admin = app.token_of("demo", "admin", "123456").await;
    let reply = app
        .as_user(&demo_admin)
        .get("/api/blade-system/menu/buttons")
        .await;
    let mut buttons = Vec::new();
    leaves(&reply.data(), &mut buttons);
    assert!(
        !buttons
            .iter()
            .any(|(c, _)| c.starts_with("param_") || c.starts_with("client_")),
        "{buttons:?}"
    );
}
