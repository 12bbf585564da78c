//! 64-bit ids. They travel as JSON strings because JavaScript numbers lose precision above 2^53;
//! they are made by a snowflake generator so replicas never need the database to hand them out.

use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id(pub i64);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid id {0:?}")]
pub struct InvalidId(pub String);

impl FromStr for Id {
    type Err = InvalidId;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().parse::<i64>() {
            Ok(v) if v >= 0 => Ok(Id(v)),
            _ => Err(InvalidId(s.to_owned())),
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Number(i64),
        }
        match Raw::deserialize(d)? {
            Raw::Text(s) => s.parse().map_err(serde::de::Error::custom),
            Raw::Number(n) if n >= 0 => Ok(Id(n)),
            Raw::Number(n) => Err(serde::de::Error::custom(InvalidId(n.to_string()))),
        }
    }
}

impl utoipa::PartialSchema for Id {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("64-bit id as a decimal string"))
            .examples(["1123598821738675201"])
            .into()
    }
}
impl utoipa::ToSchema for Id {}

/// Parses `1,2,3` (the console's multi-delete form) into ids; any bad element fails the whole.
pub fn parse_id_list(s: &str) -> Result<Vec<Id>, InvalidId> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::parse)
        .collect()
}

/// The message when an action on selected rows got none.
pub const SELECT_ONE: crate::kernel::lang::Text =
    crate::kernel::lang::Text::new("请选择至少一条数据", "Please select at least one record");

/// The `ids` of a request (`1,2,3`, the console's multi-select form): at least one, each valid,
/// or the request is refused with a message naming the bad element.
pub fn ids_param(raw: &str) -> Result<Vec<Id>, crate::kernel::error::ApiError> {
    let ids = parse_id_list(raw).map_err(|e| {
        crate::kernel::error::ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string())
    })?;
    if ids.is_empty() {
        return Err(crate::kernel::error::ApiError::BadRequest(SELECT_ONE));
    }
    Ok(ids)
}

/// The answer when some of the selected rows are not the caller's to act on (another tenant's,
/// out of the caller's stations, or gone).
pub const OUT_OF_REACH: crate::kernel::lang::Text = crate::kernel::lang::Text::new(
    "所选数据不存在或无权操作",
    "Some of the selected records do not exist or are not yours",
);

/// All or nothing for a write on selected rows: `found`, the ids among `asked` the caller may act
/// on, must hold every asked id, or the request is refused as not found before anything changes
/// (so nothing is written and nothing is logged). Answers `found`.
pub fn all_found(asked: &[Id], found: Vec<Id>) -> Result<Vec<Id>, crate::kernel::error::ApiError> {
    let have: std::collections::HashSet<Id> = found.iter().copied().collect();
    if asked.iter().all(|id| have.contains(id)) {
        Ok(found)
    } else {
        Err(crate::kernel::error::ApiError::NotFound(OUT_OF_REACH))
    }
}

/// Twitter-style snowflake: 41 bits of milliseconds since 2020-01-01, 10 bits of node id,
/// 12 bits of sequence. The node id comes from configuration (one per replica).
pub struct IdGenerator {
    node: i64,
    state: Mutex<(i64, i64)>,
}

const EPOCH_MS: i64 = 1_577_836_800_000;

impl IdGenerator {
    pub fn new(node: u16) -> Self {
        Self {
            node: i64::from(node & 0x3ff),
            state: Mutex::new((0, 0)),
        }
    }

    pub fn next(&self) -> Id {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (last, seq) = *state;
        let mut now = super::time::now_ms().max(last);
        let seq = if now == last { (seq + 1) & 0xfff } else { 0 };
        if now == last && seq == 0 {
            // 4096 ids in one millisecond: borrow the next millisecond rather than repeat.
            now += 1;
        }
        *state = (now, seq);
        Id(((now - EPOCH_MS) << 22) | (self.node << 12) | seq)
    }
}

// Stored as BIGINT on every back-end.
crate::bigint_newtype!(Id);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_travel_as_strings_and_accept_numbers() {
        assert_eq!(
            serde_json::to_string(&Id(1_123_598_821_738_675_201)).unwrap(),
            "\"1123598821738675201\""
        );
        assert_eq!(serde_json::from_str::<Id>("\"42\"").unwrap(), Id(42));
        assert_eq!(serde_json::from_str::<Id>("42").unwrap(), Id(42));
        assert!(serde_json::from_str::<Id>("\"4x2\"").is_err());
        assert!(serde_json::from_str::<Id>("-1").is_err());
        assert_eq!(parse_id_list("1, 2,,3").unwrap(), vec![Id(1), Id(2), Id(3)]);
        assert_eq!(parse_id_list("1,x").unwrap_err(), InvalidId("x".into()));
    }

    #[test]
    fn a_write_on_selected_rows_needs_every_row() {
        assert_eq!(
            all_found(&[Id(1), Id(2), Id(1)], vec![Id(2), Id(1)]).unwrap(),
            vec![Id(2), Id(1)]
        );
        assert!(all_found(&[Id(1), Id(3)], vec![Id(1)]).is_err());
        assert!(all_found(&[Id(3)], vec![]).is_err());
    }

    #[test]
    fn generated_ids_are_unique_increasing_and_carry_the_node() {
        let g = IdGenerator::new(5);
        let ids: Vec<Id> = (0..20_000).map(|_| g.next()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(ids.iter().all(|id| (id.0 >> 12) & 0x3ff == 5));
    }
}
