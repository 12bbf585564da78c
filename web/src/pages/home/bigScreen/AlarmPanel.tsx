import { Tag } from 'antd'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { alarmDate, alarmTarget, useAlarmStore } from '../../../stores/alarm'

/** The latest open alarms, live; a row opens the alarm's detail. */
export default function AlarmPanel() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const list = useAlarmStore((s) => s.list)
  if (list.length === 0)
    return (
      <div className="bigscreen-empty" data-testid="bigscreen-alarms-empty">
        {t('realtimeUi.bigScreen.noAlarms')}
      </div>
    )
  return (
    <ul className="bigscreen-alarms">
      {list.map((alarm) => (
        <li
          key={alarm.id}
          data-testid="bigscreen-alarm"
          data-alarm-id={alarm.id}
          onClick={() => void navigate(alarmTarget(alarm))}
        >
          <Tag color={Number(alarm.type) === 1 ? 'red' : 'orange'} style={{ marginInlineEnd: 0 }}>
            {Number(alarm.type) === 1
              ? t('realtimeUi.bigScreen.alarm')
              : t('realtimeUi.bigScreen.warning')}
          </Tag>
          <span className="bigscreen-alarm-text">
            <span className="bigscreen-alarm-title">{alarm.warningName}</span>
            <span className="bigscreen-alarm-meta">
              {alarm.stationName} {alarm.inverter}
            </span>
          </span>
          <span className="bigscreen-alarm-time">{alarmDate(alarm.date).slice(5, 16)}</span>
        </li>
      ))}
    </ul>
  )
}
