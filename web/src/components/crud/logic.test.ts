import dayjs from 'dayjs'
import { describe, expect, it } from 'vitest'
import {
  buildListQuery,
  bulkDeleteAction,
  crudPermissions,
  defaultPageSize,
  fieldRules,
  fieldsIn,
  formValues,
  localText,
  optionLabel,
  pageAfterDelete,
  pageSizeOptions,
  permittedActions,
  submitPayload,
  textOf,
  triggerOf,
} from './logic'
import type { CrudField } from './types'

const fields: CrudField[] = [
  { name: 'id', label: 'param.paramName', hideInForm: true, hideInTable: true },
  {
    name: 'paramName',
    label: 'param.paramName',
    required: 'param.paramNameRequired',
    search: true,
  },
  { name: 'paramKey', label: 'param.paramKey', search: true },
  { name: 'paramValue', label: 'param.paramValue', type: 'textarea' },
  {
    name: 'category',
    label: 'post.category',
    type: 'select',
    search: true,
    options: [
      { value: 1, label: 'post.senior' },
      { value: 2, label: 'post.middle' },
    ],
  },
  { name: 'createTime', label: 'crud.createTime', type: 'dateRange', search: true },
]

const t = (key: string, options?: Record<string, unknown>) =>
  options ? `${key}${JSON.stringify(options)}` : key

describe('buildListQuery', () => {
  it('sends current and size, and leaves empty filters out', () => {
    expect(buildListQuery(fields, {}, { current: 1, size: 10 })).toEqual({ current: 1, size: 10 })
    expect(
      buildListQuery(
        fields,
        { paramName: '  ', paramKey: undefined, category: null, createTime: null },
        { current: 3, size: 50 },
      ),
    ).toEqual({ current: 3, size: 50 })
  })

  it('sends text filters as plain name=value (trimmed), selects as their value', () => {
    expect(
      buildListQuery(
        fields,
        { paramName: ' 站点 ', paramKey: 'site.', category: 2, paramValue: 'not searchable' },
        { current: 1, size: 10 },
      ),
    ).toEqual({ current: 1, size: 10, paramName: '站点', paramKey: 'site.', category: 2 })
  })

  it('turns a date range into _datege from the first day and _datelt the day after the last', () => {
    const query = buildListQuery(
      fields,
      { createTime: [dayjs('2024-03-01 15:20:00'), dayjs('2024-03-31 08:00:00')] },
      { current: 1, size: 10 },
    )
    expect(query).toEqual({
      current: 1,
      size: 10,
      createTime_datege: '2024-03-01 00:00:00',
      createTime_datelt: '2024-04-01 00:00:00',
    })
  })
})

describe('submitPayload', () => {
  it('inserts without an id', () => {
    const body = submitPayload(fields, { id: 'stale', paramName: 'a', paramKey: 'k' })
    expect(body).toEqual({ paramName: 'a', paramKey: 'k', paramValue: null, category: null })
    expect('id' in body).toBe(false)
  })

  it('updates with the edited record id', () => {
    expect(submitPayload(fields, { paramName: 'a', paramKey: 'k', paramValue: 'v' }, '42')).toEqual(
      { id: '42', paramName: 'a', paramKey: 'k', paramValue: 'v', category: null },
    )
  })
})

describe('crudPermissions', () => {
  it('reads {menuCode}_add/_edit/_delete/_view from the permission map', () => {
    expect(
      crudPermissions('param', { param_add: true, param_view: true, post_edit: true }),
    ).toEqual({ add: true, edit: false, delete: false, view: true })
    expect(crudPermissions('post', {})).toEqual({
      add: false,
      edit: false,
      delete: false,
      view: false,
    })
  })
})

describe('bulk delete', () => {
  it('warns with nothing selected', () => {
    expect(bulkDeleteAction([])).toEqual({ kind: 'warn', message: 'crud.selectOne' })
  })
  it('confirms the selected ids', () => {
    expect(bulkDeleteAction(['1', '2'])).toEqual({ kind: 'confirm', ids: ['1', '2'] })
  })
  it('goes back a page when the last rows of a page go', () => {
    expect(pageAfterDelete(3, 2, 2)).toBe(2)
    expect(pageAfterDelete(3, 5, 2)).toBe(3)
    expect(pageAfterDelete(1, 1, 1)).toBe(1)
  })
})

describe('paging and rules', () => {
  it('pages by 10 by default with the spec options', () => {
    expect(defaultPageSize).toBe(10)
    expect([...pageSizeOptions]).toEqual([10, 30, 50, 100, 200])
  })

  it('builds required and length rules with the declared messages', () => {
    expect(fieldRules(fields[1], t)).toEqual([
      { required: true, whitespace: true, message: 'param.paramNameRequired' },
    ])
    const code: CrudField = { name: 'postCode', label: 'post.postCode', max: 12 }
    expect(fieldRules(code, t)).toEqual([
      { max: 12, message: 'crud.maxLength{"label":"post.postCode","max":12}' },
    ])
  })

  it('validates on blur by default and selects on change', () => {
    expect(triggerOf(fields[1])).toBe('onBlur')
    expect(triggerOf(fields[4])).toBe('onChange')
    expect(triggerOf({ ...fields[1], trigger: 'change' })).toBe('onChange')
  })

  it('shows select values by their label', () => {
    expect(optionLabel(fields[4], 2, t)).toBe('post.middle')
    expect(optionLabel(fields[4], '1', t)).toBe('post.senior')
    expect(optionLabel(fields[4], 9, t)).toBe('9')
    expect(optionLabel(fields[4], null, t)).toBe('')
  })
})

