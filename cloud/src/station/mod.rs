//! The station domain: stations (with images, location and lifecycle), who may see which
//! station, the device registries hanging off a station, and prices.
//!
//! Every call is tenant-scoped, and every read and write of a station or of something hanging
//! off one goes through [`scope::visible_stations`], so owners and maintenance staff see only
//! their stations everywhere.

pub mod assignment;
pub mod device;
pub mod electric_price;
pub mod fields;
pub mod listing;
pub mod price;
pub mod scope;
#[allow(clippy::module_inception)]
pub mod station;

use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
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
// are encrypted with a key that lives outside the database (configuration or the data folder).
// No AEAD crate is available to this build offline, so the construction uses the HMAC-SHA256 we
// already ship: keys for encryption and authentication are derived from the master key; the
// keystream is HMAC(k_enc, nonce || counter) (HMAC as a PRF in counter mode); the tag is
// HMAC(k_mac, "v1" || nonce || ciphertext) (encrypt-then-MAC). The `v1:` prefix lets a later
// version switch to AES-GCM and still read old rows.

type HmacSha256 = Hmac<Sha256>;

fn prf(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut mac = <HmacSha256 as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().into()
}

fn keystream_xor(k_enc: &[u8], nonce: &[u8], data: &mut [u8]) {
    for (i, chunk) in data.chunks_mut(32).enumerate() {
        let block = prf(k_enc, &[nonce, &(i as u64).to_be_bytes()]);
        for (b, k) in chunk.iter_mut().zip(block) {
            *b ^= k;
        }
    }
}

pub fn seal(master: &str, plain: &str) -> Result<String, String> {
    use base64::Engine;
    let k_enc = prf(master.as_bytes(), &[b"pv-credential-enc"]);
    let k_mac = prf(master.as_bytes(), &[b"pv-credential-mac"]);
    let mut nonce = [0u8; 16];
    getrandom::fill(&mut nonce).map_err(|e| e.to_string())?;
    let mut data = plain.as_bytes().to_vec();
    keystream_xor(&k_enc, &nonce, &mut data);
    let tag = prf(&k_mac, &[b"v1", &nonce, &data]);
    let mut out = nonce.to_vec();
    out.extend_from_slice(&data);
    out.extend_from_slice(&tag);
    Ok(format!(
        "v1:{}",
        base64::engine::general_purpose::STANDARD_NO_PAD.encode(out)
    ))
}

pub fn open(master: &str, sealed: &str) -> Option<String> {
    use base64::Engine;
    let raw = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(sealed.strip_prefix("v1:")?)
        .ok()?;
    if raw.len() < 48 {
        return None;
    }
    let (nonce, rest) = raw.split_at(16);
    let (data, tag) = rest.split_at(rest.len() - 32);
    let k_enc = prf(master.as_bytes(), &[b"pv-credential-enc"]);
    let k_mac = prf(master.as_bytes(), &[b"pv-credential-mac"]);
    let mut mac = <HmacSha256 as Mac>::new_from_slice(&k_mac).expect("HMAC takes keys of any length");
    mac.update(b"v1");
    mac.update(nonce);
    mac.update(data);
    // Constant-time comparison: a tag check must not leak how many bytes matched.
    mac.verify_slice(tag).ok()?;
    let mut plain = data.to_vec();
    keystream_xor(&k_enc, nonce, &mut plain);
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
