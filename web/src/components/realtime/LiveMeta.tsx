import { PauseCircleOutlined, ReloadOutlined } from '@ant-design/icons'
import { Button, Space, Tooltip, Typography } from 'antd'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { LIVE_INTERVAL_MS } from '../../hooks/useLive'

export interface LiveMetaProps {
  updatedAt: number | undefined
  paused: boolean
  /** A refresh failed after data was shown. */
  stale?: boolean
  onRefresh: () => void
  intervalMs?: number
  dark?: boolean
}

/** "Updated 14:03:12 · refreshes every 15 s", paused / stale hints and a refresh button. */
export default function LiveMeta({
  updatedAt,
  paused,
  stale,
  onRefresh,
  intervalMs = LIVE_INTERVAL_MS,
  dark,
}: LiveMetaProps) {
  const { t } = useTranslation()
  const colour = dark ? 'rgba(255,255,255,0.65)' : undefined
  return (
    <Space size="small" data-testid="live-meta" wrap>
      {updatedAt !== undefined && (
        <Tooltip title={t('realtimeUi.live.every', { seconds: Math.round(intervalMs / 1000) })}>
          <Typography.Text type="secondary" style={{ color: colour }} data-testid="live-updated">
            {t('realtimeUi.live.updatedAt', { time: dayjs(updatedAt).format('HH:mm:ss') })}
          </Typography.Text>
        </Tooltip>
      )}
      {paused && (
        <Typography.Text type="warning">
          <PauseCircleOutlined /> {t('realtimeUi.live.paused')}
        </Typography.Text>
      )}
      {stale && <Typography.Text type="danger">{t('realtimeUi.live.stale')}</Typography.Text>}
      <Button
        size="small"
        type={dark ? 'text' : 'default'}
        icon={<ReloadOutlined />}
        onClick={onRefresh}
        data-testid="live-refresh"
        style={{ color: colour }}
      >
        {t('realtimeUi.live.refresh')}
      </Button>
    </Space>
  )
}
