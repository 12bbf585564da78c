//! Who is who to a repair order: the caller's buttons and stations ([`Viewer`], giving the
//! machine's [`Actor`] for each order), the stations' owners, the dispatchers who see a station,
//! and whether a user may be assigned one.

use std::collections::HashSet;

use sqlx::Row as _;

use super::machine::{self, Action, Actor};
use super::record::Row;
use crate::auth::scope::{MAINTENANCE_ROLE, OWNER_ROLE, Scoped, role_aliases};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id};

pub const ASSIGN_BUTTON: &str = "repair_assign";

/// The caller as the repair calls see them, resolved once per request.
#[derive(Debug, Clone)]
pub struct Viewer {
    pub user: i64,
    /// The repair buttons the caller holds (`repair_assign`, `repair_accept`, ...).
    pub buttons: HashSet<String>,
    /// `None`: sees every station of the tenant.
    pub stations: Option<HashSet<i64>>,
    pub owner: bool,
}

impl Viewer {
    pub async fn load(core: &Core, scope: &Scoped) -> Result<Viewer, ApiError> {
        let caller = &scope.caller;
        let mut buttons = HashSet::new();
        if !caller.role_ids.is_empty() {
            let mut sql = Sql::new(
                "SELECT DISTINCT m.id, m.code FROM blade_menu m JOIN blade_role_menu rm ON rm.menu_id = m.id \
                 WHERE m.is_deleted = 0 AND rm.kind = 'web' AND m.code LIKE 'repair%' AND rm.role_id IN (",
            );
            sql.push_ids(&caller.role_ids);
            sql.push(")");
            for (id, code) in sql.fetch_all::<(i64, String), _>(core.db.pool()).await? {
                if code.starts_with("repair_")
                    && crate::auth::package::package_allows(core, &caller.tenant_id, Id(id)).await?
                {
                    buttons.insert(code);
                }
            }
        }
        let stations = match scope.stations.assigned_to {
            None => None,
            Some(user) => {
                let mut sql = Sql::new("SELECT station_id FROM pv_user_station WHERE ");
                sql.push_bind("user_id = ?", [Value::from(user)]);
                Some(sql.scalars::<i64, _>(core.db.pool()).await?.into_iter().collect())
            }
        };
        let owner = role_aliases(core, caller).await?.iter().any(|a| a == OWNER_ROLE);
        Ok(Viewer {
            user: caller.user_id.0,
            buttons,
            stations,
            owner,
        })
    }

    pub fn sees_station(&self, station: i64) -> bool {
        self.stations.as_ref().is_none_or(|s| s.contains(&station))
    }

    pub fn is_dispatcher(&self, station: i64) -> bool {
        self.buttons.contains(ASSIGN_BUTTON) && self.sees_station(station)
    }

    /// What the caller is to `order`; `owned`: whether its station has an owner.
    pub fn actor(&self, order: &Row, owned: bool) -> Actor {
        let dispatcher = self.is_dispatcher(order.station_id);
        let owns = self.owner
            && self
                .stations
                .as_ref()
                .is_some_and(|s| s.contains(&order.station_id));
        Actor {
            assignee: order.assignee_id == Some(self.user),
            dispatcher,
            creator: order.creator_id == self.user,
            evaluator: owns || (dispatcher && !owned),
        }
    }

    /// The actions the caller may take now: allowed by the machine and by their buttons.
    pub fn actions(&self, order: &Row, owned: bool) -> Vec<String> {
        machine::available(order.status, self.actor(order, owned))
            .into_iter()
            .filter(|a| self.buttons.contains(&a.button()))
            .filter(|a| *a != Action::Assign || super::approval::assignable(order.approval))
            .map(|a| a.name().to_owned())
            .collect()
    }

    /// The machine's verdict and the button check for `action` on `order`.
    pub fn check(&self, order: &Row, owned: bool, action: Action) -> Result<i64, ApiError> {
        let to = machine::check(order.status, action, self.actor(order, owned)).map_err(|r| match r {
            machine::Refused::Status => ApiError::BadRequest(machine::NOT_IN_STATUS),
            machine::Refused::Actor => ApiError::Forbidden(machine::NOT_YOURS),
        })?;
        if !self.buttons.contains(&action.button()) {
            return Err(ApiError::Forbidden(machine::NOT_YOURS));
        }
        if action == Action::Assign && !super::approval::assignable(order.approval) {
            return Err(ApiError::BadRequest(super::approval::NOT_APPROVED));
        }
        Ok(to)
    }
}

