import { PlayCircleOutlined } from '@ant-design/icons'
import { Button, Card, Col, Empty, Input, List, Row, Space, Tabs, Typography } from 'antd'
import { useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router-dom'
import {
  COMMISSIONING,
  stationDetail,
  stationList,
  type Station,
  type StationLight,
} from '../../api/station/station'
import { useSessionStore } from '../../stores/session'
import { FlexEditor } from '../flex/flex'
import { CameraList } from '../station/camera'
import { ElectricPriceEditor } from '../station/electricPrice'
import { InverterList } from '../station/inverter'
import { MeterList } from '../station/meter'
import StationForm from '../station/station/StationForm'
import InstallationStatusTag from '../station/station/StatusTag'
import { useStationActions } from '../station/station/useStationActions'
import { StationPriceList } from '../station/stationPrice'
import { WeatherList } from '../station/weather'
import BasicInfo from './BasicInfo'
import GatewayPanel from './GatewayPanel'
import { matchStations } from './logic'

/**
 * /archives: the station archive. Pick a station on the left (searchable); its record opens on
 * the right with tabs: basic information (summary, edit, commissioning → running), its devices
 * and its prices (the device and price screens, filtered to the station) and its gateway. The
 * chosen station is in the address (`?id=`), so a link opens it directly.
 */
export default function ArchivesPage() {
  const { t } = useTranslation()
  const [params, setParams] = useSearchParams()
  const selectedId = params.get('id') ?? ''
  const permission = useSessionStore((s) => s.permission)
  const [stations, setStations] = useState<StationLight[] | null>(null)
  const [filter, setFilter] = useState('')
  const [station, setStation] = useState<{ id: string; record: Station } | null>(null)
  const [tick, setTick] = useState(0)
  const [editing, setEditing] = useState(0)
  const { switchToRunning } = useStationActions()

  useEffect(() => {
    let live = true
    stationList().then(
      (rows) => live && setStations(rows),
      () => live && setStations([]),
    )
    return () => {
      live = false
    }
  }, [tick])

  useEffect(() => {
    if (!selectedId) return
    let live = true
    stationDetail(selectedId).then(
      (record) => live && setStation({ id: selectedId, record }),
      () => undefined, // shown by the request client
    )
    return () => {
      live = false
    }
  }, [selectedId, tick])

  const shown = useMemo(() => matchStations(stations ?? [], filter), [stations, filter])
  const current = station?.id === selectedId ? station.record : null
  const reload = () => setTick((n) => n + 1)

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
                <Typography.Text ellipsis style={{ maxWidth: '70%' }}>
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
                    children: <GatewayPanel key={tick} stationId={selectedId} />,
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
