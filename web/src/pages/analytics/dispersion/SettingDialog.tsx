import { App, Form, InputNumber, Modal, Spin, Switch, Typography } from 'antd'
import type { Rule } from 'antd/es/form'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { dispersionSettingQuery } from '../../../api/analytics/queries'
import { useTranslation } from 'react-i18next'
import {
  updateDispersionSetting,
  type DispersionSetting,
} from '../../../api/analytics/discreteRate'
import { SETTING_LABELS, validateSetting, type SettingField } from './logic'

export interface SettingDialogProps {
  open: boolean
  onClose: () => void
  /** After a successful save. */
  onSaved: (setting: DispersionSetting) => void
}

const NUMBER_FIELDS: readonly { name: Exclude<SettingField, 'shadingTolerant'>; step: number }[] = [
  { name: 'excellentMax', step: 1 },
  { name: 'goodMax', step: 1 },
  { name: 'attentionMax', step: 1 },
  { name: 'minIrradianceWm2', step: 10 },
  { name: 'minPowerRatio', step: 0.01 },
  { name: 'poorDays', step: 1 },
]

const BOUNDS: readonly SettingField[] = ['excellentMax', 'goodMax', 'attentionMax']

/** The tenant's dispersion bounds and filters (button `discreteRate_setting`). */
export default function SettingDialog({ open, onClose, onSaved }: SettingDialogProps) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<DispersionSetting>()
  // Read each time the dialog opens; a failure leaves the defaults (shown by the request client).
  const setting = useQuery({ ...dispersionSettingQuery(), enabled: open })
  const loading = open && setting.isFetching
  const close = onClose
  const [saving, setSaving] = useState(false)

  // Each answer (also one equal to the cached value) fills the form once the dialog shows.
  const { data, dataUpdatedAt } = setting
  useEffect(() => {
    if (open && data) form.setFieldsValue(data)
  }, [open, data, dataUpdatedAt, form])

  const rulesOf = (name: SettingField): Rule[] => [
    ({ getFieldsValue }) => ({
      validator: () => {
        const issue = validateSetting(getFieldsValue(true) as Partial<DispersionSetting>).find(
          (i) => i.field === name,
        )
        return issue
          ? Promise.reject(
              new Error(t(issue.message, { label: issue.label ? t(issue.label) : '' })),
            )
          : Promise.resolve()
      },
    }),
  ]

  const save = async () => {
    let values: DispersionSetting
    try {
      values = await form.validateFields()
    } catch {
      return
    }
    const setting: DispersionSetting = {
      ...values,
      shadingTolerant: values.shadingTolerant === true,
    }
    setSaving(true)
    try {
      await updateDispersionSetting(setting)
      void message.success(t('analytics.common.saved'))
      onSaved(setting)
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
      title={t('analytics.discrete.settingTitle')}
      onCancel={close}
      onOk={() => void save()}
      okText={t('analytics.common.save')}
      cancelText={t('analytics.common.cancel')}
      confirmLoading={saving}
      okButtonProps={{ 'data-testid': 'dispersion-setting-save' }}
      destroyOnHidden
      forceRender
    >
      <Spin spinning={loading}>
        <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
          {t('analytics.discrete.boundsHelp')}
        </Typography.Paragraph>
        <Form form={form} layout="vertical" data-testid="dispersion-setting-form">
          {NUMBER_FIELDS.map(({ name, step }) => (
            <Form.Item
              key={name}
              name={name}
              label={t(SETTING_LABELS[name])}
              rules={rulesOf(name)}
              dependencies={BOUNDS.includes(name) ? BOUNDS.filter((b) => b !== name) : undefined}
              tooltip={
                name === 'minPowerRatio' ? t('analytics.discrete.minPowerRatioHelp') : undefined
              }
            >
              <InputNumber
                data-testid={`dispersion-setting-${name}`}
                step={step}
                style={{ width: '100%' }}
              />
            </Form.Item>
          ))}
          <Form.Item
            name="shadingTolerant"
            label={t(SETTING_LABELS.shadingTolerant)}
            valuePropName="checked"
          >
            <Switch data-testid="dispersion-setting-shadingTolerant" />
          </Form.Item>
        </Form>
      </Spin>
    </Modal>
  )
}
