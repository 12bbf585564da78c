//! The one entity engine: an entity declares its table, its fields and where its rows are
//! visible; the engine parses and checks bodies ([`field`]), builds and runs its statements
//! ([`store`]), mounts the admin-console routes ([`blade`]: list/detail/submit/remove) or the
//! REST-shaped ones ([`rest`]: page, `GET {id}`, `POST`, `PUT`, `DELETE {ids}`), and describes
//! them with typed schemas ([`schema`]).
//!
//! Dependency direction: the engine is kernel code and knows no domain and no caller. Who may
//! see which rows is decided by the adapter's extractor (auth's `Caller` / `Scoped`) and handed
//! in as a predicate [`Sql`](crate::kernel::sql::Sql); domain checks come in through
//! [`field::Validate`] and the entity's hooks. So auth and the domains depend on the engine,
//! never the other way round, and a new entity is a declaration plus, at most, its hooks.

pub mod blade;
pub mod def;
pub mod field;
pub mod read;
pub mod rest;
pub mod schema;
pub mod store;
