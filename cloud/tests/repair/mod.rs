//! Repair orders over the API on a real database: every allowed and every refused transition,
//! who may act, orders from alarms (and the alarm kept open while its order is), two people
//! accepting at once, deadlines and their messages, the bell's work items, scope (other tenants
//! and other maintenance users see and change nothing) and the figures.

pub mod site;
mod transitions;
mod work;
