//! Alarms and smart warnings: where they are kept (`store`), what evaluators report
//! (`condition`), the evaluators (`faults` tables, threshold `rules` with per-tenant
//! `settings`), the `engine` that debounces conditions into alarms and raises communication
//! loss, bracket (tracker) rules (`flex`, S-flex), the calls (`api`, `message`, `settings`), and the live feed that the console's bell
//! listens to (`feed`).

pub mod api;
pub mod condition;
pub mod engine;
pub mod faults;
pub mod feed;
pub mod flex;
pub mod message;
pub mod rules;
pub mod settings;
pub mod store;

use std::sync::{Arc, OnceLock};

use tokio::sync::mpsc;

use crate::config::Config;

/// The alarm domain's process-wide services, one per `AppState`.
#[derive(Default)]
pub struct AlarmServices {
    /// Per-tenant rule settings as the engine reads them.
    pub settings: settings::Cache,
    faults: OnceLock<Arc<faults::FaultIndex>>,
    engine: OnceLock<mpsc::Sender<engine::Input>>,
}

impl AlarmServices {
    /// The fault tables of the register maps (built on first use from the maps the hub loads).
    pub fn faults(&self, config: &Config) -> &faults::FaultIndex {
        self.faults
            .get_or_init(|| Arc::new(faults::FaultIndex::load(config)))
    }

    /// Installs the engine's inbox; false when an engine already runs.
    pub fn set_engine(&self, tx: mpsc::Sender<engine::Input>) -> bool {
        self.engine.set(tx).is_ok()
    }

    /// Whether an engine consumes hand-overs (ingest skips building them otherwise).
    pub fn engine_running(&self) -> bool {
        self.engine.get().is_some_and(|tx| !tx.is_closed())
    }

    /// Hands something to the engine, waiting while its inbox is full (back-pressure on ingest:
    /// nothing is skipped). Without an engine, nothing happens.
    pub async fn submit(&self, input: engine::Input) {
        if let Some(tx) = self.engine.get()
            && tx.send(input).await.is_err()
        {
            tracing::error!("the alarm engine has stopped; alarms are not evaluated");
        }
    }
}
