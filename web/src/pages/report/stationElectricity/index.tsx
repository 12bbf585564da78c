import { Alert, Card, Space, Spin, Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Period } from '../../../api/report/period'
import { reportQuery } from '../../../api/report/queries'
import { stationElectricity, stationPerformance } from '../../../api/report/report'
import type { StationGeneration, StationPerformance } from '../../../api/report/types'
import Chart from '../../../components/realtime/Chart'
import StationSelect from '../../../components/realtime/StationSelect'
import { comboOption } from '../common/chart'
import ExportButton from '../common/ExportButton'
import { fmt, pct } from '../common/format'
import PeriodPicker from '../common/PeriodPicker'
import ReportLayout, { Figure, Figures } from '../common/ReportLayout'
import ReportTable from '../common/ReportTable'
import { useReport, useStationParam } from '../common/useReport'
import { stationChart, stationRows, type StationRow } from './logic'

/**
 * Station generation (/report/stationElectricity): energy per hour, day, month or year with the
 * specific yield, irradiation and the grid meter's export and import; the IEC 61724-1 PR of the
 * same slots as a line, said which PR it is, with the temperature-corrected PR and the γ used.
 */
export default function StationElectricityPage() {
  const { t } = useTranslation()
  const [stationId, setStationId] = useStationParam()
  const [period, setPeriod] = useState<Period>({ type: 'day' })
  const report = useReport<StationGeneration>(
    (p) => (stationId ? stationElectricity(stationId, p) : null),
    period,
    (d) => d.title,
  )
  const perfRequest = stationId && !report.problem ? stationPerformance(stationId, period) : null
  const perf = useQuery({
    ...reportQuery<StationPerformance>(perfRequest ?? { path: '', params: {} }),
    enabled: perfRequest !== null,
  })
  const gen = report.data
  const table = useMemo(() => (gen ? stationRows(gen, perf.data) : null), [gen, perf.data])
  const option = useMemo(
    () =>
      table
        ? comboOption(
            stationChart(table.rows, {
              energy: t('report.station.energy'),
              pr: t('report.station.pr'),
              prT: t('report.station.prT'),
              kwh: 'kWh',
              percent: '%',
            }),
          )
        : null,
    [table, t],
  )
  const p = perf.data

  return (
    <ReportLayout
      testId="report-station"
      filters={
        <>
          <StationSelect
            autoPick
            testId="report-station-station"
            value={stationId}
            allowClear={false}
            onChange={setStationId}
            placeholder={t('report.common.selectStation')}
          />
          <PeriodPicker
            testId="report-station-period"
            value={period}
            onChange={setPeriod}
            anchor={report.anchor}
            shownTitle={report.title}
          />
        </>
      }
      actions={
        <ExportButton
          code="stationElectricity"
          request={report.exportRequest}
          testId="report-station-export"
        />
      }
      onReload={report.reload}
      canReload={!!stationId}
      waiting={stationId ? null : t('report.common.noStation')}
      problem={report.problem}
    >
      <Spin spinning={report.loading}>
        {gen && table && option && (
          <Space orientation="vertical" size={12} style={{ width: '100%' }}>
            <Figures testId="report-station-figures">
              <Figure
                testId="report-station-total-energy"
                label={t('report.station.energy')}
                value={fmt(gen.total.energyKwh, 3)}
                unit="kWh"
              />
              <Figure
                testId="report-station-total-hours"
                label={t('report.station.hours')}
                value={fmt(gen.total.equivalentHours, 2)}
                unit="h"
                note={t('report.station.capacity', { value: fmt(gen.capacityKwp, 2) })}
              />
              <Figure
                testId="report-station-total-pr"
                label={t('report.station.pr')}
                value={pct(p?.total.pr)}
                unit="%"
                note={
                  p &&
                  t(p.planeOfArray ? 'report.station.prPoa' : 'report.station.prGhi', {
                    kind: p.prKind,
                  })
                }
              />
              <Figure
                testId="report-station-total-prt"
                label={t('report.station.prT')}
                value={pct(p?.total.prTemperatureCorrected)}
                unit="%"
                note={
                  p &&
                  t('report.station.gamma', {
                    value: fmt(p.setting.temperatureCoefficientPct, 2),
                  })
                }
              />
              <Figure
                testId="report-station-expected"
                label={t('report.station.expected')}
                value={fmt(p?.total.expectedEnergyKwh, 3)}
                unit="kWh"
                note={p && t('report.station.designPr', { value: fmt(p.setting.designPr, 2) })}
              />
              <Figure
                testId="report-station-availability"
                label={t('report.station.availability')}
                value={pct(p?.total.availability)}
                unit="%"
                note={
                  p &&
                  t('report.station.threshold', {
                    value: fmt(p.setting.availabilityThreshold, 0),
                  })
                }
              />
            </Figures>
            {p && (
              <Alert
                type="info"
                showIcon
                data-testid="report-station-pr-kind"
                title={t(p.planeOfArray ? 'report.station.prPoa' : 'report.station.prGhi', {
                  kind: p.prKind,
                })}
                description={t('report.station.intervals', {
                  counted: p.total.countedIntervals,
                  implausible: p.total.implausibleIntervals,
                  missing: p.total.missingIntervals,
                  interval: p.interval,
                })}
              />
            )}
            <Card
              size="small"
              title={
                <Space wrap>
                  {gen.stationName}
                  <Typography.Text type="secondary" data-testid="report-station-title">
                    {gen.title}
                  </Typography.Text>
                </Space>
              }
            >
              <Chart
                option={option}
                notMerge
                style={{ height: 320 }}
                data-testid="report-station-chart"
              />
            </Card>
            <ReportTable<StationRow>
              testId="report-station-table"
              labelTitle={t('report.common.time')}
              label={(r) => r.label}
              rowKey={(r) => r.label}
              rows={table.rows}
              total={table.total}
              totalLabel={t('report.common.total')}
              columns={[
                {
                  key: 'energy',
                  title: t('report.station.energy'),
                  unit: 'kWh',
                  value: (r) => r.energyKwh,
                  digits: 3,
                },
                {
                  key: 'hours',
                  title: t('report.station.hours'),
                  unit: 'h',
                  value: (r) => r.equivalentHours,
                  digits: 2,
                },
                {
                  key: 'irradiation',
                  title: t('report.station.irradiation'),
                  unit: 'kWh/m²',
                  value: (r) => r.irradiationKwhM2,
                  digits: 3,
                },
                {
                  key: 'export',
                  title: t('report.station.export'),
                  unit: 'kWh',
                  value: (r) => r.exportKwh,
                  digits: 3,
                },
                {
                  key: 'import',
                  title: t('report.station.import'),
                  unit: 'kWh',
                  value: (r) => r.importKwh,
                  digits: 3,
                },
                {
                  key: 'pr',
                  title: t('report.station.pr'),
                  unit: '%',
                  value: (r) => r.pr,
                  text: (r) => pct(r.pr),
                },
                {
                  key: 'prT',
                  title: t('report.station.prT'),
                  unit: '%',
                  value: (r) => r.prTemperatureCorrected,
                  text: (r) => pct(r.prTemperatureCorrected),
                },
              ]}
            />
          </Space>
        )}
      </Spin>
    </ReportLayout>
  )
}
