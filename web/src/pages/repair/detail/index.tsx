import { ArrowLeftOutlined } from '@ant-design/icons'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import {
  Alert,
  Button,
  Card,
  Descriptions,
  Empty,
  Flex,
  Image,
  Rate,
  Space,
  Spin,
  Tag,
  Timeline,
  Typography,
  theme,
} from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useSearchParams } from 'react-router-dom'
import { repairDetailQuery, repairKeys } from '../../../api/repair/queries'
import type { RepairAction, RepairOrder } from '../../../api/repair/repair'
import { usePhone } from '../../../hooks/usePhone'
import { levelLabel } from '../../alarm/alarms/labels'
import { levelColor } from '../../alarm/alarms/logic'
import ApprovalNote from '../../flow/ApprovalNote'
import ActionDialog from '../ActionDialog'
import {
  logActionLabel,
  primaryAction,
  repairListPath,
  repairSourceLabel,
  repairStatusLabel,
  sortedActions,
} from '../logic'
import RepairStatusTag from '../StatusTag'

const dash = (v: string | null | undefined) => (v ? v : '-')

function Photos({ links, testId }: { links: string[]; testId: string }) {
  if (links.length === 0) return <>-</>
  return (
    <Image.PreviewGroup>
      <Flex wrap gap={8} data-testid={testId} data-count={links.length}>
        {links.map((link) => (
          <Image key={link} src={link} width={72} height={72} style={{ objectFit: 'cover' }} />
        ))}
      </Flex>
    </Image.PreviewGroup>
  )
}

/** The action buttons; on a phone a bar stuck to the bottom of the screen with large buttons. */
function ActionBar({
  actions,
  phone,
  onAction,
}: {
  actions: RepairAction[]
  phone: boolean
  onAction: (action: RepairAction) => void
}) {
  const { t } = useTranslation()
  const { token } = theme.useToken()
  const primary = primaryAction(actions)
  const buttons = sortedActions(actions).map((action) => (
    <Button
      key={action}
      size={phone ? 'large' : 'middle'}
      type={action === primary ? 'primary' : 'default'}
      danger={action === 'cancel'}
      data-testid={`repair-do-${action}`}
      style={phone ? { flex: '1 1 40%', minHeight: 48 } : undefined}
      onClick={() => onAction(action)}
    >
      {t(`repair.action.${action}`)}
    </Button>
  ))
  if (actions.length === 0) return null
  if (!phone)
    return (
      <Space wrap data-testid="repair-actions">
        {buttons}
      </Space>
    )
  return (
    <div
      data-testid="repair-actions"
      style={{
        position: 'sticky',
        bottom: 0,
        zIndex: 10,
        margin: '12px -8px -8px',
        padding: '8px',
        background: token.colorBgContainer,
        borderTop: `1px solid ${token.colorBorderSecondary}`,
        boxShadow: '0 -2px 8px rgba(0,0,0,0.08)',
      }}
    >
      <Flex wrap gap={8}>
        {buttons}
      </Flex>
    </div>
  )
}

