import { Alert, Card, Drawer, Empty, Skeleton, Space } from 'antd'
import { useTranslation } from 'react-i18next'
import type { LiveDeviceKind } from '../../api/realtime/deviceReal'
import { deviceRealQuery } from '../../api/realtime/queries'
import { useLive } from '../../hooks/useLive'
import DeviceLiveCard from './DeviceLiveCard'

/**
 * A station's weather stations and meters live (station overview): a card each with its readings
 * and day curve, polled like the rest of the page and paused in a hidden tab. Nothing is shown
 * for a station that has neither.
 */
export function StationDevicesLive({ stationId }: { stationId: string }) {
  const { t } = useTranslation()
  const live = useLive(deviceRealQuery(stationId), { enabled: stationId !== '' })
  const devices = live.data ?? []
  if (live.loading) return <Skeleton active paragraph={{ rows: 3 }} />
  if (live.data === undefined && live.error !== undefined)
    return <Alert type="warning" showIcon title={t('realtimeUi.deviceLive.loadFailed')} />
  if (devices.length === 0) return null
  return (
    <Card
      size="small"
      title={t('realtimeUi.deviceLive.title')}
      data-testid="station-devices-live"
      styles={{ body: { padding: 8 } }}
    >
      <Space orientation="vertical" size={8} style={{ width: '100%' }}>
        {live.error !== undefined && (
          <Alert type="warning" showIcon title={t('realtimeUi.live.stale')} />
        )}
        {devices.map((d) => (
          <DeviceLiveCard key={d.id} stationId={stationId} device={d} />
        ))}
      </Space>
    </Card>
  )
}

export interface DeviceLiveTarget {
  stationId: string
  id: string
  name: string
  kind: LiveDeviceKind
}

/**
 * One weather station's or meter's live values and day curve in a drawer (their device pages);
 * polled while open. Full width on a phone.
 */
export function DeviceLiveDrawer({
  target,
  onClose,
}: {
  target: DeviceLiveTarget | null
  onClose: () => void
}) {
  const { t } = useTranslation()
  const live = useLive(deviceRealQuery(target?.stationId ?? '', target?.kind), {
    enabled: target !== null && target.stationId !== '',
  })
  const device = live.data?.find((d) => d.id === target?.id)
  const width = typeof window === 'undefined' ? 736 : Math.min(736, window.innerWidth)
  return (
    <Drawer
      open={target !== null}
      size={width}
      title={t('realtimeUi.deviceLive.drawerTitle', { name: target?.name ?? '' })}
      onClose={onClose}
      destroyOnHidden
      data-testid="device-live-drawer"
    >
      {target === null ? null : live.loading ? (
        <Skeleton active />
      ) : device ? (
        <DeviceLiveCard stationId={target.stationId} device={device} stacked />
      ) : live.error !== undefined ? (
        <Alert type="warning" showIcon title={t('realtimeUi.deviceLive.loadFailed')} />
      ) : (
        <Empty description={t('realtimeUi.deviceLive.notFound')} />
      )}
    </Drawer>
  )
}
