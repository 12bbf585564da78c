//! The multi-tenant admin base: tenants and packages, menus and permissions, departments,
//! roles, and the data every installation starts with.

pub mod access;
pub mod client_admin;
pub mod crud;
pub mod data_scope;
pub mod dept;
pub mod dict;
pub mod menu;
pub mod menu_admin;
pub mod param;
pub mod post;
pub mod region;
pub mod role;
pub mod scope;
pub mod seed;
pub mod seed_reference;
pub mod select;
pub mod tenant;
pub mod tenant_admin;
pub mod topmenu;
pub mod tree;
