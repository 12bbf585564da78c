-- Whether anyone may ask for an account of the tenant through register-guest (1) or not (0).
-- Off unless an administrator turns it on: new tenants, and the tenants that existed before.
-- Nullable: a form that leaves the field blank stores NULL, which means off too.
ALTER TABLE blade_tenant ADD COLUMN self_register BIGINT DEFAULT 0;
