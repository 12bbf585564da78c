//! Photos of a repair order (reported problem, finished work): links of this tenant's uploaded
//! images.

use crate::kernel::{ApiError, Core};

const MAX_PHOTOS: usize = 9;

/// `links` when each is an image uploaded by this tenant.
pub async fn photos(core: &Core, tenant: &str, links: &[String]) -> Result<Vec<String>, ApiError> {
    if links.len() > MAX_PHOTOS {
        return Err(ApiError::bad_request(
            format!("最多{MAX_PHOTOS}张图片"),
            format!("At most {MAX_PHOTOS} photos"),
        ));
    }
    let mut out = Vec::with_capacity(links.len());
    for link in links {
        let image = crate::resource::oss::find_by_link(core, tenant, link)
            .await?
            .is_some_and(|a| {
                matches!(
                    a.extension.to_ascii_lowercase().as_str(),
                    "jpg" | "jpeg" | "png" | "webp"
                )
            });
        if !image {
            return Err(ApiError::bad_request(
                "图片须为本租户上传的 JPG、PNG 或 WebP 图片",
                "Photos must be JPG, PNG or WebP images uploaded to this tenant",
            ));
        }
        out.push(link.clone());
    }
    Ok(out)
}
