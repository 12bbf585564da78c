//! The job `flow.timers`: fires the boundary timers that are due, every `every`. It runs on one
//! replica at a time (`leader::run_exclusive`) to spare the work, but correctness does not rest
//! on that: each timer fires in its own transaction through a conditional UPDATE of its status,
//! so two replicas passing at once still fire it once.

use std::time::Duration;

use super::hook;
use super::runtime::{self, Fired};
use crate::kernel::{ApiError, Core, leader, time};

pub const JOB: &str = "flow.timers";

/// One pass at `now`: answers how many timers this call fired.
pub async fn run_once(core: &Core, now: i64) -> Result<usize, ApiError> {
    let mut fired = 0;
    for d in runtime::due(core, now).await? {
        let pass = async {
            let mut tx = core.db.begin_write().await?;
            let outcome = runtime::fire(&mut tx, core, &d, now).await?;
            if let Fired::Fired(Some(ended)) = &outcome {
                hook::finished(&mut tx, core, ended, now).await?;
            }
            tx.commit().await?;
            Ok::<_, ApiError>(matches!(outcome, Fired::Fired(_)))
        };
        match pass.await {
            Ok(true) => fired += 1,
            Ok(false) => {}
            // One broken instance must not hold back the other timers.
            Err(e) => tracing::warn!(timer = d.id, error = %e, "workflow timer could not fire"),
        }
    }
    Ok(fired)
}

/// Runs [`run_once`] every `every`.
pub fn spawn(core: Core, every: Duration) {
    tokio::spawn(async move {
        loop {
            let Some(busy) = core.shutdown.pass() else {
                return;
            };
            match leader::run_exclusive(&core.db, JOB, run_once(&core, time::now_ms())).await {
                Ok(Some(Ok(n))) if n > 0 => tracing::info!(fired = n, "workflow timers"),
                Ok(Some(Ok(_))) | Ok(None) => {}
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "workflow timer pass failed"),
                Err(e) => tracing::warn!(error = %e, "workflow timers: no leader lock"),
            }
            drop(busy);
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = core.shutdown.stopping() => return,
            }
        }
    });
}
