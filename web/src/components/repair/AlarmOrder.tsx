import { ToolOutlined } from '@ant-design/icons'
import { useQueryClient } from '@tanstack/react-query'
import { Button, Space } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router-dom'
import { alarmKeys } from '../../api/alarm/queries'
import { repairKeys } from '../../api/repair/queries'
import { createRepairFromAlarm } from '../../api/repair/repair'
import { repairDetailPath } from '../../pages/repair/logic'
import RepairStatusTag from '../../pages/repair/StatusTag'
import { useSessionStore } from '../../stores/session'

/** Button permission of creating an order (by hand or from an alarm). */
export const ADD_PERMISSION = 'repair_add'

export interface AlarmOrderProps {
  alarmId: string
  repairId?: string | null
  repairStatus?: number | string | null
  /** Small link-style button (the bell's list). */
  compact?: boolean
  /** Called before going to the order (e.g. to close the popover holding the button). */
  onOpen?: () => void
}

/**
 * An alarm's repair order in one click: with an order, its status and a link to it; without one,
 * "create repair order" (POST /repair {alarmId}; an alarm that already has one answers that
 * order), which then opens the order.
 */
export default function AlarmOrder({
  alarmId,
  repairId,
  repairStatus,
  compact = false,
  onOpen,
}: AlarmOrderProps) {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const canAdd = useSessionStore((s) => s.permission[ADD_PERMISSION] === true)
  const [busy, setBusy] = useState(false)

  if (repairId) {
    return (
      <Space size={4} data-testid="alarm-order" data-repair-id={repairId}>
        {repairStatus !== null && repairStatus !== undefined && repairStatus !== '' && (
          <RepairStatusTag status={Number(repairStatus)} testId="alarm-order-status" />
        )}
        <Link to={repairDetailPath(repairId)} onClick={onOpen} data-testid="alarm-order-link">
          {t('repair.fromAlarm.open')}
        </Link>
      </Space>
    )
  }
  if (!canAdd) return null

  const create = async () => {
    setBusy(true)
    try {
      const { id } = await createRepairFromAlarm(alarmId)
      void queryClient.invalidateQueries({ queryKey: alarmKeys.all })
      void queryClient.invalidateQueries({ queryKey: repairKeys.all })
      onOpen?.()
      void navigate(repairDetailPath(id))
    } catch {
      // shown by the request client
    } finally {
      setBusy(false)
    }
  }

  return (
    <Button
      type={compact ? 'link' : 'primary'}
      size={compact ? 'small' : 'middle'}
      icon={<ToolOutlined />}
      loading={busy}
      data-testid="alarm-create-order"
      style={compact ? { padding: 0 } : undefined}
      onClick={(e) => {
        e.stopPropagation()
        void create()
      }}
    >
      {t('repair.fromAlarm.create')}
    </Button>
  )
}
