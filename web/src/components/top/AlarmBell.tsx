import { BellFilled, BellOutlined } from '@ant-design/icons'
import { Badge, Empty, List, Popover, Typography } from 'antd'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { alarmBadge, alarmDate, alarmTarget, useAlarmStore } from '../../stores/alarm'

/** Still bell at 0, ringing otherwise; "99+" above 99; the list shows on hover. */
export default function AlarmBell() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const count = useAlarmStore((s) => s.count)
  const list = useAlarmStore((s) => s.list)
  const ringing = count > 0

  const content = (
    <div style={{ width: 320, maxHeight: 360, overflow: 'auto' }} data-testid="alarm-list">
      {list.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('top.noAlarm')} />
      ) : (
        <List
          size="small"
          dataSource={list}
          renderItem={(alarm) => (
            <List.Item
              data-testid="alarm-item"
              data-alarm-id={alarm.id}
              style={{ cursor: 'pointer' }}
              onClick={() => void navigate(alarmTarget(alarm))}
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
      )}
    </div>
  )

  return (
    <Popover content={content} title={t('top.alarms')} trigger="hover" placement="bottomRight">
      <span
        data-testid="alarm-bell"
        data-ringing={ringing}
        data-count={count}
        style={{ cursor: 'pointer' }}
      >
        <Badge count={count} overflowCount={99} size="small" title={alarmBadge(count)}>
          {ringing ? (
            <BellFilled className="bell-ringing" style={{ fontSize: 18 }} />
          ) : (
            <BellOutlined style={{ fontSize: 18 }} />
          )}
        </Badge>
      </span>
    </Popover>
  )
}
