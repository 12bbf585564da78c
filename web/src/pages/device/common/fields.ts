/**
 * Field declarations the device and price screens share (station, bus address, register map...),
 * and how a screen embedded in a station's archive is narrowed to that station.
 */
import { stationNamesAndIds, type NameAndId } from '../../../api/station/station'
import { loadMapModelOptions, type MapModelKind } from '../../../api/station/device'
import type { CrudField, MessageKey, TextOption, Translate } from '../../../components/crud/types'
import type { PageQuery } from '../../../api/types'
import type { Rule } from 'antd/es/form'

/** Props of every screen the station archive embeds. */
export interface StationScoped {
  /** When given, the screen shows only this station's rows and new rows belong to it. */
  stationId?: string
}

/** The caller's stations as select options. */
export const stationOptions = (stations: readonly NameAndId[]): TextOption[] =>
  stations.map((station) => ({ value: String(station.id), label: station.name }))

export const loadStationOptions = async () => stationOptions(await stationNamesAndIds())

/**
 * The station of a row: a select in the form and the search when the screen shows every station;
 * neither when it is embedded in one station's archive (the page then fixes it). The table shows
 * the name the server joins in.
 */
export function stationFields(embedded: boolean): CrudField[] {
  return [
    {
      name: 'stationId',
      label: 'deviceUi.station',
      type: 'select',
      required: 'deviceUi.stationRequired',
      loadOptions: loadStationOptions,
      search: !embedded,
      hideInTable: true,
      hideInForm: embedded,
    },
    {
      name: 'stationName',
      label: 'deviceUi.stationName',
      hideInForm: true,
      hideInTable: embedded,
    },
  ]
}

/** The list filter and the forced form value of an embedded screen (none otherwise). */
export function stationScope(stationId?: string): {
  query?: PageQuery
  fixed?: Record<string, unknown>
} {
  return stationId ? { query: { stationId }, fixed: { stationId } } : {}
}

/** A number within bounds with at most `decimals` places (2 or 4: prices and ratings take 4). */
export const decimalRule =
  (min: number, max: number, decimals = 4) =>
  (t: Translate): Rule[] => [
    {
      validator: (_rule, value: unknown) => {
        if (value === undefined || value === null || value === '') return Promise.resolve()
        const number = Number(value)
        const places = String(number).split('.')[1]?.length ?? 0
        return Number.isFinite(number) && number >= min && number <= max && places <= decimals
          ? Promise.resolve()
          : Promise.reject(new Error(t('deviceUi.decimals4')))
      },
    },
  ]

/** A whole number within bounds. */
export const integerRule =
  (min: number, max: number) =>
  (t: Translate): Rule[] => [
    {
      validator: (_rule, value: unknown) => {
        if (value === undefined || value === null || value === '') return Promise.resolve()
        const number = Number(value)
        return Number.isInteger(number) && number >= min && number <= max
          ? Promise.resolve()
          : Promise.reject(new Error(t('deviceUi.integerRange', { min, max })))
      },
    },
  ]

export const gatewayField: CrudField = {
  name: 'gatewayId',
  label: 'deviceUi.gatewayId',
  max: 64,
  hideInTable: true,
}

/** The register maps the server knows for this kind of device (it checks the name again). */
export const mapModelField = (kind: MapModelKind, required?: MessageKey): CrudField => ({
  name: 'mapModel',
  label: 'deviceUi.mapModel',
  type: 'select',
  required,
  loadOptions: loadMapModelOptions(kind),
  hideInTable: true,
})

export const busFields: CrudField[] = [
  {
    name: 'unitId',
    label: 'deviceUi.unitId',
    type: 'number',
    rules: integerRule(1, 247),
    hideInTable: true,
  },
  { name: 'modbusAddress', label: 'deviceUi.modbusAddress', max: 255, hideInTable: true },
]

export const remarkField: CrudField = {
  name: 'remark',
  label: 'deviceUi.remark',
  type: 'textarea',
  max: 500,
  hideInTable: true,
}

export const createTimeField: CrudField = {
  name: 'createTime',
  label: 'deviceUi.createTime',
  hideInForm: true,
  width: 170,
}
