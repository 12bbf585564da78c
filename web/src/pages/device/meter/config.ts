import { loadDict } from '../../../hooks/useDict'
import { dictItemOptions } from '../../../api/station/device'
import { meterApi, type Meter } from '../../../api/station/meter'
import type { CrudConfig, CrudField } from '../../../components/crud/types'
import { liveAction } from '../common/live'
import {
  busFields,
  createTimeField,
  decimalRule,
  gatewayField,
  mapModelField,
  remarkField,
  stationFields,
} from '../common/fields'

/**
 * /station/meter (server `cloud/src/station/device/meter.rs`). CT and PT ratios default to 1 (a
 * meter on the primary side); energy read from the meter is multiplied by both.
 */
export function meterConfig(
  stationId?: string,
  openLive?: (row: Meter) => void,
): CrudConfig<Meter> {
  const fields: CrudField<Meter>[] = [
    ...stationFields(stationId !== undefined),
    {
      name: 'name',
      label: 'deviceUi.meter.name',
      required: 'deviceUi.meter.nameRequired',
      max: 100,
      search: true,
    },
    {
      name: 'meterRole',
      label: 'deviceUi.meter.meterRole',
      type: 'select',
      required: 'deviceUi.meter.meterRoleRequired',
      loadOptions: () => loadDict('meter_role').then((entries) => dictItemOptions(entries)),
      search: true,
    },
    {
      name: 'sn',
      label: 'deviceUi.meter.sn',
      required: 'deviceUi.meter.snRequired',
      max: 64,
      search: true,
    },
    {
      name: 'ctRatio',
      label: 'deviceUi.meter.ctRatio',
      type: 'number',
      required: 'deviceUi.meter.ctRatioRequired',
      rules: decimalRule(0.0001, 100_000),
    },
    {
      name: 'ptRatio',
      label: 'deviceUi.meter.ptRatio',
      type: 'number',
      required: 'deviceUi.meter.ptRatioRequired',
      rules: decimalRule(0.0001, 100_000),
    },
    gatewayField,
    mapModelField('meter'),
    ...busFields,
    remarkField,
    createTimeField,
  ]
  return {
    menuCode: 'meter',
    api: meterApi,
    fields,
    addDefaults: { ctRatio: 1, ptRatio: 1 },
    rowActions: openLive ? [liveAction('meter_view', openLive)] : undefined,
  }
}
