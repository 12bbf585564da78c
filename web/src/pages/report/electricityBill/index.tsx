import { SettingOutlined } from '@ant-design/icons'
import { Alert, Button, Card, Col, Row, Space, Spin, Table, Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Period } from '../../../api/report/period'
import { reportQuery } from '../../../api/report/queries'
import { billSettlement, selfConsumption } from '../../../api/report/report'
import type { BillFigures, SegmentLine, StationBill, StationRates } from '../../../api/report/types'
import Chart from '../../../components/realtime/Chart'
import StationSelect from '../../../components/realtime/StationSelect'
import { useDict } from '../../../hooks/useDict'
import { comboOption, pieOption } from '../common/chart'
import ExportButton from '../common/ExportButton'
import { fmt, pct, withUnit } from '../common/format'
import PeriodPicker from '../common/PeriodPicker'
import ReportLayout, { Figure, Figures } from '../common/ReportLayout'
import ReportTable from '../common/ReportTable'
import { useReport, useStationParam } from '../common/useReport'
import { breakdown, priceText, segmentTotal, touChart } from './logic'
import SettingDrawer from './SettingDrawer'

type BillRow = BillFigures & { label: string }

/**
 * Electricity bill settlement (/report/electricityBill): what a station's energy was worth per
 * slot, split by time-of-use segment (labels from the `price_segment_type` dictionary), with the
 * self-consumption ratios; days without a price are named in a warning; the tenant's report
 * settings are edited in a drawer.
 */
