//! MQTT topic layout shared by gateways and the cloud.
//!
//! Every topic a gateway uses is `pv/{wire version}/{gateway id}/{direction}/{kind}`, so the
//! broker's authorisation hook can check that a client only touches topics under its own id,
//! and one subscription per direction covers a gateway (`pv/1/{id}/down/+`) or every gateway
//! (`pv/1/+/up/+`).
//!
//! | topic | direction | payload (`wire`) | QoS | retained |
//! |---|---|---|---|---|
//! | `pv/1/{id}/up/telemetry` | gateway → cloud | `TelemetryBatch` | 1 | no |
//! | `pv/1/{id}/up/status` | gateway → cloud | `GatewayStatus` (birth, periodic, last will) | 1 | yes |
//! | `pv/1/{id}/up/command-ack` | gateway → cloud | `CommandAck` | 1 | no |
//! | `pv/1/{id}/down/ack` | cloud → gateway | `Ack` | 1 | no |
//! | `pv/1/{id}/down/command` | cloud → gateway | `Command` | 1 | no |

/// Version of the wire contract. Bumped when a payload changes incompatibly; the version is part
/// of every topic so old and new gateways can coexist during a rollout.
pub const WIRE_VERSION: u32 = 1;

/// Errors in names that end up inside topics.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TopicError {
    #[error("gateway id must be 1-64 characters of letters, digits, '-' or '_'")]
    InvalidGatewayId,
}

/// What a topic carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Gateway → cloud: `wire::TelemetryBatch`.
    Telemetry,
    /// Gateway → cloud, retained: `wire::GatewayStatus`.
    Status,
    /// Gateway → cloud: `wire::CommandAck`.
    CommandAck,
    /// Cloud → gateway: `wire::Ack`.
    Ack,
    /// Cloud → gateway: `wire::Command`.
    Command,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::Telemetry,
        Kind::Status,
        Kind::CommandAck,
        Kind::Ack,
        Kind::Command,
    ];

    /// The last two topic levels.
    fn suffix(self) -> &'static str {
        match self {
            Kind::Telemetry => "up/telemetry",
            Kind::Status => "up/status",
            Kind::CommandAck => "up/command-ack",
            Kind::Ack => "down/ack",
            Kind::Command => "down/command",
        }
    }
}

/// Checks a gateway id: MQTT wildcards and separators inside an id would let a client subscribe
/// to or publish on another gateway's topics.
pub fn validate_gateway_id(id: &str) -> Result<(), TopicError> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(TopicError::InvalidGatewayId)
    }
}

/// The topic of `kind` for one gateway.
pub fn topic(gateway_id: &str, kind: Kind) -> Result<String, TopicError> {
    validate_gateway_id(gateway_id)?;
    Ok(format!("pv/{WIRE_VERSION}/{gateway_id}/{}", kind.suffix()))
}

/// Topic on which a gateway publishes telemetry batches.
pub fn telemetry(gateway_id: &str) -> Result<String, TopicError> {
    topic(gateway_id, Kind::Telemetry)
}

/// Topic of the gateway's presence and counters (`wire::GatewayStatus`): retained birth message
/// on connect, periodic updates, and the MQTT last will.
pub fn status(gateway_id: &str) -> Result<String, TopicError> {
    topic(gateway_id, Kind::Status)
}

/// Topic on which a gateway answers commands.
pub fn command_ack(gateway_id: &str) -> Result<String, TopicError> {
    topic(gateway_id, Kind::CommandAck)
}

/// Topic on which the cloud acknowledges stored batches.
pub fn ack(gateway_id: &str) -> Result<String, TopicError> {
    topic(gateway_id, Kind::Ack)
}

/// Topic on which the cloud sends commands.
pub fn command(gateway_id: &str) -> Result<String, TopicError> {
    topic(gateway_id, Kind::Command)
}

/// What a gateway subscribes to: everything the cloud sends it.
pub fn downlink_filter(gateway_id: &str) -> Result<String, TopicError> {
    validate_gateway_id(gateway_id)?;
    Ok(format!("pv/{WIRE_VERSION}/{gateway_id}/down/+"))
}

/// What the cloud subscribes to: everything every gateway sends (prefix it with
/// `$share/{group}/` when several replicas split the load).
pub fn uplink_filter() -> String {
    format!("pv/{WIRE_VERSION}/+/up/+")
}

/// The gateway and the kind of a topic, if it follows this layout and version.
pub fn parse(topic: &str) -> Option<(&str, Kind)> {
    let mut parts = topic.splitn(4, '/');
    let (Some("pv"), Some(version), Some(id), Some(rest)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    if version != WIRE_VERSION.to_string() || validate_gateway_id(id).is_err() {
        return None;
    }
    let kind = Kind::ALL.into_iter().find(|k| k.suffix() == rest)?;
    Some((id, kind))
}

/// The gateway id a topic belongs to, if the topic follows this layout and version.
pub fn gateway_of(topic: &str) -> Option<&str> {
    parse(topic).map(|(id, _)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_round_trip_to_their_gateway_and_kind() {
        let up = telemetry("gw-0001").unwrap();
        assert_eq!(up, "pv/1/gw-0001/up/telemetry");
        assert_eq!(gateway_of(&up), Some("gw-0001"));
        for kind in Kind::ALL {
            let t = topic("GW_2", kind).unwrap();
            assert_eq!(parse(&t), Some(("GW_2", kind)), "{t}");
        }
        assert_eq!(ack("g").unwrap(), "pv/1/g/down/ack");
        assert_eq!(command_ack("g").unwrap(), "pv/1/g/up/command-ack");
        assert_eq!(downlink_filter("g").unwrap(), "pv/1/g/down/+");
        assert_eq!(uplink_filter(), "pv/1/+/up/+");
    }

    #[test]
    fn ids_that_could_escape_their_topic_are_refused() {
        for bad in ["", "a/b", "+", "#", "gw 1", &"x".repeat(65)] {
            assert_eq!(telemetry(bad), Err(TopicError::InvalidGatewayId), "{bad:?}");
            assert!(downlink_filter(bad).is_err());
        }
        assert_eq!(gateway_of("pv/2/gw/up/telemetry"), None, "other wire version");
        assert_eq!(gateway_of("other/1/gw"), None);
        assert_eq!(parse("pv/1/gw/up/other"), None, "unknown kind");
        assert_eq!(parse("pv/1/gw/up/telemetry/x"), None, "extra level");
        assert_eq!(parse("pv/1/+/up/telemetry"), None, "a filter is not a topic");
    }
}
