//! The multi-tenant admin base: tenants and packages, menus and permissions, departments,
//! roles, and the data every installation starts with.

pub mod client_admin;
pub mod crud;
pub mod data_scope;
pub mod menu;
pub mod param;
pub mod post;
pub mod seed;
pub mod select;
pub mod tenant;
pub mod tenant_admin;
