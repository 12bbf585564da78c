import { Alert, App, Button, Drawer, Form, Input, InputNumber, Space, Spin } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { reportKeys, reportSettingSeedQuery } from '../../../api/report/queries'
import { putReportSetting } from '../../../api/report/report'
import type { ReportSetting } from '../../../api/report/types'

export interface SettingDrawerProps {
  open: boolean
  onClose: () => void
}

/** Numeric fields of the settings (the hub checks their bounds and names the wrong one). */
const NUMBERS: { name: keyof ReportSetting; unit: string; step: number }[] = [
  { name: 'emcDiscountPct', unit: '%', step: 1 },
  { name: 'temperatureCoefficientPct', unit: '%/K', step: 0.01 },
  { name: 'designPr', unit: '', step: 0.01 },
  { name: 'availabilityThreshold', unit: 'W/m²', step: 10 },
]

/**
 * The tenant's report settings (`GET/PUT /api/report/setting`): the currency, the contract
 * discount on self-consumed energy and the performance constants (the savings coefficients are
 * system parameters).
 * The hub refuses users limited to assigned stations (403) and bad values (400); its message is
 * shown in the drawer.
 */
export default function SettingDrawer({ open, onClose }: SettingDrawerProps) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const client = useQueryClient()
  const [form] = Form.useForm<ReportSetting>()
  const seed = useQuery({ ...reportSettingSeedQuery(), enabled: open })
  const [saving, setSaving] = useState(false)
  const [refused, setRefused] = useState<string | null>(null)
  const { data, dataUpdatedAt } = seed
  useEffect(() => {
    if (open && data) form.setFieldsValue(data)
  }, [open, data, dataUpdatedAt, form])
  const close = () => {
    setRefused(null)
    onClose()
  }

  const save = async () => {
    let values: ReportSetting
    try {
      values = await form.validateFields()
    } catch {
      return
    }
    setSaving(true)
    setRefused(null)
    try {
      await putReportSetting({ ...values, currency: values.currency.trim().toUpperCase() })
      void message.success(t('report.setting.saved'))
      await client.invalidateQueries({ queryKey: reportKeys.all })
      close()
    } catch (error) {
      setRefused(error instanceof Error ? error.message : String(error))
    } finally {
      setSaving(false)
    }
  }

  return (
    <Drawer
      open={open}
      onClose={close}
      title={t('report.setting.title')}
      size={420}
      destroyOnHidden={false}
      forceRender
      extra={
        <Space>
          <Button onClick={close}>{t('report.common.cancel')}</Button>
          <Button
            type="primary"
            loading={saving}
            onClick={() => void save()}
            data-testid="report-setting-save"
          >
            {t('report.common.save')}
          </Button>
        </Space>
      }
    >
      <Spin spinning={open && seed.isFetching}>
        {refused && (
          <Alert
            type="error"
            showIcon
            title={refused}
            data-testid="report-setting-error"
            style={{ marginBottom: 12 }}
          />
        )}
        <Form form={form} layout="vertical" data-testid="report-setting-form">
          <Form.Item
            name="currency"
            label={t('report.setting.currency')}
            rules={[
              { required: true, message: t('report.setting.currencyRule') },
              { pattern: /^[A-Za-z]{3}$/, message: t('report.setting.currencyRule') },
            ]}
          >
            <Input maxLength={3} data-testid="report-setting-currency" />
          </Form.Item>
          {NUMBERS.map((f) => (
            <Form.Item
              key={f.name}
              name={f.name}
              label={
                f.unit
                  ? `${t(`report.setting.${f.name}`)} (${f.unit})`
                  : t(`report.setting.${f.name}`)
              }
              rules={[{ required: true, message: t('report.setting.required') }]}
            >
              <InputNumber
                step={f.step}
                style={{ width: '100%' }}
                data-testid={`report-setting-${f.name}`}
              />
            </Form.Item>
          ))}
        </Form>
      </Spin>
    </Drawer>
  )
}
