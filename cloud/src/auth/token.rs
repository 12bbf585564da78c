//! Signed tokens (JWT, HS256 with the configured secret). They carry the tenant, user, roles,
//! dept and the sign-in session; the session row decides whether they are still honoured.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Access,
    Refresh,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Claims {
    /// User id.
    pub sub: String,
    /// Tenant id.
    pub tid: String,
    /// Session id.
    pub sid: String,
    /// Account.
    pub acc: String,
    /// Role ids in force.
    pub rid: Vec<String>,
    /// Dept id in force.
    pub did: Option<String>,
    /// OAuth client.
    pub cid: String,
    pub typ: Kind,
    pub iat: i64,
    pub exp: i64,
    /// Issue time in milliseconds: a refresh token is honoured only while it is the session's
    /// latest one, so a stolen, already-used refresh token is worthless.
    pub ims: i64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("token expired")]
    Expired,
    #[error("token invalid")]
    Invalid,
    #[error("wrong kind of token")]
    WrongKind,
}

pub fn sign(secret: &str, claims: &Claims) -> Result<String, jsonwebtoken::errors::Error> {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
}

pub fn verify(secret: &str, token: &str, kind: Kind) -> Result<Claims, TokenError> {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.leeway = 5;
    validation.set_required_spec_claims(&["exp", "sub"]);
    let data =
        jsonwebtoken::decode::<Claims>(token, &DecodingKey::from_secret(secret.as_bytes()), &validation)
            .map_err(|e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => TokenError::Expired,
                _ => TokenError::Invalid,
            })?;
    if data.claims.typ != kind {
        return Err(TokenError::WrongKind);
    }
    Ok(data.claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(typ: Kind, exp_in: i64) -> Claims {
        let now = crate::kernel::time::now_ms() / 1000;
        Claims {
            sub: "1".into(),
            tid: "000000".into(),
            sid: "9".into(),
            acc: "admin".into(),
            rid: vec!["2".into()],
            did: None,
            cid: "saber".into(),
            typ,
            iat: now,
            exp: now + exp_in,
            ims: now * 1000,
        }
    }

    #[test]
    fn signed_tokens_verify_and_tampering_fails() {
        let c = claims(Kind::Access, 60);
        let t = sign("s3cret-s3cret-s3cret-s3cret-s3cret", &c).unwrap();
        assert_eq!(
            verify("s3cret-s3cret-s3cret-s3cret-s3cret", &t, Kind::Access).unwrap(),
            c
        );
        assert_eq!(
            verify("another-secret-another-secret-xx", &t, Kind::Access),
            Err(TokenError::Invalid)
        );
        assert_eq!(
            verify("s3cret-s3cret-s3cret-s3cret-s3cret", &t, Kind::Refresh),
            Err(TokenError::WrongKind)
        );
        // Swap the payload for one naming another tenant: the signature no longer matches.
        let mut parts: Vec<&str> = t.split('.').collect();
        let mut other = c.clone();
        other.tid = "999999".into();
        let forged = sign("x", &other).unwrap();
        let forged_payload = forged.split('.').nth(1).unwrap().to_owned();
        parts[1] = &forged_payload;
        assert_eq!(
            verify(
                "s3cret-s3cret-s3cret-s3cret-s3cret",
                &parts.join("."),
                Kind::Access
            ),
            Err(TokenError::Invalid)
        );
        let expired = sign("k", &claims(Kind::Access, -60)).unwrap();
        assert_eq!(verify("k", &expired, Kind::Access), Err(TokenError::Expired));
        assert_eq!(verify("k", "garbage", Kind::Access), Err(TokenError::Invalid));
    }
}
