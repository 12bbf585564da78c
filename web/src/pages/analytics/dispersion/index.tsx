import { ReloadOutlined, SettingOutlined } from '@ant-design/icons'
import { Alert, Button, Card, DatePicker, Empty, Space, Spin, Table, Tag, Typography } from 'antd'
import dayjs, { type Dayjs } from 'dayjs'
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router-dom'
import { analyticsKeys, dispersionQuery } from '../../../api/analytics/queries'
import {
  type DispersionList,
  type DispersionRecord,
  type StringFigure,
} from '../../../api/analytics/discreteRate'
import Chart from '../../../components/realtime/Chart'
import StationSelect from '../../../components/realtime/StationSelect'
import { offsetMinutes, siteToday, utcLabel } from '../../../components/realtime/clock'
import { useSessionStore } from '../../../stores/session'
import {
  deviationOf,
  formatDeviation,
  formatRate,
  inverterMean,
  legendBands,
  levelColor,
  stringChartOption,
  weakStrings,
} from './logic'
import SettingDialog from './SettingDialog'

const dayFormat = 'YYYY-MM-DD'

/**
 * String-current dispersion (/intelligentOperation/discreteRate, `?stationId=`): a station's
 * inverters with at least 6 strings as coloured cells by level; an inverter's strings as bars of
 * normalised current against its mean, the weak ones red; the bounds in a settings dialog.
 */
export default function DiscreteRatePage() {
  const { t } = useTranslation()
  const [params] = useSearchParams()
  const [stationId, setStationId] = useState<string | undefined>(
    params.get('stationId') ?? undefined,
  )
  const [date, setDate] = useState<Dayjs | null>(null)
  const [selected, setSelected] = useState<string | null>(null)
  const [settingOpen, setSettingOpen] = useState(false)
  const canSet = useSessionStore((s) => s.permission.discreteRate_setting === true)
  const queryClient = useQueryClient()

  const day = date ? date.format(dayFormat) : undefined
  // The previous station's or day's answer stays on screen while the next one loads.
  const list = useQuery({
    ...dispersionQuery(stationId ?? '', day),
    enabled: stationId !== undefined,
    placeholderData: keepPreviousData,
  })
  const loading = stationId !== undefined && list.isFetching
  const data = list.data
  const reload = () => void queryClient.invalidateQueries({ queryKey: analyticsKeys.dispersion })
  const records = useMemo(() => data?.records ?? [], [data])
  const setting = data?.setting
  const record = records.find((r) => r.inverterId === selected) ?? null
  // The station's today (the one clock rule), once the hub has named its clock.
  const offset = offsetMinutes(data?.utcOffset)
  const stationToday = offset === null ? dayjs().format(dayFormat) : siteToday(offset)

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="dispersion-page">
      <Card size="small">
        <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
          <Space wrap>
            <StationSelect
              autoPick
              testId="dispersion-station"
              value={stationId}
              allowClear={false}
              onChange={(id) => {
                setStationId(id)
                setSelected(null)
              }}
              placeholder={t('analytics.common.selectStation')}
            />
            <DatePicker
              data-testid="dispersion-date"
              value={date}
              allowClear
              placeholder={data?.date || t('analytics.common.date')}
              disabledDate={(d) => d.format(dayFormat) > stationToday}
              onChange={(d) => {
                setDate(d)
                setSelected(null)
              }}
            />
            <Button
              icon={<ReloadOutlined />}
              disabled={!stationId}
              onClick={reload}
              data-testid="dispersion-refresh"
            >
              {t('analytics.common.refresh')}
            </Button>
          </Space>
          {canSet && (
            <Button
              icon={<SettingOutlined />}
              onClick={() => setSettingOpen(true)}
              data-testid="dispersion-setting-btn"
            >
              {t('analytics.common.setting')}
            </Button>
          )}
        </Space>
        <Typography.Paragraph
          type="secondary"
          style={{ fontSize: 12, margin: '8px 0 0' }}
          data-testid="dispersion-help"
        >
          {t('analytics.discrete.help')}
        </Typography.Paragraph>
      </Card>

      {!stationId ? (
        <Card size="small">
          <Empty
            data-testid="dispersion-no-station"
            description={t('analytics.common.noStation')}
          />
        </Card>
      ) : (
        <>
          {list.isError && <Alert type="error" showIcon title={t('analytics.common.loadFailed')} />}
          <Card
            size="small"
            title={
              <Space>
                {t('analytics.discrete.title')}
                {data?.date && <Typography.Text type="secondary">{data.date}</Typography.Text>}
                {data?.utcOffset && (
                  <Typography.Text type="secondary" data-testid="dispersion-clock">
                    {t('realtimeUi.clockRule.axis', { offset: utcLabel(data.utcOffset) })}
                  </Typography.Text>
                )}
              </Space>
            }
            extra={setting && <Legend setting={setting} />}
          >
            <Spin spinning={loading}>
              {records.length === 0 ? (
                <Empty
                  data-testid="dispersion-empty"
                  description={loading ? ' ' : t('analytics.discrete.noInverters')}
                />
              ) : (
                <div
                  data-testid="dispersion-heatmap"
                  style={{
                    display: 'grid',
                    gridTemplateColumns: 'repeat(auto-fill, minmax(150px, 1fr))',
                    gap: 8,
                  }}
                >
                  {records.map((r) => (
                    <Cell
                      key={r.inverterId}
                      record={r}
                      active={r.inverterId === selected}
                      onClick={() => setSelected(r.inverterId)}
                    />
                  ))}
                </div>
              )}
            </Spin>
          </Card>
          {records.length > 0 && setting && (
            <Card size="small" data-testid="dispersion-detail">
              {record ? (
                <StringDetail record={record} boundPct={setting.excellentMax} />
              ) : (
                <Empty description={t('analytics.discrete.pickInverter')} />
              )}
            </Card>
          )}
        </>
      )}
      <SettingDialog open={settingOpen} onClose={() => setSettingOpen(false)} onSaved={reload} />
    </Space>
  )
}

