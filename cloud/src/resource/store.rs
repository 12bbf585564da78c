//! Where uploads are kept: the local disk under the data directory (the default), or the
//! S3-compatible store a tenant has enabled (`blade_oss`). Each upload remembers its store
//! (`blade_attach.oss_id`), so enabling another store never strands older files.
//!
//! S3 goes through `object_store` (its SigV4 signing, multipart uploads and retries), with ring
//! for signing and rustls on ring for HTTPS.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use object_store::{ObjectStore, ObjectStoreExt};

use super::context::ResourceCtx;
use crate::kernel::lang::Text;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, Id};

/// `blade_oss.category` of the local disk.
pub const LOCAL: i64 = 1;
/// `blade_oss.category` of an S3-compatible server.
pub const S3: i64 = 2;
/// `blade_oss.status` of the enabled configuration.
pub const ENABLED: i64 = 2;

const UNAVAILABLE: Text = Text::new(
    "对象存储暂时无法访问，请检查存储配置或稍后再试",
    "The object storage cannot be reached; check its configuration or try again later",
);

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OssRow {
    pub id: Id,
    pub category: i64,
    pub endpoint: String,
    pub bucket_name: String,
    pub region: String,
    pub access_key: String,
    pub secret_key: String,
    pub path_style: i64,
    pub create_time: i64,
    pub update_time: Option<i64>,
}

pub const OSS_COLUMNS: &str = "id, category, COALESCE(endpoint, '') AS endpoint, \
    COALESCE(bucket_name, '') AS bucket_name, COALESCE(region, '') AS region, \
    COALESCE(access_key, '') AS access_key, COALESCE(secret_key, '') AS secret_key, path_style, create_time, update_time";

/// A store files are written to and read from.
#[derive(Clone)]
pub enum Store {
    /// The files folder of the data directory.
    Local(PathBuf),
    S3(Arc<dyn ObjectStore>),
}

/// The store uploads of `tenant` go to now: its enabled configuration (`None` for the disk).
pub async fn enabled(ctx: &ResourceCtx, tenant: &str) -> Result<(Option<Id>, Store), ApiError> {
    let mut sql = Sql::new(&format!(
        "SELECT {OSS_COLUMNS} FROM blade_oss WHERE is_deleted = 0"
    ));
    sql.push_bind(
        " AND tenant_id = ? AND status = ?",
        [tenant.into(), crate::kernel::sql::Value::Int(ENABLED)],
    );
    match sql.fetch_optional::<OssRow, _>(ctx.db.pool()).await? {
        Some(row) if row.category == S3 => Ok((Some(row.id), Store::S3(client(ctx, &row)?))),
        Some(row) => Ok((Some(row.id), local(ctx))),
        None => Ok((None, local(ctx))),
    }
}

/// The store an upload was written to (`oss_id` of its row); a removed configuration still
/// reads, so its files stay reachable until they are removed too.
pub async fn of_upload(ctx: &ResourceCtx, oss_id: Option<Id>) -> Result<Store, ApiError> {
    let Some(id) = oss_id else {
        return Ok(local(ctx));
    };
    let mut sql = Sql::new(&format!("SELECT {OSS_COLUMNS} FROM blade_oss"));
    sql.push_bind(" WHERE id = ?", [id.into()]);
    match sql.fetch_optional::<OssRow, _>(ctx.db.pool()).await? {
        Some(row) if row.category == S3 => Ok(Store::S3(client(ctx, &row)?)),
        _ => Ok(local(ctx)),
    }
}

pub fn local(ctx: &ResourceCtx) -> Store {
    Store::Local(ctx.config.data_dir.join("files"))
}

/// The S3 client of a configuration, kept while the configuration is unchanged.
pub fn client(ctx: &ResourceCtx, row: &OssRow) -> Result<Arc<dyn ObjectStore>, ApiError> {
    let version = row.update_time.unwrap_or(row.create_time);
    if let Ok(stores) = ctx.services.stores.lock()
        && let Some((v, store)) = stores.get(&row.id.0)
        && *v == version
    {
        return Ok(store.clone());
    }
    let secret = ctx.services.open(&row.secret_key).unwrap_or_default();
    let store: Arc<dyn ObjectStore> = Arc::new(build_s3(row, &secret).map_err(|e| {
        tracing::warn!(oss = %row.id, error = %e, "object storage configuration unusable");
        ApiError::BadRequest(UNAVAILABLE)
    })?);
    if let Ok(mut stores) = ctx.services.stores.lock() {
        stores.insert(row.id.0, (version, store.clone()));
    }
    Ok(store)
}

