/** Data sources (the `/api/blade-develop/datasource` family, plus `test`; platform only). */
import {
  datasourceApi,
  testConnection,
  type ConnectionResult,
  type Datasource,
} from '../../../api/develop/datasource'
import type { CrudConfig, FormActionResult, Translate } from '../../../components/crud/types'

export type { Datasource } from '../../../api/develop/datasource'

const sqlite = 1
const postgres = 2

const isPostgres = (values: Record<string, unknown>) => values.category === postgres

/** A connection test's outcome as one line: the version and table count, or the server's text. */
export const testResultText = (result: ConnectionResult, t: Translate): FormActionResult =>
  result.ok
    ? { ok: true, text: t('develop.datasource.testOk', { ...result.info }) }
    : { ok: false, text: result.message }

/**
 * `showTest` shows the outcome of a row's connection test (the page owns the dialog it opens).
 */
export function datasourceConfig(
  t: Translate,
  showTest: (row: Datasource, result: FormActionResult) => void,
): CrudConfig<Datasource> {
  return {
    menuCode: 'datasource',
    api: datasourceApi,
    addDefaults: { category: sqlite },
    fields: [
      { name: 'id', label: 'develop.datasource.name', hideInTable: true, hideInForm: true },
      {
        name: 'name',
        label: 'develop.datasource.name',
        required: 'develop.datasource.nameRequired',
        max: 64,
        search: true,
      },
      {
        name: 'category',
        label: 'develop.datasource.category',
        type: 'select',
        required: 'develop.datasource.categoryRequired',
        search: true,
        width: 130,
        options: [
          { value: sqlite, label: 'develop.datasource.sqlite' },
          { value: postgres, label: 'develop.datasource.postgres' },
        ],
      },
      {
        name: 'url',
        label: 'develop.datasource.url',
        required: 'develop.datasource.urlRequired',
        max: 255,
        extra: 'develop.datasource.urlHint',
        dependencies: ['category'],
        // The server decides in the end; these catch the usual slip (a path for SQLite) at once.
        rules: (tr) => [
          ({ getFieldValue }) => ({
            validator: (_rule, value: unknown) => {
              const url = typeof value === 'string' ? value.trim() : ''
              if (url === '') return Promise.resolve()
              if (getFieldValue('category') === sqlite && /[/\\]|\.\./.test(url))
                return Promise.reject(new Error(tr('develop.datasource.urlFile')))
              if (getFieldValue('category') === postgres && !/^postgres(ql)?:\/\//i.test(url))
                return Promise.reject(new Error(tr('develop.datasource.urlPostgres')))
              return Promise.resolve()
            },
          }),
        ],
      },
      {
        name: 'username',
        label: 'develop.datasource.username',
        max: 64,
        hideInTable: true,
        visibleIf: isPostgres,
      },
      {
        name: 'password',
        label: 'develop.datasource.password',
        type: 'password',
        max: 128,
        hideInTable: true,
        modes: ['add', 'edit'],
        visibleIf: isPostgres,
        // Write-only: the answer only says whether one is stored.
        extra: (record, mode) =>
          mode === 'edit'
            ? record.passwordSet === true
              ? 'develop.datasource.passwordSet'
              : 'develop.datasource.passwordNotSet'
            : undefined,
      },
      {
        name: 'passwordSet',
        label: 'develop.datasource.passwordState',
        hideInForm: true,
        width: 90,
        render: (value, row) =>
          row.category === postgres
            ? t(value === true ? 'develop.datasource.set' : 'develop.datasource.notSet')
            : '—',
      },
      { name: 'remark', label: 'develop.remark', type: 'textarea', max: 255, hideInTable: true },
      { name: 'createTime', label: 'develop.createTime', hideInForm: true, width: 170 },
    ],
    // A SQLite file has no account: nothing typed for PostgreSQL before switching is kept.
    beforeSubmit: (body) =>
      body.category === sqlite ? { ...body, username: null, password: null } : body,
    formActions: [
      {
        key: 'test',
        label: 'develop.datasource.test',
        validates: ['category', 'url'],
        run: async (values, id) => {
          const pg = values.category === postgres
          const result = await testConnection({
            id,
            category: Number(values.category),
            url: typeof values.url === 'string' ? values.url.trim() : '',
            username: pg ? (values.username as string | undefined) : undefined,
            password: pg ? (values.password as string | undefined) : undefined,
          })
          return testResultText(result, t)
        },
      },
    ],
    rowActions: [
      {
        key: 'test',
        label: 'develop.datasource.test',
        permission: 'datasource_edit',
        run: (row) => {
          void testConnection({
            id: row.id,
            category: row.category,
            url: row.url,
            username: row.username,
          }).then((result) => showTest(row, testResultText(result, t)))
        },
      },
    ],
  }
}
