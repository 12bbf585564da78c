//! The station domain's process-wide services: the register maps the hub knows (bundled and
//! configured) and the key that seals vendor credentials at rest.

use std::path::{Path, PathBuf};

use pv_shared::regmap::{DeviceKind, RegisterMap};
use rust_embed::Embed;
use sha2::Sha256;

use crate::config::Config;

/// The register maps in `firmware-configs`, built in so one binary runs without the folder.
#[derive(Embed)]
#[folder = "../firmware-configs"]
struct BuiltInMaps;

/// A register map a device may name as its `mapModel`.
#[derive(Debug, Clone)]
pub struct MapModel {
    pub id: String,
    pub kind: DeviceKind,
    pub manufacturer: String,
    pub model: String,
}

/// What the station domain loads once at start.
pub struct StationServices {
    pub maps: Vec<MapModel>,
    credential_key: String,
    pub camera_live_url: std::collections::BTreeMap<String, String>,
}

impl StationServices {
    /// Loads the register maps (from `station.device_maps_dir`, else the built-in copy); a map
    /// that does not parse stops the start, as any other configuration error does.
    pub fn load(config: &Config) -> Result<StationServices, String> {
        let maps = if config.station.device_maps_dir.is_empty() {
            let mut names: Vec<String> = BuiltInMaps::iter()
                .map(|n| n.to_string())
                .filter(|n| n.ends_with(".toml") && !n.contains('/'))
                .collect();
            names.sort();
            let mut maps = Vec::new();
            for name in names {
                let Some(file) = BuiltInMaps::get(&name) else {
                    continue;
                };
                let text = String::from_utf8_lossy(&file.data);
                maps.push(RegisterMap::parse(&PathBuf::from(&name), &text).map_err(|e| e.to_string())?);
            }
            maps
        } else {
            RegisterMap::load_dir(Path::new(&config.station.device_maps_dir)).map_err(|e| e.to_string())?
        };
        Ok(StationServices {
            maps: maps
                .into_iter()
                .map(|m| MapModel {
                    id: m.id,
                    kind: m.kind,
                    manufacturer: m.manufacturer,
                    model: m.model,
                })
                .collect(),
            credential_key: String::new(),
            camera_live_url: config.station.camera_live_url.clone(),
        })
    }

    /// The register map files themselves, (file name, contents), from where [`Self::load`]
    /// reads them: so gateways run beside the hub (the demo) decode with the very maps the hub
    /// checked devices against.
    pub fn map_files(config: &Config) -> Result<Vec<(String, Vec<u8>)>, String> {
        let mut out = Vec::new();
        if config.station.device_maps_dir.is_empty() {
            for name in BuiltInMaps::iter() {
                if name.ends_with(".toml")
                    && !name.contains('/')
                    && let Some(file) = BuiltInMaps::get(&name)
                {
                    out.push((name.to_string(), file.data.into_owned()));
                }
            }
        } else {
            let dir = Path::new(&config.station.device_maps_dir);
            let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for entry in entries {
                let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
                let (Some(name), Some("toml")) = (
                    path.file_name().and_then(|n| n.to_str()),
                    path.extension().and_then(|e| e.to_str()),
                ) else {
                    continue;
                };
                let data = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                out.push((name.to_owned(), data));
            }
        }
        out.sort();
        Ok(out)
    }

    pub fn with_credential_key(mut self, key: String) -> Self {
        self.credential_key = key;
        self
    }

    pub fn map_model(&self, id: &str) -> Option<&MapModel> {
        self.maps.iter().find(|m| m.id == id)
    }

    /// Encrypts a vendor credential for storage (see [`seal`]).
    pub fn seal(&self, plain: &str) -> Result<String, String> {
        seal(&self.credential_key, plain)
    }

    pub fn open(&self, sealed: &str) -> Option<String> {
        open(&self.credential_key, sealed)
    }
}

// ---- vendor credentials at rest ----
//
// Vendor passwords and app keys must be sent to the vendor later, so they cannot be hashed; they
// are encrypted with a key that lives outside the database (configuration or the data folder):
// XChaCha20-Poly1305 (RustCrypto) under SHA-256 of the master key, a random 24-byte nonce per
// value. The `v1:` prefix names the scheme so a later one can still read old rows.

fn cipher_of(master: &str) -> chacha20poly1305::XChaCha20Poly1305 {
    use chacha20poly1305::KeyInit;
    use sha2::Digest;
    let key: [u8; 32] = Sha256::digest(master.as_bytes()).into();
    chacha20poly1305::XChaCha20Poly1305::new(&key.into())
}

pub fn seal(master: &str, plain: &str) -> Result<String, String> {
    use base64::Engine;
    use chacha20poly1305::aead::Aead;
    let mut nonce = [0u8; 24];
    getrandom::fill(&mut nonce).map_err(|e| e.to_string())?;
    let sealed = cipher_of(master)
        .encrypt(&nonce.into(), plain.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut out = nonce.to_vec();
    out.extend_from_slice(&sealed);
    Ok(format!(
        "v1:{}",
        base64::engine::general_purpose::STANDARD_NO_PAD.encode(out)
    ))
}

pub fn open(master: &str, sealed: &str) -> Option<String> {
    use base64::Engine;
    use chacha20poly1305::aead::Aead;
    let raw = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(sealed.strip_prefix("v1:")?)
        .ok()?;
    if raw.len() < 24 + 16 {
        return None;
    }
    let (nonce, data) = raw.split_at(24);
    let nonce: [u8; 24] = nonce.try_into().ok()?;
    let plain = cipher_of(master).decrypt(&nonce.into(), data).ok()?;
    String::from_utf8(plain).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_round_trip_and_resist_tampering() {
        let sealed = seal("k1", "vendor-pässword-that-is-longer-than-one-block-of-32-bytes").unwrap();
        assert!(!sealed.contains("vendor"));
        assert_eq!(
            open("k1", &sealed).as_deref(),
            Some("vendor-pässword-that-is-longer-than-one-block-of-32-bytes")
        );
        assert_eq!(open("k2", &sealed), None, "another key");
        assert_ne!(
            seal("k1", "same").unwrap(),
            seal("k1", "same").unwrap(),
            "random nonce"
        );
        let mut bytes = sealed.into_bytes();
        let i = bytes.len() / 2;
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        assert_eq!(open("k1", &String::from_utf8(bytes).unwrap()), None, "tampered");
    }

    #[test]
    fn built_in_maps_load() {
        let s = StationServices::load(&Config::default()).unwrap();
        assert!(s.map_model("sunspec-inverter").is_some());
        assert!(s.maps.iter().any(|m| m.kind == DeviceKind::Meter));
    }
}
