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

/** How long after a click in the list the pointer arriving on the bell does not re-open it. */
export const REOPEN_GUARD_MS = 1000
/** Read only in event handlers (the list's close, the bell's pointer entry). */
const clock = () => Date.now()

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

  // A click in the list closes it for good. The popover is dropped at once rather than faded
  // (remounted under a new key): a fading list under the pointer re-opened above the detail that
  // just opened, and on a loaded machine its motion outlived any fixed guard. The hand moving on
  // to the bell right after the click does not re-open it either: only a pointer entering the
  // bell after the guard window does.
  const [generation, setGeneration] = useState(0)
  const guardUntil = useRef(0)
  const lastEnter = useRef(0)
  const close = () => {
    guardUntil.current = clock() + REOPEN_GUARD_MS
    setOpen(false)
    setGeneration((g) => g + 1)
  }
  const onOpenChange = (next: boolean) => {
    if (next && lastEnter.current < guardUntil.current) return
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
      onMouseEnter={() => (lastEnter.current = clock())}
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
      key={generation}
      content={content}
      trigger="hover"
      placement="bottomRight"
      open={open}
      onOpenChange={onOpenChange}
    >
      {bell}
    </Popover>
  )
}
