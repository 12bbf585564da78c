import {
  Alert,
  Button,
  DatePicker,
  Form,
  Input,
  InputNumber,
  Modal,
  Select,
  Space,
  TreeSelect,
} from 'antd'
import dayjs, { type Dayjs } from 'dayjs'
import type { TOptions } from 'i18next'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { checkedLeaves, splitIds, withAncestors } from '../../utils/tree'
import { fieldRules, textOf, triggerOf } from './logic'
import type {
  CrudField,
  DialogMode,
  FormAction,
  FormActionResult,
  MessageKey,
  Translate,
} from './types'
import { useFieldOptions, type LoadedOptions } from './useFieldOptions'

export type { DialogMode } from './types'

const dialogTitle: Record<DialogMode, MessageKey> = {
  add: 'crud.addTitle',
  edit: 'crud.editTitle',
  view: 'crud.viewTitle',
}

interface Props {
  /** The fields of this mode (memoised: their options load once per opening). */
  fields: readonly CrudField[]
  mode: DialogMode
  /** What the form starts with (the record, or the add defaults). */
  initialValues?: Record<string, unknown>
  /** Fields shown but not editable (forced values). */
  locked?: ReadonlySet<string>
  open: boolean
  width?: number
  /** Buttons beside save (add and edit only). */
  actions?: readonly FormAction[]
  /** The id of the record being edited. */
  id?: string
  onClose: () => void
  /** Saves the values; a rejection (the server refused, its toast shown) keeps the dialog open. */
  onSubmit: (values: Record<string, unknown>) => Promise<void>
}

/**
 * The add / edit / view dialog of a CRUD screen, built from the declared fields and their rules.
 * Mounted afresh for each opening (the page keys it), so its form starts from its own record.
 */
export default function CrudDialog({
  fields,
  mode,
  initialValues,
  locked,
  open,
  width,
  actions = [],
  id,
  onClose,
  onSubmit,
}: Props) {
  const { t } = useTranslation()
  const translate: Translate = (key, options) => t(key, options as TOptions)
  const [form] = Form.useForm<Record<string, unknown>>()
  const [saving, setSaving] = useState(false)
  const loaded = useFieldOptions(fields)
  const readOnly = mode === 'view'
  const [running, setRunning] = useState<string | null>(null)
  const [result, setResult] = useState<FormActionResult | null>(null)

  // A checkable tree pre-checks leaves only: a stored parent would otherwise check every child.
  useEffect(() => {
    for (const field of fields) {
      const tree = loaded.trees[field.name]
      if (!field.checkable || !tree) continue
      form.setFieldValue(field.name, checkedLeaves(tree, splitIds(form.getFieldValue(field.name))))
    }
  }, [fields, form, loaded.trees])

  const save = async () => {
    let values: Record<string, unknown>
    try {
      values = await form.validateFields()
    } catch {
      return // the form shows the messages
    }
    for (const field of fields) {
      const tree = loaded.trees[field.name]
      if (field.checkable && tree)
        values[field.name] = withAncestors(tree, splitIds(values[field.name]))
    }
    setSaving(true)
    try {
      await onSubmit(values)
    } catch {
      // shown by the request client; the dialog stays open
    } finally {
      setSaving(false)
    }
  }

  const runAction = async (action: FormAction) => {
    try {
      await form.validateFields(action.validates ? [...action.validates] : [])
    } catch {
      return // the form shows the messages
    }
    setRunning(action.key)
    setResult(null)
    try {
      setResult(await action.run(form.getFieldsValue(true) as Record<string, unknown>, id))
    } catch (error) {
      setResult({ ok: false, text: error instanceof Error ? error.message : String(error) })
    } finally {
      setRunning(null)
    }
  }

  const item = (field: CrudField) => {
    const extra =
      typeof field.extra === 'function' ? field.extra(initialValues ?? {}, mode) : field.extra
    return (
      <Form.Item
        key={field.name}
        name={field.name}
        label={textOf(field.label, translate)}
        extra={extra === undefined ? undefined : textOf(extra, translate)}
        rules={readOnly ? [] : fieldRules(field, translate, mode)}
        dependencies={field.dependencies ? [...field.dependencies] : undefined}
        validateTrigger={triggerOf(field)}
        {...(field.type === 'date' ? dayProps : {})}
      >
        {renderFormInput(
          field,
          translate,
          loaded,
          (field.lockedIn?.includes(mode) ?? false) || (locked?.has(field.name) ?? false),
          mode,
        )}
      </Form.Item>
    )
  }

  return (
    <Modal
      open={open}
      title={t(dialogTitle[mode])}
      width={width ?? 720}
      destroyOnHidden
      mask={{ closable: false }}
      onCancel={onClose}
      wrapClassName="crud-dialog"
      footer={
        readOnly ? (
          <Button onClick={onClose} data-testid="crud-close">
            {t('crud.close')}
          </Button>
        ) : (
          <Space wrap>
            {actions.map((action) => (
              <Button
                key={action.key}
                loading={running === action.key}
                onClick={() => void runAction(action)}
                data-testid={`crud-form-${action.key}`}
              >
                {t(action.label)}
              </Button>
            ))}
            <Button onClick={onClose} data-testid="crud-cancel">
              {t('crud.cancel')}
            </Button>
            <Button
              type="primary"
              loading={saving}
              onClick={() => void save()}
              data-testid="crud-submit"
            >
              {t('crud.submit')}
            </Button>
          </Space>
        )
      }
    >
      <Form
        form={form}
        layout="vertical"
        name="crud-form"
        disabled={readOnly}
        initialValues={initialValues}
        data-testid="crud-form"
      >
        {result && (
          <Alert
            type={result.ok ? 'success' : 'error'}
            showIcon
            style={{ marginBottom: 16 }}
            title={result.text}
            data-testid="crud-form-result"
            data-ok={result.ok}
          />
        )}
        {fields.map((field) => {
          const visibleIf = field.visibleIf
          if (!visibleIf) return item(field)
          // Re-checked on every change: the kind picked decides which fields the form has.
          return (
            <Form.Item key={field.name} noStyle shouldUpdate>
              {() =>
                visibleIf(form.getFieldsValue(true) as Record<string, unknown>) ? item(field) : null
              }
            </Form.Item>
          )
        })}
      </Form>
    </Modal>
  )
}

