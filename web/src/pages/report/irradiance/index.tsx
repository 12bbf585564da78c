import { Alert, Card, Space, Spin, Typography } from 'antd'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Period } from '../../../api/report/period'
import { irradianceList } from '../../../api/report/report'
import type { IrradiancePoint, StationIrradiance } from '../../../api/report/types'
import Chart from '../../../components/realtime/Chart'
import StationSelect from '../../../components/realtime/StationSelect'
import { comboOption } from '../common/chart'
import ExportButton from '../common/ExportButton'
import { fmt } from '../common/format'
import PeriodPicker from '../common/PeriodPicker'
import ReportLayout, { Figure, Figures } from '../common/ReportLayout'
import ReportTable from '../common/ReportTable'
import { useReport, useStationParam } from '../common/useReport'
import { irradianceChart } from './logic'

/**
 * Irradiance (/report/irradiance): the insolation of a station's weather station per slot, in the
 * plane of the array and horizontal, with the peak irradiance and the mean ambient temperature.
 */
export default function IrradiancePage() {
  const { t } = useTranslation()
  const [stationId, setStationId] = useStationParam()
  const [period, setPeriod] = useState<Period>({ type: 'day' })
  const report = useReport<StationIrradiance>(
    (p) => (stationId ? irradianceList(stationId, p) : null),
    period,
    (d) => d.title,
  )
  const data = report.data
  const option = useMemo(
    () =>
      data
        ? comboOption(
            irradianceChart(data.points, {
              poa: t('report.irradiance.poa'),
              ghi: t('report.irradiance.ghi'),
              peak: t('report.irradiance.peak'),
            }),
          )
        : null,
    [data, t],
  )

  return (
    <ReportLayout
      testId="report-irradiance"
      filters={
        <>
          <StationSelect
            autoPick
            testId="report-irradiance-station"
            value={stationId}
            allowClear={false}
            onChange={setStationId}
            placeholder={t('report.common.selectStation')}
          />
          <PeriodPicker
            testId="report-irradiance-period"
            value={period}
            onChange={setPeriod}
            anchor={report.anchor}
            shownTitle={report.title}
          />
        </>
      }
      actions={
        <ExportButton
          code="irradiance"
          request={report.exportRequest}
          testId="report-irradiance-export"
        />
      }
      onReload={report.reload}
      canReload={!!stationId}
      waiting={stationId ? null : t('report.common.noStation')}
      problem={report.problem}
    >
      <Spin spinning={report.loading}>
        {data && option && (
          <Space orientation="vertical" size={12} style={{ width: '100%' }}>
            {data.weatherId === null && (
              <Alert
                type="warning"
                showIcon
                title={t('report.irradiance.noWeather')}
                data-testid="report-irradiance-no-weather"
              />
            )}
            <Figures>
              <Figure
                testId="report-irradiance-total-poa"
                label={t('report.irradiance.poa')}
                value={fmt(data.total.poaKwhM2, 3)}
                unit="kWh/m²"
              />
              <Figure
                testId="report-irradiance-total-ghi"
                label={t('report.irradiance.ghi')}
                value={fmt(data.total.ghiKwhM2, 3)}
                unit="kWh/m²"
              />
              <Figure
                testId="report-irradiance-total-peak"
                label={t('report.irradiance.peak')}
                value={fmt(data.total.peakIrradiance, 1)}
                unit="W/m²"
              />
              <Figure
                testId="report-irradiance-total-temp"
                label={t('report.irradiance.ambient')}
                value={fmt(data.total.ambientTemperature, 1)}
                unit="°C"
              />
            </Figures>
            <Card
              size="small"
              title={
                <Space wrap>
                  {data.stationName}
                  <Typography.Text type="secondary" data-testid="report-irradiance-title">
                    {data.title}
                  </Typography.Text>
                </Space>
              }
            >
              <Chart
                option={option}
                notMerge
                style={{ height: 320 }}
                data-testid="report-irradiance-chart"
              />
            </Card>
            <ReportTable<IrradiancePoint>
              testId="report-irradiance-table"
              labelTitle={t('report.common.time')}
              label={(r) => r.label}
              rowKey={(r) => r.label}
              rows={data.points}
              total={data.total}
              totalLabel={t('report.common.total')}
              columns={[
                {
                  key: 'poa',
                  title: t('report.irradiance.poa'),
                  unit: 'kWh/m²',
                  value: (r) => r.poaKwhM2,
                  digits: 3,
                },
                {
                  key: 'ghi',
                  title: t('report.irradiance.ghi'),
                  unit: 'kWh/m²',
                  value: (r) => r.ghiKwhM2,
                  digits: 3,
                },
                {
                  key: 'peak',
                  title: t('report.irradiance.peak'),
                  unit: 'W/m²',
                  value: (r) => r.peakIrradiance,
                  digits: 1,
                },
                {
                  key: 'temp',
                  title: t('report.irradiance.ambient'),
                  unit: '°C',
                  value: (r) => r.ambientTemperature,
                  digits: 1,
                },
              ]}
            />
          </Space>
        )}
      </Spin>
    </ReportLayout>
  )
}
