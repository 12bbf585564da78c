/** "3 h 20 min" / "3小时20分" style duration of a clock offset. */
export function offsetText(ms: number, language: string): string {
  const minutes = Math.round(Math.abs(ms) / 60_000)
  const h = Math.floor(minutes / 60)
  const m = minutes % 60
  if (language === 'en')
    return [h ? `${h} h` : '', m ? `${m} min` : ''].filter(Boolean).join(' ') || '0 min'
  return [h ? `${h}小时` : '', m ? `${m}分钟` : ''].join('') || '0分钟'
}

/**
 * The one clock rule of the console: a station's data is shown in the station's own clock (its
 * UTC offset, as the hub answers it with the data). The hub sends those times as wall-clock text
 * (`yyyy-MM-dd HH:mm:ss`), which the console reads as wall-clock times without re-zoning them, so
 * axes, day ranges and "today" all read the station's clock whatever the browser's zone is.
 */

/** `UTC+13:00` / `UTC-03:30` from minutes east of UTC (or an answer's `+13:00`). */
export function utcLabel(offset: number | string): string {
  if (typeof offset === 'string') return `UTC${offset}`
  const sign = offset < 0 ? '-' : '+'
  const m = Math.abs(Math.round(offset))
  return `UTC${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`
}

/** Minutes east of UTC of an answer's `+13:00` / `-03:30` (null when not an offset). */
export function offsetMinutes(label: string | null | undefined): number | null {
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec((label ?? '').trim())
  if (!m) return null
  const minutes = Number(m[2]) * 60 + Number(m[3])
  return m[1] === '-' ? -minutes : minutes
}

/** The date (`yyyy-MM-dd`) it is now in a clock `offsetMinutes` east of UTC. */
export function siteToday(offsetMinutes: number, now: number = Date.now()): string {
  return new Date(now + offsetMinutes * 60_000).toISOString().slice(0, 10)
}
