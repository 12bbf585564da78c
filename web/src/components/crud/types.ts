import type { Rule } from 'antd/es/form'
import type { ParseKeys } from 'i18next'
import type { ReactNode } from 'react'
import type { CrudApi, Entity } from '../../api/crud'
import type { PageQuery } from '../../api/types'
import type { TreeNode } from '../../api/tree'

/** An i18n key of the console's messages. */
export type MessageKey = ParseKeys

/** `t` narrowed to the console's keys (what the declarative parts need). */
export type Translate = (key: MessageKey, options?: Record<string, unknown>) => string

/**
 * Text a screen carries itself in both languages, where a message key would be: generated
 * business pages (`pages/business/*`) bring their own labels instead of adding to the locales.
 */
export interface LocalText {
  zh: string
  en: string
}

/** A declared text: a message key, or the screen's own text in both languages. */
export type Msg = MessageKey | LocalText

export type FieldType =
  'input' | 'textarea' | 'number' | 'select' | 'treeSelect' | 'password' | 'dateRange' | 'date'

export type DialogMode = 'add' | 'edit' | 'view'

/** What a field's own form input is told (it gets `value` and `onChange` from the form item). */
export interface FieldInputProps {
  mode: DialogMode
  /** Locked (a forced value, `lockedIn`); undefined when free. */
  disabled?: boolean
  /** `field-{name}`, as the built-in inputs carry. */
  testId: string
}

export interface FieldOption {
  value: string | number
  label: Msg
}

/** An option whose label is data (dictionary values, names), not a message key. */
export interface TextOption {
  value: string | number
  label: string
}

/**
 * One declared field of a CRUD screen: where it shows (table, form, search) and its rules.
 * `dateRange` fields are search-only: `createTime` filters as `createTime_datege` / `_datelt`.
 * `date` fields pick a day and hold it as `YYYY-MM-DD` text (the wire form of a day).
 */
export interface CrudField<T extends Entity = Entity> {
  name: Extract<keyof T, string> | (string & {})
  label: Msg
  /** Default `input`. */
  type?: FieldType
  /** Required, with this message. */
  required?: Msg
  /** Required only in these dialog modes (e.g. a password only when adding). */
  requiredIn?: readonly DialogMode[]
  /** At most this many characters (input, textarea). */
  max?: number
  /** Bounds of a `number` field (either may be absent). */
  range?: { min?: number; max?: number }
  /** Further rules (patterns, cross-field checks), after the required/length ones. */
  rules?: (t: Translate) => Rule[]
  /** Fields whose change re-runs this field's rules (a confirm password follows the password). */
  dependencies?: readonly string[]
  /** When rules run. Default `blur` (forms validate on blur); selects run on `change`. */
  trigger?: 'blur' | 'change'
  /** Fixed options with translated labels. */
  options?: readonly FieldOption[]
  /** Options from the dictionary of this code (`dict/dictionary?code=`), dictKey → dictValue. */
  dict?: string
  /** The value is a number on the wire (dictionary keys are strings; the entity holds numbers). */
  numeric?: boolean
  /** Options loaded when the form or page shows (names from other lists). */
  loadOptions?: () => Promise<TextOption[]>
  /** Nodes of a `treeSelect`, loaded when the form shows. */
  loadTree?: () => Promise<TreeNode[]>
  /** Select / tree select of several values, sent comma-joined ("1,2") as the contract wants. */
  multiple?: boolean
  /**
   * Tree select with check boxes (checking a parent checks its children). Saved with the
   * ancestors of what is checked, so a granted page keeps its parents; pre-checked from leaves.
   */
  checkable?: boolean
  /** Shown in the search form. */
  search?: boolean
  /** Not a table column (long texts, ids). */
  hideInTable?: boolean
  /** Not in the add/edit/view form. */
  hideInForm?: boolean
  /** In the form only in these modes (default all). */
  modes?: readonly DialogMode[]
  /** Shown but not editable in these modes (a key that must not change once saved). */
  lockedIn?: readonly DialogMode[]
  /** In the form only while the form's values satisfy this (the fields of one kind of record). */
  visibleIf?: (values: Record<string, unknown>) => boolean
  /** A hint under the form field; as a function it sees the record (a stored secret is set). */
  extra?: Msg | ((record: Record<string, unknown>, mode: DialogMode) => Msg | undefined)
  /**
   * The form input when no `type` fits (a picker fed by another field of the form): one element
   * taking `value` and `onChange`; `Form.useFormInstance()` reaches the other fields.
   */
  input?: (props: FieldInputProps) => ReactNode
  /** Column width. */
  width?: number
  /** Form field spans the whole dialog width (textareas do by default). */
  wide?: boolean
  /** Custom table cell. */
  render?(value: unknown, row: T): ReactNode
  /** Sorts the rows on screen by this column (a value the list does not sort by itself). */
  sorter?(a: T, b: T): number
}

