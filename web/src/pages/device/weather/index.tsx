import { Alert } from 'antd'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import CrudPage from '../../../components/crud/CrudPage'
import type { Weather } from '../../../api/station/weather'
import {
  DeviceLiveDrawer,
  type DeviceLiveTarget,
} from '../../../components/realtime/StationDevicesLive'
import { stationScope, type StationScoped } from '../common/fields'
import { liveTarget } from '../common/live'
import { weatherConfig } from './config'

/**
 * Weather stations of every station, or of one. The one-per-station rule is stated up front; a
 * second one is refused by the server, whose message the request client shows. "Live values" on
 * a row opens its readings and day curve in a drawer.
 */
export function WeatherList({ stationId }: StationScoped) {
  const { t } = useTranslation()
  const [live, setLive] = useState<DeviceLiveTarget | null>(null)
  const config = useMemo(
    () => weatherConfig(stationId, (row) => setLive(liveTarget(row, 'weather'))),
    [stationId],
  )
  const { query, fixed } = stationScope(stationId)
  return (
    <>
      <Alert
        type="info"
        showIcon
        title={t('deviceUi.weather.onePerStation')}
        style={{ marginBottom: 12 }}
        data-testid="weather-one-per-station"
      />
      <CrudPage<Weather> config={config} query={query} fixed={fixed} />
      <DeviceLiveDrawer target={live} onClose={() => setLive(null)} />
    </>
  )
}

/** /station/weather. */
export default function WeatherPage() {
  return <WeatherList />
}
