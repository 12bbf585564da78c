-- Tenancy and identity: tenants and their packages, OAuth clients, departments, posts, roles,
-- users, menus with button permissions, top menus, and sign-in state (sessions, captchas).

CREATE TABLE blade_tenant (
    id              BIGINT       NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)  NOT NULL,
    tenant_name     VARCHAR(50)  NOT NULL,
    domain          VARCHAR(255),
    background_url  VARCHAR(1000),
    linkman         VARCHAR(20),
    contact_number  VARCHAR(20),
    address         VARCHAR(255),
    account_number  BIGINT       NOT NULL DEFAULT -1,
    expire_time     BIGINT,
    package_id      BIGINT,
    create_user     BIGINT,
    create_dept     BIGINT,
    create_time     BIGINT       NOT NULL,
    update_user     BIGINT,
    update_time     BIGINT,
    status          BIGINT       NOT NULL DEFAULT 1,
    is_deleted      BIGINT       NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_tenant_tenant_id ON blade_tenant (tenant_id) WHERE is_deleted = 0;

CREATE TABLE blade_tenant_package (
    id            BIGINT       NOT NULL PRIMARY KEY,
    package_name  VARCHAR(50)  NOT NULL,
    menu_id       TEXT         NOT NULL DEFAULT '',
    remark        VARCHAR(255),
    create_user   BIGINT,
    create_time   BIGINT       NOT NULL,
    update_user   BIGINT,
    update_time   BIGINT,
    status        BIGINT       NOT NULL DEFAULT 1,
    is_deleted    BIGINT       NOT NULL DEFAULT 0
);

