import { weatherApi, type Weather } from '../../../api/station/weather'
import type { CrudConfig, CrudField } from '../../../components/crud/types'
import { liveAction } from '../common/live'
import {
  busFields,
  createTimeField,
  gatewayField,
  mapModelField,
  remarkField,
  stationFields,
} from '../common/fields'

/** /station/weather (server `cloud/src/station/device/weather.rs`; one per station). */
export function weatherConfig(
  stationId?: string,
  openLive?: (row: Weather) => void,
): CrudConfig<Weather> {
  const fields: CrudField<Weather>[] = [
    ...stationFields(stationId !== undefined),
    {
      name: 'name',
      label: 'deviceUi.weather.name',
      required: 'deviceUi.weather.nameRequired',
      max: 100,
      search: true,
    },
    {
      name: 'sn',
      label: 'deviceUi.weather.sn',
      required: 'deviceUi.weather.snRequired',
      max: 64,
      search: true,
    },
    { ...gatewayField, hideInTable: false },
    mapModelField('weather'),
    ...busFields,
    remarkField,
    createTimeField,
  ]
  return {
    menuCode: 'weather',
    api: weatherApi,
    fields,
    rowActions: openLive ? [liveAction('weather_view', openLive)] : undefined,
  }
}
