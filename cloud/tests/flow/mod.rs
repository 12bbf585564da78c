//! Workflow over the API on a real database (SQLite, or PostgreSQL with `TEST_POSTGRES_URL`):
//! models (the seeded defaults, saving, refusing what is outside the subset), deployments
//! (versions, suspend, upload), instances through every element of the subset, exactly one of
//! two racing completions or claims winning, a boundary timer firing once when two replicas'
//! passes race, the five work lists, the diagram's history, leave requests, and the repair and
//! inspection approvals built on it. Tenants see nothing of each other's.

mod business;
mod engine;
mod plans;
mod site;
