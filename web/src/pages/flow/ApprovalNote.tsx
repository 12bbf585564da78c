import { Button, Tag, Typography } from 'antd'
import { lazy, Suspense, useState } from 'react'
import { useTranslation } from 'react-i18next'
// The diagram (bpmn-js) loads only when asked for: the order page stays light.
const FlowChart = lazy(() => import('./FlowChart'))

const colors = ['default', 'processing', 'success', 'error']

/** Where a record stands in its approval process (repair order, inspection plan), with its diagram. */
export default function ApprovalNote({
  approval,
  instance,
  comment,
}: {
  approval: number
  instance: string | null
  comment: string
}) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  if (approval <= 0 || approval > 3) return null
  const label =
    approval === 1
      ? t('flow.approval.1')
      : approval === 2
        ? t('flow.approval.2')
        : t('flow.approval.3')
  return (
    <>
      <Tag color={colors[approval]} data-testid="approval-tag">
        {label}
      </Tag>
      {comment && (
        <Typography.Text type="secondary" data-testid="approval-comment">
          {comment}
        </Typography.Text>
      )}
      {instance && (
        <Button size="small" type="link" onClick={() => setOpen(true)}>
          {t('flow.view')}
        </Button>
      )}
      {instance && open && (
        <Suspense fallback={null}>
          <FlowChart open={open} processInstanceId={instance} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  )
}
