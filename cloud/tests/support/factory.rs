//! Factories for what tests create again and again: users and roles of a tenant, tenants on a
//! package, departments, stations, devices of each kind, gateway credentials, uploaded files.
//! Rows that the API owns are made through the API, as a console user would; users, roles and
//! grants are written with SQL (the tenant and user tests cover their own API).

use pv_cloud::kernel::sql::Value;
use serde_json::{Value as Json, json};

use super::client::{Client, Reply, md5_hex};
use super::server::TestApp;

/// Every menu and button of the station domain (what a tenant's station manager holds).
pub const STATION_MENUS: &[&str] = &[
    "station",
    "station_add",
    "station_edit",
    "station_delete",
    "station_switch",
    "inverter_add",
    "inverter_edit",
    "inverter_delete",
    "inverterThird_add",
    "inverterThird_edit",
    "inverterThird_delete",
    "camera_add",
    "camera_edit",
    "camera_delete",
    "weather_add",
    "weather_edit",
    "weather_delete",
    "meter_add",
    "meter_edit",
    "meter_delete",
    "stationPrice_add",
    "stationPrice_edit",
    "stationPrice_delete",
    "electricPrice_edit",
    "stationAssignment",
    "stationAssignment_assign",
];

/// The station manager's permissions plus gateway provisioning, Excel import/export and
/// flexible brackets.
pub const GATEWAY_MENUS: &[&str] = &[
    "station_gateway",
    "station_import",
    "station_export",
    "inverter_import",
    "inverter_export",
    "flex",
    "flex_add",
    "flex_edit",
    "flex_delete",
];