CREATE TABLE blade_client (
    id                       BIGINT        NOT NULL PRIMARY KEY,
    client_id                VARCHAR(48)   NOT NULL,
    -- SHA-256 hex of the secret: client secrets are long random strings, not passwords.
    client_secret_hash       VARCHAR(64)   NOT NULL,
    scope                    VARCHAR(255)  NOT NULL DEFAULT 'all',
    authorized_grant_types   VARCHAR(255)  NOT NULL,
    web_server_redirect_uri  VARCHAR(255),
    access_token_validity    BIGINT        NOT NULL,
    refresh_token_validity   BIGINT        NOT NULL,
    create_user              BIGINT,
    create_time              BIGINT        NOT NULL,
    update_user              BIGINT,
    update_time              BIGINT,
    status                   BIGINT        NOT NULL DEFAULT 1,
    is_deleted               BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_client_client_id ON blade_client (client_id) WHERE is_deleted = 0;

CREATE TABLE blade_dept (
    id             BIGINT        NOT NULL PRIMARY KEY,
    tenant_id      VARCHAR(12)   NOT NULL,
    parent_id      BIGINT        NOT NULL DEFAULT 0,
    ancestors      VARCHAR(2000) NOT NULL DEFAULT '0',
    dept_category  BIGINT        NOT NULL DEFAULT 1,
    dept_name      VARCHAR(45)   NOT NULL,
    full_name      VARCHAR(45),
    sort           BIGINT        NOT NULL DEFAULT 1,
    remark         VARCHAR(255),
    is_deleted     BIGINT        NOT NULL DEFAULT 0
);
CREATE INDEX ix_blade_dept_tenant ON blade_dept (tenant_id);

CREATE TABLE blade_post (
    id          BIGINT       NOT NULL PRIMARY KEY,
    tenant_id   VARCHAR(12)  NOT NULL,
    category    BIGINT       NOT NULL DEFAULT 1,
    post_code   VARCHAR(12)  NOT NULL,
    post_name   VARCHAR(64)  NOT NULL,
    sort        BIGINT       NOT NULL DEFAULT 1,
    remark      VARCHAR(255),
    create_user BIGINT,
    create_time BIGINT       NOT NULL,
    update_user BIGINT,
    update_time BIGINT,
    status      BIGINT       NOT NULL DEFAULT 1,
    is_deleted  BIGINT       NOT NULL DEFAULT 0
);
CREATE INDEX ix_blade_post_tenant ON blade_post (tenant_id);

CREATE TABLE blade_role (
    id          BIGINT       NOT NULL PRIMARY KEY,
    tenant_id   VARCHAR(12)  NOT NULL,
    parent_id   BIGINT       NOT NULL DEFAULT 0,
    role_name   VARCHAR(255) NOT NULL,
    role_alias  VARCHAR(255) NOT NULL,
    sort        BIGINT       NOT NULL DEFAULT 1,
    is_deleted  BIGINT       NOT NULL DEFAULT 0
);
CREATE INDEX ix_blade_role_tenant ON blade_role (tenant_id);

CREATE TABLE blade_user (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    code          VARCHAR(12),
    -- 1 web console user; owners and app users get their own types later.
    user_type     BIGINT        NOT NULL DEFAULT 1,
    account       VARCHAR(45)   NOT NULL,
    -- argon2id (PHC string) of the lowercase hex MD5 the client sends.
    password      VARCHAR(255)  NOT NULL,
    name          VARCHAR(20),
    real_name     VARCHAR(20),
    avatar        VARCHAR(1000),
    email         VARCHAR(45),
    phone         VARCHAR(45),
    birthday      BIGINT,
    sex           BIGINT,
    post_id       VARCHAR(1000) NOT NULL DEFAULT '',
    oauth_id      VARCHAR(64),
    fail_count    BIGINT        NOT NULL DEFAULT 0,
    locked_until  BIGINT,
    create_user   BIGINT,
    create_dept   BIGINT,
    create_time   BIGINT        NOT NULL,
    update_user   BIGINT,
    update_time   BIGINT,
    -- 1 active, 2 waiting for an administrator's approval (self-registered), 0 disabled.
    status        BIGINT        NOT NULL DEFAULT 1,
    is_deleted    BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_user_account ON blade_user (tenant_id, account) WHERE is_deleted = 0;

CREATE TABLE blade_user_role (
    user_id  BIGINT NOT NULL,
    role_id  BIGINT NOT NULL,
    PRIMARY KEY (user_id, role_id)
);
CREATE INDEX ix_blade_user_role_role ON blade_user_role (role_id);

CREATE TABLE blade_user_dept (
    user_id  BIGINT NOT NULL,
    dept_id  BIGINT NOT NULL,
    PRIMARY KEY (user_id, dept_id)
);
CREATE INDEX ix_blade_user_dept_dept ON blade_user_dept (dept_id);

-- Menus are the platform's: every tenant sees the same tree, narrowed by its package and roles.
CREATE TABLE blade_menu (
    id          BIGINT        NOT NULL PRIMARY KEY,
    parent_id   BIGINT        NOT NULL DEFAULT 0,
    code        VARCHAR(255)  NOT NULL,
    name        VARCHAR(255)  NOT NULL,
    name_en     VARCHAR(255),
    alias       VARCHAR(255),
    path        VARCHAR(255),
    source      VARCHAR(255),
    sort        BIGINT        NOT NULL DEFAULT 1,
    -- 1 menu, 2 button
    category    BIGINT        NOT NULL DEFAULT 1,
    action      BIGINT        NOT NULL DEFAULT 0,
    -- 1 open in the console, 2 open in a new window
    is_open     BIGINT        NOT NULL DEFAULT 1,
    remark      VARCHAR(255),
    is_deleted  BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_menu_code ON blade_menu (code) WHERE is_deleted = 0;

-- Web and app menu grants are separate sets (kind 'web' or 'app').
CREATE TABLE blade_role_menu (
    role_id  BIGINT      NOT NULL,
    menu_id  BIGINT      NOT NULL,
    kind     VARCHAR(8)  NOT NULL DEFAULT 'web',
    PRIMARY KEY (role_id, menu_id, kind)
);

CREATE TABLE blade_top_menu (
    id          BIGINT        NOT NULL PRIMARY KEY,
    tenant_id   VARCHAR(12)   NOT NULL,
    code        VARCHAR(255)  NOT NULL,
    name        VARCHAR(255)  NOT NULL,
    source      VARCHAR(255),
    path        VARCHAR(255),
    sort        BIGINT        NOT NULL DEFAULT 1,
    create_time BIGINT        NOT NULL,
    is_deleted  BIGINT        NOT NULL DEFAULT 0
);

CREATE TABLE blade_top_menu_setting (
    top_menu_id  BIGINT NOT NULL,
    menu_id      BIGINT NOT NULL,
    PRIMARY KEY (top_menu_id, menu_id)
);

-- One row per sign-in. Tokens carry its id; logging out revokes it, and every call checks it.
CREATE TABLE blade_auth_session (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    user_id       BIGINT        NOT NULL,
    client_id     VARCHAR(48)   NOT NULL,
    dept_id       BIGINT,
    role_ids      VARCHAR(1000) NOT NULL,
    create_time   BIGINT        NOT NULL,
    refresh_time  BIGINT        NOT NULL,
    expire_time   BIGINT        NOT NULL,
    revoked       BIGINT        NOT NULL DEFAULT 0
);
CREATE INDEX ix_blade_auth_session_user ON blade_auth_session (user_id);

CREATE TABLE blade_captcha (
    captcha_key  VARCHAR(64)  NOT NULL PRIMARY KEY,
    answer       VARCHAR(16)  NOT NULL,
    expire_time  BIGINT       NOT NULL
);

-- Uploaded files (local disk by default).
CREATE TABLE blade_attach (
    id             BIGINT        NOT NULL PRIMARY KEY,
    tenant_id      VARCHAR(12)   NOT NULL,
    link           VARCHAR(1000) NOT NULL,
    domain         VARCHAR(500)  NOT NULL DEFAULT '',
    name           VARCHAR(500)  NOT NULL,
    original_name  VARCHAR(500)  NOT NULL,
    extension      VARCHAR(12)   NOT NULL DEFAULT '',
    attach_size    BIGINT        NOT NULL,
    content_type   VARCHAR(100)  NOT NULL DEFAULT '',
    create_user    BIGINT,
    create_time    BIGINT        NOT NULL,
    is_deleted     BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_attach_name ON blade_attach (name);

-- Server faults and the console's uploaded error logs.
CREATE TABLE blade_log_error (
    id              BIGINT        NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)   NOT NULL DEFAULT '000000',
    service_id      VARCHAR(32),
    server_host     VARCHAR(255),
    env             VARCHAR(255),
    method          VARCHAR(10),
    request_uri     VARCHAR(1000),
    user_agent      VARCHAR(1000),
    stack_trace     TEXT,
    exception_name  VARCHAR(255),
    message         TEXT,
    params          TEXT,
    create_by       VARCHAR(64),
    create_time     BIGINT        NOT NULL
);
CREATE INDEX ix_blade_log_error_time ON blade_log_error (tenant_id, create_time);
