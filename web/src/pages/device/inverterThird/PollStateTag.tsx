import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Tag, Tooltip } from 'antd'
import { vendorStatus, type PollState, type PollStatus } from '../../../api/station/inverterThird'

const COLORS: Record<PollState, string> = {
  ok: 'green',
  auth_failed: 'red',
  throttled: 'orange',
  unreachable: 'red',
  idle: 'default',
}

/**
 * The account's poll state; its tooltip loads the status when opened: last success, last error,
 * a throttle pause and the quota used today against the vendor's limits.
 */
export default function PollStateTag({ id, state }: { id: string; state?: PollState }) {
  const { t } = useTranslation()
  const [status, setStatus] = useState<PollStatus | null>(null)
  const s = state ?? 'idle'
  const lines = status
    ? [
        status.lastOk && `${t('deviceUi.inverterThird.lastOk')}: ${status.lastOk}`,
        status.lastError && `${t('deviceUi.inverterThird.lastError')}: ${status.lastError}`,
        status.pausedUntil && `${t('deviceUi.inverterThird.pausedUntil')}: ${status.pausedUntil}`,
        t('deviceUi.inverterThird.quota', {
          used: status.requestsToday,
          perMinute: status.limits.requestsPerMinute,
          perDay: status.limits.requestsPerDay
            ? t('deviceUi.inverterThird.quotaPerDay', { n: status.limits.requestsPerDay })
            : '',
        }),
      ].filter(Boolean)
    : ['…']
  return (
    <Tooltip
      title={
        <div data-testid={`poll-status-${id}`}>
          {lines.map((l) => (
            <div key={String(l)}>{l}</div>
          ))}
        </div>
      }
      onOpenChange={(open) => {
        if (open) void vendorStatus(id).then(setStatus, () => undefined)
      }}
    >
      <Tag color={COLORS[s]} data-testid={`poll-state-${id}`} data-state={s}>
        {t(`deviceUi.inverterThird.pollStates.${s}`)}
      </Tag>
    </Tooltip>
  )
}
