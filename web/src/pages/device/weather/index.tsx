import { Alert } from 'antd'
import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import CrudPage from '../../../components/crud/CrudPage'
import type { Weather } from '../../../api/station/weather'
import { stationScope, type StationScoped } from '../common/fields'
import { weatherConfig } from './config'

/**
 * Weather stations of every station, or of one. The one-per-station rule is stated up front; a
 * second one is refused by the server, whose message the request client shows.
 */
export function WeatherList({ stationId }: StationScoped) {
  const { t } = useTranslation()
  const config = useMemo(() => weatherConfig(stationId), [stationId])
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
    </>
  )
}

/** /station/weather. */
export default function WeatherPage() {
  return <WeatherList />
}
