import { inverterThirdApi, type InverterThird } from '../../../api/station/inverterThird'
import { listManufacturerOptions } from '../../../api/station/inverter'
import type { CrudConfig, CrudField } from '../../../components/crud/types'
import { createTimeField, remarkField, stationFields } from '../common/fields'

/**
 * /station/inverterThird (server `cloud/src/station/device/inverter_third.rs`). The station is
 * optional here: an account may serve several stations of the owner. The password is write-only:
 * required when adding; on edit the field starts blank and blank keeps the stored one.
 */
export function inverterThirdConfig(): CrudConfig<InverterThird> {
  const [station, stationName] = stationFields(false)
  const fields: CrudField<InverterThird>[] = [
    { ...station, required: undefined },
    stationName,
    {
      name: 'platform',
      label: 'deviceUi.inverterThird.platform',
      type: 'select',
      required: 'deviceUi.inverterThird.platformRequired',
      loadOptions: listManufacturerOptions,
      search: true,
    },
    {
      name: 'account',
      label: 'deviceUi.inverterThird.account',
      required: 'deviceUi.inverterThird.accountRequired',
      max: 100,
      search: true,
    },
    {
      name: 'password',
      label: 'deviceUi.inverterThird.password',
      type: 'password',
      required: 'deviceUi.inverterThird.passwordRequired',
      requiredIn: ['add'],
      max: 200,
      modes: ['add', 'edit'],
      hideInTable: true,
    },
    {
      name: 'passwordSet',
      label: 'deviceUi.inverterThird.password',
      hideInForm: true,
      render: (value) => (value ? '••••••' : ''),
    },
    { name: 'apiUrl', label: 'deviceUi.inverterThird.apiUrl', max: 255 },
    remarkField,
    createTimeField,
  ]
  return { menuCode: 'inverterThird', api: inverterThirdApi, fields }
}