/** What a toolbar or row action gets to work with. */
export interface ActionContext<T extends Entity> {
  /** The selected rows (toolbar actions). */
  selected: T[]
  selectedIds: string[]
  /** Reloads the list (same page, same filters). */
  reload: () => void
  /** Opens the add dialog with these values filled in (a child row's parent...). */
  openAdd: (initial?: Record<string, unknown>) => void
  /**
   * Asks `title`, then runs `run`; on success says "operation successful" and reloads. Errors are
   * toasted by the request client.
   */
  confirm: (title: MessageKey, run: () => Promise<unknown>) => void
}

/** A button beyond add/edit/view/delete, shown only with its permission code. */
export interface CrudAction {
  /** `data-testid` is `crud-action-{key}` (toolbar) or `crud-row-{key}` (row). */
  key: string
  label: MessageKey
  /** Full permission code, e.g. `user_reset`. */
  permission: string
  danger?: boolean
  icon?: ReactNode
}

export interface ToolbarAction<T extends Entity> extends CrudAction {
  /** Needs selected rows: with none it warns "please select at least one record". */
  needsSelection?: boolean
  run: (ctx: ActionContext<T>) => void
}

export interface RowAction<T extends Entity> extends CrudAction {
  /** Shown on this row only when true (default every row). */
  visible?: (row: T) => boolean
  run: (row: T, ctx: ActionContext<T>) => void
}

export type CrudButton = 'add' | 'edit' | 'delete' | 'view'

/** What a form action reports; the dialog shows it above the form until the next run. */
export interface FormActionResult {
  ok: boolean
  /** Shown as is (the server's own message, a summary). */
  text: string
}

/**
 * A button of the add/edit dialog beside save that works on the form as it stands (a connection
 * test of the values typed), without saving or closing it.
 */
export interface FormAction {
  /** `data-testid` is `crud-form-{key}`. */
  key: string
  label: MessageKey
  /** Fields checked by their rules first (nothing runs while one is wrong). */
  validates?: readonly string[]
  /** Gets the form's values and the id of the record being edited. */
  run: (values: Record<string, unknown>, id: string | undefined) => Promise<FormActionResult>
}

/** A declared CRUD screen: fields, the API family and the menu code its permissions hang on. */
export interface CrudConfig<T extends Entity = Entity> {
  /** Permission codes are `{menuCode}_add`, `_edit`, `_delete`, `_view`. */
  menuCode: string
  api: CrudApi<T>
  fields: readonly CrudField<T>[]
  /** Dialog width (default 720). */
  dialogWidth?: number
  /** Buttons this screen never offers, whatever the permissions (logs: no add/edit/delete). */
  without?: readonly CrudButton[]
  /**
   * A tree table: `list` answers every row at once (records nested in `children`), no paging.
   * With `loadChildren`, rows flagged `hasChildren` load their children when expanded.
   */
  tree?: { loadChildren?: (row: T) => Promise<T[]> }
  /** Values the add form starts with. */
  addDefaults?: Record<string, unknown>
  /** Last say on the submit body (drop a blank write-only secret, default a parent...). */
  beforeSubmit?: (body: Record<string, unknown>, mode: 'add' | 'edit') => Record<string, unknown>
  toolbar?: readonly ToolbarAction<T>[]
  rowActions?: readonly RowAction<T>[]
  /** Buttons of the add and edit dialogs beside save. */
  formActions?: readonly FormAction[]
  /**
   * Whether this row may be edited or deleted (default every row): a row shown read-only (another
   * tenant's, the platform's) gets no edit or delete button and cannot be picked for bulk delete.
   */
  rowEditable?: (row: T) => boolean
}

/** Props of the page component beyond its config. */
export interface CrudPageProps<T extends Entity> {
  config: CrudConfig<T>
  /** Filters always sent with the list (a parent id, the node picked in a side tree). */
  query?: PageQuery
  /** Values forced into every saved form and not editable there (a child's code and parent). */
  fixed?: Record<string, unknown>
}
