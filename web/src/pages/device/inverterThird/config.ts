import { createElement } from 'react'
import { inverterThirdApi, type InverterThird } from '../../../api/station/inverterThird'
import { listManufacturerOptions } from '../../../api/station/inverter'
import type { CrudConfig, CrudField } from '../../../components/crud/types'
import { createTimeField, remarkField, stationFields } from '../common/fields'
import PollStateTag from './PollStateTag'

/** The dictionary key of Sungrow (iSolarCloud), whose accounts also carry an app and access key. */
export const SUNGROW = '2'

/**
 * /station/inverterThird (server `cloud/src/station/device/inverter_third.rs`, polling in
 * `cloud/src/vendor`). The station is optional here: an account may serve several stations of the
 * owner (each of its plants is mapped to one in 电站映射). The password and iSolarCloud's access
 * key are write-only: required when adding (the password); on edit the field starts blank and
 * blank keeps the stored one.
 */
export function inverterThirdConfig(
  onMap: (row: InverterThird) => void = () => undefined,
): CrudConfig<InverterThird> {
  const [station, stationName] = stationFields(false)
  const sungrow = (values: Record<string, unknown>) => values.platform === SUNGROW
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
    {
      name: 'appKey',
      label: 'deviceUi.inverterThird.appKey',
      max: 100,
      visibleIf: sungrow,
      hideInTable: true,
    },
    {
      name: 'accessKey',
      label: 'deviceUi.inverterThird.accessKey',
      type: 'password',
      max: 200,
      modes: ['add', 'edit'],
      visibleIf: sungrow,
      extra: 'deviceUi.inverterThird.accessKeyHint',
      hideInTable: true,
    },
    { name: 'apiUrl', label: 'deviceUi.inverterThird.apiUrl', max: 255 },
    {
      name: 'pollState',
      label: 'deviceUi.inverterThird.pollState',
      hideInForm: true,
      render: (value, row) =>
        createElement(PollStateTag, {
          id: String(row.id),
          state: value as InverterThird['pollState'],
        }),
    },
    remarkField,
    createTimeField,
  ]
  return {
    menuCode: 'inverterThird',
    api: inverterThirdApi,
    fields,
    rowActions: [
      {
        key: 'map',
        label: 'deviceUi.inverterThird.map',
        permission: 'inverterThird_edit',
        run: (row) => onMap(row),
      },
    ],
  }
}
