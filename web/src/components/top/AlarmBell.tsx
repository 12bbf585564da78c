import { BellFilled, BellOutlined } from '@ant-design/icons'
import { Badge, Drawer, Empty, List, Popover, Tabs, Tag, Typography } from 'antd'
import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { markRead } from '../../api/alarm/message'
import { usePhone } from '../../hooks/usePhone'
import {
  alarmBadge,
  alarmDate,
  alarmTarget,
  useAlarmStore,
  workTarget,
  type WorkItem,
} from '../../stores/alarm'
import AlarmOrder from '../repair/AlarmOrder'

/** How long after its fade-out a popover closed by a click still ignores the pointer. */
const REOPEN_GUARD_MS = 300

/**
 * Still bell at 0 alarms, ringing otherwise; the badge counts alarms and unread work items
 * ("99+" above 99). The list (on hover; a tap on a phone) has the alarms, each with its repair
 * order or "create repair order", and the work items (repair orders, inspection tasks), each
 * opening its order or task.
 */
export default function AlarmBell() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const phone = usePhone()
  const count = useAlarmStore((s) => s.count)
  const list = useAlarmStore((s) => s.list)
  const workCount = useAlarmStore((s) => s.workCount)
  const work = useAlarmStore((s) => s.work)
  const [open, setOpen] = useState(false)
  const [tab, setTab] = useState<'alarms' | 'work'>('alarms')
  const ringing = count > 0
  const total = count + workCount

  // After a click in the list the popover closes, but it fades out under the pointer, and the
  // pointer moving over it re-opened it above the detail that just opened. So re-opening is
  // ignored from such a close until a moment after the fade-out has ended.
  const guarded = useRef(false)
  const close = () => {
    guarded.current = true
    setOpen(false)
  }
  const afterOpenChange = (nowOpen: boolean) => {
    if (!nowOpen && guarded.current)
      window.setTimeout(() => (guarded.current = false), REOPEN_GUARD_MS)
  }
  const onOpenChange = (next: boolean) => {
    if (next && guarded.current) return
    setOpen(next)
  }
  const go = (to: string) => {
    close()
    void navigate(to)
  }
  const openWork = (item: WorkItem) => {
    void markRead([item.id]).catch(() => undefined)
    go(workTarget(item))
  }

  const alarms =
    list.length === 0 ? (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('top.noAlarm')} />
    ) : (
      <List
        size="small"
        dataSource={list}
        renderItem={(alarm) => (
          <List.Item
            data-testid="alarm-item"
            data-alarm-id={alarm.id}
            style={{ cursor: 'pointer', minHeight: phone ? 44 : undefined }}
            onClick={() => go(alarmTarget(alarm))}
            actions={[
              <AlarmOrder
                key="order"
                compact
                alarmId={alarm.id}
                repairId={alarm.repairId}
                repairStatus={alarm.repairStatus}
                onOpen={close}
              />,
            ]}
          >
            <List.Item.Meta
              title={`${alarm.stationName} · ${alarm.warningName}`}
              description={
                <Typography.Text type="secondary">
                  {alarm.inverter} {alarmDate(alarm.date)}
                </Typography.Text>
              }
            />
          </List.Item>
        )}
      />
    )

  const works =
    work.length === 0 ? (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('work.none')} />
    ) : (
      <List
        size="small"
        dataSource={work}
        renderItem={(item) => (
          <List.Item
            data-testid="work-item"
            data-work-id={item.id}
            data-biz-id={item.bizId}
            data-type={item.type}
            style={{ cursor: 'pointer', minHeight: phone ? 44 : undefined }}
            onClick={() => openWork(item)}
          >
            <List.Item.Meta
              title={
                <span>
                  <Tag color={item.type === 3 ? 'cyan' : 'orange'}>
                    {item.type === 3 ? t('work.type.3') : t('work.type.4')}
                  </Tag>
                  {item.title}
                </span>
              }
              description={
                <Typography.Text type="secondary">{alarmDate(item.date)}</Typography.Text>
              }
            />
          </List.Item>
        )}
      />
    )

  const content = (
    <div style={{ width: phone ? '100%' : 340 }} data-testid="alarm-list">
      <Tabs
        size="small"
        activeKey={tab}
        onChange={(key) => setTab(key as 'alarms' | 'work')}
        items={[
          {
            key: 'alarms',
            label: (
              <span data-testid="bell-tab-alarms">
                {t('top.alarms')} {count > 0 ? `(${alarmBadge(count)})` : ''}
              </span>
            ),
            children: <div style={{ maxHeight: 360, overflow: 'auto' }}>{alarms}</div>,
          },
          {
            key: 'work',
            label: (
              <span data-testid="bell-tab-work">
                {t('work.title')} {workCount > 0 ? `(${alarmBadge(workCount)})` : ''}
              </span>
            ),
            children: (
              <div style={{ maxHeight: 360, overflow: 'auto' }} data-testid="work-list">
                {works}
              </div>
            ),
          },
        ]}
      />
    </div>
  )

  const bell = (
    <span
      data-testid="alarm-bell"
      data-ringing={ringing}
      data-count={count}
      data-work-count={workCount}
      onClick={phone ? () => setOpen(true) : undefined}
      style={{
        cursor: 'pointer',
        display: 'inline-flex',
        alignItems: 'center',
        justifyContent: 'center',
        ...(phone ? { minWidth: 44, minHeight: 44 } : {}),
      }}
    >
      <Badge count={total} overflowCount={99} size="small" title={alarmBadge(total)}>
        {ringing ? (
          <BellFilled className="bell-ringing" style={{ fontSize: phone ? 22 : 18 }} />
        ) : (
          <BellOutlined style={{ fontSize: phone ? 22 : 18 }} />
        )}
      </Badge>
    </span>
  )

  // On a phone the list is a drawer over the whole width (a popover would not fit beside the bell).
  if (phone) {
    return (
      <>
        {bell}
        <Drawer
          open={open}
          placement="right"
          size={360}
          onClose={() => setOpen(false)}
          styles={{ body: { padding: '0 12px' } }}
          data-testid="alarm-drawer"
        >
          {content}
        </Drawer>
      </>
    )
  }

  return (
    <Popover
      content={content}
      trigger="hover"
      placement="bottomRight"
      open={open}
      onOpenChange={onOpenChange}
      afterOpenChange={afterOpenChange}
    >
      {bell}
    </Popover>
  )
}
