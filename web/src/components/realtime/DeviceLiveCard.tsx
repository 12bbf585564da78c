import { WarningOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import {
  Alert,
  Card,
  Col,
  DatePicker,
  Empty,
  Row,
  Select,
  Space,
  Tag,
  Tooltip,
  Typography,
  theme,
} from 'antd'
import dayjs, { type Dayjs } from 'dayjs'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { defaultCurveNames, type DeviceReal, type LiveReading } from '../../api/realtime/deviceReal'
import { deviceCurveQuery } from '../../api/realtime/queries'
import Chart from './Chart'
import DeviceQualityPanel from './DeviceQuality'
import { useSuspectTotal } from './useDeviceQuality'
import { offsetMinutes, siteToday, utcLabel } from './clock'
import { deviceCurveOption, readingText } from './deviceLive'

/** One reading; an implausible one in the warning colour with an icon that says why. */
export function Reading({ reading }: { reading: LiveReading }) {
  const { t } = useTranslation()
  const { token } = theme.useToken()
  const text = readingText(reading)
  return (
    <div
      data-testid={`reading-${reading.name}`}
      data-value={reading.value ?? ''}
      data-plausible={reading.plausible ? 'true' : 'false'}
      style={{
        padding: '6px 8px',
        borderRadius: token.borderRadius,
        background: reading.plausible ? token.colorFillQuaternary : token.colorWarningBg,
        minWidth: 0,
      }}
    >
      <Typography.Text type="secondary" style={{ fontSize: 12 }} ellipsis>
        {reading.label}
      </Typography.Text>
      <div style={{ fontSize: 16, fontWeight: 600, fontVariantNumeric: 'tabular-nums' }}>
        {reading.plausible ? (
          text
        ) : (
          <Tooltip title={t('realtimeUi.deviceLive.implausible')}>
            <Typography.Text
              type="warning"
              strong
              data-testid={`reading-${reading.name}-implausible`}
              aria-label={`${text} (${t('realtimeUi.deviceLive.implausible')})`}
            >
              <WarningOutlined /> {text}
            </Typography.Text>
          </Tooltip>
        )}
      </div>
    </div>
  )
}

/** The device's readings in a grid that wraps to the width (two columns on a phone). */
export function Readings({ values }: { values: readonly LiveReading[] }) {
  const { t } = useTranslation()
  if (values.length === 0)
    return (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={t('realtimeUi.deviceLive.noValues')}
        data-testid="readings-empty"
      />
    )
  return (
    <div
      data-testid="readings"
      style={{
        display: 'grid',
        gridTemplateColumns: 'repeat(auto-fill, minmax(140px, 1fr))',
        gap: 8,
      }}
    >
      {values.map((v) => (
        <Reading key={v.name} reading={v} />
      ))}
    </div>
  )
}

const DAY = 'YYYY-MM-DD'

/**
 * A device's day curve with a date picker and a choice of metrics. Today's refreshes every
 * minute (new 5-minute buckets; paused in a hidden tab); another day's is read once.
 */
export function DeviceCurve({ stationId, device }: { stationId: string; device: DeviceReal }) {
  const { t } = useTranslation()
  // null: today in the station's clock, as the hub names it (the one clock rule).
  const [day, setDay] = useState<Dayjs | null>(null)
  const [names, setNames] = useState<string[]>(() => defaultCurveNames(device))
  const asked = day ? day.format(DAY) : undefined
  const curve = useQuery({
    ...deviceCurveQuery({ stationId, deviceId: device.id, names, date: asked }),
    refetchInterval: asked === undefined ? 60_000 : false,
    meta: { ownErrorState: true },
  })
  const offset = offsetMinutes(curve.data?.utcOffset)
  const stationToday = offset === null ? dayjs().format(DAY) : siteToday(offset)
  const date = asked ?? (curve.data?.date || stationToday)
  const series = curve.data?.series ?? []
  const hasPoints = series.some((s) => s.points.length > 0)
  const implausible = series.filter((s) => s.implausiblePoints > 0)
  const suspect = useSuspectTotal(stationId, device.id)
  const options = device.values.map((v) => ({ value: v.name, label: v.label }))
  return (
    <Space orientation="vertical" size={8} style={{ width: '100%' }}>
      <Space wrap size={8}>
        <DatePicker
          size="small"
          allowClear={false}
          value={day ?? dayjs(date)}
          aria-label={t('realtimeUi.deviceLive.date')}
          disabledDate={(d) => d.format(DAY) > stationToday}
          onChange={(d: Dayjs | null) => setDay(d && d.format(DAY) !== stationToday ? d : null)}
          data-testid={`device-curve-date-${device.id}`}
        />
        {options.length > 0 && (
          <Select
            size="small"
            mode="multiple"
            maxCount={10}
            maxTagCount="responsive"
            style={{ minWidth: 200, maxWidth: '100%' }}
            placeholder={t('realtimeUi.deviceLive.metrics')}
            aria-label={t('realtimeUi.deviceLive.metrics')}
            options={options}
            value={names}
            onChange={(next: string[]) => setNames(next)}
          />
        )}
      </Space>
      {implausible.map((s) => (
        <Alert
          key={s.name}
          type="warning"
          showIcon
          data-testid={`device-curve-implausible-${s.name}`}
          title={t('realtimeUi.deviceLive.implausiblePoints', {
            label: s.label,
            count: s.implausiblePoints,
          })}
        />
      ))}
      {suspect > 0 && (
        <Alert
          type="info"
          showIcon
          data-testid={`device-curve-suspect-${device.id}`}
          title={t('realtimeUi.quality.curveNote', { count: suspect })}
        />
      )}
      {curve.error && !curve.data ? (
        <Alert type="error" showIcon title={t('realtimeUi.deviceLive.loadFailed')} />
      ) : hasPoints ? (
        <Chart
          data-testid={`device-curve-${device.id}`}
          option={deviceCurveOption(series, { date })}
          notMerge
          style={{ height: 280 }}
        />
      ) : (
        <Empty
          data-testid={`device-curve-empty-${device.id}`}
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={curve.isPending ? '…' : t('realtimeUi.deviceLive.noCurve')}
        />
      )}
      {curve.data?.utcOffset && (
        <Typography.Text type="secondary" data-testid={`device-curve-clock-${device.id}`}>
          {t('realtimeUi.clockRule.axis', { offset: utcLabel(curve.data.utcOffset) })}
        </Typography.Text>
      )}
    </Space>
  )
}

/** Kind (meter role), online tag and data time of a device. */
export function DeviceHeader({ device }: { device: DeviceReal }) {
  const { t } = useTranslation()
  const role =
    device.kind === 'meter' && device.meterRole
      ? t(`realtimeUi.deviceLive.roles.${device.meterRole}`, {
          defaultValue: t('realtimeUi.device.kinds.meter'),
        })
      : t(`realtimeUi.device.kinds.${device.kind}`)
  return (
    <Space wrap size={4}>
      <Tag>{role}</Tag>
      <Tag color={device.online ? 'success' : 'default'} data-testid="device-online">
        {t(device.online ? 'realtimeUi.deviceLive.online' : 'realtimeUi.deviceLive.offline')}
      </Tag>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {device.updatedAt === null
          ? t('realtimeUi.deviceLive.never')
          : t('realtimeUi.deviceLive.updated', {
              time: dayjs(device.updatedAt).format('YYYY-MM-DD HH:mm:ss'),
            })}
      </Typography.Text>
    </Space>
  )
}

/**
 * A weather station or meter: its live readings and its day curve, side by side on a wide
 * screen, stacked on a narrow one (or always, `stacked`, in a drawer). The header (kind, online,
 * data time) sits in the body, where it may wrap on a phone.
 */
export default function DeviceLiveCard({
  stationId,
  device,
  stacked,
}: {
  stationId: string
  device: DeviceReal
  stacked?: boolean
}) {
  const { t } = useTranslation()
  const wide = stacked ? 24 : 10
  return (
    <Card
      size="small"
      data-testid={`device-live-${device.id}`}
      data-kind={device.kind}
      title={
        <Space wrap size={8}>
          <span>{device.name}</span>
          <Typography.Text type="secondary" style={{ fontSize: 12, fontWeight: 400 }}>
            {device.sn}
          </Typography.Text>
        </Space>
      }
    >
      <div style={{ marginBottom: 8 }}>
        <DeviceHeader device={device} />
      </div>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={wide}>
          <Typography.Text strong>{t('realtimeUi.deviceLive.values')}</Typography.Text>
          <div style={{ marginTop: 8 }}>
            <Readings values={device.values} />
          </div>
          <div style={{ marginTop: 12 }}>
            <Typography.Text strong>{t('realtimeUi.quality.title')}</Typography.Text>
            <DeviceQualityPanel stationId={stationId} deviceId={device.id} bordered={false} />
          </div>
        </Col>
        <Col xs={24} lg={stacked ? 24 : 14}>
          <Typography.Text strong>{t('realtimeUi.deviceLive.curve')}</Typography.Text>
          <div style={{ marginTop: 8 }}>
            <DeviceCurve stationId={stationId} device={device} />
          </div>
        </Col>
      </Row>
    </Card>
  )
}