function Legend({ setting }: { setting: NonNullable<DispersionList['setting']> }) {
  const { t } = useTranslation()
  return (
    <Space size={4} wrap data-testid="dispersion-legend">
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('analytics.discrete.legend')}
      </Typography.Text>
      {legendBands(setting).map((band) => (
        <Tag
          key={band.level}
          color={levelColor(band.level)}
          data-testid={`dispersion-legend-${band.level}`}
          style={{ marginInlineEnd: 0 }}
        >
          {t(`analytics.level.${band.level}`)} {t(band.range, band.values)}
        </Tag>
      ))}
    </Space>
  )
}

function Cell({
  record,
  active,
  onClick,
}: {
  record: DispersionRecord
  active: boolean
  onClick: () => void
}) {
  const { t } = useTranslation()
  const color = levelColor(record.level)
  return (
    <button
      type="button"
      data-testid={`dispersion-cell-${record.inverterId}`}
      data-level={record.level}
      aria-pressed={active}
      onClick={onClick}
      title={`${record.inverterName}: ${t(`analytics.level.${record.level}`)} ${formatRate(record.rate)}`}
      style={{
        cursor: 'pointer',
        textAlign: 'left',
        border: active ? '2px solid #262626' : '2px solid transparent',
        borderRadius: 6,
        padding: '8px 10px',
        background: color,
        color: '#fff',
        minHeight: 72,
      }}
    >
      <div
        style={{
          fontWeight: 600,
          overflow: 'hidden',
          textOverflow: 'ellipsis',
          whiteSpace: 'nowrap',
        }}
      >
        {record.inverterName}
      </div>
      <div
        style={{ fontSize: 20, lineHeight: '28px' }}
        data-testid={`dispersion-rate-${record.inverterId}`}
      >
        {formatRate(record.rate)}
      </div>
      <div style={{ fontSize: 12 }}>
        {t(`analytics.level.${record.level}`)} · {t('analytics.discrete.stringCount')}{' '}
        {record.stringCount}
      </div>
    </button>
  )
}

function StringDetail({ record, boundPct }: { record: DispersionRecord; boundPct: number }) {
  const { t } = useTranslation()
  const weak = useMemo(() => weakStrings(record.strings, boundPct), [record, boundPct])
  const mean = inverterMean(record.strings)
  const option = useMemo(
    () =>
      stringChartOption(record, weak, {
        title: t('analytics.discrete.chartTitle', { name: record.inverterName }),
        normalised: t('analytics.discrete.normalised'),
        mean: (value) => t('analytics.discrete.mean', { value }),
        string: t('analytics.discrete.string'),
        deviation: t('analytics.discrete.deviation'),
        modules: t('analytics.discrete.modules'),
        current: t('analytics.discrete.current'),
      }),
    [record, weak, t],
  )
  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="dispersion-strings">
      <Space wrap>
        <Tag color={levelColor(record.level)} data-testid="dispersion-detail-level">
          {t(`analytics.level.${record.level}`)} {formatRate(record.rate)}
        </Tag>
        <Typography.Text type="secondary">
          {t('analytics.discrete.instants')}: {record.instants}
        </Typography.Text>
        <Typography.Text type={weak.length ? 'danger' : 'secondary'} data-testid="dispersion-weak">
          {weak.length
            ? t('analytics.discrete.weakList', { list: weak.map((i) => `PV${i}`).join(', ') })
            : t('analytics.discrete.noWeak')}
        </Typography.Text>
      </Space>
      <Chart
        option={option}
        notMerge
        style={{ height: 320 }}
        data-testid="dispersion-string-chart"
      />
      <Table<StringFigure>
        data-testid="dispersion-string-table"
        size="small"
        rowKey="index"
        pagination={false}
        dataSource={record.strings}
        onRow={(s) =>
          ({
            'data-testid': `dispersion-string-${s.index}`,
            'data-weak': weak.includes(s.index) ? 'true' : 'false',
            style: weak.includes(s.index) ? { background: 'rgba(245,34,45,0.08)' } : undefined,
          }) as React.HTMLAttributes<HTMLElement>
        }
        columns={[
          {
            title: t('analytics.discrete.string'),
            dataIndex: 'index',
            render: (i: number) => `PV${i}`,
          },
          {
            title: t('analytics.discrete.modules'),
            dataIndex: 'modules',
            render: (v: number | null) => v ?? '--',
          },
          {
            title: t('analytics.discrete.current'),
            dataIndex: 'currentA',
            align: 'right',
            render: (v: number | null) => (v === null ? '--' : v.toFixed(2)),
          },
          {
            title: t('analytics.discrete.normalised'),
            dataIndex: 'normalisedA',
            align: 'right',
            render: (v: number | null) => (v === null ? '--' : v.toFixed(2)),
          },
          {
            title: t('analytics.discrete.deviation'),
            key: 'dev',
            align: 'right',
            render: (_: unknown, s) => {
              const text = formatDeviation(deviationOf(s, mean))
              return weak.includes(s.index) ? (
                <Typography.Text type="danger" strong>
                  {text} · {t('analytics.discrete.weak')}
                </Typography.Text>
              ) : (
                text
              )
            },
          },
        ]}
      />
    </Space>
  )
}
