//! People: accounts, their roles and departments, self-service profile and password, guest
//! registration (`/api/blade-user`).

pub mod admin;
pub mod routes;
pub mod store;
