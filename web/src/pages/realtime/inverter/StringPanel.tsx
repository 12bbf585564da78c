import { Col, Empty, Progress, Row, Statistic, Table, Tabs, Tag, Tooltip } from 'antd'
import { useTranslation } from 'react-i18next'
import type { DeviceLive } from '../../../api/realtime/types'
import { metricUnit } from '../../../api/realtime/metrics'
import { metricLabel } from '../../../components/realtime/metricLabel'
import { displayUnit, formatPower, formatValue } from '../../../utils/units'
import DeviceQualityPanel from '../../../components/realtime/DeviceQuality'
import { stringView, type StringRow } from './strings'

/** An inverter's strings side by side (current bar against the best string) and all its values. */
export default function StringPanel({ device }: { device: DeviceLive }) {
  const { t } = useTranslation()
  const view = stringView(device.values)
  const top = Math.max(0, ...view.strings.map((s) => s.current ?? 0))
  const values = Object.entries(device.values).sort(([a], [b]) =>
    a.localeCompare(b, 'en', { numeric: true }),
  )
  return (
    <Tabs
      size="small"
      items={[
        {
          key: 'strings',
          label: t('realtimeUi.inverter.stringView'),
          children:
            view.strings.length === 0 && view.mppts.length > 0 ? (
              // Inverters that report per tracker only (SunSpec model 160): their inputs are the trackers.
              <Table
                size="small"
                rowKey="n"
                pagination={false}
                dataSource={view.mppts}
                data-testid={`mppt-view-${device.id}`}
                columns={[
                  {
                    title: t('realtimeUi.inverter.mppt'),
                    dataIndex: 'n',
                    width: 80,
                    render: (n: number) => `MPPT${n}`,
                  },
                  {
                    title: t('realtimeUi.inverter.voltage'),
                    dataIndex: 'voltage',
                    align: 'right',
                    render: (v: number | null) => formatValue(v, 'V', 1),
                  },
                  {
                    title: t('realtimeUi.inverter.current'),
                    dataIndex: 'current',
                    align: 'right',
                    render: (v: number | null) => formatValue(v, 'A', 2),
                  },
                  {
                    title: t('realtimeUi.inverter.stringPower'),
                    dataIndex: 'power',
                    align: 'right',
                    render: (w: number | null) => formatPower(w),
                  },
                ]}
              />
            ) : view.strings.length === 0 ? (
              <Empty description={t('realtimeUi.inverter.noStrings')} />
            ) : (
              <div data-testid={`string-view-${device.id}`}>
                <Row gutter={24} style={{ marginBottom: 8 }}>
                  <Col>
                    <Statistic
                      title={t('realtimeUi.inverter.meanCurrent')}
                      value={formatValue(view.meanCurrent, 'A')}
                    />
                  </Col>
                  <Col>
                    <Tooltip title={t('realtimeUi.inverter.dispersionNote')}>
                      <Statistic
                        title={t('realtimeUi.inverter.dispersion')}
                        value={formatValue(view.dispersion, '%', 1)}
                      />
                    </Tooltip>
                  </Col>
                </Row>
                <Table<StringRow>
                  size="small"
                  rowKey="n"
                  pagination={false}
                  dataSource={view.strings}
                  rowClassName={(r) => (r.weak ? 'string-weak' : '')}
                  onRow={(r) =>
                    ({
                      'data-testid': `string-row-${r.n}`,
                      'data-weak': r.weak,
                    }) as React.HTMLAttributes<HTMLElement>
                  }
                  columns={[
                    {
                      title: t('realtimeUi.inverter.string'),
                      dataIndex: 'n',
                      width: 80,
                      render: (n: number) => `PV${n}`,
                    },
                    {
                      title: t('realtimeUi.inverter.voltage'),
                      dataIndex: 'voltage',
                      align: 'right',
                      render: (v: number | null, r) =>
                        r.voltageFromMppt === null ? (
                          formatValue(v, 'V', 1)
                        ) : (
                          <Tooltip
                            title={t('realtimeUi.inverter.voltageFromMppt', {
                              n: r.voltageFromMppt,
                            })}
                          >
                            <span data-testid={`string-voltage-mppt-${r.n}`}>
                              ≈ {formatValue(v, 'V', 1)}
                            </span>
                          </Tooltip>
                        ),
                    },
                    {
                      title: t('realtimeUi.inverter.current'),
                      dataIndex: 'current',
                      align: 'right',
                      render: (v: number | null) => formatValue(v, 'A', 2),
                    },
                    {
                      title: '',
                      key: 'bar',
                      width: 180,
                      render: (_: unknown, r) => (
                        <Progress
                          percent={top > 0 && r.current !== null ? (r.current / top) * 100 : 0}
                          showInfo={false}
                          size="small"
                          strokeColor={r.weak ? '#f5222d' : '#52c41a'}
                        />
                      ),
                    },
                    {
                      title: t('realtimeUi.inverter.stringPower'),
                      dataIndex: 'power',
                      align: 'right',
                      render: (w: number | null) => formatPower(w),
                    },
                    {
                      title: t('realtimeUi.inverter.deviation'),
                      dataIndex: 'deviation',
                      align: 'right',
                      render: (d: number | null, r) => (
                        <>
                          {formatValue(d, '%', 1)}{' '}
                          {r.weak && <Tag color="red">{t('realtimeUi.inverter.weak')}</Tag>}
                          {r.implausible && (
                            <Tooltip title={t('realtimeUi.inverter.implausibleNote')}>
                              <Tag color="orange" data-testid={`string-implausible-${r.n}`}>
                                {t('realtimeUi.inverter.implausible')}
                              </Tag>
                            </Tooltip>
                          )}
                        </>
                      ),
                    },
                  ]}
                />
              </div>
            ),
        },
        {
          key: 'values',
          label: t('realtimeUi.inverter.allValues'),
          children: (
            <Table
              size="small"
              rowKey="0"
              pagination={false}
              dataSource={values}
              columns={[
                {
                  title: t('realtimeUi.inverter.metric'),
                  key: 'name',
                  render: (_: unknown, [name]: [string, number | string]) => metricLabel(t, name),
                },
                {
                  title: t('realtimeUi.inverter.value'),
                  key: 'value',
                  align: 'right',
                  render: (_: unknown, [name, v]: [string, number | string]) => {
                    if (typeof v === 'string') return v
                    const unit = metricUnit(name)
                    if (unit === 'W') return formatPower(v)
                    if (unit === 'Wh') return formatValue(v / 1000, 'kWh')
                    return formatValue(v, displayUnit(unit))
                  },
                },
              ]}
            />
          ),
        },
        {
          key: 'quality',
          label: t('realtimeUi.quality.title'),
          children: (
            <DeviceQualityPanel
              stationId={device.stationId}
              deviceId={device.id}
              bordered={false}
            />
          ),
        },
      ]}
    />
  )
}
