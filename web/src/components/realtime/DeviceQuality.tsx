import { PauseCircleOutlined, WarningOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import { Alert, Card, Col, Descriptions, Empty, Row, Space, Tag, Tooltip, Typography } from 'antd'
import dayjs from 'dayjs'
import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import type { DeviceQuality, QualityState } from '../../api/realtime/deviceQuality'
import { displayUnit, formatValue } from '../../utils/units'
import { metricLabel } from './metricLabel'
import { deviceQualityQuery } from './useDeviceQuality'

const STATE_COLOR: Record<QualityState, string> = {
  online: 'success',
  withheld: 'warning',
  offline: 'default',
}

const at = (ms: number | null) => (ms === null ? '—' : dayjs(ms).format('YYYY-MM-DD HH:mm:ss'))

/**
 * Online, offline or "values withheld" (answers, but nothing is published until confirmed); the
 * tooltip of a withheld one gives the gateway's reason when known.
 */
export function QualityTag({
  state,
  testId,
  reason,
}: {
  state: QualityState
  testId?: string
  reason?: string | null
}) {
  const { t } = useTranslation()
  const tag = (
    <Tag
      color={STATE_COLOR[state]}
      icon={state === 'withheld' ? <PauseCircleOutlined /> : undefined}
      data-testid={testId}
      data-state={state}
    >
      {t(`realtimeUi.quality.state.${state}`)}
    </Tag>
  )
  return state === 'withheld' ? (
    <Tooltip
      title={
        reason
          ? t('realtimeUi.quality.withheldReason', { reason })
          : t('realtimeUi.quality.withheldNote')
      }
    >
      {tag}
    </Tooltip>
  ) : (
    tag
  )
}

/**
 * A value of a device whose values are withheld (`reason` set): the last one received before the
 * gateway held them back, struck through and greyed so it is never read as current; the tooltip
 * says why. Without a reason the value shows as it is.
 */
export function StaleValue({
  reason,
  testId,
  children,
}: {
  reason: string | null | undefined
  testId?: string
  children: ReactNode
}) {
  const { t } = useTranslation()
  if (!reason) return <>{children}</>
  return (
    <Tooltip title={t('realtimeUi.quality.staleValue', { reason })}>
      <Typography.Text delete type="secondary" data-testid={testId} data-withheld="true">
        {children}
      </Typography.Text>
    </Tooltip>
  )
}

/** One device's quality: state, why and since when it is withheld, changes, suspect counters and values. */
export function DeviceQualityDetail({ q }: { q: DeviceQuality }) {
  const { t } = useTranslation()
  const none = <Typography.Text type="secondary">{t('realtimeUi.quality.none')}</Typography.Text>
  const items = [
    {
      key: 'state',
      label: t('realtimeUi.quality.title'),
      children: <QualityTag state={q.state} testId={`quality-state-${q.id}`} />,
    },
    ...(q.withheld !== null
      ? [
          {
            key: 'reason',
            label: t('realtimeUi.quality.reason'),
            children: (
              <Typography.Text type="warning" data-testid={`quality-reason-${q.id}`}>
                {q.withheld}
              </Typography.Text>
            ),
          },
          {
            key: 'since',
            label: t('realtimeUi.quality.since'),
            children: <span data-testid={`quality-since-${q.id}`}>{at(q.withheldSince)}</span>,
          },
        ]
      : []),
    {
      key: 'changes',
      label: t('realtimeUi.quality.changes'),
      children: (
        <span data-testid={`quality-changes-${q.id}`} data-count={q.changes}>
          {t('realtimeUi.quality.changesCount', { count: q.changes })}
        </span>
      ),
    },
    ...(q.lastChange !== null
      ? [
          {
            key: 'lastChange',
            label: t('realtimeUi.quality.lastChange'),
            children: <span data-testid={`quality-last-change-${q.id}`}>{q.lastChange}</span>,
          },
        ]
      : []),
    {
      key: 'suspect',
      label: (
        <Tooltip title={t('realtimeUi.quality.countersNote')}>
          {t('realtimeUi.quality.suspect')}
        </Tooltip>
      ),
      children:
        q.suspect.length === 0 ? (
          none
        ) : (
          <Space size={[4, 4]} wrap>
            {q.suspect.map((s) => (
              <Tag
                key={s.name}
                color="warning"
                data-testid={`quality-suspect-${q.id}-${s.name}`}
                data-count={s.count}
              >
                {t('realtimeUi.quality.suspectCount', {
                  label: metricLabel(t, s.name),
                  count: s.count,
                })}
              </Tag>
            ))}
          </Space>
        ),
    },
    {
      key: 'counterSteps',
      label: (
        <Tooltip title={t('realtimeUi.quality.counterStepsNote')}>
          {t('realtimeUi.quality.counterSteps')}
        </Tooltip>
      ),
      children:
        q.counterSteps.length === 0 ? (
          none
        ) : (
          <Space size={[4, 4]} wrap>
            {q.counterSteps.map((s) => (
              <Tag
                key={s.name}
                color={s.name === 'glitch' ? 'default' : 'orange'}
                data-testid={`quality-counter-${q.id}-${s.name}`}
                data-count={s.count}
              >
                {t('realtimeUi.quality.suspectCount', {
                  label: t(`report.correction.kinds.${s.name}`, s.name),
                  count: s.count,
                })}
              </Tag>
            ))}
          </Space>
        ),
    },
    ...(q.suspectValues.length > 0
      ? [
          {
            key: 'suspectValues',
            label: t('realtimeUi.quality.suspectValues'),
            children: (
              <Space size={[12, 4]} wrap>
                {q.suspectValues.map((v) => (
                  <Tooltip key={v.name} title={t('realtimeUi.quality.suspectTip')}>
                    <Typography.Text
                      type="warning"
                      data-testid={`quality-suspect-value-${q.id}-${v.name}`}
                      data-value={v.value ?? ''}
                      aria-label={`${metricLabel(t, v.name)} ${v.value ?? ''} (${t('realtimeUi.quality.suspectTip')})`}
                    >
                      <WarningOutlined /> {metricLabel(t, v.name)}{' '}
                      {v.value === null ? '—' : formatValue(v.value, displayUnit(v.unit))}
                    </Typography.Text>
                  </Tooltip>
                ))}
              </Space>
            ),
          },
        ]
      : []),
  ]
  return (
    <div data-testid={`quality-${q.id}`} data-state={q.state}>
      {!q.reported && q.state !== 'offline' && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('realtimeUi.quality.notReported')}
        </Typography.Text>
      )}
      <Descriptions size="small" column={1} items={items} />
    </div>
  )
}

