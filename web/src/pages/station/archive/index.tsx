import { PlayCircleOutlined } from '@ant-design/icons'
import { Button, Card, Col, Empty, Input, List, Row, Space, Tabs, Typography } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router-dom'
import { gatewayQuery, stationDetailQuery, stationListQuery } from '../../../api/station/queries'
import { COMMISSIONING, type StationLight } from '../../../api/station/station'
import { useSessionStore } from '../../../stores/session'
import { FlexEditor } from '../../device/tracker'
import { CameraList } from '../../device/camera'
import { ElectricPriceEditor } from '../../price/electricPrice'
import { InverterList } from '../../device/inverter'
import { MeterList } from '../../device/meter'
import StationForm from '../list/StationForm'
import InstallationStatusTag from '../list/StatusTag'
import { useStationActions } from '../list/useStationActions'
import { StationPriceList } from '../../price/stationPrice'
import { WeatherList } from '../../device/weather'
import BasicInfo from './BasicInfo'
import GatewayPanel from './GatewayPanel'
import { matchStations } from './logic'

/**
 * /archives: the station archive. Pick a station on the left (searchable); its record opens on
 * the right with tabs: basic information (summary, edit, commissioning → running), its devices
 * and its prices (the device and price screens, filtered to the station) and its gateway. The
 * chosen station is in the address (`?id=`), so a link opens it directly.
 */
const noStations: StationLight[] = []

export default function ArchivesPage() {
  const { t } = useTranslation()
  const [params, setParams] = useSearchParams()
  const selectedId = params.get('id') ?? ''
  const permission = useSessionStore((s) => s.permission)
  const [filter, setFilter] = useState('')
  const [editing, setEditing] = useState(0)
  const { switchToRunning } = useStationActions()

  const queryClient = useQueryClient()
  const list = useQuery(stationListQuery())
  const stations = list.isPending ? null : (list.data ?? noStations)
  // Failures are shown by the request client.
  const detail = useQuery({ ...stationDetailQuery(selectedId), enabled: selectedId !== '' })
  const current = detail.data ?? null

  const shown = useMemo(() => matchStations(stations ?? [], filter), [stations, filter])
  /** After a change: the list, the station and its gateway load again. */
  const reload = () => {
    for (const query of [
      stationListQuery(),
      stationDetailQuery(selectedId),
      gatewayQuery(selectedId),
    ])
      void queryClient.invalidateQueries({ queryKey: query.queryKey })
  }

  const devices = (
    <Tabs
      data-testid="archive-device-tabs"
      items={[
        {
          key: 'inverter',
          label: t('stationUi.archive.inverters'),
          children: <InverterList stationId={selectedId} />,
        },
        {
          key: 'meter',
          label: t('stationUi.archive.meters'),
          children: <MeterList stationId={selectedId} />,
        },
        {
          key: 'weather',
          label: t('stationUi.archive.weather'),
          children: <WeatherList stationId={selectedId} />,
        },
        {
          key: 'camera',
          label: t('stationUi.archive.cameras'),
          children: <CameraList stationId={selectedId} />,
        },
        {
          key: 'flex',
          label: t('stationUi.archive.flex'),
          children: <FlexEditor stationId={selectedId} />,
        },
      ]}
    />
  )
  const prices = (
    <Space direction="vertical" style={{ width: '100%' }} size="large">
      <ElectricPriceEditor stationId={selectedId} />
      <StationPriceList stationId={selectedId} />
    </Space>
  )

  return (
    <Row gutter={16} data-testid="archive-page">
      <Col xs={24} lg={6}>
        <Card title={t('stationUi.archive.stations')} size="small">
          <Input.Search
            allowClear
            data-testid="archive-search"
            placeholder={t('stationUi.archive.searchPlaceholder')}
            onChange={(e) => setFilter(e.target.value)}
            style={{ marginBottom: 8 }}
          />
          <List<StationLight>
            data-testid="archive-station-list"
            loading={stations === null}
            dataSource={shown}
            size="small"
            style={{ maxHeight: 'calc(100vh - 260px)', overflow: 'auto' }}
            locale={{ emptyText: t('stationUi.archive.noStations') }}
            renderItem={(item) => (
              <List.Item
                data-testid="archive-station"
                data-id={item.id}
                onClick={() => setParams({ id: item.id })}
                style={{
                  cursor: 'pointer',
                  paddingInline: 8,
                  borderRadius: 6,
                  background: item.id === selectedId ? 'rgba(64,158,255,0.12)' : undefined,
                }}
              >
                {/* The whole name, wrapped: demo names share their first characters. */}
                <Typography.Text
                  title={item.name}
                  data-testid="archive-station-name"
                  style={{ flex: 1, minWidth: 0, marginInlineEnd: 8, overflowWrap: 'anywhere' }}
                >
                  {item.name}
                </Typography.Text>
                <InstallationStatusTag status={item.installationStatus} />
              </List.Item>
            )}
          />
        </Card>
      </Col>
      <Col xs={24} lg={18}>
        {!selectedId ? (
          <Card>
            <Empty description={t('stationUi.archive.pick')} />
          </Card>
        ) : (
          <Card
            loading={current === null}
            data-testid="archive-detail"
            title={
              <Space>
                <span data-testid="archive-title">{current?.name}</span>
                <InstallationStatusTag status={current?.installationStatus} />
              </Space>
            }
            extra={
              current?.installationStatus === COMMISSIONING &&
              permission.station_switch === true && (
                <Button
                  icon={<PlayCircleOutlined />}
                  data-testid="archive-switch"
                  onClick={() => switchToRunning({ id: selectedId, name: current.name }, reload)}
                >
                  {t('stationUi.switch.action')}
                </Button>
              )
            }
          >
            {current && (
              <Tabs
                data-testid="archive-tabs"
                // A new station starts on its first tab, with fresh device and price screens.
                key={selectedId}
                items={[
                  {
                    key: 'basic',
                    label: t('stationUi.archive.basic'),
                    children: (
                      <BasicInfo
                        station={current}
                        canEdit={permission.station_edit === true}
                        onEdit={() => setEditing((n) => n + 1)}
                      />
                    ),
                  },
                  { key: 'devices', label: t('stationUi.archive.devices'), children: devices },
                  { key: 'prices', label: t('stationUi.archive.prices'), children: prices },
                  {
                    key: 'gateway',
                    label: t('stationUi.archive.gateway'),
                    children: <GatewayPanel stationId={selectedId} />,
                  },
                ]}
              />
            )}
          </Card>
        )}
      </Col>
      {editing > 0 && selectedId && (
        <StationForm
          key={editing}
          mode="edit"
          stationId={selectedId}
          open
          onClose={() => setEditing(0)}
          onSaved={reload}
        />
      )}
    </Row>
  )
}
