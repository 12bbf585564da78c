import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Alert, App, Form, InputNumber, Modal, Spin, Table } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { repairKeys, repairSettingQuery } from '../../../api/repair/queries'
import { putRepairSetting, type LevelHours, type RepairSetting } from '../../../api/repair/repair'
import { levelLabel } from '../../alarm/alarms/labels'

const levels = ['4', '3', '2', '1'] as const

/** Response and repair deadlines per alarm level (hours), behind `repair_setting`. */
export default function SettingDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const queryClient = useQueryClient()
  const setting = useQuery(repairSettingQuery())
  const [form] = Form.useForm<RepairSetting>()
  const [busy, setBusy] = useState(false)

  const submit = async (values: RepairSetting) => {
    setBusy(true)
    try {
      const whole = (hours: Partial<LevelHours>) =>
        Object.fromEntries(levels.map((l) => [l, Number(hours[l] ?? 0)])) as LevelHours
      await putRepairSetting({
        responseHours: whole(values.responseHours),
        repairHours: whole(values.repairHours),
      })
      void message.success(t('repair.saved'))
      void queryClient.invalidateQueries({ queryKey: repairKeys.all })
      onClose()
    } catch {
      // shown by the request client
    } finally {
      setBusy(false)
    }
  }

  const hours = (field: 'responseHours' | 'repairHours', level: string) => (
    <Form.Item name={[field, level]} noStyle rules={[{ required: true }]}>
      <InputNumber
        min={0.5}
        max={10000}
        step={1}
        data-testid={`repair-setting-${field}-${level}`}
        style={{ width: '100%' }}
      />
    </Form.Item>
  )

  return (
    <Modal
      open
      title={t('repair.setting')}
      onCancel={onClose}
      onOk={() => form.submit()}
      confirmLoading={busy}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'repair-setting-ok' }}
      data-testid="repair-setting-dialog"
    >
      <Alert type="info" showIcon title={t('repair.settingHint')} style={{ marginBottom: 12 }} />
      {setting.isPending ? (
        <Spin />
      ) : (
        <Form form={form} initialValues={setting.data} onFinish={(v) => void submit(v)}>
          <Table
            size="small"
            pagination={false}
            rowKey="level"
            dataSource={levels.map((level) => ({ level }))}
            columns={[
              {
                key: 'level',
                title: t('repair.field.level'),
                render: (_: unknown, row) => levelLabel(t, row.level),
              },
              {
                key: 'response',
                title: t('repair.responseHours'),
                render: (_: unknown, row) => hours('responseHours', row.level),
              },
              {
                key: 'repair',
                title: t('repair.repairHours'),
                render: (_: unknown, row) => hours('repairHours', row.level),
              },
            ]}
          />
        </Form>
      )}
    </Modal>
  )
}
