import { ClockCircleOutlined, ToolOutlined, WarningOutlined } from '@ant-design/icons'
import { Col, Row } from 'antd'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { formatDuration, repairListPath } from '../../pages/repair/logic'
import { KpiCard } from '../realtime/Kpis'

export interface RepairFigures {
  repairOpen: number | null
  repairOverdue: number | null
  mttrHours: number | null
}

const count = (n: number | null) => ({
  value: n === null ? '--' : String(n),
  unit: '',
  number: n ?? NaN,
})

/** The home page's repair figures: open orders, overdue orders, MTTR; each opens the order list. */
export default function RepairKpis({ figures }: { figures: RepairFigures | undefined }) {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const f = figures ?? { repairOpen: null, repairOverdue: null, mttrHours: null }
  const cards = [
    {
      testId: 'kpi-repair-open',
      label: t('homeRepair.open'),
      value: count(f.repairOpen),
      icon: <ToolOutlined />,
      colour: '#1677ff',
      to: repairListPath,
    },
    {
      testId: 'kpi-repair-overdue',
      label: t('homeRepair.overdue'),
      value: count(f.repairOverdue),
      icon: <WarningOutlined />,
      colour: f.repairOverdue ? '#cf1322' : '#faad14',
      to: `${repairListPath}?overdue=true`,
    },
    {
      testId: 'kpi-repair-mttr',
      label: t('homeRepair.mttr'),
      value: { ...formatDuration(f.mttrHours), number: f.mttrHours ?? NaN },
      icon: <ClockCircleOutlined />,
      colour: '#722ed1',
      to: repairListPath,
    },
  ]
  return (
    <Row gutter={[12, 12]} data-testid="repair-kpis">
      {cards.map(({ to, ...card }) => (
        <Col
          key={card.testId}
          flex="1 1 150px"
          style={{ cursor: 'pointer' }}
          onClick={() => void navigate(to)}
        >
          <KpiCard {...card} />
        </Col>
      ))}
    </Row>
  )
}
