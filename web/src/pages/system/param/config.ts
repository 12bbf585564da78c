/** System parameters (generic CRUD; name, key and value all required, checked on blur). */
import { entityApi } from '../../../api/crud'
import type { CrudConfig } from '../../../components/crud/types'

export interface Param {
  id?: string
  paramName: string
  paramKey: string
  paramValue: string
  remark?: string
}

export const paramConfig: CrudConfig<Param> = {
  menuCode: 'param',
  api: entityApi<Param>({ style: 'blade', base: '/blade-system/param' }),
  fields: [
    { name: 'id', label: 'param.paramName', hideInTable: true, hideInForm: true },
    {
      name: 'paramName',
      label: 'param.paramName',
      required: 'param.paramNameRequired',
      trigger: 'blur',
      search: true,
    },
    {
      name: 'paramKey',
      label: 'param.paramKey',
      required: 'param.paramKeyRequired',
      trigger: 'blur',
      search: true,
    },
    {
      name: 'paramValue',
      label: 'param.paramValue',
      type: 'textarea',
      required: 'param.paramValueRequired',
      trigger: 'blur',
    },
    { name: 'remark', label: 'param.remark', type: 'textarea' },
  ],
}
