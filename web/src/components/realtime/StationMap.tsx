import { Alert, Spin } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import type { MapStation } from '../../api/realtime/types'
import { DEFAULT_CURRENCY, formatMoney } from '../../utils/money'
import Chart from './Chart'
import { chinaMapQuery } from './chinaMap'
import { stationMapOption, type MapPoint } from './stationMap'

export interface StationMapProps {
  stations: readonly MapStation[]
  /** ISO 4217 code of the stations' revenue (the home figures' currency). */
  currency?: string
  height: number | string
  onOpen?: (id: string) => void
  /** Always dark (the big screen); otherwise the map follows the app's theme. */
  dark?: boolean
  testId?: string
}

/** Stations on the China province map; a click on a station calls `onOpen(id)`. */
export default function StationMap({
  stations,
  currency = DEFAULT_CURRENCY,
  height,
  onOpen,
  dark,
  testId,
}: StationMapProps) {
  const { t, i18n } = useTranslation()
  const map = useQuery(chinaMapQuery())
  const ready = map.isSuccess ? 'ready' : map.isError ? 'failed' : 'loading'
  const option = useMemo(
    () =>
      stationMapOption(stations, {
        status: (s) => t(`realtimeUi.status.${s}`),
        power: t('realtimeUi.home.power'),
        today: t('realtimeUi.home.today'),
        revenue: {
          today: t('realtimeUi.revenue.today'),
          month: t('realtimeUi.revenue.month'),
          format: (amount) => formatMoney(amount, currency, i18n.language),
        },
      }),
    [stations, t, currency, i18n.language],
  )
  const onEvents = useMemo(
    () => ({
      click: (params: unknown) => {
        const data = (params as { data?: Partial<MapPoint> }).data
        if (data?.id && onOpen) onOpen(data.id)
      },
    }),
    [onOpen],
  )
  if (ready === 'failed') return <Alert type="error" title={t('realtimeUi.live.loadFailed')} />
  return (
    <div
      data-testid={testId}
      data-stations={stations.length}
      style={{ position: 'relative', height }}
    >
      {ready === 'loading' ? (
        <Spin style={{ display: 'block', padding: 48 }} />
      ) : (
        <Chart
          option={option}
          style={{ height }}
          onEvents={onEvents}
          notMerge
          theme={dark ? 'dark' : undefined}
        />
      )}
    </div>
  )
}
