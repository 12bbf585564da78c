/** The declarative CRUD screen's logic, free of React: queries, payloads, permissions, rules. */
import type { Rule } from 'antd/es/form'
import type { Dayjs } from 'dayjs'
import type { Entity } from '../../api/crud'
import type { PageQuery } from '../../api/types'
import type { CrudField, MessageKey } from './types'

/** Spec §9: default page size 10; options 10, 30, 50, 100, 200. */
export const defaultPageSize = 10
export const pageSizeOptions = [10, 30, 50, 100, 200] as const

/** Date-time format of the wire (api conventions). */
export const wireDateTime = 'YYYY-MM-DD HH:mm:ss'

export type SearchValues = Record<string, unknown>

const isDayjs = (value: unknown): value is Dayjs =>
  value !== null && typeof value === 'object' && 'isValid' in value && 'format' in value

/**
 * Search form values → list query. Empty values are left out; text filters are sent as plain
 * `name=value` (the server treats it as "contains"); a date range `[from, to]` on `createTime`
 * becomes `createTime_datege=<from 00:00:00>` and `createTime_datelt=<the day after to, 00:00:00>`,
 * so the last chosen day is included.
 */
export function buildListQuery(
  fields: readonly CrudField[],
  values: SearchValues,
  page: { current: number; size: number },
): PageQuery {
  const query: PageQuery = { current: page.current, size: page.size }
  for (const field of fields) {
    if (!field.search) continue
    const value = values[field.name]
    if (field.type === 'dateRange') {
      if (!Array.isArray(value)) continue
      const [from, to] = value as unknown[]
      if (isDayjs(from) && from.isValid()) {
        query[`${field.name}_datege`] = from.startOf('day').format(wireDateTime)
      }
      if (isDayjs(to) && to.isValid()) {
        query[`${field.name}_datelt`] = to.add(1, 'day').startOf('day').format(wireDateTime)
      }
      continue
    }
    if (value === undefined || value === null) continue
    if (typeof value === 'string') {
      const text = value.trim()
      if (text !== '') query[field.name] = text
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      query[field.name] = value
    }
  }
  return query
}

/** Form values → submit body: without `id` inserts; editing sends the record's `id` (update). */
export function submitPayload<T extends Entity>(
  fields: readonly CrudField[],
  values: Record<string, unknown>,
  editingId?: string,
): T {
  const body: Record<string, unknown> = {}
  for (const field of fields) {
    if (field.hideInForm || field.type === 'dateRange' || field.name === 'id') continue
    const value = values[field.name]
    body[field.name] = value === undefined ? null : value
  }
  if (editingId !== undefined && editingId !== '') body.id = editingId
  return body as T
}

export interface CrudPermissions {
  add: boolean
  edit: boolean
  delete: boolean
  view: boolean
}

/** Buttons a user may see: `{menuCode}_add|_edit|_delete|_view` in the permission map. */
export function crudPermissions(
  menuCode: string,
  permission: Readonly<Record<string, true | undefined>>,
): CrudPermissions {
  const has = (action: string) => permission[`${menuCode}_${action}`] === true
  return { add: has('add'), edit: has('edit'), delete: has('delete'), view: has('view') }
}

/** What bulk delete does with the current selection: warn on none, else confirm these ids. */
export function bulkDeleteAction(
  selected: readonly string[],
): { kind: 'warn'; message: MessageKey } | { kind: 'confirm'; ids: string[] } {
  return selected.length === 0
    ? { kind: 'warn', message: 'crud.selectOne' }
    : { kind: 'confirm', ids: [...selected] }
}

type Translate = (key: MessageKey, options?: Record<string, unknown>) => string

/** The validation trigger of a field: blur (spec §5) unless declared, selects on change. */
export const triggerOf = (field: CrudField): 'onBlur' | 'onChange' =>
  (field.trigger ?? (field.type === 'select' ? 'change' : 'blur')) === 'blur'
    ? 'onBlur'
    : 'onChange'

/** antd rules of a declared field, with the messages of the declaration. */
export function fieldRules(field: CrudField, t: Translate): Rule[] {
  const rules: Rule[] = []
  if (field.required) {
    rules.push({
      required: true,
      whitespace: field.type !== 'number' && field.type !== 'select',
      message: t(field.required),
    })
  }
  if (field.max !== undefined) {
    rules.push({
      max: field.max,
      message: t('crud.maxLength', { label: t(field.label), max: field.max }),
    })
  }
  return rules
}

/** The label of a select value (table cells, view). */
export function optionLabel(field: CrudField, value: unknown, t: Translate): string {
  const option = field.options?.find((item) => String(item.value) === String(value))
  if (option) return t(option.label)
  return typeof value === 'string' || typeof value === 'number' ? String(value) : ''
}

/** Where the list goes after deleting `removed` rows from a page of `onPage`: back a page when emptied. */
export const pageAfterDelete = (current: number, onPage: number, removed: number): number =>
  current > 1 && removed >= onPage ? current - 1 : current
