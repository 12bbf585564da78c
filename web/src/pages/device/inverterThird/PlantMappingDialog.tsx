import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import {
  App,
  Button,
  Empty,
  List,
  Modal,
  Progress,
  Select,
  Space,
  Spin,
  Tag,
  Typography,
} from 'antd'
import {
  listVendorPlants,
  mapVendorPlant,
  type InverterThird,
  type VendorPlant,
} from '../../../api/station/inverterThird'
import { loadStationOptions } from '../common/fields'

interface Props {
  /** The account whose plants are mapped; the dialog is closed while null. */
  account: InverterThird | null
  onClose: () => void
}

/** How often the backfill progress is refreshed while one runs (stored list, no vendor call). */
const PROGRESS_MS = 3000

/**
 * 电站映射: the vendor's plants of an account, a station select per plant (mapping makes the
 * plant's devices the station's and starts the history backfill; clearing it unmaps), device
 * counts and the backfill progress. One column of cards, so it reads the same on a phone.
 */
export default function PlantMappingDialog({ account, onClose }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const id = account?.id ? String(account.id) : ''
  const client = useQueryClient()
  // The vendor is asked when the dialog opens and on refresh; after a change the stored list
  // is enough (and is what the progress refresh reads).
  const [stored, setStored] = useState(false)
  const plantsQuery = useQuery({
    queryKey: ['vendor-plants', id, stored],
    queryFn: () => listVendorPlants(id, stored),
    enabled: id !== '',
    refetchInterval: (q) =>
      stored &&
      (q.state.data ?? []).some(
        (p) => p.stationId && p.backfillPercent !== null && p.backfillPercent < 100,
      )
        ? PROGRESS_MS
        : false,
  })
  // A vendor's refusal was toasted by the request client; an empty list says the rest.
  const plants: VendorPlant[] | null = plantsQuery.isError ? [] : (plantsQuery.data ?? null)
  const [saving, setSaving] = useState<string | null>(null)
  const { data: stations = [] } = useQuery({
    queryKey: ['vendor-map-stations'],
    queryFn: async () =>
      (await loadStationOptions()).map((x) => ({ value: String(x.value), label: String(x.label) })),
  })
  const reload = async (fromVendor: boolean) => {
    setStored(!fromVendor)
    await client.invalidateQueries({ queryKey: ['vendor-plants', id] })
  }

  const map = async (plant: VendorPlant, stationId: string | null) => {
    if (!id) return
    setSaving(plant.plantId)
    try {
      await mapVendorPlant(id, plant.plantId, stationId)
      void message.success(
        t(stationId ? 'deviceUi.inverterThird.mapped' : 'deviceUi.inverterThird.unmappedDone'),
      )
      await reload(false)
    } catch {
      // Toasted by the request client (an SN taken elsewhere, a station out of scope).
    } finally {
      setSaving(null)
    }
  }

  return (
    <Modal
      open={account !== null}
      title={t('deviceUi.inverterThird.mapTitle', { account: account?.account ?? '' })}
      onCancel={onClose}
      footer={
        <Space>
          <Button data-testid="vendor-map-refresh" onClick={() => void reload(true)}>
            {t('deviceUi.inverterThird.refresh')}
          </Button>
          <Button type="primary" onClick={onClose}>
            {t('deviceUi.inverterThird.close')}
          </Button>
        </Space>
      }
      width={640}
      destroyOnHidden
    >
      <div data-testid="vendor-map-dialog">
        {plants === null ? (
          <Spin data-testid="vendor-map-loading" />
        ) : plants.length === 0 ? (
          <Empty description={t('deviceUi.inverterThird.noPlants')} />
        ) : (
          <List
            dataSource={plants}
            rowKey="plantId"
            renderItem={(p) => (
              <List.Item data-testid={`vendor-plant-${p.plantId}`} style={{ display: 'block' }}>
                <Space direction="vertical" style={{ width: '100%' }} size={6}>
                  <Space wrap>
                    <Typography.Text strong>{p.name}</Typography.Text>
                    <Typography.Text type="secondary">{p.plantId}</Typography.Text>
                    {p.stationId ? (
                      <>
                        <Tag color="green">{p.stationName}</Tag>
                        <Button
                          size="small"
                          data-testid={`vendor-plant-unmap-${p.plantId}`}
                          disabled={saving !== null}
                          onClick={() => void map(p, null)}
                        >
                          {t('deviceUi.inverterThird.unmap')}
                        </Button>
                      </>
                    ) : (
                      <Tag>{t('deviceUi.inverterThird.unmapped')}</Tag>
                    )}
                  </Space>
                  <Typography.Text type="secondary" data-testid={`vendor-plant-facts-${p.plantId}`}>
                    {t('deviceUi.inverterThird.capacity')}: {p.capacityKwp ?? '-'} ·{' '}
                    {t('deviceUi.inverterThird.devices')}: {p.deviceCount}
                  </Typography.Text>
                  <div data-testid={`vendor-plant-station-${p.plantId}`}>
                    <Select
                      style={{ width: '100%' }}
                      allowClear
                      showSearch
                      optionFilterProp="label"
                      placeholder={t('deviceUi.inverterThird.mapStation')}
                      options={stations}
                      value={p.stationId ?? undefined}
                      loading={saving === p.plantId}
                      disabled={saving !== null}
                      onChange={(v?: string) => void map(p, v ?? null)}
                    />
                  </div>
                  {p.stationId && p.backfillPercent !== null && (
                    <div data-testid={`vendor-plant-backfill-${p.plantId}`}>
                      <Typography.Text type="secondary">
                        {t('deviceUi.inverterThird.backfill')}
                        {p.backfilledUntil
                          ? ` · ${t('deviceUi.inverterThird.backfilledUntil', { time: p.backfilledUntil })}`
                          : ''}
                      </Typography.Text>
                      <Progress percent={p.backfillPercent} size="small" />
                    </div>
                  )}
                </Space>
              </List.Item>
            )}
          />
        )}
      </div>
    </Modal>
  )
}
