-- Access control: data scopes (which rows of a list a role sees) and API scopes (which protected
-- calls a role may make), their grants to roles, and the columns the generic admin family needs
-- on roles, menus and posts.

-- Data scopes are platform data hanging on a menu; `resource_code` is the menu code of the list
-- they narrow. scope_type: 1 all, 2 own rows, 3 own dept, 4 own dept and below, 5 custom depts.
CREATE TABLE blade_scope_data (
    id             BIGINT        NOT NULL PRIMARY KEY,
    menu_id        BIGINT        NOT NULL,
    resource_code  VARCHAR(255)  NOT NULL,
    scope_name     VARCHAR(255)  NOT NULL,
    -- `create_user` or `create_dept` (a whitelist: the column is spliced into list queries).
    scope_column   VARCHAR(255)  NOT NULL,
    scope_type     BIGINT        NOT NULL DEFAULT 1,
    -- Comma-joined dept ids for scope_type 5.
    scope_value    VARCHAR(2000),
    remark         VARCHAR(255),
    create_user    BIGINT,
    create_time    BIGINT        NOT NULL,
    update_user    BIGINT,
    update_time    BIGINT,
    status         BIGINT        NOT NULL DEFAULT 1,
    is_deleted     BIGINT        NOT NULL DEFAULT 0
);
CREATE INDEX ix_blade_scope_data_resource ON blade_scope_data (resource_code);
CREATE INDEX ix_blade_scope_data_menu ON blade_scope_data (menu_id);

-- API scopes: a path (exact, or a prefix when it ends in `/**`) and a method.
-- scope_type: 1 any method, 2 GET, 3 POST, 4 PUT, 5 DELETE.
CREATE TABLE blade_scope_api (
    id             BIGINT        NOT NULL PRIMARY KEY,
    menu_id        BIGINT        NOT NULL,
    resource_code  VARCHAR(255)  NOT NULL,
    scope_name     VARCHAR(255)  NOT NULL,
    scope_path     VARCHAR(255)  NOT NULL,
    scope_type     BIGINT        NOT NULL DEFAULT 1,
    remark         VARCHAR(255),
    create_user    BIGINT,
    create_time    BIGINT        NOT NULL,
    update_user    BIGINT,
    update_time    BIGINT,
    status         BIGINT        NOT NULL DEFAULT 1,
    is_deleted     BIGINT        NOT NULL DEFAULT 0
);
CREATE INDEX ix_blade_scope_api_menu ON blade_scope_api (menu_id);

-- scope_category: 1 data scope, 2 API scope.
CREATE TABLE blade_role_scope (
    role_id         BIGINT NOT NULL,
    scope_id        BIGINT NOT NULL,
    scope_category  BIGINT NOT NULL,
    PRIMARY KEY (role_id, scope_id, scope_category)
);
CREATE INDEX ix_blade_role_scope_scope ON blade_role_scope (scope_id);

-- The generic admin family stamps create_time on every insert.
ALTER TABLE blade_role ADD COLUMN create_time BIGINT NOT NULL DEFAULT 0;
ALTER TABLE blade_menu ADD COLUMN create_time BIGINT NOT NULL DEFAULT 0;

-- Role aliases identify roles inside a tenant (`administrator`, `owner`...): the index settles
-- two submits racing past the application's check.
CREATE UNIQUE INDEX ux_blade_role_alias ON blade_role (tenant_id, role_alias) WHERE is_deleted = 0;

-- Posts are narrowed by data scopes on create_user and create_dept.
ALTER TABLE blade_post ADD COLUMN create_dept BIGINT;
