//! Sign-in and the authenticated caller: OAuth token grants, captcha, sessions, password hashing,
//! and the one place where every route learns who calls it and what they may do.

pub mod api_scope;
pub mod caller;
pub mod captcha;
pub mod client;
pub mod oauth;
pub mod password;
pub mod session;
pub mod token;

pub use caller::Caller;
