import { useQuery } from '@tanstack/react-query'
import { Card, Col, Collapse, Row, Statistic, Table } from 'antd'
import { useTranslation } from 'react-i18next'
import { repairStatsQuery } from '../../../api/repair/queries'
import type { StationRepairStats } from '../../../api/repair/repair'
import { durationText, formatDuration } from '../logic'

/** Open, overdue and completed orders and the MTTR, overall and per station. */
export default function StatsPanel({ stationId }: { stationId?: string }) {
  const { t } = useTranslation()
  const stats = useQuery(repairStatsQuery(stationId)).data
  const mttr = formatDuration(stats?.mttrHours)
  const figure = (
    testId: string,
    title: string,
    value: string | number,
    danger = false,
    suffix = '',
  ) => (
    <Col xs={12} sm={6}>
      <Card size="small" data-testid={testId} data-value={value}>
        <Statistic
          title={title}
          value={value}
          suffix={suffix || undefined}
          styles={danger && Number(value) > 0 ? { content: { color: '#cf1322' } } : undefined}
        />
      </Card>
    </Col>
  )
  return (
    <div data-testid="repair-stats" style={{ marginBottom: 16 }}>
      <Row gutter={[8, 8]}>
        {figure('repair-stat-open', t('repair.stats.open'), stats?.open ?? '--')}
        {figure('repair-stat-overdue', t('repair.stats.overdue'), stats?.overdue ?? '--', true)}
        {figure(
          'repair-stat-completed',
          t('repair.stats.completed30d'),
          stats?.completed30d ?? '--',
        )}
        {figure('repair-stat-mttr', t('repair.stats.mttr'), mttr.value, false, mttr.unit)}
      </Row>
      {stats && stats.stations.length > 0 && (
        <Collapse
          size="small"
          style={{ marginTop: 8 }}
          items={[
            {
              key: 'stations',
              label: t('repair.stats.byStation'),
              children: (
                <Table<StationRepairStats>
                  size="small"
                  rowKey="stationId"
                  pagination={false}
                  scroll={{ x: 'max-content' }}
                  dataSource={stats.stations}
                  data-testid="repair-stats-stations"
                  columns={[
                    { key: 'name', dataIndex: 'stationName', title: t('repair.field.station') },
                    { key: 'open', dataIndex: 'open', title: t('repair.stats.open') },
                    { key: 'overdue', dataIndex: 'overdue', title: t('repair.stats.overdue') },
                    {
                      key: 'mttr',
                      dataIndex: 'mttrHours',
                      title: t('repair.stats.mttr'),
                      render: (h: number | null) => durationText(h),
                    },
                  ]}
                />
              ),
            },
          ]}
        />
      )}
    </div>
  )
}
