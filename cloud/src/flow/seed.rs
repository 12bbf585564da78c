//! The processes every tenant starts with, as models (not deployed: until an administrator
//! deploys one, repair, inspection and leave work without it). Added to a tenant's models the
//! first time its model list is read, once per key: a model the tenant deleted is not brought
//! back.

use crate::kernel::sql::{Sql, Value as V, is_unique_violation};
use crate::kernel::{ApiError, Core, time};

pub struct Seeded {
    pub key: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    /// The flow route entry (dictionary `flow`: code + "_" + key).
    pub category: &'static str,
    pub xml: &'static str,
}

pub const DEFAULTS: [Seeded; 3] = [
    Seeded {
        key: "repair_approval",
        name: "维修派工审批",
        description: "等级达到阈值（默认3 重要）的维修工单，由电站的运维经理审批后才能派工；驳回时退回并附意见。",
        category: "flow_2",
        xml: include_str!("defaults/repair_approval.bpmn"),
    },
    Seeded {
        key: "inspection_plan_approval",
        name: "巡检计划审批",
        description: "新建或修改的巡检计划经审批后才生效。",
        category: "flow_3",
        xml: include_str!("defaults/inspection_plan_approval.bpmn"),
    },
    Seeded {
        key: "leave",
        name: "请假流程",
        description: "员工请假由所选审批人审批，派工时可知人员是否在岗。",
        category: "flow_1",
        xml: include_str!("defaults/leave.bpmn"),
    },
];

/// Adds the defaults `tenant` has never had.
pub async fn ensure(core: &Core, tenant: &str) -> Result<(), ApiError> {
    for d in &DEFAULTS {
        let mut had = Sql::new("SELECT COUNT(*) FROM flow_model WHERE tenant_id = ? AND model_key = ?");
        had.push_bind("", [V::from(tenant), V::from(d.key)]);
        if had.scalar::<i64, _>(core.db.pool()).await? > 0 {
            continue;
        }
        let now = time::now_ms();
        let mut sql = Sql::new(
            "INSERT INTO flow_model (id, tenant_id, model_key, name, description, category, xml, version, \
             create_time, update_time) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)",
        );
        sql.push_bind(
            "",
            [
                V::from(core.ids.next()),
                V::from(tenant),
                V::from(d.key),
                V::from(d.name),
                V::from(d.description),
                V::from(d.category),
                V::from(d.xml),
                V::Int(now),
                V::Int(now),
            ],
        );
        // Two first reads at once: the other one added it.
        match sql.execute(core.db.pool()).await {
            Ok(_) => {}
            Err(e) if is_unique_violation(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_in_the_subset_and_keyed_as_listed() {
        for d in &DEFAULTS {
            let def = crate::flow::bpmn::parse(d.xml).unwrap_or_else(|e| panic!("{}: {e}", d.key));
            assert_eq!(def.key, d.key);
        }
    }
}
