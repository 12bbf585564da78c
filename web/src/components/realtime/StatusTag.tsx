import { Tag, Tooltip } from 'antd'
import { useTranslation } from 'react-i18next'
import { STATUS_COLOURS, type RunStatus } from './status'

/** A station's / device's operating status, in its colour (same colour on the map and charts). */
export function StatusTag({ status }: { status: RunStatus }) {
  const { t } = useTranslation()
  return (
    <Tooltip title={t(`realtimeUi.statusHint.${status}`)}>
      <Tag color={STATUS_COLOURS[status]} data-testid="run-status" data-status={status}>
        {t(`realtimeUi.status.${status}`)}
      </Tag>
    </Tooltip>
  )
}

/** A coloured dot with the status name (legends, dense lists). */
export function StatusDot({ status, label }: { status: RunStatus; label?: string }) {
  const { t } = useTranslation()
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 6 }} data-status={status}>
      <span
        aria-hidden
        style={{
          width: 8,
          height: 8,
          borderRadius: '50%',
          background: STATUS_COLOURS[status],
          display: 'inline-block',
        }}
      />
      {label ?? t(`realtimeUi.status.${status}`)}
    </span>
  )
}
