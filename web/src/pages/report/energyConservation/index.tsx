import { Card, Descriptions, Select, Space, Spin, Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Period } from '../../../api/report/period'
import { energyConservation } from '../../../api/report/report'
import type { EnergyConservation, Savings } from '../../../api/report/types'
import { stationNamesQuery } from '../../../api/station/queries'
import Chart from '../../../components/realtime/Chart'
import { comboOption } from '../common/chart'
import ExportButton from '../common/ExportButton'
import { fmt } from '../common/format'
import PeriodPicker from '../common/PeriodPicker'
import ReportLayout, { Figure, Figures } from '../common/ReportLayout'
import ReportTable from '../common/ReportTable'
import { useReport } from '../common/useReport'
import { COEFFICIENTS, SAVINGS, savingsChart } from './logic'

type SavingsRow = Savings & { label: string }

/**
 * Energy conservation (/report/energyConservation): standard coal saved, CO2, SO2, NOx and dust
 * avoided and trees equivalent of the chosen stations' generation (all of them when none is
 * chosen), with the coefficients the figures were made with.
 */
export default function EnergyConservationPage() {
  const { t } = useTranslation()
  const [stationIds, setStationIds] = useState<string[]>([])
  const [period, setPeriod] = useState<Period>({ type: 'year' })
  const stations = useQuery(stationNamesQuery())
  const report = useReport<EnergyConservation>(
    (p) => energyConservation(stationIds, p),
    period,
    (d) => d.title,
  )
  const data = report.data
  const option = useMemo(
    () =>
      data
        ? comboOption(
            savingsChart(data.points, {
              coal: t('report.saving.coalT'),
              co2: t('report.saving.co2T'),
            }),
          )
        : null,
    [data, t],
  )

  return (
    <ReportLayout
      testId="report-saving"
      filters={
        <>
          <Select<string[]>
            data-testid="report-saving-stations"
            mode="multiple"
            allowClear
            maxTagCount="responsive"
            style={{ minWidth: 220, maxWidth: 420 }}
            placeholder={t('report.saving.allStations')}
            loading={stations.isPending}
            value={stationIds}
            onChange={setStationIds}
            options={(stations.data ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
            showSearch={{ optionFilterProp: 'label' }}
          />
          <PeriodPicker
            testId="report-saving-period"
            value={period}
            onChange={setPeriod}
            anchor={report.anchor}
            shownTitle={report.title}
          />
        </>
      }
      actions={
        <ExportButton
          code="energyConservation"
          pageOnly
          request={report.exportRequest}
          testId="report-saving-export"
        />
      }
      onReload={report.reload}
      canReload
      waiting={null}
      problem={report.problem}
    >
      <Spin spinning={report.loading}>
        {data && option && (
          <Space orientation="vertical" size={12} style={{ width: '100%' }}>
            <Figures testId="report-saving-figures">
              <Figure
                testId="report-saving-total-energyKwh"
                label={t('report.saving.energyKwh')}
                value={fmt(data.total.energyKwh, 3)}
                unit="kWh"
              />
              {SAVINGS.map((s) => (
                <Figure
                  key={s.key}
                  testId={`report-saving-total-${s.key}`}
                  label={t(`report.saving.${s.key}`)}
                  value={fmt(data.total[s.key], s.digits)}
                  unit={s.unit || t('report.saving.treesUnit')}
                />
              ))}
            </Figures>
            <Card
              size="small"
              title={
                <Space wrap>
                  {t('report.saving.chart')}
                  <Typography.Text type="secondary" data-testid="report-saving-title">
                    {data.title}
                  </Typography.Text>
                </Space>
              }
            >
              <Chart
                option={option}
                notMerge
                style={{ height: 300 }}
                data-testid="report-saving-chart"
              />
            </Card>
            <Card size="small" title={t('report.saving.coefficients')}>
              <Descriptions
                size="small"
                column={{ xs: 1, sm: 2, lg: 3 }}
                data-testid="report-saving-coefficients"
                items={COEFFICIENTS.map((c) => ({
                  key: c.key,
                  label: `${t(`report.saving.coef.${c.key}`)} (${c.unit})`,
                  children: (
                    <Space size={8} wrap>
                      <span data-testid={`report-saving-coef-${c.key}`}>
                        {String(data.factors[c.key])}
                      </span>
                      <Typography.Text type="secondary" style={{ fontSize: 12 }} copyable>
                        {`energy.${c.key}`}
                      </Typography.Text>
                    </Space>
                  ),
                }))}
              />
              <Typography.Text
                type="secondary"
                style={{ fontSize: 12 }}
                data-testid="report-saving-coef-help"
              >
                {t('report.saving.coefHelp')}
              </Typography.Text>
            </Card>
            <ReportTable<SavingsRow>
              testId="report-saving-table"
              labelTitle={t('report.common.time')}
              label={(r) => r.label}
              rowKey={(r) => r.label}
              rows={data.points}
              total={{ ...data.total, label: 'total' }}
              totalLabel={t('report.common.total')}
              columns={[
                {
                  key: 'energyKwh',
                  title: t('report.saving.energyKwh'),
                  unit: 'kWh',
                  value: (r) => r.energyKwh,
                  digits: 3,
                },
                ...SAVINGS.map((s) => ({
                  key: s.key,
                  title: t(`report.saving.${s.key}`),
                  unit: s.unit || t('report.saving.treesUnit'),
                  value: (r: SavingsRow) => r[s.key],
                  digits: s.digits,
                })),
              ]}
            />
          </Space>
        )}
      </Spin>
    </ReportLayout>
  )
}
