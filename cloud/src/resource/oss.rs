//! `POST /api/blade-resource/oss/endpoint/put-file` (multipart `file`), `remove-file`, and the
//! stable URL each upload is served back from.
//!
//! A link carries a signature (HMAC of the file's name with the server secret) so it works in an
//! `<img src>` without a token; a request that does carry a token must belong to the file's
//! tenant. Files that a browser could run (HTML, SVG...) are served as downloads, never inline.

use axum::body::Body;
use axum::extract::{Multipart, Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use tokio::io::AsyncWriteExt;
use utoipa::{IntoParams, ToSchema};

use super::attach_row::find_where;
pub use super::attach_row::{Attach, COLUMNS, find_by_link};
use super::context::ResourceCtx;
use super::image;
use super::store;
use crate::auth::Caller;
use crate::auth::caller::bearer;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};

pub const FILE_ROUTE: &str = "/api/blade-resource/oss/endpoint/file";
const NO_FILE: Text = Text::new("请选择要上传的文件", "Please choose a file to upload");
const TOO_BIG: Text = Text::new("文件过大", "The file is too large");
const FORBIDDEN: Text = Text::new("无权访问该文件", "You may not access this file");

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Uploaded {
    /// Where the file is served (works as an `<img src>`).
    pub link: String,
    pub domain: String,
    /// Stored name, `{tenant}/{yyyyMMdd}/{id}.{ext}`.
    pub name: String,
    pub original_name: String,
    pub attach_id: Id,
}

fn signature(secret: &str, name: &str) -> String {
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(b"file:");
    mac.update(name.as_bytes());
    hex::encode(&mac.finalize().into_bytes()[..16])
}

/// `{tenant}/{yyyyMMdd}/{digits}.{ext}` and nothing else: no way out of the files folder.
fn valid_name(name: &str) -> Option<(&str, &str, &str)> {
    let mut parts = name.split('/');
    let (tenant, day, file) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (stem, ext) = file.split_once('.')?;
    let ok = (1..=12).contains(&tenant.len())
        && tenant.bytes().all(|b| b.is_ascii_alphanumeric())
        && day.len() == 8
        && day.bytes().all(|b| b.is_ascii_digit())
        && !stem.is_empty()
        && stem.bytes().all(|b| b.is_ascii_digit())
        && ext.len() <= 10
        && ext.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    ok.then_some((tenant, day, file))
}

fn extension_of(original: &str) -> String {
    std::path::Path::new(original)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .filter(|e| !e.is_empty() && e.len() <= 10 && e.bytes().all(|b| b.is_ascii_alphanumeric()))
        .unwrap_or_else(|| "bin".into())
}

/// What an upload may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Accept {
    /// Any file (up to the configured size); stored with the extension of its name.
    AnyFile,
    /// A JPEG, PNG or WebP recognised by its content (up to [`MAX_IMAGE_BYTES`]); stored with
    /// the extension of the detected kind.
    Image,
}

/// The most an image upload may hold.
pub const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;
const NOT_AN_IMAGE: Text = Text::new("仅支持 JPG、PNG、WebP 图片", "Only JPG, PNG or WebP images");