/// The users holding role `alias` in `tenant` who are assigned `stations` (all when empty).
async fn role_holders_at(
    core: &Core,
    tenant: &str,
    alias: &str,
    stations: &[i64],
) -> Result<Vec<(i64, i64)>, ApiError> {
    let mut sql = Sql::new(
        "SELECT DISTINCT us.user_id, us.station_id FROM pv_user_station us \
         JOIN blade_user u ON u.id = us.user_id AND u.is_deleted = 0 AND u.status = 1 \
         JOIN blade_user_role ur ON ur.user_id = u.id \
         JOIN blade_role r ON r.id = ur.role_id AND r.is_deleted = 0 WHERE ",
    );
    // By tenant: also used by the deadline job, which has no caller.
    sql.push_bind(
        "us.tenant_id = ? AND r.role_alias = ?",
        [Value::from(tenant), Value::from(alias)],
    );
    if !stations.is_empty() {
        sql.push(" AND us.station_id IN (");
        sql.push_ids(&stations.iter().copied().map(Id).collect::<Vec<_>>());
        sql.push(")");
    }
    let rows = sql.rows(core.db.pool()).await?;
    rows.iter()
        .map(|r| Ok((r.try_get("user_id")?, r.try_get("station_id")?)))
        .collect::<Result<Vec<_>, sqlx::Error>>()
        .map_err(ApiError::from)
}

/// The stations among `stations` that have an owner.
pub async fn owned_stations(core: &Core, tenant: &str, stations: &[i64]) -> Result<HashSet<i64>, ApiError> {
    if stations.is_empty() {
        return Ok(HashSet::new());
    }
    Ok(role_holders_at(core, tenant, OWNER_ROLE, stations)
        .await?
        .into_iter()
        .map(|(_, s)| s)
        .collect())
}

/// The owners of `station`.
pub async fn owners(core: &Core, tenant: &str, station: i64) -> Result<Vec<i64>, ApiError> {
    Ok(role_holders_at(core, tenant, OWNER_ROLE, &[station])
        .await?
        .into_iter()
        .map(|(u, _)| u)
        .collect())
}

/// The users who see `station` and hold `repair_assign`.
pub async fn dispatchers(core: &Core, tenant: &str, station: i64) -> Result<Vec<i64>, ApiError> {
    let seeing = crate::alarm::message::recipients(core, tenant, station).await?;
    if seeing.is_empty() {
        return Ok(vec![]);
    }
    let mut sql = Sql::new(
        "SELECT DISTINCT ur.user_id FROM blade_user_role ur JOIN blade_role_menu rm ON rm.role_id = ur.role_id \
         JOIN blade_menu m ON m.id = rm.menu_id AND m.is_deleted = 0 AND rm.kind = 'web' WHERE ",
    );
    sql.push_bind("m.code = ? AND ur.user_id IN (", [Value::from(ASSIGN_BUTTON)]);
    sql.push_ids(&seeing.iter().copied().map(Id).collect::<Vec<_>>());
    sql.push(")");
    let holders: HashSet<i64> = sql.scalars::<i64, _>(core.db.pool()).await?.into_iter().collect();
    Ok(seeing.into_iter().filter(|u| holders.contains(u)).collect())
}

pub const NOT_MAINTAINER: crate::kernel::lang::Text = crate::kernel::lang::Text::new(
    "请选择能查看该电站的运维人员",
    "Choose a maintenance user who can see the station",
);

/// Refuses unless `user` is live maintenance staff of `tenant` who can see `station`.
pub async fn check_maintainer(core: &Core, tenant: &str, user: Id, station: i64) -> Result<(), ApiError> {
    let mut sql = Sql::new(
        "SELECT COUNT(*) FROM blade_user u JOIN blade_user_role ur ON ur.user_id = u.id \
         JOIN blade_role r ON r.id = ur.role_id AND r.is_deleted = 0 WHERE ",
    );
    // By tenant: the user is someone other than the caller, in the caller's tenant.
    sql.push_bind(
        "u.id = ? AND u.tenant_id = ? AND u.is_deleted = 0 AND u.status = 1 AND r.role_alias = ?",
        [
            Value::from(user),
            Value::from(tenant),
            Value::from(MAINTENANCE_ROLE),
        ],
    );
    let maintenance = sql.scalar::<i64, _>(core.db.pool()).await? > 0;
    if !maintenance
        || !crate::alarm::message::recipients(core, tenant, station)
            .await?
            .contains(&user.0)
    {
        return Err(ApiError::BadRequest(NOT_MAINTAINER));
    }
    Ok(())
}
