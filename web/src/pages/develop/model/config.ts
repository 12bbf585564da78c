/** Models (the `/api/blade-develop/model` family; platform only). */
import { createElement } from 'react'
import { datasourceList } from '../../../api/develop/datasource'
import { modelApi, type Model } from '../../../api/develop/model'
import type { CrudConfig } from '../../../components/crud/types'
import TablePicker from './TablePicker'

export type { Model } from '../../../api/develop/model'

/** The model code and the module name of the code generator share the contract's pattern. */
export const codePattern = /^[a-z][a-z0-9_]{1,39}$/

/** `openFields` opens the field settings of a model (the page owns the dialog). */
export function modelConfig(openFields: (model: Model) => void): CrudConfig<Model> {
  return {
    menuCode: 'model',
    api: modelApi,
    fields: [
      { name: 'id', label: 'develop.model.modelName', hideInTable: true, hideInForm: true },
      {
        name: 'modelName',
        label: 'develop.model.modelName',
        required: 'develop.model.modelNameRequired',
        max: 64,
        search: true,
      },
      {
        name: 'modelCode',
        label: 'develop.model.modelCode',
        required: 'develop.model.modelCodeRequired',
        max: 40,
        rules: (t) => [{ pattern: codePattern, message: t('develop.model.codeFormat') }],
      },
      {
        name: 'datasourceId',
        label: 'develop.model.datasource',
        type: 'select',
        required: 'develop.model.datasourceRequired',
        search: true,
        hideInTable: true,
        loadOptions: async () =>
          (await datasourceList()).map((row) => ({ value: row.id ?? '', label: row.name })),
      },
      { name: 'datasourceName', label: 'develop.model.datasource', hideInForm: true },
      {
        name: 'modelTable',
        label: 'develop.model.modelTable',
        required: 'develop.model.modelTableRequired',
        trigger: 'change',
        input: ({ disabled, testId }) => createElement(TablePicker, { disabled, testId }),
      },
      {
        name: 'modelRemark',
        label: 'develop.model.modelRemark',
        type: 'textarea',
        max: 255,
        hideInTable: true,
      },
      { name: 'createTime', label: 'develop.createTime', hideInForm: true, width: 170 },
    ],
    rowActions: [
      {
        key: 'fields',
        label: 'develop.model.fields',
        // Saving the settings changes the model.
        permission: 'model_edit',
        run: (model) => openFields(model),
      },
    ],
  }
}