/**
 * A station's devices (or one of them) with what their gateway says of their data quality: the
 * gateway tab lists them all, a device page shows its own.
 */
export default function DeviceQualityPanel({
  stationId,
  deviceId,
  kind,
  bordered = true,
}: {
  stationId: string
  deviceId?: string
  /** Only devices of this kind (`flex` on the tracker page). */
  kind?: string
  bordered?: boolean
}) {
  const { t } = useTranslation()
  const q = useQuery(deviceQualityQuery(stationId, deviceId))
  const list = (q.data ?? []).filter((d) => kind === undefined || d.kind === kind)
  // A device page says nothing when the hub has no word on the device (an older hub).
  if (deviceId !== undefined && list.length === 0 && !q.error) return null
  const body =
    q.error && !q.data ? (
      <Alert type="warning" showIcon title={t('realtimeUi.quality.loadFailed')} />
    ) : list.length === 0 ? (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('realtimeUi.quality.empty')} />
    ) : deviceId !== undefined ? (
      <DeviceQualityDetail q={list[0]} />
    ) : (
      <Row gutter={[12, 12]}>
        {list.map((d) => (
          <Col key={d.id} xs={24} md={12} xl={8}>
            <Card
              size="small"
              title={
                <Typography.Text ellipsis>
                  {d.name} <Typography.Text type="secondary">{d.sn}</Typography.Text>
                </Typography.Text>
              }
              extra={<QualityTag state={d.state} />}
              style={d.state === 'withheld' ? { borderColor: '#faad14' } : undefined}
            >
              <DeviceQualityDetail q={d} />
            </Card>
          </Col>
        ))}
      </Row>
    )
  if (!bordered) return <div data-testid="device-quality">{body}</div>
  return (
    <Card size="small" title={t('realtimeUi.quality.title')} data-testid="device-quality">
      {body}
    </Card>
  )
}
