//! Modbus Read Device Identification (0x2B / MEI 0x0E) as a simulated device answers it.

use tokio_modbus::ExceptionCode;
use tokio_modbus::prelude::{ConformityLevel, DeviceIdObject, ReadCode, ReadDeviceIdentificationResponse};

/// The answer for `objects` (id, value) to a request for `code` from object `from`: stream access
/// gives every object of the category from `from` on (basic 0-2, regular up to 0x7F, extended
/// all), individual access (`Specific`) that one object or "illegal address". A device with no
/// objects does not implement the function.
pub(super) fn answer(
    objects: &[(u8, String)],
    code: ReadCode,
    from: u8,
) -> Result<ReadDeviceIdentificationResponse, ExceptionCode> {
    if objects.is_empty() {
        return Err(ExceptionCode::IllegalFunction);
    }
    let object = |(id, v): &(u8, String)| DeviceIdObject {
        id: *id,
        value: v.clone().into_bytes().into(),
    };
    let found: Vec<DeviceIdObject> = match code {
        ReadCode::Specific => vec![
            objects
                .iter()
                .find(|(id, _)| *id == from)
                .map(object)
                .ok_or(ExceptionCode::IllegalDataAddress)?,
        ],
        _ => {
            let last = match code {
                ReadCode::Basic => 0x02,
                ReadCode::Regular => 0x7F,
                _ => 0xFF,
            };
            objects
                .iter()
                .filter(|(id, _)| *id >= from && *id <= last)
                .map(object)
                .collect()
        }
    };
    let regular = objects.iter().any(|(id, _)| *id > 2);
    Ok(ReadDeviceIdentificationResponse {
        read_code: code,
        conformity_level: if regular {
            ConformityLevel::RegularIdentification
        } else {
            ConformityLevel::BasicIdentification
        },
        more_follows: false,
        next_object_id: 0,
        device_id_objects: found,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(r: &ReadDeviceIdentificationResponse) -> Vec<u8> {
        r.device_id_objects.iter().map(|o| o.id).collect()
    }

    #[test]
    fn stream_and_individual_access_follow_the_categories() {
        let objects: Vec<(u8, String)> = [(0, "Acme"), (1, "X1"), (2, "1.0"), (5, "X1 Pro")]
            .iter()
            .map(|(i, v)| (*i, v.to_string()))
            .collect();
        assert_eq!(ids(&answer(&objects, ReadCode::Basic, 0).unwrap()), vec![0, 1, 2]);
        assert_eq!(ids(&answer(&objects, ReadCode::Basic, 1).unwrap()), vec![1, 2]);
        assert_eq!(
            ids(&answer(&objects, ReadCode::Regular, 0).unwrap()),
            vec![0, 1, 2, 5]
        );
        let one = answer(&objects, ReadCode::Specific, 5).unwrap();
        assert_eq!(one.device_id_objects[0].value_as_str(), Some("X1 Pro"));
        assert_eq!(
            answer(&objects, ReadCode::Specific, 9).unwrap_err(),
            ExceptionCode::IllegalDataAddress
        );
        assert_eq!(
            answer(&[], ReadCode::Basic, 0).unwrap_err(),
            ExceptionCode::IllegalFunction
        );
    }
}
