import { App, Divider, Form, InputNumber, Modal, Spin } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { putAlarmRule, type AlarmRule } from '../../../api/alarm/alarm'
import { alarmRuleQuery } from '../../../api/alarm/queries'
import { formSeed } from '../../../api/queryClient'
import { validateRule } from './logic'

export interface RuleDialogProps {
  onClose: () => void
}

const thresholdFields = [
  'temperatureMaxC',
  'gridVoltageMinV',
  'gridVoltageMaxV',
  'gridFrequencyMinHz',
  'gridFrequencyMaxHz',
  'zeroOutputIrradianceWm2',
] as const
const commFields = ['deviceSilenceSeconds', 'clearHoldSeconds', 'raiseAfterSamples'] as const

/**
 * The tenant's alarm rules (`GET/PUT /alarmRule`), checked here as the server checks them (each
 * minimum below its maximum, positive durations) before saving; the server's own refusal shows as
 * its message.
 */
export default function RuleDialog({ onClose }: RuleDialogProps) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<AlarmRule>()
  const [saving, setSaving] = useState(false)
  const rule = useQuery({ ...alarmRuleQuery(), ...formSeed })
  const loaded = rule.isSuccess

  useEffect(() => {
    if (rule.data) form.setFieldsValue(rule.data)
  }, [rule.data, form])
  // Without the rules there is nothing to edit (the request client has said why).
  useEffect(() => {
    if (rule.isError) onClose()
  }, [rule.isError, onClose])

  const save = async () => {
    const values = form.getFieldsValue(true) as AlarmRule
    const errors = validateRule(values)
    // Clear earlier messages, then show this round's, one per field.
    form.setFields(
      [...thresholdFields, ...commFields].map((name) => ({
        name,
        errors: errors
          .filter((e) => e.field === name)
          .slice(0, 1)
          .map((e) =>
            t(`alarmUi.rule.error.${e.problem}`, { label: t(`alarmUi.rule.${e.field}`) }),
          ),
      })),
    )
    if (errors.length > 0) return
    setSaving(true)
    try {
      await putAlarmRule(values)
      void message.success(t('alarmUi.rule.saved'))
      onClose()
    } catch {
      // shown by the request client; the dialog stays
    } finally {
      setSaving(false)
    }
  }

  const item = (name: keyof AlarmRule, step?: number) => (
    <Form.Item key={name} name={name} label={t(`alarmUi.rule.${name}`)}>
      <InputNumber data-testid={`rule-${name}`} style={{ width: '100%' }} step={step} />
    </Form.Item>
  )

  return (
    <Modal
      open
      title={t('alarmUi.rule.title')}
      onCancel={onClose}
      onOk={() => void save()}
      confirmLoading={saving}
      okButtonProps={{ disabled: !loaded, 'data-testid': 'rule-save' }}
      wrapClassName="alarm-rule-dialog"
      width={560}
      destroyOnHidden
    >
      <Spin spinning={!loaded}>
        <Form form={form} layout="vertical" data-testid="rule-form">
          <Divider titlePlacement="start">{t('alarmUi.rule.section.threshold')}</Divider>
          {thresholdFields.map((name) => item(name, name.includes('Frequency') ? 0.1 : 1))}
          <Divider titlePlacement="start">{t('alarmUi.rule.section.comm')}</Divider>
          {commFields.map((name) => item(name))}
        </Form>
      </Spin>
    </Modal>
  )
}
