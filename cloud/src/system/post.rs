//! Posts (job positions) of a tenant (`/api/blade-system/post`).

use super::crud::{EntityDef, FieldDef, FieldType};

pub static POST: EntityDef = EntityDef {
    base: "/api/blade-system/post",
    table: "blade_post",
    tenant_scoped: true,
    menu_code: "post",
    tag: "system",
    fields: &[
        FieldDef::new("id", "id", FieldType::Id).read_only(),
        FieldDef::new("category", "category", FieldType::Int)
            .required("请选择岗位类型", "Please select the post category")
            .filter(),
        FieldDef::new("postCode", "post_code", FieldType::Text)
            .required("请输入岗位编号", "Please enter the post code")
            .max(12)
            .unique("岗位编号已存在", "This post code already exists")
            .filter(),
        FieldDef::new("postName", "post_name", FieldType::Text)
            .required("请输入岗位名称", "Please enter the post name")
            .max(64)
            .filter(),
        FieldDef::new("sort", "sort", FieldType::Int)
            .required("请输入岗位排序", "Please enter the sort order"),
        FieldDef::new("remark", "remark", FieldType::Text).max(255),
        FieldDef::new("createTime", "create_time", FieldType::Time).read_only(),
    ],
    default_order: "sort ASC, id ASC",
    // Lists narrow by the data scopes of resource `post` (create_user / create_dept).
    data_scoped: true,
    create_dept: true,
    ..EntityDef::DEFAULT
};
