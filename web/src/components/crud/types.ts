import type { ParseKeys } from 'i18next'
import type { CrudApi, Entity } from '../../api/crud'

/** An i18n key of the console's messages. */
export type MessageKey = ParseKeys

/** `t` narrowed to the console's keys (what the declarative parts need). */
export type Translate = (key: MessageKey, options?: Record<string, unknown>) => string

export type FieldType = 'input' | 'textarea' | 'number' | 'select' | 'dateRange'

export interface FieldOption {
  value: string | number
  label: MessageKey
}

/**
 * One declared field of a CRUD screen: where it shows (table, form, search) and its rules.
 * `dateRange` fields are search-only: `createTime` filters as `createTime_datege` / `_datelt`.
 */
export interface CrudField<T extends Entity = Entity> {
  name: Extract<keyof T, string> | (string & {})
  label: MessageKey
  /** Default `input`. */
  type?: FieldType
  /** Required, with this message. */
  required?: MessageKey
  /** At most this many characters (input, textarea). */
  max?: number
  /** When rules run. Default `blur` (spec §5); selects run on `change`. */
  trigger?: 'blur' | 'change'
  options?: readonly FieldOption[]
  /** Shown in the search form. */
  search?: boolean
  /** Not a table column (long texts, ids). */
  hideInTable?: boolean
  /** Not in the add/edit/view form. */
  hideInForm?: boolean
  /** Column width. */
  width?: number
  /** Form field spans the whole dialog width (textareas do by default). */
  wide?: boolean
}

/** A declared CRUD screen: fields, the API family and the menu code its permissions hang on. */
export interface CrudConfig<T extends Entity = Entity> {
  /** Permission codes are `{menuCode}_add`, `_edit`, `_delete`, `_view`. */
  menuCode: string
  api: CrudApi<T>
  fields: readonly CrudField<T>[]
  /** Dialog width (default 720). */
  dialogWidth?: number
}
