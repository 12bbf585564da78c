//! System parameters (`/api/blade-system/param`): platform-wide key/value settings.

use super::crud::{EntityDef, FieldDef, FieldType};

pub static PARAM: EntityDef = EntityDef {
    base: "/api/blade-system/param",
    table: "blade_param",
    tenant_scoped: false,
    menu_code: "param",
    tag: "system",
    fields: &[
        FieldDef::new("id", "id", FieldType::Id).read_only(),
        FieldDef::new("paramName", "param_name", FieldType::Text)
            .required("请输入参数名称", "Please enter parameter name")
            .max(255)
            .filter(),
        FieldDef::new("paramKey", "param_key", FieldType::Text)
            .required("请输入参数键名", "Please enter parameter key")
            .max(255)
            .unique("参数键名已存在", "This parameter key already exists")
            .filter(),
        FieldDef::new("paramValue", "param_value", FieldType::Text)
            .required("请输入参数键值", "Please enter parameter value"),
        FieldDef::new("remark", "remark", FieldType::Text).max(255),
        FieldDef::new("createTime", "create_time", FieldType::Time).read_only(),
    ],
    default_order: "create_time DESC, id DESC",
    platform_only: true,
    ..EntityDef::DEFAULT
};
