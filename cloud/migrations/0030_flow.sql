-- Workflow (issue 27): process models edited in the console, definitions deployed from them (a
-- BPMN 2.0 subset, docs/workflow.md), running instances with their tasks, candidates, timers and
-- history, and the desk's leave requests. Times are epoch ms. Every change of a task or
-- instance is a conditional UPDATE inside one write transaction that first touches the
-- instance row (PostgreSQL row lock; SQLite BEGIN IMMEDIATE), so two completions of one task,
-- or two replicas firing one timer, can never both succeed.

-- A model: the editable BPMN XML of a process (its key is the process id).
CREATE TABLE flow_model (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    model_key     VARCHAR(64)   NOT NULL,
    name          VARCHAR(100)  NOT NULL,
    description   VARCHAR(500)  NOT NULL DEFAULT '',
    category      VARCHAR(64)   NOT NULL DEFAULT '',
    xml           TEXT          NOT NULL,
    version       BIGINT        NOT NULL DEFAULT 1,
    create_user   BIGINT,
    create_time   BIGINT        NOT NULL,
    update_time   BIGINT        NOT NULL,
    is_deleted    BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_flow_model_key ON flow_model (tenant_id, model_key) WHERE is_deleted = 0;

-- A deployed definition (one per deployment): immutable XML, versioned per key; suspended ones
-- start no instance and their tasks cannot be completed.
CREATE TABLE flow_definition (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    process_key   VARCHAR(64)   NOT NULL,
    name          VARCHAR(100)  NOT NULL,
    category      VARCHAR(64)   NOT NULL DEFAULT '',
    version       BIGINT        NOT NULL,
    xml           TEXT          NOT NULL,
    suspended     BIGINT        NOT NULL DEFAULT 0,
    model_id      BIGINT,
    deploy_user   BIGINT,
    deploy_time   BIGINT        NOT NULL,
    is_deleted    BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_flow_definition_version ON flow_definition (tenant_id, process_key, version);

-- An instance: status 1 running, 2 completed, 3 deleted. `variables` is a JSON object; `joins`
-- the arrivals parallel joins wait with (JSON object of join id -> count).
CREATE TABLE flow_instance (
    id             BIGINT        NOT NULL PRIMARY KEY,
    tenant_id      VARCHAR(12)   NOT NULL,
    definition_id  BIGINT        NOT NULL,
    process_key    VARCHAR(64)   NOT NULL,
    business_table VARCHAR(64)   NOT NULL DEFAULT '',
    business_id    BIGINT,
    title          VARCHAR(200)  NOT NULL DEFAULT '',
    status         BIGINT        NOT NULL,
    variables      TEXT          NOT NULL,
    joins          TEXT          NOT NULL,
    start_user_id  BIGINT        NOT NULL,
    start_time     BIGINT        NOT NULL,
    end_time       BIGINT,
    end_node       VARCHAR(100)  NOT NULL DEFAULT '',
    delete_reason  VARCHAR(500)  NOT NULL DEFAULT '',
    update_time    BIGINT        NOT NULL
);
CREATE INDEX ix_flow_instance_tenant ON flow_instance (tenant_id, status, start_time);
CREATE INDEX ix_flow_instance_business ON flow_instance (business_table, business_id);
CREATE INDEX ix_flow_instance_starter ON flow_instance (start_user_id, start_time);

-- A user task: status 1 open, 2 completed, 3 cancelled (timer, deleted instance).
CREATE TABLE flow_task (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    instance_id   BIGINT        NOT NULL,
    node_id       VARCHAR(100)  NOT NULL,
    name          VARCHAR(200)  NOT NULL DEFAULT '',
    assignee_id   BIGINT,
    status        BIGINT        NOT NULL,
    create_time   BIGINT        NOT NULL,
    claim_time    BIGINT,
    end_time      BIGINT,
    completed_by  BIGINT,
    comment       VARCHAR(1000) NOT NULL DEFAULT '',
    variables     TEXT          NOT NULL DEFAULT '{}'
);
CREATE INDEX ix_flow_task_assignee ON flow_task (assignee_id, status, create_time);
CREATE INDEX ix_flow_task_instance ON flow_task (instance_id, status);
CREATE INDEX ix_flow_task_done ON flow_task (completed_by, end_time);

-- Who may claim an unassigned task: kind 'user', 'role' or 'dept' and that row's id.
CREATE TABLE flow_candidate (
    task_id       BIGINT        NOT NULL,
    kind          VARCHAR(8)    NOT NULL,
    ref_id        BIGINT        NOT NULL,
    PRIMARY KEY (task_id, kind, ref_id)
);
CREATE INDEX ix_flow_candidate_ref ON flow_candidate (kind, ref_id);

-- A boundary timer of an open task: status 0 waiting, 1 fired, 2 cancelled.
CREATE TABLE flow_timer (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    instance_id   BIGINT        NOT NULL,
    task_id       BIGINT        NOT NULL,
    node_id       VARCHAR(100)  NOT NULL,
    due_time      BIGINT        NOT NULL,
    status        BIGINT        NOT NULL DEFAULT 0,
    fire_time     BIGINT
);
CREATE INDEX ix_flow_timer_due ON flow_timer (status, due_time);
CREATE INDEX ix_flow_timer_task ON flow_timer (task_id);

-- What ran: activities (type = the BPMN element, `sequenceFlow` for taken flows) with start and
-- end; an open task's row has no end time yet.
CREATE TABLE flow_history (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    instance_id   BIGINT        NOT NULL,
    activity_id   VARCHAR(100)  NOT NULL,
    activity_type VARCHAR(32)   NOT NULL,
    activity_name VARCHAR(200)  NOT NULL DEFAULT '',
    task_id       BIGINT,
    assignee_id   BIGINT,
    comment       VARCHAR(1000) NOT NULL DEFAULT '',
    start_time    BIGINT        NOT NULL,
    end_time      BIGINT
);
CREATE INDEX ix_flow_history_instance ON flow_history (instance_id, start_time);

-- A leave request (blade-desk): the applicant, the period, the reason and its approval.
-- approval 1 pending, 2 approved, 3 rejected.
CREATE TABLE desk_leave (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    user_id       BIGINT        NOT NULL,
    instance_id   BIGINT,
    task_user     BIGINT,
    start_time    BIGINT        NOT NULL,
    end_time      BIGINT        NOT NULL,
    reason        VARCHAR(500)  NOT NULL DEFAULT '',
    approval      BIGINT        NOT NULL DEFAULT 1,
    comment       VARCHAR(1000) NOT NULL DEFAULT '',
    apply_time    BIGINT        NOT NULL
);
CREATE INDEX ix_desk_leave_user ON desk_leave (tenant_id, user_id, start_time);

-- Repair orders and inspection plans waiting for a process (issue 27): approval 0 none needed,
-- 1 pending, 2 approved, 3 rejected; the instance and the last verdict's comment.
ALTER TABLE pv_repair_order ADD COLUMN approval BIGINT NOT NULL DEFAULT 0;
ALTER TABLE pv_repair_order ADD COLUMN approval_instance BIGINT;
ALTER TABLE pv_repair_order ADD COLUMN approval_comment VARCHAR(1000) NOT NULL DEFAULT '';
ALTER TABLE pv_inspect_plan ADD COLUMN approval BIGINT NOT NULL DEFAULT 0;
ALTER TABLE pv_inspect_plan ADD COLUMN approval_instance BIGINT;
ALTER TABLE pv_inspect_plan ADD COLUMN approval_comment VARCHAR(1000) NOT NULL DEFAULT '';
