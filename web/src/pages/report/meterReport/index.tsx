import { Alert, Card, Empty, Select, Space, Spin, Typography } from 'antd'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Period } from '../../../api/report/period'
import { meterReport } from '../../../api/report/report'
import type { MeterPoint, MeterReport } from '../../../api/report/types'
import Chart from '../../../components/realtime/Chart'
import StationSelect from '../../../components/realtime/StationSelect'
import { comboOption } from '../common/chart'
import ExportButton from '../common/ExportButton'
import { fmt } from '../common/format'
import PeriodPicker from '../common/PeriodPicker'
import ReportLayout from '../common/ReportLayout'
import ReportTable, { type FigureColumn } from '../common/ReportTable'
import { useReport, useStationParam } from '../common/useReport'
import { allResets, countersOf, defaultMeter, meterChart } from './logic'

const UNIT: Record<string, string> = {
  energyImport: 'kWh',
  energyExport: 'kWh',
  reactiveEnergyImport: 'kvarh',
  reactiveEnergyExport: 'kvarh',
}

/**
 * Meter report (/report/meterReport): each meter of a station per slot, its energy from counter
 * deltas with the readings the slot starts and ends with, the counter resets (marked on the chart
 * and listed) and the hours without a reading.
 */
export default function MeterReportPage() {
  const { t } = useTranslation()
  const [stationId, setStationId] = useStationParam()
  const [period, setPeriod] = useState<Period>({ type: 'day' })
  const [picked, setPicked] = useState<string | undefined>()
  const report = useReport<MeterReport>(
    (p) => (stationId ? meterReport(stationId, p) : null),
    period,
    (d) => d.title,
  )
  const data = report.data
  const meters = useMemo(() => data?.meters ?? [], [data])
  const meterId = meters.some((m) => m.meterId === picked) ? picked : defaultMeter(meters)
  const meter = meters.find((m) => m.meterId === meterId)
  const option = useMemo(
    () =>
      meter
        ? comboOption(
            meterChart(meter, {
              energyImport: t('report.meter.energyImport'),
              energyExport: t('report.meter.energyExport'),
              reset: t('report.meter.reset'),
            }),
          )
        : null,
    [meter, t],
  )
  const resets = meter ? allResets(meter) : []
  const columns: FigureColumn<MeterPoint>[] = meter
    ? [
        ...countersOf(meter).flatMap((c) => [
          {
            key: `${c}-energy`,
            title: t(`report.meter.${c}`),
            unit: UNIT[c],
            value: (r: MeterPoint) => r[c]?.energy,
            digits: 3,
          },
          {
            key: `${c}-start`,
            title: `${t(`report.meter.${c}`)} ${t('report.meter.startReading')}`,
            unit: UNIT[c],
            value: (r: MeterPoint) => r[c]?.startReading,
            digits: 2,
          },
          {
            key: `${c}-end`,
            title: `${t(`report.meter.${c}`)} ${t('report.meter.endReading')}`,
            unit: UNIT[c],
            value: (r: MeterPoint) => r[c]?.endReading,
            digits: 2,
          },
        ]),
        {
          key: 'missing',
          title: t('report.meter.missingHours'),
          unit: 'h',
          value: (r: MeterPoint) => r.missingHours,
          digits: 0,
        },
      ]
    : []

  return (
    <ReportLayout
      testId="report-meter"
      filters={
        <>
          <StationSelect
            autoPick
            testId="report-meter-station"
            value={stationId}
            allowClear={false}
            onChange={(id) => {
              setStationId(id)
              setPicked(undefined)
            }}
            placeholder={t('report.common.selectStation')}
          />
          <PeriodPicker
            testId="report-meter-period"
            value={period}
            onChange={setPeriod}
            anchor={report.anchor}
            shownTitle={report.title}
          />
          {meters.length > 1 && (
            <Select
              data-testid="report-meter-meter"
              value={meterId}
              onChange={setPicked}
              style={{ minWidth: 180 }}
              options={meters.map((m) => ({
                value: m.meterId,
                label: `${m.meterName} · ${t(`report.meter.role${m.meterRole}`, { defaultValue: m.meterRole })}`,
              }))}
            />
          )}
        </>
      }
      actions={
        <ExportButton
          code="meterReport"
          request={report.exportRequest}
          testId="report-meter-export"
        />
      }
      onReload={report.reload}
      canReload={!!stationId}
      waiting={stationId ? null : t('report.common.noStation')}
      problem={report.problem}
    >
      <Spin spinning={report.loading}>
        {data && meters.length === 0 && (
          <Card size="small">
            <Empty description={t('report.meter.none')} data-testid="report-meter-none" />
          </Card>
        )}
        {data && meter && option && (
          <Space orientation="vertical" size={12} style={{ width: '100%' }}>
            {resets.length > 0 && (
              <Alert
                type="warning"
                showIcon
                data-testid="report-meter-resets"
                title={t('report.meter.resetsFound', { count: resets.length })}
                description={resets.join(', ')}
              />
            )}
            <Card
              size="small"
              title={
                <Space wrap>
                  {`${meter.meterName} (${meter.sn})`}
                  <Typography.Text type="secondary">
                    {t(`report.meter.role${meter.meterRole}`, { defaultValue: meter.meterRole })}
                  </Typography.Text>
                  <Typography.Text type="secondary" data-testid="report-meter-title">
                    {data.title}
                  </Typography.Text>
                </Space>
              }
            >
              <Chart
                option={option}
                notMerge
                style={{ height: 320 }}
                data-testid="report-meter-chart"
              />
            </Card>
            <ReportTable<MeterPoint>
              testId="report-meter-table"
              labelTitle={t('report.common.time')}
              label={(r) => r.label}
              rowKey={(r) => r.label}
              rows={meter.points}
              total={meter.total}
              totalLabel={t('report.common.total')}
              columns={columns}
            />
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('report.meter.help', { value: fmt(meter.total.missingHours, 0) })}
            </Typography.Text>
          </Space>
        )}
      </Spin>
    </ReportLayout>
  )
}
