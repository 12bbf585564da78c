//! The `list*` calls that fill the station domain's select boxes. They answer from the platform
//! dictionaries (seeded in `system/seed/dicts.toml`), so an administrator changes the choices
//! in the dictionary screen, not in code; and the register maps devices may name.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::{ApiError, ApiResult, Data, Envelope};
use crate::station::context::StationCtx;
use crate::system::dict::{self, Entry};

/// The entries of a platform dictionary with `dictValue` in the request's language.
pub async fn dict_list(state: &Core, code: &str) -> Result<Vec<Entry>, ApiError> {
    let lang = crate::kernel::lang::Lang::current();
    Ok(dict::system_entries(state, code)
        .await?
        .into_iter()
        .map(|e| e.in_lang(lang))
        .collect())
}

macro_rules! dict_route {
    ($name:ident, $path:literal, $code:literal, $tag:literal, $doc:literal) => {
        #[doc = $doc]
        #[utoipa::path(get, path = $path, tag = $tag,
            responses((status = 200, body = crate::kernel::Envelope<Vec<crate::system::dict::Entry>>), (status = 401)))]
        pub async fn $name(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            _caller: crate::auth::Caller,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<Vec<crate::system::dict::Entry>>> {
            Ok(crate::kernel::Data(
                crate::station::listing::dict_list(&state, $code).await?,
            ))
        }
    };
}
pub(crate) use dict_route;

dict_route!(
    list_station_state,
    "/api/station/listStationState",
    "station_state",
    "station",
    "Station states (dictionary `station_state`)."
);
dict_route!(
    list_station_type,
    "/api/station/listStationType",
    "station_type",
    "station",
    "Station types (dictionary `station_type`)."
);
dict_route!(
    list_manufacturer_inverter,
    "/api/station/listManufacturerInverter",
    "inverter_manufacturer",
    "station",
    "Inverter manufacturers (dictionary `inverter_manufacturer`)."
);
dict_route!(
    list_contribution_way,
    "/api/station/listContributionWay",
    "contribution_way",
    "station",
    "Investment (contribution) ways (dictionary `contribution_way`)."
);
dict_route!(
    list_connected_type,
    "/api/station/listConnectedType",
    "connected_type",
    "station",
    "Grid-connection types (dictionary `connected_type`)."
);

#[derive(Debug, Deserialize, IntoParams)]
pub struct KindParam {
    /// `inverter`, `meter`, `weather` or `tracker`; none = every map.
    pub kind: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MapModelItem {
    /// The value a device's `mapModel` takes (the map's file name without `.toml`).
    pub id: String,
    pub kind: String,
    pub manufacturer: String,
    pub model: String,
}

/// Register maps devices may name as `mapModel` (from `firmware-configs`, loaded at start).
#[utoipa::path(get, path = "/api/station/listMapModel", tag = "station", params(KindParam),
    responses((status = 200, body = Envelope<Vec<MapModelItem>>), (status = 401)))]
pub async fn list_map_model(
    State(state): State<StationCtx>,
    _caller: Caller,
    Query(p): Query<KindParam>,
) -> ApiResult<Data<Vec<MapModelItem>>> {
    let wanted = p
        .kind
        .map(|k| k.trim().to_ascii_lowercase())
        .filter(|k| !k.is_empty());
    Ok(Data(
        state
            .services
            .maps
            .iter()
            .map(|m| MapModelItem {
                id: m.id.clone(),
                kind: format!("{:?}", m.kind).to_ascii_lowercase(),
                manufacturer: m.manufacturer.clone(),
                model: m.model.clone(),
            })
            .filter(|m| wanted.as_deref().is_none_or(|k| k == m.kind))
            .collect(),
    ))
}
