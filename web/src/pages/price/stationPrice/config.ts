import type { StationPrice } from '../../../api/station/price'
import type { CrudApi } from '../../../api/crud'
import type { CrudConfig, CrudField } from '../../../components/crud/types'
import {
  createTimeField,
  decimalRule,
  remarkField,
  stationFields,
} from '../../device/common/fields'

/**
 * /station/stationPrice (server `cloud/src/station/price.rs`): a station's price history, newest
 * effective date first; one price per station and date.
 */
export function stationPriceConfig(
  stationId: string | undefined,
  api: CrudApi<StationPrice>,
): CrudConfig<StationPrice> {
  const fields: CrudField<StationPrice>[] = [
    ...stationFields(stationId !== undefined),
    {
      name: 'effectiveDate',
      label: 'deviceUi.stationPrice.effectiveDate',
      type: 'date',
      trigger: 'change',
      required: 'deviceUi.stationPrice.effectiveDateRequired',
    },
    {
      name: 'price',
      label: 'deviceUi.stationPrice.price',
      type: 'number',
      required: 'deviceUi.stationPrice.priceRequired',
      rules: decimalRule(0, 100),
    },
    { ...remarkField, hideInTable: false },
    createTimeField,
  ]
  return { menuCode: 'stationPrice', api, fields }
}
