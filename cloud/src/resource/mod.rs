//! Files: uploads stored on local disk under the data directory (object-storage back-ends come
//! with their admin screens later).

pub mod oss;
