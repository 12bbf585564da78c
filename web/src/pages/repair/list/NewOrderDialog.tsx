import { useQuery } from '@tanstack/react-query'
import { App, Form, Input, Modal, Select } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { maintenanceQuery } from '../../../api/repair/queries'
import { createRepair, type RepairOrder } from '../../../api/repair/repair'
import StationSelect from '../../../components/realtime/StationSelect'
import { useDict } from '../../../hooks/useDict'
import { usePhone } from '../../../hooks/usePhone'
import { levelLabel } from '../../alarm/alarms/labels'
import PhotoInput from '../PhotoInput'

interface Values {
  stationId?: string
  title?: string
  description?: string
  level?: string
  assigneeId?: string
  photos?: string[]
}

/** A repair order by hand: station, what is wrong, level, photos; with `repair_assign` also who. */
export default function NewOrderDialog({
  canAssign,
  onClose,
  onCreated,
}: {
  canAssign: boolean
  onClose: () => void
  onCreated: (order: RepairOrder) => void
}) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const phone = usePhone()
  const [form] = Form.useForm<Values>()
  const [busy, setBusy] = useState(false)
  const levels = useDict('alarm_level')
  const users = useQuery({ ...maintenanceQuery(), enabled: canAssign })

  const submit = async (v: Values) => {
    setBusy(true)
    try {
      const order = await createRepair({
        stationId: v.stationId,
        title: v.title?.trim() || undefined,
        description: v.description?.trim(),
        level: v.level ? Number(v.level) : undefined,
        assigneeId: v.assigneeId || undefined,
        photos: v.photos && v.photos.length > 0 ? v.photos : undefined,
      })
      void message.success(t('repair.created'))
      onCreated(order)
    } catch {
      // shown by the request client
    } finally {
      setBusy(false)
    }
  }

  return (
    <Modal
      open
      title={t('repair.newOrder')}
      onCancel={onClose}
      onOk={() => form.submit()}
      confirmLoading={busy}
      destroyOnHidden
      width={phone ? '100%' : 560}
      style={phone ? { top: 12, maxWidth: 'calc(100vw - 16px)' } : undefined}
      okButtonProps={{ 'data-testid': 'repair-new-ok' }}
      data-testid="repair-new-dialog"
    >
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} preserve={false}>
        <Form.Item
          name="stationId"
          label={t('repair.field.station')}
          rules={[{ required: true, message: t('repair.rule.station') }]}
        >
          <StationSelect
            testId="repair-new-station"
            value={undefined}
            onChange={() => undefined}
            placeholder={t('repair.placeholder.station')}
            style={{ width: '100%', minWidth: 0 }}
          />
        </Form.Item>
        <Form.Item name="title" label={t('repair.field.title')}>
          <Input data-testid="repair-new-title" maxLength={100} />
        </Form.Item>
        <Form.Item
          name="description"
          label={t('repair.field.description')}
          rules={[{ required: true, whitespace: true, message: t('repair.rule.description') }]}
        >
          <Input.TextArea data-testid="repair-new-description" rows={3} maxLength={1000} />
        </Form.Item>
        <Form.Item name="level" label={t('repair.field.level')}>
          <Select
            allowClear
            data-testid="repair-new-level"
            options={(levels.length > 0
              ? levels.map((l) => String(l.dictKey))
              : ['1', '2', '3', '4']
            ).map((key) => ({
              value: key,
              label: levelLabel(
                t,
                key,
                Object.fromEntries(levels.map((l) => [String(l.dictKey), l.dictValue])),
              ),
            }))}
          />
        </Form.Item>
        {canAssign && (
          <Form.Item name="assigneeId" label={t('repair.field.assignee')}>
            <Select
              allowClear
              data-testid="repair-new-assignee"
              showSearch={{ optionFilterProp: 'label' }}
              placeholder={t('repair.placeholder.assignee')}
              options={(users.data ?? []).map((u) => ({
                value: u.id,
                label: u.realName ? `${u.realName} (${u.account})` : u.account,
              }))}
            />
          </Form.Item>
        )}
        <Form.Item name="photos" label={t('repair.field.photos')}>
          <PhotoInput testId="repair-new-photos" />
        </Form.Item>
      </Form>
    </Modal>
  )
}
