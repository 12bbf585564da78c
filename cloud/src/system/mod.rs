//! The multi-tenant admin base: tenants and packages, menus and permissions, departments,
//! roles, and the data every installation starts with.

pub mod crud;
pub mod data_scope;
pub mod dept;
pub mod dict;
pub mod menu;
pub mod param;
pub mod post;
pub mod region;
pub mod seed;
pub mod seed_reference;
pub mod select;
pub mod tenant;
pub mod tree;
