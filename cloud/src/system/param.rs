//! System parameters (`/api/blade-system/param`): platform-wide key/value settings.

use super::entities::{Col, EntityDef, Ty};

pub static PARAM: EntityDef = EntityDef {
    base: "/api/blade-system/param",
    table: "blade_param",
    tenant_scoped: false,
    menu_code: "param",
    tag: "system",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("paramName", "param_name", Ty::TEXT)
            .required_as("请输入参数名称", "Please enter parameter name")
            .max(255)
            .filter(),
        Col::of("paramKey", "param_key", Ty::TEXT)
            .required_as("请输入参数键名", "Please enter parameter key")
            .max(255)
            .unique("参数键名已存在", "This parameter key already exists")
            .filter(),
        Col::of("paramValue", "param_value", Ty::TEXT)
            .required_as("请输入参数键值", "Please enter parameter value"),
        Col::of("remark", "remark", Ty::TEXT).max(255),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "create_time DESC, id DESC",
    platform_only: true,
    ..EntityDef::DEFAULT
};
