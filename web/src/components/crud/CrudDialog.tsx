import { Button, Form, Input, InputNumber, Modal, Select, Space } from 'antd'
import type { TOptions } from 'i18next'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { fieldRules, triggerOf } from './logic'
import type { CrudField, MessageKey, Translate } from './types'

export type DialogMode = 'add' | 'edit' | 'view'

const dialogTitle: Record<DialogMode, MessageKey> = {
  add: 'crud.addTitle',
  edit: 'crud.editTitle',
  view: 'crud.viewTitle',
}

interface Props<T> {
  fields: readonly CrudField[]
  mode: DialogMode
  record?: T
  open: boolean
  width?: number
  onClose: () => void
  /** Saves the values; a rejection (the server refused, its toast shown) keeps the dialog open. */
  onSubmit: (values: Record<string, unknown>) => Promise<void>
}

/**
 * The add / edit / view dialog of a CRUD screen, built from the declared fields and their rules.
 * Mounted afresh for each opening (the page keys it), so its form starts from its own record.
 */
export default function CrudDialog<T extends object>({
  fields,
  mode,
  record,
  open,
  width,
  onClose,
  onSubmit,
}: Props<T>) {
  const { t } = useTranslation()
  const translate: Translate = (key, options) => t(key, options as TOptions)
  const [form] = Form.useForm<Record<string, unknown>>()
  const [saving, setSaving] = useState(false)
  const readOnly = mode === 'view'

  const save = async () => {
    let values: Record<string, unknown>
    try {
      values = await form.validateFields()
    } catch {
      return // the form shows the messages
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
          <Space>
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
        initialValues={record}
        data-testid="crud-form"
      >
        {fields.map((field) => (
          <Form.Item
            key={field.name}
            name={field.name}
            label={t(field.label)}
            rules={fieldRules(field, translate)}
            validateTrigger={triggerOf(field)}
          >
            {renderFormInput(field, translate)}
          </Form.Item>
        ))}
      </Form>
    </Modal>
  )
}

function renderFormInput(field: CrudField, t: Translate) {
  const testId = `field-${field.name}`
  const placeholder = t('crud.placeholder', { label: t(field.label) })
  switch (field.type) {
    case 'textarea':
      return <Input.TextArea data-testid={testId} rows={4} placeholder={placeholder} />
    case 'number':
      return (
        <InputNumber data-testid={testId} style={{ width: '100%' }} placeholder={placeholder} />
      )
    case 'select':
      return (
        <Select
          data-testid={testId}
          placeholder={t('crud.selectPlaceholder', { label: t(field.label) })}
          options={field.options?.map((option) => ({
            value: option.value,
            label: t(option.label),
          }))}
        />
      )
    default:
      return <Input data-testid={testId} placeholder={placeholder} />
  }
}