/// An S3 client for a configuration, with `secret` already opened.
pub fn build_s3(row: &OssRow, secret: &str) -> Result<object_store::aws::AmazonS3, object_store::Error> {
    // reqwest is built without a bundled TLS provider: HTTPS uses rustls on ring.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let region = if row.region.trim().is_empty() {
        "us-east-1"
    } else {
        row.region.trim()
    };
    // Client options first: they replace what `with_allow_http` sets.
    object_store::aws::AmazonS3Builder::new()
        .with_client_options(
            object_store::ClientOptions::new()
                .with_timeout(Duration::from_secs(60))
                .with_connect_timeout(Duration::from_secs(5)),
        )
        .with_endpoint(row.endpoint.trim().trim_end_matches('/'))
        .with_bucket_name(row.bucket_name.trim())
        .with_region(region)
        .with_access_key_id(row.access_key.trim())
        .with_secret_access_key(secret)
        .with_allow_http(row.endpoint.trim().starts_with("http://"))
        .with_virtual_hosted_style_request(row.path_style == 0)
        .with_retry(object_store::RetryConfig {
            max_retries: 2,
            retry_timeout: Duration::from_secs(15),
            ..Default::default()
        })
        .build()
}

fn unavailable(e: object_store::Error) -> ApiError {
    tracing::warn!(error = %e, "object storage request failed");
    ApiError::BadRequest(UNAVAILABLE)
}

fn io(what: &str, e: std::io::Error) -> ApiError {
    ApiError::Internal(format!("{what}: {e}"))
}

impl Store {
    /// Stores the finished temporary file `file` as `name` and removes the temporary file.
    pub async fn put_file(&self, name: &str, file: &Path) -> Result<(), ApiError> {
        match self {
            Store::Local(root) => {
                let path = root.join(name);
                if let Some(dir) = path.parent() {
                    tokio::fs::create_dir_all(dir).await.map_err(|e| io("mkdir", e))?;
                }
                tokio::fs::rename(file, &path).await.map_err(|e| io("rename", e))
            }
            Store::S3(store) => {
                let outcome = upload(store.clone(), name, file).await;
                let _ = tokio::fs::remove_file(file).await;
                outcome
            }
        }
    }

    /// The bytes of `name`, or `None` when the store has no such object.
    pub async fn read(&self, name: &str) -> Result<Option<Vec<u8>>, ApiError> {
        match self {
            Store::Local(root) => match tokio::fs::read(root.join(name)).await {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(io("read", e)),
            },
            Store::S3(store) => match store.get(&object_store::path::Path::from(name)).await {
                Ok(got) => Ok(Some(got.bytes().await.map_err(unavailable)?.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(unavailable(e)),
            },
        }
    }

    /// Deletes `name`; an object already gone is not an error.
    pub async fn delete(&self, name: &str) -> Result<(), ApiError> {
        match self {
            Store::Local(root) => match tokio::fs::remove_file(root.join(name)).await {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("remove", e)),
                _ => Ok(()),
            },
            Store::S3(store) => match store.delete(&object_store::path::Path::from(name)).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(unavailable(e)),
            },
        }
    }
}

/// Streams `file` to `name` (multipart above the writer's buffer).
async fn upload(store: Arc<dyn ObjectStore>, name: &str, file: &Path) -> Result<(), ApiError> {
    use tokio::io::AsyncWriteExt;
    let mut reader = tokio::fs::File::open(file).await.map_err(|e| io("open", e))?;
    let mut writer = object_store::buffered::BufWriter::new(store, object_store::path::Path::from(name));
    if let Err(e) = tokio::io::copy(&mut reader, &mut writer).await {
        let _ = writer.abort().await;
        tracing::warn!(error = %e, "object storage upload failed");
        return Err(ApiError::BadRequest(UNAVAILABLE));
    }
    writer.shutdown().await.map_err(|e| {
        tracing::warn!(error = %e, "object storage upload failed");
        ApiError::BadRequest(UNAVAILABLE)
    })
}

/// Whether `id` names a live configuration of the tenant (for `attach` filters and checks).
pub async fn exists(ctx: &ResourceCtx, tenant: &str, id: Id) -> Result<bool, ApiError> {
    let mut sql = Sql::new("SELECT COUNT(*) FROM blade_oss WHERE is_deleted = 0");
    sql.push_bind(" AND tenant_id = ? AND id = ?", [tenant.into(), id.into()]);
    Ok(sql.scalar::<i64, _>(ctx.db.pool()).await? > 0)
}
