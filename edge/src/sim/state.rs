//! The simulated devices' counters kept across restarts: a small JSON file (`state` in a spec,
//! or `--state`), read at start and written every few seconds and at shutdown, always whole
//! (a temporary file renamed over the old one), so stopping and starting a simulation is a
//! plant whose monitoring was switched off and on: counters continue from where they stopped,
//! plus what the plant produced meanwhile (up to a day).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::SimDevice;
use super::plant::PlantState;

/// How often a running simulation writes its state.
pub const SAVE_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("{0}: not a simulator state file: {1}")]
    Format(PathBuf, serde_json::Error),
}

/// Each device's state by its key (`spec::device_key`).
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateFile {
    /// Real time of the save, ms since 1970 (for people reading the file).
    pub saved_ms: i64,
    pub devices: BTreeMap<String, PlantState>,
}

impl StateFile {
    /// Reads `path`; a missing file is an empty state (the first start).
    pub fn load(path: &Path) -> Result<StateFile, StateError> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| StateError::Format(path.into(), e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(StateFile::default()),
            Err(e) => Err(StateError::Io(path.into(), e)),
        }
    }

    /// Writes `path` whole: a temporary file beside it, flushed to disk, renamed over it. A
    /// crash leaves either the old file or the new one.
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        let io = |e| StateError::Io(path.into(), e);
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let text = serde_json::to_vec_pretty(self).map_err(|e| StateError::Format(path.into(), e))?;
        let mut f = std::fs::File::create(&tmp).map_err(io)?;
        f.write_all(&text).map_err(io)?;
        f.sync_all().map_err(io)?;
        drop(f);
        std::fs::rename(&tmp, path).map_err(io)
    }
}

/// The devices of a running simulation with their keys.
pub type Keyed = Vec<(String, Arc<SimDevice>)>;

/// Restores every device found in `state`; returns how many were.
pub fn restore(devices: &Keyed, state: &StateFile) -> usize {
    devices
        .iter()
        .filter(|(key, dev)| state.devices.get(key).is_some_and(|s| dev.restore_plant(s)))
        .count()
}

/// The state of every realistic device now: each is brought up to now first (the model moves
/// when it is read), so a save never holds less than a read before it returned.
pub fn snapshot(devices: &Keyed) -> StateFile {
    let now = crate::clock::now_ms();
    StateFile {
        saved_ms: now,
        devices: devices
            .iter()
            .filter_map(|(key, dev)| {
                dev.refresh_at(now);
                dev.plant_state().map(|s| (key.clone(), s))
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_file_is_written_whole_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("simulator-state.json");
        assert_eq!(
            StateFile::load(&path).unwrap(),
            StateFile::default(),
            "first start"
        );
        let s = PlantState {
            energy_total: 1.2e7,
            energy_today: 3.4e4,
            peak_today: 5.0e4,
            energy_import: 2.0e6,
            energy_export: 5.0e6,
            reactive_import: 3.0e5,
            irradiation_today: 2.1e3,
            running_time: 5.0e7,
            day: 20_000,
            angle: 12.5,
            last_ms: Some(1_718_960_000_000),
            last_power: 4.2e4,
        };
        let file = StateFile {
            saved_ms: 1,
            devices: BTreeMap::from([("DEMO-JS-INV-02".to_string(), s)]),
        };
        file.save(&path).unwrap();
        assert_eq!(StateFile::load(&path).unwrap(), file);
        assert!(!dir.path().join("simulator-state.json.tmp").exists());
        std::fs::write(&path, "{ torn").unwrap();
        assert!(
            StateFile::load(&path).is_err(),
            "garbage is an error, not a new plant"
        );
    }
}
