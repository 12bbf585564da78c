import { useEffect } from 'react'
import { alarmSocketUrl, connectAlarms } from '../../../services/alarmSocket'
import { useAlarmStore } from '../../../stores/alarm'
import { useSessionStore } from '../../../stores/session'
import { useSettingsStore } from '../../../stores/settings'

/**
 * The big screen's own alarm feed: the big screen has no top bar, so it opens the alarm websocket
 * itself (same feed as the bell: each message replaces the open alarms, newest first). It names
 * the console's language, as the bell does: the handshake carries the browser's, and alarm titles
 * would otherwise come in English on a Chinese console.
 */
export function useAlarmFeed(): void {
  const userId = useSessionStore((s) => s.userInfo?.user_id)
  useEffect(() => {
    if (!userId) return
    return connectAlarms(
      () => {
        const token = useSessionStore.getState().token
        const language = useSettingsStore.getState().language
        return token ? alarmSocketUrl(userId, token, window.location, language) : null
      },
      ({ count, data, work, workCount }) =>
        useAlarmStore.getState().replace(count, data, { count: workCount, list: work }),
    )
  }, [userId])
}
