import { useQuery } from '@tanstack/react-query'
import { App, Form, Input, Modal, Rate, Select } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { maintenanceQuery } from '../../api/repair/queries'
import { repairAct, type RepairAction, type RepairOrder } from '../../api/repair/repair'
import { usePhone } from '../../hooks/usePhone'
import { actionBody, actionNeeds, type ActionValues } from './logic'
import PhotoInput from './PhotoInput'

export interface ActionDialogProps {
  order: RepairOrder
  action: RepairAction
  onClose: () => void
  /** The order as the hub answers it after the action. */
  onDone: (order: RepairOrder) => void
}

/** One step of an order's flow: asks what the step needs (user, reason, work, rating), then sends it. */
export default function ActionDialog({ order, action, onClose, onDone }: ActionDialogProps) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const phone = usePhone()
  const [form] = Form.useForm<ActionValues>()
  const [busy, setBusy] = useState(false)
  const needs = actionNeeds(action)
  const users = useQuery({ ...maintenanceQuery(), enabled: needs.user !== undefined })

  const submit = async (values: ActionValues) => {
    setBusy(true)
    try {
      const next = await repairAct(action, actionBody(action, order.id, values))
      void message.success(t('repair.done'))
      onDone(next)
    } catch {
      // the request client has shown why
    } finally {
      setBusy(false)
    }
  }

  const big = phone ? ({ size: 'large' } as const) : {}
  return (
    <Modal
      open
      title={`${t(`repair.action.${action}`)} · ${order.code}`}
      onCancel={onClose}
      onOk={() => form.submit()}
      confirmLoading={busy}
      destroyOnHidden
      width={phone ? '100%' : 520}
      style={phone ? { top: 12, maxWidth: 'calc(100vw - 16px)' } : undefined}
      okButtonProps={{ 'data-testid': 'repair-action-ok', ...big }}
      cancelButtonProps={big}
      data-testid={`repair-action-${action}-dialog`}
    >
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} preserve={false}>
        {needs.user && (
          <Form.Item
            name="assigneeId"
            label={t('repair.field.assignee')}
            rules={[{ required: true, message: t('repair.rule.assignee') }]}
          >
            <Select
              {...big}
              data-testid="repair-action-user"
              showSearch={{ optionFilterProp: 'label' }}
              loading={users.isPending}
              placeholder={t('repair.placeholder.assignee')}
              options={(users.data ?? [])
                .filter((u) => action !== 'transfer' || u.id !== order.assigneeId)
                .map((u) => ({
                  value: u.id,
                  label: u.realName ? `${u.realName} (${u.account})` : u.account,
                }))}
            />
          </Form.Item>
        )}
        {needs.reason && (
          <Form.Item
            name="reason"
            label={t('repair.field.reason')}
            rules={[{ required: true, whitespace: true, message: t('repair.rule.reason') }]}
          >
            <Input.TextArea data-testid="repair-action-reason" rows={3} maxLength={500} />
          </Form.Item>
        )}
        {needs.work && (
          <>
            <Form.Item
              name="workDone"
              label={t('repair.field.workDone')}
              rules={[{ required: true, whitespace: true, message: t('repair.rule.workDone') }]}
            >
              <Input.TextArea data-testid="repair-action-work" rows={3} maxLength={1000} />
            </Form.Item>
            <Form.Item name="parts" label={t('repair.field.parts')}>
              <Input {...big} data-testid="repair-action-parts" maxLength={500} />
            </Form.Item>
            <Form.Item name="photos" label={t('repair.field.finishPhotos')}>
              <PhotoInput testId="repair-finish-photos" />
            </Form.Item>
          </>
        )}
        {needs.rating && (
          <>
            <Form.Item
              name="rating"
              label={t('repair.field.rating')}
              rules={[{ required: true, message: t('repair.rule.rating') }]}
            >
              <Rate data-testid="repair-action-rating" style={{ fontSize: 32 }} />
            </Form.Item>
            <Form.Item name="comment" label={t('repair.field.comment')}>
              <Input.TextArea data-testid="repair-action-comment" rows={3} maxLength={500} />
            </Form.Item>
          </>
        )}
        {needs.note && (
          <Form.Item name="note" label={t('repair.field.note')}>
            <Input.TextArea data-testid="repair-action-note" rows={2} maxLength={500} />
          </Form.Item>
        )}
      </Form>
    </Modal>
  )
}
