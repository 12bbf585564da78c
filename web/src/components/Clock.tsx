import dayjs from 'dayjs'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'

const weekdayKeys = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const

/** Live clock of the top bar: time, date and weekday, updated every second. */
export default function Clock() {
  const { t } = useTranslation()
  const [now, setNow] = useState(() => dayjs())

  useEffect(() => {
    const timer = window.setInterval(() => setNow(dayjs()), 1000)
    return () => window.clearInterval(timer)
  }, [])

  return (
    <span data-testid="clock" style={{ fontVariantNumeric: 'tabular-nums' }}>
      {now.format('HH:mm:ss')} {now.format('YYYY-MM-DD')}{' '}
      {t(`clock.weekdays.${weekdayKeys[now.day()]}`)}
    </span>
  )
}
