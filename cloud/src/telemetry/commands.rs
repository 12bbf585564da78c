//! Commands to gateways over the downlink, and their answers: a command goes out on the
//! gateway's `down/command` topic with an id chosen here, and the caller waits for the
//! `CommandAck` with that id, which ingest hands over when it arrives on `up/command-ack`.
//!
//! A broker delivers a message only to the subscriptions it has when the message arrives: a
//! command published while the gateway is still starting, reconnecting, or connected but not yet
//! subscribed (its clean session starts without subscriptions) is dropped without a word, and
//! the caller waited its whole limit for nothing. So a waiting command goes out again whenever
//! its gateway announces itself (the birth status, which a gateway publishes once its downlink
//! subscription is acknowledged); the gateway answers a repeated id with its first answer, so a
//! command is carried out once however often it arrives.
//!
//! The waiting is in this process's memory. With several replicas behind an external broker the
//! gateways' uplink is a shared subscription, so an answer can reach a replica that did not send
//! the command: that command then times out here (the gateway still carried it out once). The
//! embedded broker has one hub, so this does not arise there.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use pv_shared::topics;
use pv_shared::wire::{self, Action, Command, CommandAck};
use tokio::sync::oneshot;

use super::broker::Downlink;

/// Why a command got no answer.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("the hub has no broker connection")]
    NoBroker,
    #[error("{0}")]
    Send(String),
    #[error("the gateway did not answer within {0:?}")]
    Timeout(Duration),
}

/// A command waiting for its answer.
struct Pending {
    gateway: String,
    topic: String,
    payload: Vec<u8>,
    answer: oneshot::Sender<CommandAck>,
}

/// Commands waiting for their answers.
#[derive(Default)]
pub struct Commands {
    downlink: OnceLock<Downlink>,
    pending: Mutex<HashMap<String, Pending>>,
}

impl Commands {
    /// The broker connection commands go out on (set once the data path started).
    pub fn attach(&self, downlink: Downlink) {
        let _ = self.downlink.set(downlink);
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<String, Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sends `action` to `gateway` and waits up to `limit` for its answer.
    pub async fn ask(
        &self,
        gateway: &str,
        action: Action,
        limit: Duration,
    ) -> Result<CommandAck, CommandError> {
        let downlink = self.downlink.get().ok_or(CommandError::NoBroker)?;
        let topic = topics::command(gateway).map_err(|e| CommandError::Send(e.to_string()))?;
        let id = new_id().map_err(CommandError::Send)?;
        let command = Command {
            v: topics::WIRE_VERSION,
            id: id.clone(),
            action,
        };
        let payload = wire::to_bytes(&command).map_err(|e| CommandError::Send(e.to_string()))?;
        let (tx, rx) = oneshot::channel();
        let pending = Pending {
            gateway: gateway.to_owned(),
            topic: topic.clone(),
            payload: payload.clone(),
            answer: tx,
        };
        self.pending().insert(id.clone(), pending);
        if let Err(e) = downlink.publish(topic, payload).await {
            self.pending().remove(&id);
            return Err(CommandError::Send(e.to_string()));
        }
        let answer = tokio::time::timeout(limit, rx).await;
        self.pending().remove(&id);
        match answer {
            Ok(Ok(a)) => Ok(a),
            _ => Err(CommandError::Timeout(limit)),
        }
    }

    /// An answer from `gateway` (the topic's, already checked against the payload). An answer
    /// nobody waits for (a repeat, or one for another replica) is dropped; one naming a command
    /// sent to another gateway is ignored.
    pub fn answered(&self, gateway: &str, ack: CommandAck) {
        let mut pending = self.pending();
        if pending.get(&ack.id).is_some_and(|p| p.gateway == gateway)
            && let Some(p) = pending.remove(&ack.id)
        {
            let _ = p.answer.send(ack);
        }
    }

    /// `gateway` (re)connected and subscribed: its waiting commands go out again, since any
    /// sent before then reached nobody.
    pub async fn gateway_ready(&self, gateway: &str) {
        let Some(downlink) = self.downlink.get() else {
            return;
        };
        let again: Vec<(String, String, Vec<u8>)> = self
            .pending()
            .iter()
            .filter(|(_, p)| p.gateway == gateway)
            .map(|(id, p)| (id.clone(), p.topic.clone(), p.payload.clone()))
            .collect();
        for (id, topic, payload) in again {
            tracing::info!(%gateway, command = %id, "gateway up: command sent again");
            if let Err(e) = downlink.publish(topic, payload).await {
                tracing::warn!(%gateway, command = %id, %e, "command not sent again");
            }
        }
    }
}

/// A command id nobody can guess or repeat by accident: 16 random bytes.
fn new_id() -> Result<String, String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| format!("randomness: {e}"))?;
    Ok(format!("cm-{}", hex::encode(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(gateway: &str, id: &str) -> CommandAck {
        CommandAck {
            v: 1,
            gateway: gateway.into(),
            id: id.into(),
            ok: true,
            message: "m".into(),
            ts: 1,
            values: None,
            inventory: None,
            scan: None,
            probe: None,
        }
    }

    #[tokio::test]
    async fn an_answer_reaches_only_the_command_of_its_gateway() {
        let c = Commands::default();
        let (tx, mut rx) = oneshot::channel();
        let p = Pending {
            gateway: "gw-a".into(),
            topic: "pv/1/gw-a/down/command".into(),
            payload: Vec::new(),
            answer: tx,
        };
        c.pending().insert("cm-1".into(), p);
        c.answered("gw-b", ack("gw-b", "cm-1"));
        assert!(rx.try_recv().is_err(), "another gateway cannot answer it");
        c.answered("gw-a", ack("gw-a", "cm-1"));
        assert_eq!(rx.await.unwrap().id, "cm-1");
        assert!(c.pending().is_empty());
        // Without a broker nothing is sent.
        assert!(matches!(
            c.ask("gw-a", Action::Inventory, Duration::from_millis(10)).await,
            Err(CommandError::NoBroker)
        ));
    }
}