export default function ElectricityBillPage() {
  const { t } = useTranslation()
  const [stationId, setStationId] = useStationParam()
  const [period, setPeriod] = useState<Period>({ type: 'month' })
  const [settingOpen, setSettingOpen] = useState(false)
  const segmentDict = useDict('price_segment_type')
  const labelOf = useMemo(() => {
    const names = new Map(segmentDict.map((d) => [d.dictKey, d.dictValue]))
    return (kind: string) =>
      names.get(kind) ?? t(`report.bill.segment${kind}`, { defaultValue: kind })
  }, [segmentDict, t])
  const report = useReport<StationBill>(
    (p) => (stationId ? billSettlement(stationId, p) : null),
    period,
    (d) => d.title,
  )
  const ratesRequest = stationId && !report.problem ? selfConsumption(stationId, period) : null
  const rates = useQuery({
    ...reportQuery<StationRates>(ratesRequest ?? { path: '', params: {} }),
    enabled: ratesRequest !== null,
  })
  const bill = report.data
  const cur = bill?.currency ?? ''
  const touOption = useMemo(
    () => (bill ? comboOption(touChart(bill, labelOf)) : null),
    [bill, labelOf],
  )
  const pie = useMemo(
    () =>
      bill
        ? pieOption(
            t('report.bill.breakdown', { currency: bill.currency }),
            breakdown(bill, labelOf, {
              selfConsumed: t('report.bill.selfConsumed'),
              exported: t('report.bill.exported'),
            }),
          )
        : null,
    [bill, labelOf, t],
  )
  const r = rates.data?.total

  return (
    <>
      <ReportLayout
        testId="report-bill"
        filters={
          <>
            <StationSelect
              autoPick
              testId="report-bill-station"
              value={stationId}
              allowClear={false}
              onChange={setStationId}
              placeholder={t('report.common.selectStation')}
            />
            <PeriodPicker
              testId="report-bill-period"
              value={period}
              onChange={setPeriod}
              anchor={report.anchor}
              shownTitle={report.title}
            />
          </>
        }
        actions={
          <>
            <Button
              icon={<SettingOutlined />}
              onClick={() => setSettingOpen(true)}
              data-testid="report-bill-setting"
            >
              {t('report.setting.title')}
            </Button>
            <ExportButton
              code="electricityBill"
              request={report.exportRequest}
              testId="report-bill-export"
            />
          </>
        }
        onReload={report.reload}
        canReload={!!stationId}
        waiting={stationId ? null : t('report.common.noStation')}
        problem={report.problem}
      >
        <Spin spinning={report.loading}>
          {bill && touOption && pie && (
            <Space orientation="vertical" size={12} style={{ width: '100%' }}>
              {bill.unpricedDays.length > 0 && (
                <Alert
                  type="warning"
                  showIcon
                  data-testid="report-bill-unpriced"
                  title={t('report.bill.unpriced', {
                    count: bill.unpricedDays.length,
                    kwh: fmt(bill.unpricedKwh, 3),
                  })}
                  description={bill.unpricedDays.join(', ')}
                />
              )}
              {bill.noFeedInDays.length > 0 && (
                <Alert
                  type="warning"
                  showIcon
                  data-testid="report-bill-no-feed-in"
                  title={t('report.bill.noFeedIn', { count: bill.noFeedInDays.length })}
                  description={bill.noFeedInDays.join(', ')}
                />
              )}
              {bill.exportCappedIntervals > 0 && (
                <Alert
                  type="info"
                  showIcon
                  data-testid="report-bill-capped"
                  title={t('report.bill.capped', { count: bill.exportCappedIntervals })}
                />
              )}
              <Typography.Text type="secondary" data-testid="report-bill-terms">
                {t('report.bill.terms', {
                  connection: t(`report.bill.connection.${bill.gridConnection}`),
                  currency: bill.currency,
                  discount: fmt(bill.discountFactor, 4),
                  interval: bill.interval,
                })}
              </Typography.Text>
              <Figures>
                <Figure
                  testId="report-bill-total-amount"
                  label={t('report.bill.amount')}
                  value={fmt(bill.total.amount, 2)}
                  unit={cur}
                />
                <Figure
                  testId="report-bill-total-generation"
                  label={t('report.bill.generation')}
                  value={fmt(bill.total.generationKwh, 3)}
                  unit="kWh"
                />
                <Figure
                  testId="report-bill-self-consumption"
                  label={t('report.bill.selfConsumptionRatio')}
                  value={pct(r?.selfConsumptionRatio)}
                  unit="%"
                  note={rates.data && !rates.data.metered ? t('report.bill.unmetered') : undefined}
                />
                <Figure
                  testId="report-bill-feed-in"
                  label={t('report.bill.feedInRatio')}
                  value={pct(r?.feedInRatio)}
                  unit="%"
                />
                <Figure
                  testId="report-bill-self-sufficiency"
                  label={t('report.bill.selfSufficiencyRatio')}
                  value={pct(r?.selfSufficiencyRatio)}
                  unit="%"
                />
              </Figures>
              <Row gutter={[12, 12]}>
                <Col xs={24} lg={16}>
                  <Card size="small" title={t('report.bill.touChart')}>
                    <Chart
                      option={touOption}
                      notMerge
                      style={{ height: 320 }}
                      data-testid="report-bill-chart"
                    />
                  </Card>
                </Col>
                <Col xs={24} lg={8}>
                  <Card size="small">
                    <Chart
                      option={pie}
                      notMerge
                      style={{ height: 320 }}
                      data-testid="report-bill-pie"
                    />
                  </Card>
                </Col>
              </Row>
              <Table<SegmentLine>
                data-testid="report-bill-segments"
                size="small"
                rowKey="kind"
                pagination={false}
                scroll={{ x: 'max-content' }}
                dataSource={[...bill.total.segments, segmentTotal(bill)]}
                columns={[
                  {
                    key: 'kind',
                    title: t('report.bill.segment'),
                    fixed: 'left',
                    render: (_: unknown, s) =>
                      s.kind === 'total' ? (
                        <strong>{t('report.common.total')}</strong>
                      ) : (
                        labelOf(s.kind)
                      ),
                  },
                  {
                    key: 'price',
                    title: withUnit(t('report.bill.price'), `${cur}/kWh`),
                    align: 'right',
                    render: (_: unknown, s) => (s.kind === 'total' ? '' : priceText(s)),
                  },
                  {
                    key: 'generation',
                    title: withUnit(t('report.bill.generation'), 'kWh'),
                    align: 'right',
                    render: (_: unknown, s) => fmt(s.generationKwh, 3),
                  },
                  {
                    key: 'self',
                    title: withUnit(t('report.bill.selfConsumed'), 'kWh'),
                    align: 'right',
                    render: (_: unknown, s) => fmt(s.selfConsumedKwh, 3),
                  },
                  {
                    key: 'exported',
                    title: withUnit(t('report.bill.exported'), 'kWh'),
                    align: 'right',
                    render: (_: unknown, s) => fmt(s.exportedKwh, 3),
                  },
                  {
                    key: 'selfAmount',
                    title: withUnit(t('report.bill.selfConsumedAmount'), cur),
                    align: 'right',
                    render: (_: unknown, s) => fmt(s.selfConsumedAmount, 2),
                  },
                  {
                    key: 'exportedAmount',
                    title: withUnit(t('report.bill.exportedAmount'), cur),
                    align: 'right',
                    render: (_: unknown, s) => fmt(s.exportedAmount, 2),
                  },
                ]}
              />
              <ReportTable<BillRow>
                testId="report-bill-table"
                labelTitle={t('report.common.time')}
                label={(row) => row.label}
                rowKey={(row) => row.label}
                rows={bill.points}
                total={{ ...bill.total, label: 'total' }}
                totalLabel={t('report.common.total')}
                columns={[
                  {
                    key: 'generation',
                    title: t('report.bill.generation'),
                    unit: 'kWh',
                    value: (x) => x.generationKwh,
                    digits: 3,
                  },
                  {
                    key: 'self',
                    title: t('report.bill.selfConsumed'),
                    unit: 'kWh',
                    value: (x) => x.selfConsumedKwh,
                    digits: 3,
                  },
                  {
                    key: 'exported',
                    title: t('report.bill.exported'),
                    unit: 'kWh',
                    value: (x) => x.exportedKwh,
                    digits: 3,
                  },
                  {
                    key: 'imported',
                    title: t('report.bill.imported'),
                    unit: 'kWh',
                    value: (x) => x.importedKwh,
                    digits: 3,
                  },
                  {
                    key: 'selfAmount',
                    title: t('report.bill.selfConsumedAmount'),
                    unit: cur,
                    value: (x) => x.selfConsumedAmount,
                    digits: 2,
                  },
                  {
                    key: 'exportedAmount',
                    title: t('report.bill.exportedAmount'),
                    unit: cur,
                    value: (x) => x.exportedAmount,
                    digits: 2,
                  },
                  {
                    key: 'amount',
                    title: t('report.bill.amount'),
                    unit: cur,
                    value: (x) => x.amount,
                    digits: 2,
                  },
                ]}
              />
            </Space>
          )}
        </Spin>
      </ReportLayout>
      <SettingDrawer open={settingOpen} onClose={() => setSettingOpen(false)} />
    </>
  )
}
