/** The declarative CRUD screen's logic, free of React: queries, payloads, permissions, rules. */
import type { Rule } from 'antd/es/form'
import type { Dayjs } from 'dayjs'
import type { Entity } from '../../api/crud'
import type { PageQuery } from '../../api/types'
import i18n from '../../locales/i18n'
import { joinIds, splitIds } from '../../utils/tree'
import type {
  CrudButton,
  CrudField,
  DialogMode,
  LocalText,
  MessageKey,
  Msg,
  TextOption,
} from './types'

/** A screen's own text in the language the console shows (zh unless English is chosen). */
export const localText = (text: LocalText, language: string = i18n.language): string =>
  language === 'en' || language.startsWith('en-') ? text.en : text.zh

/** A declared text: a message key through `t`, a screen's own text in the current language. */
export const textOf = (msg: Msg, t: Translate, options?: Record<string, unknown>): string =>
  typeof msg === 'string' ? t(msg, options) : localText(msg)

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

/** The fields a dialog of this mode shows. */
export const fieldsIn = <F extends CrudField>(fields: readonly F[], mode: DialogMode): F[] =>
  fields.filter(
    (field) =>
      !field.hideInForm &&
      field.type !== 'dateRange' &&
      field.name !== 'id' &&
      (field.modes === undefined || field.modes.includes(mode)),
  )

/**
 * Form values → submit body: without `id` inserts; editing sends the record's `id` (update).
 * Only the fields of the dialog's mode are sent (a password field of the add form is not part of
 * an update); multi-selections go comma-joined ("1,2"), as the contract's `menuId`, `roleId`...
 */
export function submitPayload<T extends Entity>(
  fields: readonly CrudField[],
  values: Record<string, unknown>,
  editingId?: string,
  mode: DialogMode = editingId ? 'edit' : 'add',
): T {
  const body: Record<string, unknown> = {}
  for (const field of fieldsIn(fields, mode)) {
    const value = values[field.name]
    if (field.multiple) body[field.name] = joinIds(value)
    else body[field.name] = value === undefined ? null : value
  }
  if (editingId !== undefined && editingId !== '') body.id = editingId
  return body as T
}

/** A record → the form's values: comma-joined ids become arrays, numeric values numbers. */
export function formValues(
  fields: readonly CrudField[],
  record: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const values: Record<string, unknown> = { ...(record ?? {}) }
  for (const field of fields) {
    const value = values[field.name]
    if (value === undefined || value === null) continue
    if (field.multiple) values[field.name] = splitIds(value)
    else if (field.numeric && typeof value === 'string' && value.trim() !== '') {
      const number = Number(value)
      if (!Number.isNaN(number)) values[field.name] = number
    }
  }
  return values
}

export interface CrudPermissions {
  add: boolean
  edit: boolean
  delete: boolean
  view: boolean
}

/**
 * Buttons a user may see: `{menuCode}_add|_edit|_delete|_view` in the permission map, less the
 * buttons the screen never offers (`without`).
 */
export function crudPermissions(
  menuCode: string,
  permission: Readonly<Record<string, true | undefined>>,
  without: readonly CrudButton[] = [],
): CrudPermissions {
  const has = (action: CrudButton) =>
    !without.includes(action) && permission[`${menuCode}_${action}`] === true
  return { add: has('add'), edit: has('edit'), delete: has('delete'), view: has('view') }
}

/** The extra actions whose permission code the user holds (the others are not shown at all). */
export const permittedActions = <A extends { permission: string }>(
  actions: readonly A[] | undefined,
  permission: Readonly<Record<string, true | undefined>>,
): A[] => (actions ?? []).filter((action) => permission[action.permission] === true)

/** What bulk delete does with the current selection: warn on none, else confirm these ids. */
export function bulkDeleteAction(
  selected: readonly string[],
): { kind: 'warn'; message: MessageKey } | { kind: 'confirm'; ids: string[] } {
  return selected.length === 0
    ? { kind: 'warn', message: 'crud.selectOne' }
    : { kind: 'confirm', ids: [...selected] }
}

type Translate = (key: MessageKey, options?: Record<string, unknown>) => string

/** The validation trigger of a field: blur (forms validate on blur) unless declared, selects on change. */
export const triggerOf = (field: CrudField): 'onBlur' | 'onChange' =>
  (field.trigger ??
    (['select', 'treeSelect'].includes(field.type ?? 'input') ? 'change' : 'blur')) === 'blur'
    ? 'onBlur'
    : 'onChange'

/** No value: nothing chosen or typed (0 is a value). */
const isBlank = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0)

/** antd rules of a declared field (in a dialog of `mode`), with the messages of the declaration. */
export function fieldRules(field: CrudField, t: Translate, mode: DialogMode = 'add'): Rule[] {
  const rules: Rule[] = []
  if (field.required && (field.requiredIn === undefined || field.requiredIn.includes(mode))) {
    const text = !['number', 'select', 'treeSelect'].includes(field.type ?? 'input')
    // A rule without a type checks for a string, and its message would then also report a number
    // or a chosen option (sort 1, sealed 0) as missing: non-text fields only need a value.
    const message = textOf(field.required, t)
    rules.push(
      text
        ? { required: true, whitespace: true, message }
        : {
            required: true,
            message,
            validator: (_rule, value: unknown) =>
              isBlank(value) ? Promise.reject(new Error(message)) : Promise.resolve(),
          },
    )
  }
  if (field.max !== undefined) {
    rules.push({
      max: field.max,
      message: t('crud.maxLength', { label: textOf(field.label, t), max: field.max }),
    })
  }
  const { min, max } = field.range ?? {}
  if (min !== undefined || max !== undefined) {
    const label = textOf(field.label, t)
    rules.push({
      validator: (_rule, value: unknown) => {
        if (typeof value !== 'number') return Promise.resolve()
        if (min !== undefined && value < min)
          return Promise.reject(new Error(t('crud.minValue', { label, min })))
        if (max !== undefined && value > max)
          return Promise.reject(new Error(t('crud.maxValue', { label, max })))
        return Promise.resolve()
      },
    })
  }
  if (field.rules) rules.push(...field.rules(t))
  return rules
}

/**
 * The label of a select value (table cells): a fixed option's translation, else a loaded option's
 * text; several comma-joined values give their labels comma-joined.
 */
export function optionLabel(
  field: CrudField,
  value: unknown,
  t: Translate,
  loaded: readonly TextOption[] = [],
): string {
  const one = (item: string): string => {
    const fixed = field.options?.find((option) => String(option.value) === item)
    if (fixed) return textOf(fixed.label, t)
    return loaded.find((option) => String(option.value) === item)?.label ?? item
  }
  if (typeof value !== 'string' && typeof value !== 'number') return ''
  return field.multiple ? splitIds(value).map(one).join(',') : one(String(value))
}

/** Where the list goes after deleting `removed` rows from a page of `onPage`: back a page when emptied. */
export const pageAfterDelete = (current: number, onPage: number, removed: number): number =>
  current > 1 && removed >= onPage ? current - 1 : current
