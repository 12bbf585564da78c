import { DeleteOutlined, PlusOutlined } from '@ant-design/icons'
import { App, Button, Form, Input, Modal, Space } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { InspectItem, InspectItemBody } from '../../api/inspection/types'
import { cleanChecks, MAX_CHECK, MAX_CHECKS, MAX_TITLE } from './logic'
import { usePhone } from './hooks'

interface Values {
  title?: string
  checkItems?: (string | undefined)[]
  remark?: string
}

/**
 * Add or edit an inspection item: a title and a dynamic list of check items (at least one). Used
 * by the item list and, through `save`, inline in the plan form (`saveItemAndReturn`).
 */
export default function ItemDialog({
  item,
  save,
  onClose,
  onSaved,
}: {
  /** null: a new item. */
  item: InspectItem | null
  save: (body: InspectItemBody) => Promise<InspectItem>
  onClose: () => void
  onSaved: (item: InspectItem) => void
}) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const phone = usePhone()
  const [form] = Form.useForm<Values>()
  const [busy, setBusy] = useState(false)

  const submit = async () => {
    const values = await form.validateFields().catch(() => null)
    if (!values) return
    setBusy(true)
    try {
      const remark = values.remark?.trim()
      const saved = await save({
        ...(item ? { id: item.id } : {}),
        title: (values.title ?? '').trim(),
        checkItems: cleanChecks(values.checkItems ?? []),
        ...(remark ? { remark } : {}),
      })
      void message.success(t('inspection.message.saved'))
      onSaved(saved)
    } catch (error) {
      void message.error(error instanceof Error ? error.message : String(error))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Modal
      open
      title={t(item ? 'inspection.title.itemEdit' : 'inspection.title.itemAdd')}
      onCancel={onClose}
      width={phone ? '100%' : 640}
      style={phone ? { top: 0, maxWidth: '100vw', padding: 0 } : undefined}
      destroyOnHidden
      footer={[
        <Button key="cancel" data-testid="item-cancel" onClick={onClose}>
          {t('inspection.action.cancel')}
        </Button>,
        <Button
          key="ok"
          type="primary"
          loading={busy}
          data-testid="item-submit"
          onClick={() => void submit()}
        >
          {t('inspection.action.save')}
        </Button>,
      ]}
    >
      <Form<Values>
        form={form}
        layout="vertical"
        data-testid="item-form"
        initialValues={{
          title: item?.title ?? '',
          checkItems: item && item.checkItems.length > 0 ? item.checkItems : [''],
          remark: item?.remark ?? '',
        }}
      >
        <Form.Item
          name="title"
          label={t('inspection.field.title')}
          rules={[
            { required: true, whitespace: true, message: t('inspection.rule.titleRequired') },
            { max: MAX_TITLE, message: t('inspection.rule.titleTooLong', { max: MAX_TITLE }) },
          ]}
        >
          <Input
            data-testid="item-title"
            placeholder={t('inspection.placeholder.title')}
            maxLength={MAX_TITLE}
          />
        </Form.Item>
        <Form.List
          name="checkItems"
          rules={[
            {
              validator: (_, checks: (string | undefined)[] | undefined) => {
                const clean = cleanChecks(checks ?? [])
                if (clean.length === 0)
                  return Promise.reject(new Error(t('inspection.rule.checkRequired')))
                if (clean.length > MAX_CHECKS)
                  return Promise.reject(
                    new Error(t('inspection.rule.tooManyChecks', { max: MAX_CHECKS })),
                  )
                return Promise.resolve()
              },
            },
          ]}
        >
          {(fields, { add, remove }, { errors }) => (
            <Form.Item label={t('inspection.field.checkItems')} required>
              {fields.map((field, index) => (
                <Space.Compact key={field.key} style={{ width: '100%', marginBottom: 8 }}>
                  <Form.Item
                    name={field.name}
                    noStyle
                    rules={[
                      {
                        max: MAX_CHECK,
                        message: t('inspection.rule.checkTooLong', { max: MAX_CHECK }),
                      },
                    ]}
                  >
                    <Input
                      data-testid={`item-check-${index}`}
                      placeholder={`${index + 1}. ${t('inspection.placeholder.check')}`}
                      maxLength={MAX_CHECK}
                    />
                  </Form.Item>
                  <Button
                    aria-label={t('inspection.action.removeCheck')}
                    icon={<DeleteOutlined />}
                    data-testid={`item-check-remove-${index}`}
                    disabled={fields.length === 1}
                    onClick={() => remove(field.name)}
                  />
                </Space.Compact>
              ))}
              <Button
                type="dashed"
                block
                icon={<PlusOutlined />}
                data-testid="item-check-add"
                disabled={fields.length >= MAX_CHECKS}
                onClick={() => add('')}
              >
                {t('inspection.action.addCheck')}
              </Button>
              <Form.ErrorList errors={errors} />
            </Form.Item>
          )}
        </Form.List>
        <Form.Item name="remark" label={t('inspection.field.remark')}>
          <Input.TextArea
            data-testid="item-remark"
            rows={2}
            maxLength={500}
            placeholder={t('inspection.placeholder.remark')}
          />
        </Form.Item>
      </Form>
    </Modal>
  )
}
