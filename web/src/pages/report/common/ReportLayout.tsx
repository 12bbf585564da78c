import { ReloadOutlined } from '@ant-design/icons'
import { Alert, Button, Card, Empty, Space, Typography } from 'antd'
import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'

export interface ReportLayoutProps {
  testId: string
  /** Pickers (station, devices, period). */
  filters: ReactNode
  /** Buttons on the right (export, settings). */
  actions?: ReactNode
  onReload: () => void
  canReload: boolean
  /** Why nothing is asked yet (no station chosen...), or null. */
  waiting: string | null
  /** The period's problem before asking, or the hub's refusal. */
  problem: string | null
  children: ReactNode
}

/** The frame of every report page: its pickers and buttons, then the figures. */
export default function ReportLayout({
  testId,
  filters,
  actions,
  onReload,
  canReload,
  waiting,
  problem,
  children,
}: ReportLayoutProps) {
  const { t } = useTranslation()
  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid={testId}>
      <Card size="small">
        <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
          <Space wrap>
            {filters}
            <Button
              icon={<ReloadOutlined />}
              disabled={!canReload}
              onClick={onReload}
              data-testid={`${testId}-reload`}
            >
              {t('report.common.refresh')}
            </Button>
          </Space>
          {actions && <Space wrap>{actions}</Space>}
        </Space>
      </Card>
      {problem && <Alert type="error" showIcon title={problem} data-testid={`${testId}-problem`} />}
      {waiting ? (
        <Card size="small">
          <Empty description={waiting} data-testid={`${testId}-waiting`} />
        </Card>
      ) : (
        children
      )}
    </Space>
  )
}

/** A figure card: a label, the value with its unit, an optional note. */
export function Figure({
  label,
  value,
  unit,
  note,
  testId,
}: {
  label: string
  value: string
  unit?: string
  note?: ReactNode
  testId: string
}) {
  return (
    <Card size="small" style={{ minWidth: 130, flex: '1 1 130px' }}>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {label}
      </Typography.Text>
      <div style={{ fontSize: 22, lineHeight: '30px' }}>
        <span data-testid={testId}>{value}</span>
        {unit && (
          <Typography.Text type="secondary" style={{ fontSize: 12, marginLeft: 4 }}>
            {unit}
          </Typography.Text>
        )}
      </div>
      {note && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {note}
        </Typography.Text>
      )}
    </Card>
  )
}

/** A row of figure cards that wraps on a phone. */
export function Figures({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <div data-testid={testId} style={{ display: 'flex', flexWrap: 'wrap', gap: 8 }}>
      {children}
    </div>
  )
}
