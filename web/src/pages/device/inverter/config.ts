import {
  inverterApi,
  listDeviceTypeOptions,
  listManufacturerOptions,
  LIVE_STATUS_ORDER,
  parseModules,
  type Inverter,
} from '../../../api/station/inverter'
import { formatValue } from '../../../utils/units'
import { createElement } from 'react'
import { LiveStatusTag } from './liveStatus'
import { StaleValue } from '../../../components/realtime/DeviceQuality'
import type { CrudConfig, CrudField, Translate } from '../../../components/crud/types'
import type { Rule } from 'antd/es/form'
import {
  busFields,
  createTimeField,
  decimalRule,
  gatewayField,
  integerRule,
  mapModelField,
  remarkField,
  stationFields,
} from '../common/fields'

/** Modules per string: a list of positive whole numbers naming every string once. */
const modulesRules = (t: Translate): Rule[] => [
  ({ getFieldValue }) => ({
    validator: (_rule, value: unknown) => {
      const modules = parseModules(value)
      if (modules === null)
        return Promise.reject(new Error(t('deviceUi.inverter.modulesPerStringInvalid')))
      const strings = Number(getFieldValue('stringsCount'))
      if (
        modules.length > 0 &&
        Number.isInteger(strings) &&
        strings > 0 &&
        modules.length !== strings
      ) {
        return Promise.reject(
          new Error(t('deviceUi.inverter.modulesPerStringCount', { n: modules.length, strings })),
        )
      }
      return Promise.resolve()
    },
  }),
]

/**
 * Live columns (not stored, never in the form): status from presence and open fault alarms and the
 * current AC power, both sortable on the page shown.
 */
const liveFields: CrudField<Inverter>[] = [
  {
    name: 'liveStatus',
    label: 'deviceUi.inverter.liveStatus',
    hideInForm: true,
    width: 100,
    render: (value, row) =>
      value === 'online' || value === 'offline' || value === 'fault'
        ? createElement(LiveStatusTag, { status: value, withheld: row.withheld })
        : '--',
    sorter: (a, b) =>
      (a.liveStatus ? LIVE_STATUS_ORDER[a.liveStatus] : 9) -
      (b.liveStatus ? LIVE_STATUS_ORDER[b.liveStatus] : 9),
  },
  {
    name: 'acPowerKw',
    label: 'deviceUi.inverter.acPower',
    hideInForm: true,
    width: 110,
    render: (value, row) =>
      createElement(StaleValue, {
        reason: row.withheld,
        testId: 'inverter-live-stale-power',
        children: typeof value === 'number' ? formatValue(value, 'kW', 2) : '--',
      }),
    sorter: (a, b) => (a.acPowerKw ?? -1) - (b.acPowerKw ?? -1),
  },
]

/** /station/inverter (server `cloud/src/station/device/inverter.rs`). */
export function inverterConfig(stationId?: string): CrudConfig<Inverter> {
  const fields: CrudField<Inverter>[] = [
    ...stationFields(stationId !== undefined),
    {
      name: 'name',
      label: 'deviceUi.inverter.name',
      required: 'deviceUi.inverter.nameRequired',
      max: 100,
    },
    {
      name: 'deviceType',
      label: 'deviceUi.inverter.deviceType',
      type: 'select',
      loadOptions: listDeviceTypeOptions,
      search: true,
    },
    {
      name: 'manufacturer',
      label: 'deviceUi.inverter.manufacturer',
      type: 'select',
      loadOptions: listManufacturerOptions,
      search: true,
    },
    {
      name: 'sn',
      label: 'deviceUi.inverter.sn',
      required: 'deviceUi.inverter.snRequired',
      max: 64,
      search: true,
    },
    { name: 'collectorSn', label: 'deviceUi.inverter.collectorSn', max: 64 },
    {
      name: 'verificationCode',
      label: 'deviceUi.inverter.verificationCode',
      max: 64,
      hideInTable: true,
    },
    gatewayField,
    {
      name: 'ratedPower',
      label: 'deviceUi.inverter.ratedPower',
      type: 'number',
      rules: decimalRule(0, 100_000),
    },
    {
      name: 'stringsCount',
      label: 'deviceUi.inverter.stringsCount',
      type: 'number',
      required: 'deviceUi.inverter.stringsCountRequired',
      rules: integerRule(1, 64),
    },
    {
      name: 'modulesPerString',
      label: 'deviceUi.inverter.modulesPerString',
      rules: modulesRules,
      dependencies: ['stringsCount'],
      hideInTable: true,
    },
    mapModelField('inverter'),
    ...busFields,
    {
      name: 'purchasingCompany',
      label: 'deviceUi.inverter.purchasingCompany',
      max: 100,
      hideInTable: true,
    },
    remarkField,
    createTimeField,
    ...liveFields,
  ]
  return { menuCode: 'inverter', api: inverterApi, fields, dialogWidth: 820 }
}
