import { Card, Select, Space, Spin, Table, Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Period } from '../../../api/report/period'
import { stationInvertersQuery } from '../../../api/report/queries'
import { inverterElectricity } from '../../../api/report/report'
import type { InverterGeneration } from '../../../api/report/types'
import Chart from '../../../components/realtime/Chart'
import StationSelect from '../../../components/realtime/StationSelect'
import { comboOption } from '../common/chart'
import ExportButton from '../common/ExportButton'
import { fmt, withUnit } from '../common/format'
import PeriodPicker from '../common/PeriodPicker'
import ReportLayout from '../common/ReportLayout'
import ReportTable from '../common/ReportTable'
import { useReport, useStationParam } from '../common/useReport'
import { inverterChart, slotRows, summaryTotal, type SlotRow } from './logic'

/**
 * Inverter generation (/report/inverterElectricity): a station's inverters (all, or those picked)
 * side by side per slot, with their specific yield and share of the station's energy.
 */
export default function InverterElectricityPage() {
  const { t } = useTranslation()
  const [stationId, setStationId] = useStationParam()
  const [inverterIds, setInverterIds] = useState<string[]>([])
  const [period, setPeriod] = useState<Period>({ type: 'day' })
  const inverters = useQuery({
    ...stationInvertersQuery(stationId ?? ''),
    enabled: stationId !== undefined,
  })
  const report = useReport<InverterGeneration[]>(
    (p) => (stationId ? inverterElectricity(stationId, inverterIds, p) : null),
    period,
    (d) => d[0]?.title,
  )
  const list = useMemo(() => report.data ?? [], [report.data])
  const table = useMemo(() => slotRows(list), [list])
  const option = useMemo(() => comboOption(inverterChart(list, 'kWh')), [list])
  const total = summaryTotal(list)

  return (
    <ReportLayout
      testId="report-inverter"
      filters={
        <>
          <StationSelect
            autoPick
            testId="report-inverter-station"
            value={stationId}
            allowClear={false}
            onChange={(id) => {
              setStationId(id)
              setInverterIds([])
            }}
            placeholder={t('report.common.selectStation')}
          />
          <Select<string[]>
            data-testid="report-inverter-inverters"
            mode="multiple"
            allowClear
            maxTagCount="responsive"
            style={{ minWidth: 220, maxWidth: 420 }}
            placeholder={t('report.inverter.all')}
            loading={inverters.isFetching}
            value={inverterIds}
            onChange={setInverterIds}
            options={(inverters.data ?? []).map((i) => ({ value: i.id, label: i.name }))}
            showSearch={{ optionFilterProp: 'label' }}
          />
          <PeriodPicker
            testId="report-inverter-period"
            value={period}
            onChange={setPeriod}
            anchor={report.anchor}
            shownTitle={report.title}
          />
        </>
      }
      actions={
        <ExportButton
          code="inverterElectricity"
          request={report.exportRequest}
          testId="report-inverter-export"
        />
      }
      onReload={report.reload}
      canReload={!!stationId}
      waiting={stationId ? null : t('report.common.noStation')}
      problem={report.problem}
    >
      <Spin spinning={report.loading}>
        <Space orientation="vertical" size={12} style={{ width: '100%' }}>
          <Card
            size="small"
            title={
              <Space wrap>
                {t('report.inverter.compare')}
                <Typography.Text type="secondary" data-testid="report-inverter-title">
                  {report.title}
                </Typography.Text>
              </Space>
            }
          >
            {list.length === 0 ? (
              <Typography.Text type="secondary" data-testid="report-inverter-empty">
                {t('report.inverter.none')}
              </Typography.Text>
            ) : (
              <Chart
                option={option}
                notMerge
                style={{ height: 320 }}
                data-testid="report-inverter-chart"
              />
            )}
          </Card>
          <Table<InverterGeneration>
            data-testid="report-inverter-summary"
            size="small"
            rowKey="inverterId"
            pagination={false}
            dataSource={list}
            scroll={{ x: 'max-content' }}
            onRow={(r) => ({ 'data-row': r.inverterId }) as React.HTMLAttributes<HTMLElement>}
            columns={[
              {
                key: 'name',
                title: t('report.inverter.name'),
                dataIndex: 'inverterName',
                fixed: 'left',
              },
              {
                key: 'capacity',
                title: withUnit(t('report.inverter.capacity'), 'kWp'),
                align: 'right',
                render: (_: unknown, r) => fmt(r.capacityKwp, 2),
              },
              {
                key: 'energy',
                title: withUnit(t('report.station.energy'), 'kWh'),
                align: 'right',
                render: (_: unknown, r) => fmt(r.total.energyKwh, 3),
              },
              {
                key: 'hours',
                title: withUnit(t('report.station.hours'), 'h'),
                align: 'right',
                render: (_: unknown, r) => fmt(r.total.equivalentHours, 2),
              },
              {
                key: 'share',
                title: withUnit(t('report.inverter.share'), '%'),
                align: 'right',
                render: (_: unknown, r) => fmt(r.total.sharePct, 2),
              },
            ]}
            summary={() =>
              list.length > 0 ? (
                <Table.Summary.Row>
                  <Table.Summary.Cell index={0}>
                    <strong>{t('report.common.total')}</strong>
                  </Table.Summary.Cell>
                  <Table.Summary.Cell index={1} align="right">
                    <strong>{fmt(total.capacityKwp, 2)}</strong>
                  </Table.Summary.Cell>
                  <Table.Summary.Cell index={2} align="right">
                    <strong data-testid="report-inverter-summary-total-energy">
                      {fmt(total.energyKwh, 3)}
                    </strong>
                  </Table.Summary.Cell>
                  <Table.Summary.Cell index={3} align="right">
                    —
                  </Table.Summary.Cell>
                  <Table.Summary.Cell index={4} align="right">
                    <strong>{fmt(total.sharePct, 2)}</strong>
                  </Table.Summary.Cell>
                </Table.Summary.Row>
              ) : null
            }
          />
          {list.length > 0 && (
            <ReportTable<SlotRow>
              testId="report-inverter-table"
              labelTitle={t('report.common.time')}
              label={(r) => r.label}
              rowKey={(r) => r.label}
              rows={table.rows}
              total={table.total}
              totalLabel={t('report.common.total')}
              columns={list.map((inv) => ({
                key: inv.inverterId,
                title: inv.inverterName,
                unit: 'kWh',
                value: (r: SlotRow) => r.energy[inv.inverterId],
                digits: 3,
              }))}
            />
          )}
        </Space>
      </Spin>
    </ReportLayout>
  )
}
