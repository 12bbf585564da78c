//! Posts (job positions) of a tenant (`/api/blade-system/post`).

use super::entities::{Col, EntityDef, Ty};

pub static POST: EntityDef = EntityDef {
    base: "/api/blade-system/post",
    table: "blade_post",
    tenant_scoped: true,
    menu_code: "post",
    tag: "system",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("category", "category", Ty::INT)
            .required_as("请选择岗位类型", "Please select the post category")
            .filter(),
        Col::of("postCode", "post_code", Ty::TEXT)
            .required_as("请输入岗位编号", "Please enter the post code")
            .max(12)
            .unique("岗位编号已存在", "This post code already exists")
            .filter(),
        Col::of("postName", "post_name", Ty::TEXT)
            .required_as("请输入岗位名称", "Please enter the post name")
            .max(64)
            .filter(),
        Col::of("sort", "sort", Ty::INT).required_as("请输入岗位排序", "Please enter the sort order"),
        Col::of("remark", "remark", Ty::TEXT).max(255),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "sort ASC, id ASC",
    // Lists narrow by the data scopes of resource `post` (create_user / create_dept).
    data_scoped: true,
    create_dept: true,
    ..EntityDef::DEFAULT
};
