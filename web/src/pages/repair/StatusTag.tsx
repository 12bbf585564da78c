import { Tag } from 'antd'
import { useTranslation } from 'react-i18next'
import { repairStatusColor, repairStatusLabel } from './logic'

/** An order's status as a coloured tag (the contract's names in the console's language). */
export default function RepairStatusTag({
  status,
  name,
  testId = 'repair-status',
}: {
  status: number
  name?: string
  testId?: string
}) {
  const { t } = useTranslation()
  return (
    <Tag color={repairStatusColor(status)} data-testid={testId} data-status={status}>
      {repairStatusLabel(t, status, name)}
    </Tag>
  )
}
