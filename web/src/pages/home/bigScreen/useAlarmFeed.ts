import { useEffect } from 'react'
import { alarmSocketUrl, connectAlarms } from '../../../services/alarmSocket'
import { useAlarmStore } from '../../../stores/alarm'
import { useSessionStore } from '../../../stores/session'

/**
 * The big screen's own alarm feed: the big screen has no top bar, so it opens the alarm websocket
 * itself (same feed as the bell: each message replaces the open alarms, newest first).
 */
export function useAlarmFeed(): void {
  const userId = useSessionStore((s) => s.userInfo?.user_id)
  useEffect(() => {
    if (!userId) return
    return connectAlarms(
      () => {
        const token = useSessionStore.getState().token
        return token ? alarmSocketUrl(userId, token, window.location) : null
      },
      ({ count, data, work, workCount }) =>
        useAlarmStore.getState().replace(count, data, { count: workCount, list: work }),
    )
  }, [userId])
}
