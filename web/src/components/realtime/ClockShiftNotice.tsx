import { Alert } from 'antd'
import { useTranslation } from 'react-i18next'
import type { ClockShift } from '../../api/realtime/types'
import { offsetText } from './clock'

/**
 * Said plainly where a station's data is shown: its site clock is not real time (demo stations
 * run on a shifted clock so that their "day" is visible at any hour).
 */
export function ClockShiftNotice({ shift, dark }: { shift: ClockShift; dark?: boolean }) {
  const { t, i18n } = useTranslation()
  const description =
    shift.offsetMs !== 0
      ? t('realtimeUi.clockShift.text', {
          direction: t(
            shift.offsetMs > 0 ? 'realtimeUi.clockShift.ahead' : 'realtimeUi.clockShift.behind',
          ),
          amount: offsetText(shift.offsetMs, i18n.language),
        })
      : undefined
  return (
    <Alert
      type="warning"
      showIcon
      data-testid="clock-shift-notice"
      title={t('realtimeUi.clockShift.title')}
      description={[description, shift.note].filter(Boolean).join(' ') || undefined}
      style={dark ? { background: 'rgba(250,140,22,0.12)', borderColor: '#fa8c16' } : undefined}
    />
  )
}

/** One line for screens with many stations: how many of them run on a shifted clock. */
export function FleetClockShiftNotice({ count }: { count: number }) {
  const { t } = useTranslation()
  if (count === 0) return null
  return (
    <Alert
      type="warning"
      showIcon
      data-testid="clock-shift-notice"
      title={t('realtimeUi.clockShift.fleet', { count })}
    />
  )
}
