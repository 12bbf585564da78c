import { App, Form, Input, Modal, Typography } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { handleAlarm, type AlarmAction, type AlarmRecord } from '../../../api/alarm/alarm'
import { NOTE_MAX, noteTooLong } from './logic'

export interface HandleDialogProps {
  record: AlarmRecord
  action: AlarmAction
  onClose: () => void
  /** After the server accepted the action. */
  onDone: () => void
}

/** Acknowledge or clear one alarm with an optional note (≤ 500 characters). */
export default function HandleDialog({ record, action, onClose, onDone }: HandleDialogProps) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<{ note?: string }>()
  const [saving, setSaving] = useState(false)

  const submit = async () => {
    const { note } = await form.validateFields()
    setSaving(true)
    try {
      await handleAlarm(record.id, action, (note ?? '').trim())
      void message.success(t(action === 'ack' ? 'alarmUi.handle.acked' : 'alarmUi.handle.cleared'))
      onDone()
    } catch {
      // The request client has shown the server's message; the dialog stays.
    } finally {
      setSaving(false)
    }
  }

  return (
    <Modal
      open
      title={t(action === 'ack' ? 'alarmUi.handle.ackTitle' : 'alarmUi.handle.clearTitle')}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      confirmLoading={saving}
      okButtonProps={{ 'data-testid': 'alarm-handle-ok' }}
      cancelButtonProps={{ 'data-testid': 'alarm-handle-cancel' }}
      destroyOnHidden
      wrapClassName="alarm-handle-dialog"
    >
      <Typography.Paragraph>
        {record.stationName} · {record.deviceName} · {record.warningName}
      </Typography.Paragraph>
      <Form form={form} layout="vertical">
        <Form.Item
          name="note"
          label={t('alarmUi.handle.note')}
          rules={[
            {
              validator: (_, value: string | undefined) =>
                noteTooLong(value)
                  ? Promise.reject(new Error(t('alarmUi.handle.noteTooLong')))
                  : Promise.resolve(),
            },
          ]}
        >
          <Input.TextArea
            data-testid="alarm-handle-note"
            rows={4}
            count={{ show: true, max: NOTE_MAX }}
            placeholder={t('alarmUi.handle.notePlaceholder')}
          />
        </Form.Item>
      </Form>
    </Modal>
  )
}
