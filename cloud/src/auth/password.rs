//! Passwords: the console sends the lowercase hex MD5 of what the user typed (the family's wire
//! convention); we never store that value, only a slow salted argon2id hash of it.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

use crate::kernel::ApiError;

/// Hashes off the async runtime: argon2id is meant to take tens of milliseconds of CPU.
pub async fn hash(client_hash: &str) -> Result<String, ApiError> {
    let input = client_hash.trim().to_ascii_lowercase();
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(input.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| ApiError::Internal(format!("password hash: {e}")))
    })
    .await
    .map_err(|e| ApiError::Internal(format!("password hash task: {e}")))?
}

/// A hash made like every stored one, for sign-ins of accounts that do not exist: verifying
/// against it costs what a real check costs, so the answer's timing does not tell them apart.
pub async fn dummy_hash() -> Result<String, ApiError> {
    static DUMMY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DUMMY
        .get_or_try_init(|| async {
            let mut seed = [0u8; 16];
            getrandom::fill(&mut seed).map_err(|e| ApiError::Internal(format!("randomness: {e}")))?;
            hash(&hex::encode(seed)).await
        })
        .await
        .cloned()
}

pub async fn verify(client_hash: &str, stored: &str) -> bool {
    let input = client_hash.trim().to_ascii_lowercase();
    let stored = stored.to_owned();
    tokio::task::spawn_blocking(move || {
        PasswordHash::new(&stored)
            .map(|parsed| {
                Argon2::default()
                    .verify_password(input.as_bytes(), &parsed)
                    .is_ok()
            })
            .unwrap_or(false)
    })
    .await
    .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn salted_slow_hash_verifies_only_the_same_input() {
        let md5_admin = "21232f297a57a5a743894a0e4a801fc3";
        let a = hash(md5_admin).await.unwrap();
        let b = hash(md5_admin).await.unwrap();
        assert!(a.starts_with("$argon2id$"), "{a}");
        assert_ne!(a, b, "salted: same input, different hashes");
        assert!(!a.contains(md5_admin));
        assert!(verify(md5_admin, &a).await);
        assert!(
            verify(&md5_admin.to_uppercase(), &a).await,
            "hex case does not matter"
        );
        assert!(!verify("21232f297a57a5a743894a0e4a801fc4", &a).await);
        assert!(!verify(md5_admin, "not a phc string").await);
    }
}
