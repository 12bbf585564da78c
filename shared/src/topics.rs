//! MQTT topic layout shared by gateways and the cloud.
//!
//! Every topic a gateway uses starts with `pv/{wire version}/{gateway id}/` so the broker's
//! authorisation hook can check that a client only touches topics under its own id.

/// Version of the wire contract. Bumped when a payload changes incompatibly; the version is part
/// of every topic so old and new gateways can coexist during a rollout.
pub const WIRE_VERSION: u32 = 1;

/// Errors in names that end up inside topics.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TopicError {
    #[error("gateway id must be 1-64 characters of letters, digits, '-' or '_'")]
    InvalidGatewayId,
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

/// Topic on which a gateway publishes telemetry batches.
pub fn telemetry(gateway_id: &str) -> Result<String, TopicError> {
    validate_gateway_id(gateway_id)?;
    Ok(format!("pv/{WIRE_VERSION}/{gateway_id}/up/telemetry"))
}

/// Topic on which the cloud sends acknowledgements and commands to a gateway.
pub fn downlink(gateway_id: &str) -> Result<String, TopicError> {
    validate_gateway_id(gateway_id)?;
    Ok(format!("pv/{WIRE_VERSION}/{gateway_id}/down"))
}

/// Topic of the gateway's presence (`wire::GatewayStatus`): retained "online" on connect, and
/// the MQTT last will ("offline").
pub fn status(gateway_id: &str) -> Result<String, TopicError> {
    validate_gateway_id(gateway_id)?;
    Ok(format!("pv/{WIRE_VERSION}/{gateway_id}/up/status"))
}

/// The gateway id a topic belongs to, if the topic follows this layout and version.
pub fn gateway_of(topic: &str) -> Option<&str> {
    let mut parts = topic.split('/');
    let (Some("pv"), Some(version), Some(id)) = (parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    if version != WIRE_VERSION.to_string() || validate_gateway_id(id).is_err() {
        return None;
    }
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_round_trip_to_their_gateway() {
        let up = telemetry("gw-0001").unwrap();
        assert_eq!(up, "pv/1/gw-0001/up/telemetry");
        assert_eq!(gateway_of(&up), Some("gw-0001"));
        assert_eq!(gateway_of(&downlink("GW_2").unwrap()), Some("GW_2"));
    }

    #[test]
    fn ids_that_could_escape_their_topic_are_refused() {
        for bad in ["", "a/b", "+", "#", "gw 1", &"x".repeat(65)] {
            assert_eq!(telemetry(bad), Err(TopicError::InvalidGatewayId), "{bad:?}");
        }
        assert_eq!(gateway_of("pv/2/gw/up/telemetry"), None, "other wire version");
        assert_eq!(gateway_of("other/1/gw"), None);
    }
}
