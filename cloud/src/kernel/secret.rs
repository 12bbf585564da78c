//! The token-signing secret: from configuration when given, otherwise generated once and kept in
//! the data directory (readable by the owner only), so it never has to live in the repository.

use std::io::Write;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("secret file {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("secret file {0} is empty or shorter than 32 characters")]
    TooShort(String),
    #[error("no randomness available: {0}")]
    Random(String),
}

pub fn load_or_create(configured: &str, data_dir: &Path) -> Result<String, SecretError> {
    load_or_create_named(configured, data_dir, "token_secret")
}

/// [`load_or_create`] for any secret kept in its own file of the data directory.
pub fn load_or_create_named(configured: &str, data_dir: &Path, file: &str) -> Result<String, SecretError> {
    if !configured.is_empty() {
        return Ok(configured.to_owned());
    }
    let path = data_dir.join(file);
    let shown = path.display().to_string();
    let io = |source| SecretError::Io {
        path: shown.clone(),
        source,
    };
    match std::fs::read_to_string(&path) {
        Ok(s) if s.trim().len() >= 32 => return Ok(s.trim().to_owned()),
        Ok(_) => return Err(SecretError::TooShort(shown)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| SecretError::Random(e.to_string()))?;
    let secret = hex::encode(bytes);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&path).map_err(io)?;
    file.write_all(secret.as_bytes())
        .and_then(|_| file.sync_all())
        .map_err(io)?;
    Ok(secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_once_then_reused_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let a = load_or_create("", dir.path()).unwrap();
        assert_eq!(a.len(), 64);
        assert_eq!(load_or_create("", dir.path()).unwrap(), a, "kept across restarts");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("token_secret"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(load_or_create("from-config", dir.path()).unwrap(), "from-config");
        let other = tempfile::tempdir().unwrap();
        assert_ne!(
            load_or_create("", other.path()).unwrap(),
            a,
            "random per installation"
        );
    }
}