impl TestApp {
    /// Creates a tenant (optionally limited to a package of menu codes) with a role granted
    /// `menu_codes` and a user holding it. Returns (role id, user id).
    pub async fn create_tenant_user(
        &self,
        tenant: &str,
        account: &str,
        password: &str,
        menu_codes: &[&str],
        package_codes: Option<&[&str]>,
    ) -> (i64, i64) {
        let now = Value::Int(pv_cloud::kernel::time::now_ms());
        let exists = self
            .scalar_text(
                "SELECT tenant_id FROM blade_tenant WHERE tenant_id = ?",
                vec![tenant.into()],
            )
            .await;
        if exists.is_none() {
            let package = match package_codes {
                Some(codes) => {
                    let ids = self.menu_ids(codes).await;
                    let pid = self.state.ids.next().0;
                    self.exec(
                        "INSERT INTO blade_tenant_package (id, package_name, menu_id, create_time) VALUES (?, ?, ?, ?)",
                        vec![Value::Int(pid), "p".into(), ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",").into(), now.clone()],
                    )
                    .await;
                    Value::Int(pid)
                }
                None => Value::Null,
            };
            self.exec(
                "INSERT INTO blade_tenant (id, tenant_id, tenant_name, package_id, create_time) VALUES (?, ?, ?, ?, ?)",
                vec![Value::Int(self.state.ids.next().0), tenant.into(), format!("Tenant {tenant}").into(), package, now.clone()],
            )
            .await;
        }
        let role = self.state.ids.next().0;
        self.exec(
            "INSERT INTO blade_role (id, tenant_id, role_name, role_alias) VALUES (?, ?, ?, ?)",
            vec![
                Value::Int(role),
                tenant.into(),
                format!("role of {account}").into(),
                format!("r_{account}").into(),
            ],
        )
        .await;
        for m in self.menu_ids(menu_codes).await {
            self.exec(
                "INSERT INTO blade_role_menu (role_id, menu_id, kind) VALUES (?, ?, 'web')",
                vec![Value::Int(role), Value::Int(m)],
            )
            .await;
        }
        let user = self.state.ids.next().0;
        let phc = pv_cloud::auth::password::hash(&md5_hex(password))
            .await
            .expect("hash");
        self.exec(
            "INSERT INTO blade_user (id, tenant_id, account, password, name, real_name, create_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
            vec![Value::Int(user), tenant.into(), account.into(), phc.into(), account.into(), account.into(), now],
        )
        .await;
        self.exec(
            "INSERT INTO blade_user_role (user_id, role_id) VALUES (?, ?)",
            vec![Value::Int(user), Value::Int(role)],
        )
        .await;
        (role, user)
    }

    /// A dept of `tenant` under `parent` (0 = a root), with `ancestors` as the dept admin keeps it.
    pub async fn create_dept(&self, tenant: &str, parent: i64, name: &str) -> i64 {
        let ancestors = if parent == 0 {
            "0".to_owned()
        } else {
            let up = self
                .scalar_text(
                    "SELECT ancestors FROM blade_dept WHERE id = ?",
                    vec![Value::Int(parent)],
                )
                .await
                .expect("parent dept");
            format!("{up},{parent}")
        };
        let id = self.state.ids.next().0;
        self.exec(
            "INSERT INTO blade_dept (id, tenant_id, parent_id, ancestors, dept_name, full_name) VALUES (?, ?, ?, ?, ?, ?)",
            vec![
                Value::Int(id),
                tenant.into(),
                Value::Int(parent),
                ancestors.into(),
                name.into(),
                name.into(),
            ],
        )
        .await;
        id
    }

    pub async fn put_in_dept(&self, user: i64, dept: i64) {
        self.exec(
            "INSERT INTO blade_user_dept (user_id, dept_id) VALUES (?, ?)",
            vec![Value::Int(user), Value::Int(dept)],
        )
        .await;
    }

    /// A user of `tenant` holding the existing `role`. Returns the user id.
    pub async fn create_role_holder(&self, tenant: &str, account: &str, password: &str, role: i64) -> i64 {
        let user = self.state.ids.next().0;
        let phc = pv_cloud::auth::password::hash(&md5_hex(password))
            .await
            .expect("hash");
        self.exec(
            "INSERT INTO blade_user (id, tenant_id, account, password, name, real_name, create_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
            vec![
                Value::Int(user),
                tenant.into(),
                account.into(),
                phc.into(),
                account.into(),
                account.into(),
                Value::Int(pv_cloud::kernel::time::now_ms()),
            ],
        )
        .await;
        self.exec(
            "INSERT INTO blade_user_role (user_id, role_id) VALUES (?, ?)",
            vec![Value::Int(user), Value::Int(role)],
        )
        .await;
        user
    }

    /// A tenant with a station manager holding every station permission; returns the token.
    pub async fn station_manager(&self, tenant: &str, account: &str) -> String {
        self.create_tenant_user(tenant, account, "secret1", STATION_MENUS, None)
            .await;
        self.token_of(tenant, account, "secret1").await
    }

    /// A user of `tenant` holding the role with `alias` (created when missing, granted
    /// `menu_codes`). Returns the user id.
    pub async fn user_with_alias(
        &self,
        tenant: &str,
        account: &str,
        alias: &str,
        menu_codes: &[&str],
    ) -> i64 {
        let role = match self
            .scalar_int(
                "SELECT id FROM blade_role WHERE tenant_id = ? AND role_alias = ? AND is_deleted = 0",
                vec![tenant.into(), alias.into()],
            )
            .await
        {
            Some(r) => r,
            None => {
                let r = self.state.ids.next().0;
                self.exec(
                    "INSERT INTO blade_role (id, tenant_id, role_name, role_alias) VALUES (?, ?, ?, ?)",
                    vec![Value::Int(r), tenant.into(), alias.into(), alias.into()],
                )
                .await;
                for m in self.menu_ids(menu_codes).await {
                    self.exec(
                        "INSERT INTO blade_role_menu (role_id, menu_id, kind) VALUES (?, ?, 'web')",
                        vec![Value::Int(r), Value::Int(m)],
                    )
                    .await;
                }
                r
            }
        };
        self.create_role_holder(tenant, account, "secret1", role).await
    }

    /// A tenant user holding every station permission and the gateway and Excel buttons.
    pub async fn gateway_manager(&self, tenant: &str, account: &str) -> String {
        let menus: Vec<&str> = STATION_MENUS.iter().chain(GATEWAY_MENUS).copied().collect();
        self.create_tenant_user(tenant, account, "secret1", &menus, None)
            .await;
        self.token_of(tenant, account, "secret1").await
    }
}

/// The device registries of a station, each at `/api/<path>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    Inverter,
    /// A third-party inverter (`inverterThird`).
    ThirdPartyInverter,
    Meter,
    Weather,
    Camera,
    /// A tracker bracket (`flex`).
    Bracket,
}

