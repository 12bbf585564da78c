/**
 * Live alarm feed (connected while the top bar shows, closed when it goes): `/ws/{userId}?token=...` on the page's host; each message
 * `{data: [alarm...], count}` replaces the stored count and list. Keep-alive "{}" every 30 s;
 * reconnects with back-off (1 s doubling to 30 s) while open, stops when closed by its owner.
 */
import type { Alarm, WorkItem } from '../stores/alarm'

export interface AlarmMessage {
  data: Alarm[]
  count: number
  /** The caller's unread work messages (inspection tasks, repair orders), newest first. */
  work: WorkItem[]
  workCount: number
}

const workItem = (raw: unknown): WorkItem | null => {
  if (raw === null || typeof raw !== 'object') return null
  const w = raw as Record<string, unknown>
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '')
  if (text(w.id) === '' || text(w.bizId) === '') return null
  return {
    id: text(w.id),
    type: Number(w.type),
    bizId: text(w.bizId),
    title: typeof w.title === 'string' ? w.title : '',
    date: typeof w.date === 'string' ? w.date : '',
  }
}

export function parseAlarmMessage(text: string): AlarmMessage | null {
  try {
    const parsed = JSON.parse(text) as {
      data?: unknown
      count?: unknown
      work?: unknown
      workCount?: unknown
    }
    if (!Array.isArray(parsed.data)) return null
    const count = typeof parsed.count === 'number' ? parsed.count : parsed.data.length
    const work = Array.isArray(parsed.work)
      ? parsed.work.map(workItem).filter((w): w is WorkItem => w !== null)
      : []
    const workCount = typeof parsed.workCount === 'number' ? parsed.workCount : work.length
    return { data: parsed.data as Alarm[], count, work, workCount }
  } catch {
    return null
  }
}

/**
 * The feed's address. `language` names the console's language: the browser's handshake carries
 * the browser's own Accept-Language, and the hub names alarms in the language it is given.
 */
export function alarmSocketUrl(
  userId: string,
  token: string,
  location: Location,
  language?: string,
): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
  const lang = language ? `&lang=${encodeURIComponent(language)}` : ''
  return `${scheme}://${location.host}/ws/${encodeURIComponent(userId)}?token=${encodeURIComponent(token)}${lang}`
}

export function connectAlarms(
  url: () => string | null,
  onMessage: (message: AlarmMessage) => void,
): () => void {
  let socket: WebSocket | null = null
  let keepAlive: number | undefined
  let retry: number | undefined
  let delay = 1000
  let stopped = false

  const open = () => {
    const target = url()
    if (stopped || target === null) return
    socket = new WebSocket(target)
    socket.onopen = () => {
      delay = 1000
      keepAlive = window.setInterval(() => socket?.send('{}'), 30_000)
    }
    socket.onmessage = (event: MessageEvent) => {
      if (typeof event.data !== 'string') return
      const message = parseAlarmMessage(event.data)
      if (message) onMessage(message)
    }
    socket.onclose = () => {
      window.clearInterval(keepAlive)
      if (stopped) return
      retry = window.setTimeout(open, delay)
      delay = Math.min(delay * 2, 30_000)
    }
  }
  open()

  return () => {
    stopped = true
    window.clearInterval(keepAlive)
    window.clearTimeout(retry)
    socket?.close()
  }
}
