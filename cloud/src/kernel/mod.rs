//! What every business domain uses: the response envelope and its error mapping, ids and
//! date-times on the wire, the request language, paging and list filters, the database, and
//! cluster-wide exclusivity of periodic jobs (`leader`).

/// Lets a newtype over `i64` be bound and read by sqlx on any back-end, as its inner BIGINT.
#[macro_export]
macro_rules! bigint_newtype {
    ($t:ident) => {
        impl<DB: sqlx::Database> sqlx::Type<DB> for $t
        where
            i64: sqlx::Type<DB>,
        {
            fn type_info() -> DB::TypeInfo {
                <i64 as sqlx::Type<DB>>::type_info()
            }
            fn compatible(ty: &DB::TypeInfo) -> bool {
                <i64 as sqlx::Type<DB>>::compatible(ty)
            }
        }

        impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for $t
        where
            i64: sqlx::Decode<'r, DB>,
        {
            fn decode(value: <DB as sqlx::Database>::ValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
                Ok($t(<i64 as sqlx::Decode<DB>>::decode(value)?))
            }
        }

        impl<'q, DB: sqlx::Database> sqlx::Encode<'q, DB> for $t
        where
            i64: sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as sqlx::Database>::ArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                self.0.encode_by_ref(buf)
            }
        }
    };
}

pub mod client_addr;
pub mod clock;
pub mod cluster;
pub mod core;
pub mod db;
pub mod entity;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod id;
pub mod lang;
pub mod leader;
pub mod list;
pub mod meter;
pub mod node_claim;
pub mod rate_limit;
pub mod secret;
pub mod shutdown;
pub mod sql;
pub mod time;
pub mod tls;

pub use core::Core;
pub use envelope::{Data, Envelope, Page};
pub use error::{ApiError, ApiResult};
pub use id::Id;
