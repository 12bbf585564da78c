import { Card, Descriptions, Select, Space, Typography } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import CrudPage from '../../../components/crud/CrudPage'
import type { TextOption } from '../../../components/crud/types'
import { stationPriceApi, type StationPrice } from '../../../api/station/price'
import { lastPriceQuery, stationNamesQuery } from '../../../api/station/queries'
import { stationOptions, stationScope, type StationScoped } from '../../device/common/fields'
import { stationPriceConfig } from './config'

const noOptions: TextOption[] = []

/** The price in force at one station, reloaded whenever its history changes. */
function LastPrice({ stationId }: { stationId: string }) {
  const { t } = useTranslation()
  // Failures are shown by the request client.
  const price = useQuery(lastPriceQuery(stationId)).data
  return (
    <Descriptions size="small" style={{ marginBottom: 12 }}>
      <Descriptions.Item label={t('deviceUi.stationPrice.lastPrice')}>
        <span data-testid="station-last-price">
          {price === undefined
            ? '…'
            : price === null
              ? t('deviceUi.stationPrice.noPrice')
              : t('deviceUi.stationPrice.lastPriceValue', {
                  price: price.price,
                  date: price.effectiveDate,
                })}
        </span>
      </Descriptions.Item>
    </Descriptions>
  )
}

/**
 * The price history of every station, or of one with the price in force shown above it. Adding,
 * changing or deleting a price refreshes the price in force.
 */
export function StationPriceList({ stationId }: StationScoped) {
  const queryClient = useQueryClient()
  const config = useMemo(() => {
    const bump = () => {
      if (stationId)
        void queryClient.invalidateQueries({ queryKey: lastPriceQuery(stationId).queryKey })
    }
    return stationPriceConfig(stationId, {
      ...stationPriceApi,
      submit: async (entity) => {
        await stationPriceApi.submit(entity)
        bump()
      },
      remove: async (ids) => {
        await stationPriceApi.remove(ids)
        bump()
      },
    })
  }, [stationId, queryClient])
  const { query, fixed } = stationScope(stationId)
  return (
    <>
      {stationId && <LastPrice stationId={stationId} />}
      <CrudPage<StationPrice> config={config} query={query} fixed={fixed} />
    </>
  )
}

/** /station/stationPrice: pick a station to see its price in force and work on its history. */
export default function StationPricePage() {
  const { t } = useTranslation()
  const stations = useQuery({ ...stationNamesQuery(), select: stationOptions }).data ?? noOptions
  const [stationId, setStationId] = useState<string | undefined>()
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Card size="small">
        <Space>
          <Typography.Text>{t('deviceUi.station')}</Typography.Text>
          <Select
            data-testid="station-price-station"
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            style={{ minWidth: 240 }}
            placeholder={t('deviceUi.stationPrice.pickStation')}
            options={stations}
            value={stationId}
            onChange={(value?: string) => setStationId(value)}
          />
        </Space>
      </Card>
      <StationPriceList key={stationId ?? ''} stationId={stationId} />
    </Space>
  )
}