/// Stores the multipart field `file` of `form` in the tenant's enabled store and `blade_attach`.
async fn receive(
    ctx: &ResourceCtx,
    caller: &Caller,
    mut form: Multipart,
    accept: Accept,
) -> ApiResult<Uploaded> {
    let state: &Core = ctx;
    let bad = |e: axum::extract::multipart::MultipartError| {
        ApiError::bad_request(format!("上传内容有误：{e}"), format!("malformed upload: {e}"))
    };
    while let Some(mut field) = form.next_field().await.map_err(bad)? {
        if field.name() != Some("file") {
            continue;
        }
        let original = field
            .file_name()
            .unwrap_or("file")
            .chars()
            .take(200)
            .collect::<String>();
        // A name such as `invoice\u{202E}fdp.exe` would show as another file than it is.
        if original.chars().any(crate::kernel::extract::is_bidi_control) {
            return Err(ApiError::BadRequest(crate::kernel::extract::BIDI_IN_TEXT));
        }
        // The first bytes decide what an image upload is.
        let mut head: Vec<u8> = Vec::new();
        let mut ended = false;
        while head.len() < image::HEAD_LEN {
            match field.chunk().await.map_err(bad)? {
                Some(chunk) => head.extend_from_slice(&chunk),
                None => {
                    ended = true;
                    break;
                }
            }
        }
        let (ext, max) = match accept {
            Accept::AnyFile => {
                let ext = extension_of(&original);
                if !image::content_matches(&ext, &head) {
                    return Err(ApiError::bad_request(
                        format!("文件内容与扩展名 .{ext} 不符"),
                        format!("The file's content does not match its extension .{ext}"),
                    ));
                }
                (ext, state.config.files.max_upload_bytes)
            }
            Accept::Image => {
                let kind = image::sniff(&head).ok_or(ApiError::BadRequest(NOT_AN_IMAGE))?;
                (
                    kind.extension().to_owned(),
                    state.config.files.max_upload_bytes.min(MAX_IMAGE_BYTES),
                )
            }
        };
        let id = state.ids.next();
        let day = chrono::DateTime::from_timestamp_millis(time::now_ms())
            .map(|t| t.with_timezone(&time::offset()).format("%Y%m%d").to_string())
            .unwrap_or_else(|| "19700101".into());
        let name = format!("{}/{day}/{}.{ext}", caller.tenant_id, id.0);
        let (oss_id, target) = store::enabled(ctx, &caller.tenant_id).await?;
        // Received whole into a temporary file first (the size limit holds while streaming),
        // then handed to the store, so a failed upload never leaves a half object.
        let incoming = state.config.data_dir.join("files").join(".incoming");
        tokio::fs::create_dir_all(&incoming)
            .await
            .map_err(|e| ApiError::Internal(format!("mkdir: {e}")))?;
        let partial = incoming.join(format!("{}.part", id.0));
        let mut file = tokio::fs::File::create(&partial)
            .await
            .map_err(|e| ApiError::Internal(format!("create: {e}")))?;
        let mut size: usize = head.len();
        let outcome: Result<(), ApiError> = async {
            if size > max {
                return Err(ApiError::BadRequest(TOO_BIG));
            }
            file.write_all(&head)
                .await
                .map_err(|e| ApiError::Internal(format!("write: {e}")))?;
            while !ended && let Some(chunk) = field.chunk().await.map_err(bad)? {
                size += chunk.len();
                if size > max {
                    return Err(ApiError::BadRequest(TOO_BIG));
                }
                file.write_all(&chunk)
                    .await
                    .map_err(|e| ApiError::Internal(format!("write: {e}")))?;
            }
            file.sync_all()
                .await
                .map_err(|e| ApiError::Internal(format!("sync: {e}")))?;
            Ok(())
        }
        .await;
        if let Err(e) = outcome {
            let _ = tokio::fs::remove_file(&partial).await;
            return Err(e);
        }
        super::attach::check_quota(ctx, &caller.tenant_id, size as i64)
            .await
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&partial);
            })?;
        target.put_file(&name, &partial).await.inspect_err(|_| {
            let _ = std::fs::remove_file(&partial);
        })?;
        let link = format!(
            "{FILE_ROUTE}/{name}?sig={}",
            signature(&state.token_secret, &name)
        );
        let content_type = mime_guess::from_ext(&ext).first_or_octet_stream().to_string();
        let mut sql = Sql::default();
        sql.push_bind(
            "INSERT INTO blade_attach (id, tenant_id, link, domain, name, original_name, extension, attach_size, \
             content_type, create_user, create_time, oss_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                id.into(),
                caller.tenant_id.clone().into(),
                link.clone().into(),
                "".into(),
                name.clone().into(),
                original.clone().into(),
                ext.into(),
                Value::Int(size as i64),
                content_type.into(),
                caller.user_id.into(),
                Value::Int(time::now_ms()),
                oss_id.map(Value::from).unwrap_or(Value::Null),
            ],
        );
        if let Err(e) = sql.execute(state.db.pool()).await {
            let _ = target.delete(&name).await;
            return Err(e);
        }
        return Ok(Uploaded {
            link,
            domain: String::new(),
            name,
            original_name: original,
            attach_id: id,
        });
    }
    Err(ApiError::BadRequest(NO_FILE))
}

#[utoipa::path(post, path = "/api/blade-resource/oss/endpoint/put-file", tag = "resource",
    request_body(content_type = "multipart/form-data", description = "field `file`"),
    responses((status = 200, body = Envelope<Uploaded>), (status = 400), (status = 401)))]
pub async fn put_file(
    State(state): State<ResourceCtx>,
    caller: Caller,
    form: Multipart,
) -> ApiResult<Data<Uploaded>> {
    Ok(Data(receive(&state, &caller, form, Accept::AnyFile).await?))
}

/// An image upload: JPEG, PNG or WebP recognised by its content (not its name), at most
/// 10 MiB, stored with the extension of the detected kind; anything else is refused.
#[utoipa::path(post, path = "/api/blade-resource/oss/endpoint/put-image", tag = "resource",
    request_body(content_type = "multipart/form-data", description = "field `file`: a JPEG, PNG or WebP image"),
    responses((status = 200, body = Envelope<Uploaded>), (status = 400), (status = 401)))]
pub async fn put_image(
    State(state): State<ResourceCtx>,
    caller: Caller,
    form: Multipart,
) -> ApiResult<Data<Uploaded>> {
    Ok(Data(receive(&state, &caller, form, Accept::Image).await?))
}

