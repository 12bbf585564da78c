//! OAuth clients: every token request names its client with `Authorization: Basic
//! base64(clientId:clientSecret)`; the client decides token lifetimes and allowed grants.

use axum::http::HeaderMap;
use base64::Engine;
use sha2::{Digest, Sha256};

use crate::kernel::ApiError;
use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Client {
    pub client_id: String,
    pub client_secret_hash: String,
    pub authorized_grant_types: String,
    pub access_token_validity: i64,
    pub refresh_token_validity: i64,
}

impl Client {
    pub fn allows(&self, grant: &str) -> bool {
        self.authorized_grant_types.split(',').any(|g| g.trim() == grant)
    }
}

pub fn secret_hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// `(client_id, secret)` from the Basic header.
pub fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .trim();
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (id, secret) = text.split_once(':')?;
    Some((id.to_owned(), secret.to_owned()))
}

/// The client named by the request, if its secret matches.
pub async fn authenticate(db: &Db, headers: &HeaderMap) -> Result<Option<Client>, ApiError> {
    let Some((id, secret)) = basic_credentials(headers) else {
        return Ok(None);
    };
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT client_id, client_secret_hash, authorized_grant_types, access_token_validity, \
         refresh_token_validity FROM blade_client WHERE client_id = ? AND is_deleted = 0 AND status = 1",
        [Value::Text(id)],
    );
    let client: Option<Client> = sql.fetch_optional::<Client, _>(db.pool()).await?;
    let expected = secret_hash(&secret);
    // Constant-time comparison of the two digests.
    Ok(client.filter(|c| {
        c.client_secret_hash.len() == expected.len()
            && c.client_secret_hash
                .bytes()
                .zip(expected.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_header_parsing() {
        let mut h = HeaderMap::new();
        h.insert("Authorization", "Basic c2FiZXI6c2FiZXJfc2VjcmV0".parse().unwrap());
        assert_eq!(
            basic_credentials(&h),
            Some(("saber".into(), "saber_secret".into()))
        );
        h.insert(
            "Authorization",
            "Bearer c2FiZXI6c2FiZXJfc2VjcmV0".parse().unwrap(),
        );
        assert_eq!(basic_credentials(&h), None);
        h.insert("Authorization", "Basic !!!".parse().unwrap());
        assert_eq!(basic_credentials(&h), None);
    }
}