/** A `date` field holds `YYYY-MM-DD` text; the picker works on dayjs values. */
const dayFormat = 'YYYY-MM-DD'
const dayProps = {
  getValueProps: (value: unknown) => ({
    value: typeof value === 'string' && value !== '' ? dayjs(value, dayFormat) : undefined,
  }),
  normalize: (value: Dayjs | null | undefined) => (value ? value.format(dayFormat) : null),
}

function renderFormInput(
  field: CrudField,
  t: Translate,
  loaded: LoadedOptions,
  locked: boolean,
  mode: DialogMode,
) {
  // Undefined, not false, when free: an explicit false would override the read-only form.
  const disabled = locked || undefined
  const testId = `field-${field.name}`
  if (field.input) return field.input({ mode, disabled, testId })
  const label = textOf(field.label, t)
  const placeholder = t('crud.placeholder', { label })
  const choose = t('crud.selectPlaceholder', { label })
  switch (field.type) {
    case 'textarea':
      return (
        <Input.TextArea
          data-testid={testId}
          rows={4}
          placeholder={placeholder}
          disabled={disabled}
        />
      )
    case 'password':
      return (
        <Input.Password
          data-testid={testId}
          placeholder={placeholder}
          disabled={disabled}
          autoComplete="new-password"
        />
      )
    case 'number':
      return (
        <InputNumber
          data-testid={testId}
          style={{ width: '100%' }}
          placeholder={placeholder}
          disabled={disabled}
          min={field.range?.min}
          max={field.range?.max}
        />
      )
    case 'date':
      return (
        <DatePicker
          data-testid={testId}
          style={{ width: '100%' }}
          placeholder={choose}
          disabled={disabled}
        />
      )
    case 'select':
      return (
        <Select
          data-testid={testId}
          placeholder={choose}
          disabled={disabled}
          allowClear={!field.required}
          mode={field.multiple ? 'multiple' : undefined}
          options={
            field.options?.map((option) => ({
              value: option.value,
              label: textOf(option.label, t),
            })) ??
            loaded.options[field.name] ??
            []
          }
        />
      )
    case 'treeSelect':
      return (
        <TreeSelect
          data-testid={testId}
          placeholder={choose}
          disabled={disabled}
          allowClear={!field.required}
          showSearch={{ treeNodeFilterProp: 'title' }}
          multiple={field.multiple}
          treeCheckable={field.checkable}
          showCheckedStrategy={field.checkable ? TreeSelect.SHOW_ALL : undefined}
          treeData={loaded.trees[field.name] ?? []}
          styles={{ popup: { root: { maxHeight: 400, overflow: 'auto' } } }}
        />
      )
    default:
      return <Input data-testid={testId} placeholder={placeholder} disabled={disabled} />
  }
}