/// Whether a stored upload's content is an image (JPEG, PNG or WebP), whatever its name says.
/// Uploads to an object store had their content checked against the extension on the way in.
pub async fn is_image(state: &Core, attach: &Attach) -> bool {
    use tokio::io::AsyncReadExt;
    if attach.oss_id.is_some() {
        return matches!(attach.extension.as_str(), "jpg" | "jpeg" | "png" | "webp");
    }
    let path = state.config.data_dir.join("files").join(&attach.name);
    let Ok(mut file) = tokio::fs::File::open(&path).await else {
        return false;
    };
    let mut head = [0u8; image::HEAD_LEN];
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]).await {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    image::sniff(&head[..filled]).is_some()
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct RemoveParams {
    /// The stored name (or the link) of the file.
    pub file_name: String,
}

#[utoipa::path(post, path = "/api/blade-resource/oss/endpoint/remove-file", tag = "resource", params(RemoveParams),
    responses((status = 200, body = Envelope<bool>), (status = 401), (status = 404)))]
pub async fn remove_file(
    State(state): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<RemoveParams>,
) -> ApiResult<Data<bool>> {
    let name = p
        .file_name
        .split('?')
        .next()
        .unwrap_or("")
        .trim_start_matches(FILE_ROUTE)
        .trim_start_matches('/');
    let attach = find_where(&state, "name", name)
        .await?
        .filter(|a| a.tenant_id == caller.tenant_id)
        .ok_or_else(ApiError::not_found)?;
    super::attach::remove_uploads(&state, std::slice::from_ref(&attach)).await?;
    Ok(Data(true))
}

#[utoipa::path(get, path = "/api/blade-resource/oss/endpoint/file/{tenant}/{day}/{file}", tag = "resource",
    params(("tenant" = String, Path), ("day" = String, Path), ("file" = String, Path),
           ("sig" = Option<String>, Query, description = "Signature from the upload's link (not needed with a token of the file's tenant)")),
    responses((status = 200, description = "The file's bytes: as uploaded for images and PDF (their own content type), otherwise as `application/octet-stream`",
        content_type = "application/octet-stream"), (status = 403), (status = 404)))]
pub async fn serve_file(
    State(state): State<ResourceCtx>,
    Path((tenant, day, file)): Path<(String, String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let name = format!("{tenant}/{day}/{file}");
    if valid_name(&name).is_none() {
        return Err(ApiError::not_found());
    }
    let allowed = match bearer(&headers) {
        Some(token) => Caller::from_token(&state, token).await?.tenant_id == tenant,
        None => {
            let pairs: Vec<(String, String)> =
                serde_urlencoded::from_str(query.as_deref().unwrap_or("")).unwrap_or_default();
            let sig = pairs
                .iter()
                .find(|(k, _)| k == "sig")
                .map(|(_, v)| v.as_str())
                .unwrap_or("");
            let expected = signature(&state.token_secret, &name);
            sig.len() == expected.len()
                && sig
                    .bytes()
                    .zip(expected.bytes())
                    .fold(0u8, |a, (x, y)| a | (x ^ y))
                    == 0
        }
    };
    if !allowed {
        return Err(ApiError::Forbidden(FORBIDDEN));
    }
    let attach = find_where(&state, "name", &name)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let bytes = store::of_upload(&state, attach.oss_id)
        .await?
        .read(&attach.name)
        .await?
        .ok_or_else(ApiError::not_found)?;
    // Inline only for images and PDF whose bytes are what the extension says (files stored
    // before uploads were checked, too); everything else is a download.
    let inline = image::inline(&attach.extension, &bytes[..bytes.len().min(image::HEAD_LEN)]);
    let mut response = Body::from(bytes).into_response();
    let h = response.headers_mut();
    let content_type = if inline {
        attach.content_type.as_str()
    } else {
        "application/octet-stream"
    };
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(content_type).unwrap_or(HeaderValue::from_static("application/octet-stream")),
    );
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(crate::headers::FILE_POLICY),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=86400"),
    );
    if !inline {
        h.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment"),
        );
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_names_cannot_escape_the_files_folder() {
        assert!(valid_name("000000/20261122/123.png").is_some());
        for bad in [
            "../etc/passwd",
            "000000/20261122/../../x.png",
            "000000/2026112/1.png",
            "000000/20261122/a.png",
            "a/b/c/d",
            "000000/20261122/1.PNG",
        ] {
            assert!(valid_name(bad).is_none(), "{bad}");
        }
        assert_eq!(extension_of("photo.JPG"), "jpg");
        assert_eq!(extension_of("noext"), "bin");
        assert_eq!(extension_of("x.p h p"), "bin");
    }

    #[test]
    fn signatures_depend_on_secret_and_name() {
        let a = signature("secret-one", "000000/20261122/1.png");
        assert_eq!(a.len(), 32);
        assert_ne!(a, signature("secret-two", "000000/20261122/1.png"));
        assert_ne!(a, signature("secret-one", "000000/20261122/2.png"));
    }
}