impl Device {
    pub fn path(self) -> &'static str {
        match self {
            Device::Inverter => "/api/inverter",
            Device::ThirdPartyInverter => "/api/inverterThird",
            Device::Meter => "/api/meter",
            Device::Weather => "/api/weather",
            Device::Camera => "/api/camera",
            Device::Bracket => "/api/flex",
        }
    }
}

impl Client<'_> {
    /// Uploads a small file named `file_name` through the file storage, its content starting as
    /// its extension claims (JPEG or PNG magic bytes; plain text otherwise); returns its attach id.
    pub async fn upload(&self, file_name: &str) -> String {
        let bytes: &[u8] = if file_name.ends_with(".jpg") || file_name.ends_with(".jpeg") {
            b"\xFF\xD8\xFF\xE0 fake image"
        } else if file_name.ends_with(".png") {
            b"\x89PNG\r\n\x1a\n fake image"
        } else {
            b"fake file"
        };
        let reply = self
            .upload_file(
                "/api/blade-resource/oss/endpoint/put-file",
                file_name,
                bytes.to_vec(),
            )
            .await;
        assert_eq!(reply.status, 200, "upload: {}", reply.body);
        reply.body["data"]["attachId"]
            .as_str()
            .expect("attachId")
            .to_owned()
    }

    /// A commercial station (`stationType` 2) named `name`; returns its id.
    pub async fn station(&self, name: &str) -> String {
        self.station_with(json!({"name": name, "stationType": "2"})).await
    }

    /// A station from a whole form; returns its id.
    pub async fn station_with(&self, body: Json) -> String {
        self.post_json("/api/station", body).await.ok().id()
    }

    /// A device of `kind` from a whole form (with its `stationId`); returns its id.
    pub async fn device(&self, kind: Device, body: Json) -> String {
        self.post_json(kind.path(), body).await.ok().id()
    }

    /// An inverter of `station` named and numbered `sn` with `strings` strings, plus `extra`
    /// fields; returns its id.
    pub async fn inverter(&self, station: &str, sn: &str, strings: i64, extra: Json) -> String {
        let mut body = json!({"stationId": station, "name": sn, "sn": sn, "stringsCount": strings});
        if let (Some(b), Json::Object(e)) = (body.as_object_mut(), extra) {
            b.extend(e);
        }
        self.device(Device::Inverter, body).await
    }

    /// Switches a commissioning station to running.
    pub async fn switch_to_running(&self, station: &str) {
        self.put(&format!("/api/station/switchStation/{station}"))
            .await
            .ok();
    }

    /// Issues (or rotates) the MQTT credentials of `station`'s gateway.
    pub async fn gateway_credentials(&self, station: &str) -> Reply {
        self.post_json(
            &format!("/api/station/gateway/credentials?stationId={station}"),
            json!({}),
        )
        .await
    }

    /// A package of the given menu codes and a tenant on it, made by the platform administrator
    /// through the API; returns (package id, tenant id).
    pub async fn tenant_on_package(&self, name: &str, menu_codes: &[&str]) -> (String, String) {
        let ids = self.app().menu_ids(menu_codes).await;
        let joined = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        let Reply { status, body, .. } = self
            .post_json(
                "/api/blade-system/tenant-package/submit",
                json!({"packageName": format!("{name} package"), "menuId": joined}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let package = body["data"].as_str().expect("package id").to_owned();
        let Reply { status, body, .. } = self
            .post_json(
                "/api/blade-system/tenant/submit",
                json!({"tenantName": name, "linkman": "Li", "packageId": package}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let row = body["data"].as_str().expect("tenant row id").to_owned();
        let Reply { body: detail, .. } = self
            .get_query("/api/blade-system/tenant/detail", &[("id", &row)])
            .await;
        let tenant = detail["data"]["tenantId"].as_str().expect("tenantId").to_owned();
        (package, tenant)
    }
}

impl Client<'_> {
    /// A station named `name` with one tracker bracket `sn` (row "`name` row", the reference
    /// tracker map, unit 5); returns (station id, bracket id).
    pub async fn station_with_bracket(&self, name: &str, sn: &str) -> (String, i64) {
        let station = self.station(name).await;
        let bracket = self
            .device(
                Device::Bracket,
                json!({"stationId": station, "name": format!("{name} row"), "sn": sn,
                    "mapModel": "pv-reference-tracker", "unitId": 5}),
            )
            .await;
        (station, super::client::int(&bracket))
    }
}