describe('multi-selections, dialog modes and extra actions', () => {
  const menuField: CrudField = {
    name: 'menuId',
    label: 'tenantPackage.menuId',
    type: 'treeSelect',
    multiple: true,
  }
  const withPassword: CrudField[] = [
    { name: 'account', label: 'user.account' },
    { name: 'password', label: 'user.password', type: 'password', modes: ['add'] },
    menuField,
  ]

  it('sends a multi-selection comma-joined (menuId "1,2,3") and shows it back as ids', () => {
    expect(submitPayload([menuField], { menuId: ['1', '2', '3'] })).toEqual({ menuId: '1,2,3' })
    expect(submitPayload([menuField], {})).toEqual({ menuId: '' })
    expect(formValues([menuField], { menuId: '1,2,3', packageName: 'p' })).toEqual({
      menuId: ['1', '2', '3'],
      packageName: 'p',
    })
  })

  it('turns numeric fields into numbers for the form', () => {
    const sex: CrudField = { name: 'sex', label: 'user.sex', type: 'select', numeric: true }
    expect(formValues([sex], { sex: '2' })).toEqual({ sex: 2 })
  })

  it('sends only the fields of the dialog mode: no password in an update', () => {
    expect(fieldsIn(withPassword, 'edit').map((f) => f.name)).toEqual(['account', 'menuId'])
    expect(
      submitPayload(withPassword, { account: 'a', password: 'secret', menuId: ['1'] }, '7'),
    ).toEqual({ id: '7', account: 'a', menuId: '1' })
    expect(submitPayload(withPassword, { account: 'a', password: 'secret' })).toEqual({
      account: 'a',
      password: 'secret',
      menuId: '',
    })
  })

  it('requires numbers and choices without checking them as text (sort 1, sealed 0 pass)', async () => {
    const sort: CrudField = {
      name: 'sort',
      label: 'dict.sort',
      type: 'number',
      required: 'dict.sortRequired',
    }
    const [rule] = fieldRules(sort, t)
    if (typeof rule === 'function' || !rule.validator) throw new Error('expected a validator')
    const run = (value: unknown) =>
      (rule.validator as (r: unknown, v: unknown) => Promise<void>)(rule, value)
    await expect(run(1)).resolves.toBeUndefined()
    await expect(run(0)).resolves.toBeUndefined()
    await expect(run(undefined)).rejects.toThrow('dict.sortRequired')
    await expect(run([])).rejects.toThrow('dict.sortRequired')
  })

  it('requires a field only in its modes', () => {
    const secret: CrudField = {
      name: 'clientSecret',
      label: 'client.clientSecret',
      required: 'client.clientSecretRequired',
      requiredIn: ['add'],
    }
    expect(fieldRules(secret, t, 'add')).toHaveLength(1)
    expect(fieldRules(secret, t, 'edit')).toHaveLength(0)
  })

  it('keeps the extra actions whose permission code is held, and honours `without`', () => {
    const actions = [
      { key: 'role', permission: 'user_role' },
      { key: 'reset', permission: 'user_reset' },
    ]
    expect(permittedActions(actions, { user_reset: true, role_grant: true })).toEqual([
      { key: 'reset', permission: 'user_reset' },
    ])
    expect(permittedActions(undefined, { user_reset: true })).toEqual([])
    expect(
      crudPermissions('tenantPackage', { tenantPackage_view: true, tenantPackage_add: true }, [
        'view',
      ]),
    ).toEqual({ add: true, edit: false, delete: false, view: false })
  })
})

describe('text a screen carries itself (LocalText)', () => {
  const text = { zh: '备件名称', en: 'Part name' }

  it('is read in the language shown: English for en and en-*, Chinese otherwise', () => {
    expect(localText(text, 'en')).toBe('Part name')
    expect(localText(text, 'en-US')).toBe('Part name')
    expect(localText(text, 'zh')).toBe('备件名称')
    expect(localText(text, 'zh-CN')).toBe('备件名称')
  })

  it('stands where a key does: labels, required messages, option labels', () => {
    expect(textOf('post.postName', t)).toBe('post.postName')
    const field: CrudField = {
      name: 'partName',
      label: text,
      required: { zh: '请输入备件名称', en: 'Please enter the part name' },
      max: 64,
      type: 'select',
      options: [{ value: 1, label: { zh: '组件', en: 'Module' } }],
    }
    expect(fieldRules(field, t).map((rule) => (rule as { message?: string }).message)).toEqual([
      '请输入备件名称',
      'crud.maxLength{"label":"备件名称","max":64}',
    ])
    expect(optionLabel(field, 1, t)).toBe('组件')
  })

  it('checks the bounds of a number field', async () => {
    const field: CrudField = {
      name: 'quantity',
      label: text,
      type: 'number',
      range: { min: 0, max: 10 },
    }
    const [rule] = fieldRules(field, t) as {
      validator: (r: unknown, v: unknown) => Promise<void>
    }[]
    await expect(rule.validator({}, 5)).resolves.toBeUndefined()
    await expect(rule.validator({}, undefined)).resolves.toBeUndefined()
    await expect(rule.validator({}, -1)).rejects.toThrow(
      'crud.minValue{"label":"备件名称","min":0}',
    )
    await expect(rule.validator({}, 11)).rejects.toThrow(
      'crud.maxValue{"label":"备件名称","max":10}',
    )
  })
})
