//! The demo's people and routine work, so operations and maintenance have someone to go to from
//! the first start: a maintenance user `maintainer` who looks after every demo station, an owner
//! `owner` of the Jiangsu rooftop (the station with the recurring inverter fault, so its repair
//! orders reach an owner to evaluate), two reusable inspection items and a daily inspection plan
//! over all stations (the task job turns it into tasks and reminders). Both accounts sign in
//! with the installation's initial password, like `admin`.
//!
//! Idempotent like the rest of the demo: found by account, title or plan name and created only
//! when missing; what an administrator changed stays.

use chrono::Utc;

use crate::auth::scope::Scoped;
use crate::inspection::cycle::Cycle;
use crate::inspection::item_store::{self, ItemDraft};
use crate::inspection::store::{self as plan_store, PlanDraft};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{Core, Id};
use crate::system::tenant_admin::{initial_password, password_hash_of};
use crate::user::model::UserForm;
use crate::user::store as user_store;

use super::error::DemoError;
use super::{DemoStation, TENANT};

pub const MAINTAINER: &str = "maintainer";
pub const OWNER: &str = "owner";
/// The station the demo owner owns (its gateway id).
const OWNED_GATEWAY: &str = "DEMO-JS-01";
const PLAN_NAME: &str = "每日例行巡检";

const ITEMS: &[(&str, &[&str])] = &[
    (
        "光伏阵列",
        &["组件表面无遮挡、无积灰", "组件无破损、无热斑", "支架与接地完好"],
    ),
    (
        "逆变器与配电",
        &[
            "逆变器运行指示正常、无告警",
            "散热风扇与滤网清洁",
            "交直流线缆无过热、无松动",
        ],
    ),
];

/// Creates what is missing; answers how many records it created.
pub async fn ensure(core: &Core, who: &Scoped, stations: &[DemoStation]) -> Result<usize, DemoError> {
    let mut changes = 0;
    let all: Vec<Id> = stations.iter().map(|s| s.station_id).collect();
    let owned: Vec<Id> = stations
        .iter()
        .filter(|s| s.gateway_id == OWNED_GATEWAY)
        .map(|s| s.station_id)
        .collect();
    let (maintainer, n) =
        ensure_user(core, who, MAINTAINER, "运维人员", "maintenance", "运维人员", &all).await?;
    changes += n;
    changes += ensure_user(core, who, OWNER, "业主", "owner", "业主", &owned)
        .await?
        .1;

    let mut item_ids = Vec::new();
    let existing = item_store::list(core, &who.caller).await?;
    for (title, checks) in ITEMS {
        match existing.iter().find(|i| i.title == *title) {
            Some(i) => item_ids.push(i.id),
            None => {
                let draft = ItemDraft {
                    title: (*title).to_owned(),
                    check_items: checks.iter().map(|c| (*c).to_owned()).collect(),
                    remark: String::new(),
                };
                item_ids.push(item_store::insert(core, &who.caller, &draft).await?);
                changes += 1;
            }
        }
    }

    let mut sql = Sql::new("SELECT COUNT(*) FROM pv_inspect_plan WHERE is_deleted = 0 AND ");
    sql.append(&who.caller.tenant_filter("tenant_id"));
    sql.push_bind(" AND name = ?", [Value::from(PLAN_NAME)]);
    if sql.scalar::<i64, _>(core.db.pool()).await? == 0 && !all.is_empty() {
        let draft = PlanDraft {
            name: PLAN_NAME.to_owned(),
            station_ids: all,
            item_ids,
            maintenance_ids: vec![maintainer],
            cycle: Cycle::Daily,
            alarm_day: 0,
            start_date: Utc::now().date_naive(),
            end_date: None,
            status: 1,
            remark: "演示：每天一次，由运维人员 maintainer 在手机上填写".to_owned(),
        };
        plan_store::insert(core, who, &draft).await?;
        changes += 1;
    }
    Ok(changes)
}

/// The demo user `account` with role `alias` and the given stations; answers (id, created).
async fn ensure_user(
    core: &Core,
    who: &Scoped,
    account: &str,
    real_name: &str,
    alias: &str,
    role_name: &str,
    stations: &[Id],
) -> Result<(Id, usize), DemoError> {
    if let Some(u) = user_store::find_by_account(&core.db, TENANT, account).await? {
        return Ok((u.id, 0));
    }
    let role = user_store::ensure_role(core, &who.caller, alias, role_name).await?;
    let dept = user_store::default_dept(&core.db, &who.caller).await?;
    let form = UserForm {
        account: Some(account.to_owned()),
        real_name: Some(real_name.to_owned()),
        name: Some(real_name.to_owned()),
        roles: Some(vec![role]),
        depts: dept.map(|d| vec![d]),
        ..UserForm::default()
    };
    let phc = password_hash_of(&initial_password(core).await?).await?;
    let id = user_store::insert_user(core, &who.caller, &form, phc, 1).await?;
    let mut tx = core.db.begin_write().await?;
    for station in stations {
        crate::station::station_store::assign(&mut tx, TENANT, id, *station).await?;
    }
    tx.commit().await?;
    tracing::info!(account, "demo user created");
    Ok((id, 1))
}
