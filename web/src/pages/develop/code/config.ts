/** The code generator (the `/api/blade-develop/code` family, plus copy, preview and gen-code). */
import { codeApi, copyCode, type CodeRow } from '../../../api/develop/code'
import { modelList } from '../../../api/develop/model'
import type { CrudConfig } from '../../../components/crud/types'
import { codePattern } from '../model/config'

export type { CodeRow } from '../../../api/develop/code'

export interface CodeActions {
  preview: (row: CodeRow) => void
  /** Downloads the zip of these rows. */
  generate: (ids: string[]) => void
}

export function codeConfig(actions: CodeActions): CrudConfig<CodeRow> {
  return {
    menuCode: 'code',
    api: codeApi,
    addDefaults: { tenantScoped: 1 },
    fields: [
      { name: 'id', label: 'develop.code.codeName', hideInTable: true, hideInForm: true },
      {
        name: 'codeName',
        label: 'develop.code.codeName',
        required: 'develop.code.codeNameRequired',
        max: 64,
        search: true,
      },
      {
        name: 'codeNameEn',
        label: 'develop.code.codeNameEn',
        required: 'develop.code.codeNameEnRequired',
        max: 64,
      },
      {
        name: 'moduleName',
        label: 'develop.code.moduleName',
        required: 'develop.code.moduleNameRequired',
        max: 40,
        extra: 'develop.code.moduleNameHint',
        rules: (t) => [{ pattern: codePattern, message: t('develop.model.codeFormat') }],
      },
      {
        name: 'modelId',
        label: 'develop.code.model',
        type: 'select',
        required: 'develop.code.modelRequired',
        hideInTable: true,
        loadOptions: async () =>
          (await modelList()).map((model) => ({
            value: model.id ?? '',
            label: `${model.modelName} · ${model.modelTable}`,
          })),
      },
      { name: 'modelName', label: 'develop.code.model', hideInForm: true },
      {
        name: 'tenantScoped',
        label: 'develop.code.tenantScoped',
        type: 'select',
        required: 'develop.code.tenantScopedRequired',
        numeric: true,
        width: 130,
        options: [
          { value: 1, label: 'develop.code.byTenant' },
          { value: 0, label: 'develop.code.shared' },
        ],
      },
      { name: 'remark', label: 'develop.remark', type: 'textarea', max: 255, hideInTable: true },
      { name: 'createTime', label: 'develop.createTime', hideInForm: true, width: 170 },
    ],
    toolbar: [
      {
        key: 'gen',
        label: 'develop.code.gen',
        permission: 'code_gen',
        needsSelection: true,
        run: (ctx) => actions.generate(ctx.selectedIds),
      },
    ],
    rowActions: [
      {
        key: 'preview',
        label: 'develop.code.preview',
        permission: 'code_view',
        run: (row) => actions.preview(row),
      },
      {
        key: 'copy',
        label: 'develop.code.copy',
        permission: 'code_copy',
        run: (row, ctx) => ctx.confirm('develop.code.copyConfirm', () => copyCode(row.id ?? '')),
      },
      {
        key: 'gen',
        label: 'develop.code.gen',
        permission: 'code_gen',
        run: (row) => {
          if (row.id) actions.generate([row.id])
        },
      },
    ],
  }
}