function OrderView({ order, phone }: { order: RepairOrder; phone: boolean }) {
  const { t } = useTranslation()
  const overdue = order.responseOverdue || order.repairOverdue
  return (
    <>
      <Flex align="center" gap={8} wrap style={{ marginBottom: 12 }}>
        <Typography.Title level={phone ? 5 : 4} style={{ margin: 0, wordBreak: 'break-all' }}>
          <span data-testid="repair-code">{order.code}</span>
        </Typography.Title>
        <RepairStatusTag status={order.status} name={order.statusName} />
        <ApprovalNote
          approval={order.approval}
          instance={order.approvalInstance}
          comment={order.approvalComment}
        />
        {order.responseOverdue && (
          <Tag color="red" data-testid="repair-response-overdue">
            {t('repair.responseOverdue')}
          </Tag>
        )}
        {order.repairOverdue && (
          <Tag color="red" data-testid="repair-repair-overdue">
            {t('repair.repairOverdue')}
          </Tag>
        )}
      </Flex>
      <Typography.Paragraph strong style={{ marginBottom: 12 }} data-testid="repair-title">
        {order.title}
      </Typography.Paragraph>
      <Descriptions
        column={phone ? 1 : 2}
        bordered
        size="small"
        data-overdue={overdue}
        styles={{ label: { whiteSpace: phone ? 'nowrap' : undefined } }}
      >
        <Descriptions.Item label={t('repair.field.description')} span={phone ? 1 : 2}>
          <span style={{ whiteSpace: 'pre-wrap' }}>{dash(order.description)}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.station')}>
          {dash(order.stationName)}
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.device')}>
          {dash(order.deviceName)}
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.level')}>
          {order.level > 0 ? (
            <Tag color={levelColor(order.level)}>
              {order.levelName || levelLabel(t, order.level)}
            </Tag>
          ) : (
            '-'
          )}
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.source')}>
          {repairSourceLabel(t, order.source, order.sourceName)}
        </Descriptions.Item>
        {order.alarmId && (
          <Descriptions.Item label={t('repair.field.alarm')}>
            <Link
              to={`/intelligentOperation/alarmData?id=${encodeURIComponent(order.alarmId)}`}
              data-testid="repair-alarm-link"
            >
              {order.alarmName || order.alarmId}
            </Link>
          </Descriptions.Item>
        )}
        <Descriptions.Item label={t('repair.field.assignee')}>
          <span data-testid="repair-assignee">{dash(order.assigneeName)}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.creator')}>
          {dash(order.creatorName)}
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.createTime')}>
          {dash(order.createTime)}
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.responseDeadline')}>
          <Typography.Text type={order.responseOverdue ? 'danger' : undefined}>
            {dash(order.responseDeadline)}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.repairDeadline')}>
          <Typography.Text type={order.repairOverdue ? 'danger' : undefined}>
            {dash(order.repairDeadline)}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.acceptTime')}>
          {dash(order.acceptTime)}
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.finishTime')}>
          {dash(order.finishTime)}
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.completeTime')}>
          {dash(order.completeTime)}
        </Descriptions.Item>
        <Descriptions.Item label={t('repair.field.photos')} span={phone ? 1 : 2}>
          <Photos links={order.photos} testId="repair-photos-view" />
        </Descriptions.Item>
        {(order.workDone || order.finishPhotos.length > 0) && (
          <>
            <Descriptions.Item label={t('repair.field.workDone')} span={phone ? 1 : 2}>
              <span data-testid="repair-work-done" style={{ whiteSpace: 'pre-wrap' }}>
                {dash(order.workDone)}
              </span>
            </Descriptions.Item>
            <Descriptions.Item label={t('repair.field.parts')} span={phone ? 1 : 2}>
              {dash(order.parts)}
            </Descriptions.Item>
            <Descriptions.Item label={t('repair.field.finishPhotos')} span={phone ? 1 : 2}>
              <Photos links={order.finishPhotos} testId="repair-finish-photos-view" />
            </Descriptions.Item>
          </>
        )}
        {order.rating !== null && (
          <>
            <Descriptions.Item label={t('repair.field.rating')}>
              <Rate disabled value={order.rating} data-testid="repair-rating" />
            </Descriptions.Item>
            <Descriptions.Item label={t('repair.field.evaluation')}>
              {dash(order.evaluation)}
            </Descriptions.Item>
          </>
        )}
      </Descriptions>
      <Typography.Title level={5} style={{ marginTop: 20 }}>
        {t('repair.timeline')}
      </Typography.Title>
      <Timeline
        data-testid="repair-timeline"
        items={[...order.logs].reverse().map((log, index) => ({
          key: `${log.createTime}-${index}`,
          color: log.action === 'cancel' ? 'gray' : index === 0 ? 'blue' : 'green',
          content: (
            <div data-testid="repair-log" data-action={log.action}>
              <Typography.Text strong>{logActionLabel(t, log.action)}</Typography.Text>
              {log.toStatus !== null && (
                <Typography.Text type="secondary">
                  {' → '}
                  {repairStatusLabel(t, log.toStatus)}
                </Typography.Text>
              )}
              <div>
                <Typography.Text type="secondary">
                  {log.userName} · {log.createTime}
                </Typography.Text>
              </div>
              {log.note && <div style={{ whiteSpace: 'pre-wrap' }}>{log.note}</div>}
            </div>
          ),
        }))}
      />
    </>
  )
}

/**
 * One repair order (`/intelligentOperation/repair-detail?id=`): its facts, photos and timeline,
 * and a button for each step the caller may take now (the order's `actions`). Phone first: one
 * column, a sticky bar of large buttons at the bottom.
 */
export default function RepairDetailPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const phone = usePhone()
  const queryClient = useQueryClient()
  const [params] = useSearchParams()
  const id = params.get('id') ?? ''
  const detail = useQuery({ ...repairDetailQuery(id), enabled: id !== '', retry: false })
  const [acting, setActing] = useState<RepairAction | null>(null)
  const order = detail.data

  const done = (next: RepairOrder) => {
    setActing(null)
    queryClient.setQueryData(repairDetailQuery(next.id).queryKey, next)
    void queryClient.invalidateQueries({ queryKey: repairKeys.all })
  }

  return (
    <Card
      data-testid="repair-detail-page"
      data-status={order?.status}
      size={phone ? 'small' : 'default'}
      title={
        <Space>
          <Button
            type="text"
            icon={<ArrowLeftOutlined />}
            aria-label={t('repair.backToList')}
            onClick={() => void navigate(repairListPath)}
            data-testid="repair-back"
          />
          {t('repair.detailTitle')}
        </Space>
      }
      extra={
        !phone && order && <ActionBar actions={order.actions} phone={false} onAction={setActing} />
      }
    >
      {id === '' ? (
        <Empty description={t('repair.missingId')} />
      ) : detail.isPending ? (
        <Spin style={{ display: 'block', padding: 48 }} />
      ) : !order ? (
        <Alert type="warning" showIcon title={t('repair.noOrder')} data-testid="repair-missing" />
      ) : (
        <div data-testid={`repair-detail-${order.id}`} data-status={order.status}>
          <OrderView order={order} phone={phone} />
          {phone && <ActionBar actions={order.actions} phone onAction={setActing} />}
        </div>
      )}
      {order && acting && (
        <ActionDialog
          key={acting}
          order={order}
          action={acting}
          onClose={() => setActing(null)}
          onDone={done}
        />
      )}
    </Card>
  )
}
