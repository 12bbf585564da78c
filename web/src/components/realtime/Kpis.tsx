import {
  AppstoreOutlined,
  BankOutlined,
  CalendarOutlined,
  CloudOutlined,
  DatabaseOutlined,
  MoneyCollectOutlined,
  ThunderboltOutlined,
} from '@ant-design/icons'
import { Card, Col, Row, Tooltip, Typography, theme } from 'antd'
import type { ReactNode } from 'react'
import type { RevenueFigures } from '../../api/realtime/types'
import { useTranslation } from 'react-i18next'
import {
  CO2_KG_PER_KWH,
  formatValue,
  percentOf,
  scaleCapacity,
  scaleEnergy,
  scaleMass,
  scalePower,
  type Scaled,
} from '../../utils/units'
import { formatMoney } from '../../utils/money'

export interface KpiCardProps {
  testId: string
  label: string
  value: Scaled
  icon?: ReactNode
  /** Small line under the value (load rate, coefficient used). */
  extra?: ReactNode
  hint?: string
  colour?: string
  dark?: boolean
}

/** One figure with its unit, large and readable (the operator's first glance). */
export function KpiCard({ testId, label, value, icon, extra, hint, colour, dark }: KpiCardProps) {
  const { token } = theme.useToken()
  const accent = colour ?? token.colorPrimary
  const body = (
    <div data-testid={testId} data-value={Number.isNaN(value.number) ? '' : value.number}>
      <div
        style={{
          display: 'flex',
          alignItems: 'center',
          gap: 8,
          color: dark ? 'rgba(255,255,255,0.7)' : token.colorTextSecondary,
          fontSize: dark ? '0.875em' : 14,
        }}
      >
        {icon && <span style={{ color: accent, fontSize: dark ? '1.125em' : 18 }}>{icon}</span>}
        <span>{label}</span>
      </div>
      <div style={{ marginTop: 6, whiteSpace: 'nowrap' }}>
        <span
          className="kpi-value"
          style={{
            fontSize: dark ? '1.75em' : 26,
            fontWeight: 600,
            color: dark ? '#fff' : token.colorText,
            fontVariantNumeric: 'tabular-nums',
          }}
        >
          {value.value}
        </span>
        <span
          className="kpi-unit"
          style={{
            marginLeft: 6,
            color: dark ? 'rgba(255,255,255,0.65)' : token.colorTextSecondary,
          }}
        >
          {value.unit}
        </span>
      </div>
      {extra && (
        <Typography.Text
          type="secondary"
          style={{
            fontSize: dark ? '0.75em' : 12,
            color: dark ? 'rgba(255,255,255,0.55)' : undefined,
          }}
        >
          {extra}
        </Typography.Text>
      )}
    </div>
  )
  const content = hint ? <Tooltip title={hint}>{body}</Tooltip> : body
  return dark ? (
    <div className="bigscreen-panel bigscreen-kpi">{content}</div>
  ) : (
    <Card size="small" style={{ height: '100%' }}>
      {content}
    </Card>
  )
}

export interface FleetFigures {
  powerW: number | null
  todayWh: number | null
  totalWh: number | null
  capacityWp: number | null
  co2Kg: number | null
  /**
   * Equivalent full-load hours today as the hub computed them (the home totals'
   * `equivalentHoursToday`); without it, today's energy / capacity.
   */
  hoursToday?: number | null
  stations?: number
  /** Revenue (the electricity bill) of today and this month so far; no card without it. */
  revenue?: RevenueFigures
}

/**
 * The standard KPI row: current power (with load rate), energy today (with full-load hours),
 * revenue today (with this month's, when given), lifetime energy, installed capacity, CO2 avoided (with its coefficient) and, for a fleet, the
 * number of stations.
 */
export function KpiRow({
  figures,
  dark,
  co2Factor = CO2_KG_PER_KWH,
}: {
  figures: FleetFigures
  dark?: boolean
  /** kg CO2 per kWh behind the CO2 figure (the server's parameter when it says). */
  co2Factor?: number
}) {
  const { t, i18n } = useTranslation()
  const load = percentOf(figures.powerW, figures.capacityWp)
  const hours =
    figures.hoursToday !== undefined
      ? figures.hoursToday
      : figures.todayWh !== null && figures.capacityWp !== null && figures.capacityWp > 0
        ? figures.todayWh / figures.capacityWp
        : null
  const cards: KpiCardProps[] = [
    {
      testId: 'kpi-current-power',
      label: t('realtimeUi.kpi.currentPower'),
      value: scalePower(figures.powerW, 'kW'),
      icon: <ThunderboltOutlined />,
      colour: '#52c41a',
      extra:
        load !== null ? `${t('realtimeUi.kpi.loadRate')} ${formatValue(load, '%', 1)}` : undefined,
      hint: t('realtimeUi.kpi.loadRateNote'),
    },
    {
      testId: 'kpi-today-energy',
      label: t('realtimeUi.kpi.todayEnergy'),
      value: scaleEnergy(figures.todayWh),
      icon: <CalendarOutlined />,
      colour: '#1677ff',
      extra:
        hours !== null
          ? `${t('realtimeUi.kpi.specificYield')} ${formatValue(hours, 'h', 2)}`
          : undefined,
      hint: t('realtimeUi.kpi.specificYieldNote'),
    },
    {
      testId: 'kpi-total-energy',
      label: t('realtimeUi.kpi.totalEnergy'),
      value: scaleEnergy(figures.totalWh),
      icon: <DatabaseOutlined />,
      colour: '#722ed1',
    },
    {
      testId: 'kpi-capacity',
      label: t('realtimeUi.kpi.capacity'),
      value: scaleCapacity(figures.capacityWp),
      icon: <AppstoreOutlined />,
      colour: '#fa8c16',
    },
    {
      testId: 'kpi-co2',
      label: t('realtimeUi.kpi.co2'),
      value: scaleMass(figures.co2Kg),
      icon: <CloudOutlined />,
      colour: '#13c2c2',
      extra: t('realtimeUi.kpi.co2Note', { coef: co2Factor }),
    },
  ]
  const revenue = figures.revenue
  if (revenue) {
    const money = (amount: number | null) => formatMoney(amount, revenue.currency, i18n.language)
    cards.splice(2, 0, {
      testId: 'kpi-today-revenue',
      label: t('realtimeUi.revenue.today'),
      value: { value: money(revenue.today), unit: '', number: revenue.today ?? NaN },
      icon: <MoneyCollectOutlined />,
      colour: '#faad14',
      extra: (
        <span data-testid="kpi-month-revenue" data-value={revenue.month ?? ''}>
          {t('realtimeUi.revenue.monthLine', { amount: money(revenue.month) })}
        </span>
      ),
      hint: t('realtimeUi.revenue.hint'),
    })
  }
  if (figures.stations !== undefined) {
    cards.unshift({
      testId: 'kpi-stations',
      label: t('realtimeUi.kpi.stations'),
      value: { value: String(figures.stations), unit: '', number: figures.stations },
      icon: <BankOutlined />,
    })
  }
  // The big screen lays its cards out itself: two to a row, filling the column (bigScreen.css).
  if (dark)
    return (
      <div className="bigscreen-kpis" data-testid="kpi-row">
        {cards.map((card) => (
          <KpiCard key={card.testId} {...card} dark />
        ))}
      </div>
    )
  return (
    <Row gutter={[12, 12]} data-testid="kpi-row">
      {cards.map((card) => (
        <Col key={card.testId} flex="1 1 190px">
          <KpiCard {...card} dark={dark} />
        </Col>
      ))}
    </Row>
  )
}
