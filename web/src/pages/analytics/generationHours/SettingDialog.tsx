import { App, Form, InputNumber, Modal, Spin } from 'antd'
import type { Rule } from 'antd/es/form'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { hdaySettingQuery } from '../../../api/analytics/queries'
import { useTranslation } from 'react-i18next'
import { putHdaySetting, type HdaySetting } from '../../../api/analytics/hdayRate'
import { validateHdaySetting } from './logic'

export interface HdaySettingDialogProps {
  open: boolean
  onClose: () => void
  onSaved: () => void
}

/** The tenant's deviation threshold (`GET/PUT /api/hdayRate/setting`). */
export default function HdaySettingDialog({ open, onClose, onSaved }: HdaySettingDialogProps) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<HdaySetting>()
  // Read each time the dialog opens; a failure leaves the defaults (shown by the request client).
  const setting = useQuery({ ...hdaySettingQuery(), enabled: open })
  const loading = open && setting.isFetching
  const close = onClose
  const [saving, setSaving] = useState(false)

  // Each answer (also one equal to the cached value) fills the form once the dialog shows.
  const { data, dataUpdatedAt } = setting
  useEffect(() => {
    if (open && data) form.setFieldsValue(data)
  }, [open, data, dataUpdatedAt, form])

  const rulesOf = (name: keyof HdaySetting): Rule[] => [
    ({ getFieldsValue }) => ({
      validator: () => {
        const issue = validateHdaySetting(getFieldsValue(true) as Partial<HdaySetting>).find(
          (i) => i.field === name,
        )
        return issue ? Promise.reject(new Error(t(issue.message))) : Promise.resolve()
      },
    }),
  ]

  const save = async () => {
    let values: HdaySetting
    try {
      values = await form.validateFields()
    } catch {
      return
    }
    setSaving(true)
    try {
      await putHdaySetting({ thresholdPct: values.thresholdPct, minDays: values.minDays })
      void message.success(t('analytics.common.saved'))
      onSaved()
      close()
    } catch {
      // the request client has shown the server's message
    } finally {
      setSaving(false)
    }
  }

  return (
    <Modal
      open={open}
      title={t('analytics.hday.settingTitle')}
      onCancel={close}
      onOk={() => void save()}
      okText={t('analytics.common.save')}
      cancelText={t('analytics.common.cancel')}
      confirmLoading={saving}
      okButtonProps={{ 'data-testid': 'hday-setting-save' }}
      destroyOnHidden
      forceRender
    >
      <Spin spinning={loading}>
        <Form form={form} layout="vertical" data-testid="hday-setting-form">
          <Form.Item
            name="thresholdPct"
            label={t('analytics.hday.thresholdPct')}
            extra={t('analytics.hday.thresholdHelp')}
            rules={rulesOf('thresholdPct')}
          >
            <InputNumber data-testid="hday-setting-thresholdPct" style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item name="minDays" label={t('analytics.hday.minDays')} rules={rulesOf('minDays')}>
            <InputNumber data-testid="hday-setting-minDays" style={{ width: '100%' }} />
          </Form.Item>
        </Form>
      </Spin>
    </Modal>
  )
}
